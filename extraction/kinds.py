"""What kind of thing an object is, and which kinds each relation type accepts (its range).

"I moved to Denver" is a move; "I moved to a new habit" is none. A typed fact stands only when
its object is of a kind the relation accepts (`RANGES`, documented with examples in
graph/vocabulary.py); an object outside the range is no fact of that type (it may still be a topic
the memory mentions). Phrases that only look like facts — idioms and support-verb constructions
("come out on top", "make a good team", "take care", "give a heads up") — state none.

An object's kind is decided from the strongest evidence at hand, in order: the entity the token
already stands for (a name typed by the tagger or by a role noun: "my dog Biscuit" is a pet, a
verb: "learning Rust" is a language), the tagger's label of a title or a language (WORK_OF_ART,
PRODUCT, LANGUAGE), a gerund (an activity), then the noun's class in documented word lists
(places, events, groups, classes, schools, works, games, sports, instruments, food, abstract and
light nouns). A word list, not a lexical database: no
registry package ships WordNet's noun classes with their data, and a model download at run time is
not allowed; the lists are general English, never a data set's words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from extraction import concreteness
from extraction.lexicon import PET_NOUNS, PLACE_NOUNS

if TYPE_CHECKING:  # annotations only: the resolver reads the tables here without spaCy loaded
    from spacy.tokens import Token


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PLACE = "place"
ORG = "org"
PERSON = "person"
PET = "pet"
EVENT = "event"
GROUP = "group"  # a team, club, band, community
CLASS = "class"  # a course, lesson, workshop
SCHOOL = "school"  # a school, university, programme of study
WORK = "work"  # a title: a book, film, show, song, game or other creative work
WRITTEN = "written"  # a written work by its kind: a book, novel, article
SCREEN = "screen"  # something watched by its kind: a film, show, series
GAME = "game"
SPORT = "sport"
INSTRUMENT = "instrument"
ACTIVITY = "activity"  # something done: a gerund, a hobby
SUBJECT = "subject"  # a field of study or skill
LANGUAGE = "language"  # a natural or programming language: "Portuguese", "Rust"
FOOD = "food"
GENRE = "genre"  # a kind of book, film or music: "fantasy", "jazz"
PROJECT = "project"
ABSTRACT = "abstract"  # a quality, state or act: "kindness", "education", "unity"
LIGHT = "light"  # a noun too light to be an object at all: "thing", "future", "offer", "top"
NAME = "name"  # a proper name the tagger did not type: a title, a brand, a company
THING = "thing"  # any other concrete noun

EVENT_NOUNS = _words(
    "concert festival party parade race marathon conference convention wedding funeral comp "
    "ceremony tournament competition match game show exhibition exhibit fair rally protest "
    "meeting meetup reunion retreat trip tour cruise camp gala fundraiser event celebration "
    "performance recital audition premiere launch session service vacation holiday picnic "
    "barbecue bbq potluck contest championship league season play musical opera ballet "
    "screening signing reading talk lecture seminar webinar"
)
GROUP_NOUNS = _words(
    "team club group band choir crew squad committee board community society association "
    "league orchestra troupe circle network organization organisation union guild "
    "congregation ensemble"
)
CLASS_NOUNS = _words(
    "class course lesson workshop seminar program programme camp bootcamp tutorial training"
)
SCHOOL_NOUNS = _words(
    "school college university academy institute kindergarten preschool conservatory seminary"
)
WRITTEN_NOUNS = _words(
    "book novel story article poem poetry essay series magazine blog comic manga memoir "
    "biography autobiography paper journal textbook guide chapter newspaper report script "
    "screenplay play letter"
)
SCREEN_NOUNS = _words(
    "movie film show series documentary episode musical play video anime cartoon sitcom drama "
    "season trailer broadcast stream"
)
GAME_NOUNS = _words("game games videogame boardgame puzzle chess checkers cards poker")
SPORT_NOUNS = _words(
    "soccer football basketball baseball volleyball tennis golf hockey rugby cricket softball "
    "badminton squash lacrosse ball pool darts bowling frisbee polo handball pickleball ping- "
    "pong table-tennis"
)
INSTRUMENTS = _words(
    "guitar piano violin cello viola bass drums drum flute clarinet saxophone sax trumpet "
    "trombone harp ukulele banjo mandolin keyboard organ harmonica accordion oboe bassoon "
    "tuba synth synthesizer"
)
FOOD_NOUNS = _words(
    "cake pie bread cookie cookies pizza pasta soup salad dinner lunch breakfast meal dish "
    "dessert cupcake muffin brownie pancake sandwich curry stew sushi taco tacos ice cream "
    "jam sauce smoothie coffee tea cocktail wine beer recipe flavor flavour"
)
# kinds of book, film or music by their genre: "I love fantasy", "we watched a thriller"; the
# norms rate some of them abstract ("fantasy"), but a genre liked is a taste, not a quality
GENRE_NOUNS = _words(
    "fantasy fiction nonfiction non-fiction sci-fi scifi horror thriller comedy romance mystery "
    "drama western anime jazz blues pop hip-hop rap classical punk reggae techno action genre "
    "humor humour"
)
# what a thing is like, not the thing: "I love the color and texture", "love the theme" praise a
# quality of something else; alone they are no object (with a noun before them, "berry flavor",
# "fashion trends", they name a kind of thing)
QUALITY_NOUNS = _words(
    "color colour texture vibe vibes atmosphere mood tone detail details shape feel "
    "energy sound smell scent look style diversity beauty structure"
)
# places by their kind that are not in the lexicon's PLACE_NOUNS (which decide going somewhere
# from attending something): venues and workplaces
VENUE_NOUNS = _words(
    "shelter hospital clinic office studio gym center centre hall stadium arena theater "
    "theatre cinema salon spa pool rink court field track station airport base church school- "
    "yard playground kitchen bakery factory warehouse lab laboratory hotel pharmacy supermarket "
    "bookstore dealership garage"
)
# organisations by their kind: "I work at a bank", "she joined a startup"
ORG_NOUNS = _words(
    "company firm startup agency business corporation nonprofit charity bank brand employer "
    "publisher label nonprofit ngo"
)
# things done, named by a noun: hobbies and pastimes (a gerund is one by its form)
ACTIVITY_NOUNS = _words(
    "yoga pilates meditation pottery photography karate taekwondo judo kickboxing boxing "
    "crochet origami calligraphy archery parkour hike walk run jog swim ride climb dance art "
    "music painting drawing sketching gardening knitting baking cooking"
)
# nouns that name no thing a fact could be about on their own: light heads of idioms and chat
LIGHT_NOUNS = _words(
    "top bottom home future past habit offer thingy thing things stuff lot lots ton tons bit "
    "bunch couple care control head heads sense deal point way time times chance turn step "
    "steps progress change changes difference effort effect use sure case fact kind sort part "
    "side end start beginning rest while moment second minute hour day week month year break "
    "breath look glance shot try attempt go mind heart back hand hands word words team note "
    "notes call check advantage place spot room space world life break best most "
    "least more less unity joy hope peace love faith trust pride fun blast connection "
    "connections relationship relationships memory memories feeling feelings thought thoughts "
    "idea ideas dream dreams goal goals plan plans decision decisions choice choices "
    "opportunity opportunities experience experiences area areas importance method methods "
    "option options aspect aspects benefit benefits tip tips suggestion suggestions "
    "recommendation recommendations information info update updates"
)
# a noun with one of these endings names a quality or an act, not a thing: "kindness", "unity"
ABSTRACT_ENDINGS = ("ness", "ity", "ment", "tion", "sion", "ance", "ence", "ship", "hood", "dom")
# nouns with those endings that are things or events all the same
CONCRETE_EXCEPTIONS = _words(
    "apartment department tournament instrument equipment station competition exhibition "
    "convention celebration graduation vacation expedition excursion ceremony conference "
    "audience residence city university community academy mansion pension television "
    "association organization organisation institution foundation collection installation "
    "composition illustration sculpture"
)

# nouns that measure or collect what their "of" names: "a set of spatulas", "a mix of running
# and swimming", "a cup of coffee" (extraction/relating.py takes what they count as the object)
QUANTITY_HEADS = _words(
    "set pair bunch couple lot lots ton tons kind type sort piece bit variety selection mix "
    "range number handful plenty cup glass bottle bowl plate box bag jar can slice loaf pack "
    "batch dozen series collection load loads stack pile heap"
)

# idioms and support-verb constructions: (verb lemma, object lemma) that state no fact of the
# verb's relation ("I came out on top", "we make a good team", "take care")
IDIOMS = frozenset(
    {
        ("come", "top"),
        ("make", "team"),
        ("make", "change"),
        ("make", "difference"),
        ("make", "sense"),
        ("make", "point"),
        ("make", "progress"),
        ("make", "connection"),
        ("make", "friend"),
        ("make", "memory"),
        ("make", "money"),
        ("make", "plan"),
        ("make", "call"),
        ("make", "deal"),
        ("make", "impression"),
        ("make", "decision"),
        ("make", "effort"),
        ("make", "time"),
        ("make", "way"),
        ("make", "move"),
        ("make", "mistake"),
        ("make", "switch"),  # "make the switch to reusable pads"
        ("make", "jump"),
        ("make", "day"),
        ("make", "chapter"),
        ("take", "care"),
        ("take", "control"),
        ("take", "home"),
        ("take", "step"),
        ("take", "time"),
        ("take", "break"),
        ("take", "chance"),
        ("take", "part"),
        ("take", "place"),
        ("take", "advantage"),
        ("take", "look"),
        ("take", "breath"),
        ("take", "note"),
        ("give", "head"),
        ("give", "heads"),
        ("give", "try"),
        ("give", "shot"),
        ("have", "blast"),
        ("have", "ball"),
        ("have", "time"),
        ("enjoy", "company"),  # "enjoy each other's company"
        ("build", "brand"),
        ("build", "bond"),
        ("build", "base"),  # "build a customer base"
        ("grow", "base"),
        ("make", "path"),  # "make my own path"
        ("get", "lease"),  # "a new lease on life"
        ("give", "lease"),
        ("hit", "gym"),
        ("hit", "road"),
        ("hit", "book"),
        ("learn", "ton"),
        ("learn", "lot"),
        ("start", "chapter"),
        ("play", "part"),
        ("play", "role"),
        ("do", "best"),
        ("do", "part"),
        ("keep", "touch"),
        ("keep", "mind"),
    }
)

_ANY = frozenset(
    {
        PLACE,
        ORG,
        PERSON,
        PET,
        EVENT,
        GROUP,
        CLASS,
        SCHOOL,
        WORK,
        WRITTEN,
        SCREEN,
        GAME,
        SPORT,
        INSTRUMENT,
        ACTIVITY,
        SUBJECT,
        LANGUAGE,
        FOOD,
        GENRE,
        PROJECT,
        ABSTRACT,
        NAME,
        THING,
    }
)  # every kind but LIGHT: no relation takes a light noun
_TITLES = frozenset({WORK, NAME, ORG})  # the small model types titles as orgs, or not at all

# relation type → the kinds of object it accepts (graph/vocabulary.py documents each)
RANGES: dict[str, frozenset[str]] = {
    "WORKS_AT": frozenset({ORG, PLACE, SCHOOL, GROUP, NAME}),
    "WORKS_ON": frozenset({PROJECT, WORK, WRITTEN, SCREEN, GAME, NAME, THING}),
    "STUDIES": frozenset(
        {SUBJECT, LANGUAGE, ACTIVITY, SCHOOL, INSTRUMENT, SPORT, ABSTRACT, NAME, THING}
    ),
    "LIVES_IN": frozenset({PLACE}),
    "MOVED_TO": frozenset({PLACE}),
    "FROM": frozenset({PLACE}),
    "VISITED": frozenset({PLACE, ORG, SCHOOL, EVENT, NAME}),
    # a place or venue gone to is VISITED ("went to the gym"), never attended
    "ATTENDED": frozenset({EVENT, CLASS, SCHOOL, GROUP, ORG, GAME, SPORT, SCREEN, NAME}),
    "MEMBER_OF": frozenset({GROUP, ORG, CLASS, SCHOOL, PROJECT, PLACE, NAME}),
    "VOLUNTEERS_AT": frozenset({ORG, PLACE, GROUP, EVENT, SCHOOL, NAME, THING}),
    "FAMILY_OF": frozenset({PERSON}),
    "PARTNER_OF": frozenset({PERSON}),
    "FRIEND_OF": frozenset({PERSON}),
    "HAS_PET": frozenset({PET}),
    "OWNS": _ANY - {PERSON, ABSTRACT, EVENT, ACTIVITY, SUBJECT, LANGUAGE, CLASS, GROUP, GENRE},
    # a language is studied ("learning Rust") or practised ("practising my Spanish"); liked,
    # disliked, planned and supported as anything is; it is no place, org, work or thing owned
    "PRACTICES": frozenset({ACTIVITY, SPORT, INSTRUMENT, SUBJECT, LANGUAGE, GAME, NAME, THING}),
    "PLAYS": frozenset({GAME, SPORT, INSTRUMENT}) | _TITLES,
    "MADE": frozenset({THING, WORK, WRITTEN, SCREEN, FOOD, GAME, PROJECT, PLACE, NAME}),
    "READ": frozenset({WRITTEN, SCREEN, GENRE}) | _TITLES,
    "WATCHED": frozenset({SCREEN, EVENT, SPORT, GAME, GENRE}) | _TITLES,
    "PLANS": _ANY - {PERSON, ABSTRACT},
    # a liking of a quality or a state ("I love the freedom it brings", "love his skills") is a
    # compliment or a thanks, not a taste: the guideline's abstract_object
    "LIKES": _ANY - {ABSTRACT},
    "DISLIKES": _ANY - {ABSTRACT},
    "SUPPORTS": _ANY,
    "RELATED_TO": _ANY,
}

# relation type → the entity types its subject may be (its domain): who can work somewhere, live
# somewhere, like or plan something. The subject is an entity, so its type is its key's prefix.
# "He teaches at a high school there" with "he" settled on Denver is no fact: a place works
# nowhere. A pet lives, goes, likes and plays; an organisation works on, makes, owns, supports,
# joins and comes from; a person does all of these. RELATED_TO (co-occurrence) takes anyone.
PEOPLE = frozenset({"person"})
ALIVE = frozenset({"person", "pet"})
BODIES = frozenset({"person", "org"})
DOMAINS: dict[str, frozenset[str]] = {
    "WORKS_AT": PEOPLE,
    "WORKS_AS": PEOPLE,
    "WORKS_ON": BODIES,
    "STUDIES": PEOPLE,
    "LIVES_IN": ALIVE,
    "MOVED_TO": ALIVE,
    "FROM": ALIVE | {"org"},
    "VISITED": ALIVE,
    "ATTENDED": ALIVE,
    "MEMBER_OF": BODIES,
    "VOLUNTEERS_AT": PEOPLE,
    "SUPPORTS": BODIES,
    "FAMILY_OF": PEOPLE,
    "PARTNER_OF": PEOPLE,
    "FRIEND_OF": PEOPLE,
    "HAS_PET": PEOPLE,
    "OWNS": BODIES,
    "LIKES": ALIVE,
    "DISLIKES": ALIVE,
    "PRACTICES": PEOPLE,
    "PLAYS": ALIVE,
    "MADE": BODIES,
    "READ": PEOPLE,
    "WATCHED": PEOPLE,
    "PLANS": PEOPLE,
}


def in_domain(relation: str, subject_key: str) -> bool:
    """Whether an entity (by its key) may be the subject of a fact of this type; RELATED_TO and a
    reference not settled yet (`ref:`) may be anyone."""
    accepted = DOMAINS.get(relation)
    entity_type = subject_key.partition(":")[0]
    return accepted is None or entity_type == "ref" or entity_type in accepted


_BY_KEY = {
    "project": PROJECT,
    "place": PLACE,
    "org": ORG,
    "person": PERSON,
    "pet": PET,
    "event": EVENT,
    "work": WORK,
    "language": LANGUAGE,
}
_AMOUNTS = frozenset({"MONEY", "PERCENT", "QUANTITY", "CARDINAL", "ORDINAL", "DATE", "TIME"})
_BY_LABEL = {"WORK_OF_ART": WORK, "PRODUCT": THING, "LANGUAGE": LANGUAGE, "EVENT": EVENT}


def kind_of(token: Token, key: str | None) -> str:
    """The kind of thing an object token names (see the module docstring for the order)."""
    prefix = (key or "").partition(":")[0]
    if prefix == "project":
        return PROJECT
    if prefix in _BY_KEY:
        return _BY_KEY[prefix]
    label = token.ent_type_
    if label in _AMOUNTS:
        return LIGHT  # "making 70,000 dollars", "went there on Sunday": an amount, a time
    if label in _BY_LABEL:
        return _BY_LABEL[label]
    if label in {"GPE", "LOC", "FAC"}:
        return PLACE
    if label == "ORG":
        return ORG
    if token.tag_ == "VBG" or (token.pos_ == "VERB" and token.dep_ in {"pcomp", "xcomp"}):
        return ACTIVITY
    if token.pos_ == "ADJ":
        return LIGHT  # "working on something challenging": a description, not a thing
    return _noun_kind(token)


def _noun_kind(token: Token) -> str:
    lemma = token.lemma_.lower()
    words = {lemma, token.lower_}
    for kind, nouns in _NOUN_CLASSES:
        if words & nouns:
            return kind
    if lemma in LIGHT_NOUNS or token.lower_ in LIGHT_NOUNS:
        return LIGHT
    if token.pos_ == "PROPN":
        return NAME  # an untyped name: a title, a brand or a company, as far as we know
    if token.tag_ == "NN" and lemma.endswith("ing"):
        return ACTIVITY  # "gardening", "knitting"
    # "fashion trends", "berry flavors": a noun before the head names a kind of thing
    named_kind = any(c.dep_ == "compound" and c.pos_ in {"NOUN", "PROPN"} for c in token.children)
    if words & QUALITY_NOUNS:
        return THING if named_kind else LIGHT
    if named_kind:
        return THING
    if lemma.endswith(ABSTRACT_ENDINGS) and lemma not in CONCRETE_EXCEPTIONS:
        return ABSTRACT
    if concreteness.abstract(lemma, token.lower_):
        return ABSTRACT  # rated abstract by people: "chance", "advice", "vibe"
    return THING


_NOUN_CLASSES: tuple[tuple[str, frozenset[str]], ...] = (
    (PET, frozenset(PET_NOUNS)),
    (SCHOOL, SCHOOL_NOUNS),
    (CLASS, CLASS_NOUNS),
    (GROUP, GROUP_NOUNS),
    (INSTRUMENT, INSTRUMENTS),
    (SPORT, SPORT_NOUNS),
    (GAME, GAME_NOUNS),
    (SCREEN, SCREEN_NOUNS),
    (WRITTEN, WRITTEN_NOUNS),
    (GENRE, GENRE_NOUNS),
    (EVENT, EVENT_NOUNS),
    (FOOD, FOOD_NOUNS),
    (ACTIVITY, ACTIVITY_NOUNS),
    (ORG, ORG_NOUNS),
    (PLACE, frozenset(PLACE_NOUNS) | VENUE_NOUNS),
)


def governor(token: Token) -> Token | None:
    """The verb an object hangs from, through prepositions and coordination."""
    head = token.head
    for _ in range(4):
        if head.pos_ in {"VERB", "AUX"}:
            return head
        if head is head.head:
            return None
        head = head.head
    return None


# kinds a word list names outright: "take a course" and "join the club" are rated below 3 as
# expressions, but the course and the club are the things the relation is about
_LISTED_KINDS = frozenset(
    {CLASS, SCHOOL, GROUP, EVENT, INSTRUMENT, SPORT, GAME, WRITTEN, SCREEN, FOOD, GENRE, PET}
)


def idiom(obj: Token, kind: str | None = None) -> bool:
    """Whether an object and the verb it hangs from make an idiom that states no fact ("take
    care", "make a good team"), or the object is a gerund that makes one with its own object
    ("started hitting the gym"): the pair is in `IDIOMS`, or the phrase is a multiword
    expression people rate as figurative (extraction/concreteness.py) and the object is no
    thing a word list names (`kind`, when known)."""
    verb = governor(obj)
    if verb is not None and (verb.lemma_.lower(), obj.lemma_.lower()) in IDIOMS:
        return True
    if verb is not None and kind not in _LISTED_KINDS and _figurative(verb, obj):
        return True
    own = [c for c in obj.children if c.dep_ in {"dobj", "obj"}]
    return obj.pos_ == "VERB" and any(
        (obj.lemma_.lower(), o.lemma_.lower()) in IDIOMS or _figurative(obj, o) for o in own
    )


def _figurative(verb: Token, obj: Token) -> bool:
    """The verb phrase as the expression lists spell it ("come out on top", "make my day",
    "have a blast"): the verb's lemma, its particles, the object's preposition, its determiner
    (as said, or none, "a", "the") and the object (as said, or its lemma)."""
    if obj.pos_ == "PROPN" or obj.i < verb.i:
        return False
    words = [verb.lemma_.lower()]
    words += [c.lower_ for c in verb.children if c.dep_ == "prt" and c.i < obj.i]
    if obj.head.dep_ == "prep" and obj.head.i > verb.i:
        words.append(obj.head.lower_)
    said = [c.lower_ for c in obj.children if c.dep_ in {"det", "poss"}][:1]
    # lists spell a possessive as "one's" or "your" ("spread one's wings", "try your luck")
    owned = [["one's"], ["your"]] if any(c.dep_ == "poss" for c in obj.children) else []
    phrasings = [
        " ".join([*words, *determiner, noun])
        for noun in dict.fromkeys((obj.lower_, obj.lemma_.lower()))
        for determiner in (said, [], ["a"], ["the"], *owned)
    ]
    return concreteness.figurative(*phrasings)


# a thanks formula ("thanks for your support", "I appreciate your kind words", "our friendship
# means a lot"): what the listener gave or shares is no liking of the speaker's
_LISTENERS = {"your", "our", "yours", "ur"}


def thanks(obj: Token) -> bool:
    """Whether an object is the listener's (or ours together) or what someone is thanked for."""
    if any(c.dep_ == "poss" and c.lower_ in _LISTENERS for c in obj.children):
        return True
    head = obj.head
    return (
        head.dep_ == "prep"
        and head.lower_ == "for"
        and head.head.lemma_.lower()
        in {
            "thank",
            "thanks",
            "grateful",
            "thankful",
        }
    )


def in_range(relation: str, kind: str) -> bool:
    accepted = RANGES.get(relation)
    return accepted is None or kind in accepted


def entities_fit(relation: str, subject_key: str, object_key: str) -> bool:
    """Whether a fact between two resolved entities keeps its relation's domain and, where the
    object's type says its kind (a name typed as a place, a person, a pet…), its range. A
    reference may resolve to another type than the text suggested ("he" to a name the tagger
    took for a person and the catalogue knows as a place): the fact is judged again then."""
    if not in_domain(relation, subject_key):
        return False
    kind = _BY_KEY.get(object_key.partition(":")[0])
    return kind is None or in_range(relation, kind)

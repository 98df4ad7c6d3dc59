"""The resolver's rules on hand-made mentions (pure logic; the real-model path is covered by
test_knowledge_graph.py against the embedded engine)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from extraction.model import (
    REF_PREFIX,
    Extraction,
    KnownEntity,
    Mention,
    Reference,
    Relation,
)
from extraction.resolver import Resolution, Resolver, RoleLink


def _resolve(
    resolver: Resolver,
    *mentions: Mention,
    relations: tuple[Relation, ...] = (),
    memory_id: str = "m1",
    session: str | None = "s1",
) -> Resolution:
    return resolver.resolve(Extraction(list(mentions), list(relations)), memory_id, session)


def _keys(resolution: Resolution) -> list[str]:
    return resolution.extraction.keys()


def _typed(resolution: Resolution) -> set[tuple[str, str, str]]:
    return {(r.src, r.type, r.dst) for r in resolution.extraction.relations}


def test_first_name_resolves_to_the_only_full_name() -> None:
    resolver = Resolver([KnownEntity("person:mary_smith", "person", "Mary Smith")])
    out = _resolve(resolver, Mention("person:mary", "person", "Mary"))
    assert _keys(out) == ["person:mary_smith"]
    assert out.aliases == {"person:mary_smith": {"Mary"}}


def test_ambiguous_first_name_stays_its_own_entity() -> None:
    resolver = Resolver(
        [
            KnownEntity("person:mary_smith", "person", "Mary Smith"),
            KnownEntity("person:mary_jones", "person", "Mary Jones"),
        ]
    )
    assert _keys(_resolve(resolver, Mention("person:mary", "person", "Mary"))) == ["person:mary"]


def test_full_name_resolves_to_the_only_bare_first_name() -> None:
    resolver = Resolver([KnownEntity("person:tom", "person", "Tom")])
    out = _resolve(resolver, Mention("person:tom_baker", "person", "Tom Baker"))
    assert _keys(out) == ["person:tom"]
    assert out.aliases == {"person:tom": {"Tom Baker"}}


def test_known_alias_resolves() -> None:
    resolver = Resolver([KnownEntity("org:acme_corp", "org", "Acme Corp", ("Acme",))])
    assert _keys(_resolve(resolver, Mention("org:acme", "org", "Acme"))) == ["org:acme_corp"]


def test_mistyped_person_resolves_to_the_known_person() -> None:
    resolver = Resolver([KnownEntity("person:caroline", "person", "Caroline")])
    out = _resolve(resolver, Mention("org:caroline", "org", "Caroline"))
    assert out.extraction.mentions == [Mention("person:caroline", "person", "Caroline")]


def test_short_form_resolves_to_the_only_longer_first_name() -> None:
    resolver = Resolver(
        [
            KnownEntity("person:melanie", "person", "Melanie"),
            KnownEntity("person:caroline", "person", "Caroline"),
        ]
    )
    assert _keys(_resolve(resolver, Mention("person:mel", "person", "Mel"))) == ["person:melanie"]
    assert _keys(_resolve(resolver, Mention("person:caro", "person", "Caro"))) == [
        "person:caroline"
    ]
    # two people start with "Dan": no guess; two letters are too few to tell
    resolver.learn(KnownEntity("person:daniel", "person", "Daniel"))
    resolver.learn(KnownEntity("person:danielle", "person", "Danielle"))
    assert _keys(_resolve(resolver, Mention("person:dan", "person", "Dan"))) == ["person:dan"]
    assert _keys(_resolve(resolver, Mention("person:ca", "person", "Ca"))) == ["person:ca"]


def test_a_nickname_is_the_known_person_whatever_the_tagger_said() -> None:
    """ "Liz" (the tagger: an org) beside the known Elizabeth is Elizabeth: the `nicknames`
    table knows Liz as a short form of Elizabeth; a nickname two known people share is
    nobody's."""
    resolver = Resolver([KnownEntity("person:elizabeth", "person", "Elizabeth")])
    assert _keys(_resolve(resolver, Mention("org:liz", "org", "Liz"))) == ["person:elizabeth"]
    resolver.learn(KnownEntity("person:robert", "person", "Robert"))
    assert _keys(_resolve(resolver, Mention("place:bob", "place", "Bob"))) == ["person:robert"]
    # a full name is not a known nickname's person, and one text naming both names two people
    known_bobby = Resolver([KnownEntity("person:bobby", "person", "Bobby")])
    assert _keys(_resolve(known_bobby, Mention("person:robert", "person", "Robert"))) == [
        "person:robert"
    ]
    two = _resolve(
        Resolver([KnownEntity("person:robert", "person", "Robert")]),
        Mention("person:bobby", "person", "Bobby"),
        Mention("person:robert", "person", "Robert"),
    )
    assert sorted(_keys(two)) == ["person:bobby", "person:robert"]
    resolver.learn(KnownEntity("person:alexander", "person", "Alexander"))
    resolver.learn(KnownEntity("person:alexandra", "person", "Alexandra"))
    assert _keys(_resolve(resolver, Mention("person:alex", "person", "Alex"))) == ["person:alex"]


def test_a_title_said_by_evidence_corrects_the_taggers_guess() -> None:
    """ "Stardew Valley" the tagger took for a place, then "the game Stardew Valley": the place
    merges into the work, and a later bare mention under any guess is the work."""
    resolver = Resolver([KnownEntity("place:stardew_valley", "place", "Stardew Valley")])
    out = _resolve(resolver, Mention("work:stardew_valley", "work", "Stardew Valley", typed=True))
    assert _keys(out) == ["work:stardew_valley"]
    assert out.merges == [("place:stardew_valley", "work:stardew_valley")]
    later = _resolve(resolver, Mention("org:stardew_valley", "org", "Stardew Valley"))
    assert _keys(later) == ["work:stardew_valley"]


def test_the_guess_and_the_evidence_in_one_text_resolve_to_the_work() -> None:
    """One reply names "the Underground Railroad" twice: the tagger's place first (known from
    earlier), then the title by evidence. The place merges into the work while the text is
    being settled; the first mention, already settled on the place, follows it (a KeyError on
    real text before)."""
    place = KnownEntity("place:underground_railroad", "place", "Underground Railroad")
    resolver = Resolver([place])
    out = _resolve(
        resolver,
        Mention("place:underground_railroad", "place", "Underground Railroad"),
        Mention("place:georgia", "place", "Georgia"),
        Mention("work:underground_railroad", "work", "Underground Railroad", typed=True),
        relations=(Relation("place:georgia", "RELATED_TO", "place:underground_railroad"),),
    )
    assert sorted(_keys(out)) == ["place:georgia", "work:underground_railroad"]
    assert out.merges == [("place:underground_railroad", "work:underground_railroad")]
    assert _typed(out) == {("place:georgia", "RELATED_TO", "work:underground_railroad")}


def test_a_title_from_the_taggers_label_alone_corrects_nothing() -> None:
    resolver = Resolver([KnownEntity("person:sam", "person", "Sam")])
    out = _resolve(resolver, Mention("work:sam", "work", "Sam"))
    assert _keys(out) == ["person:sam"] and out.merges == []


def test_a_name_called_out_to_is_the_listener_it_begins_like() -> None:
    resolver = Resolver()
    speakers = [
        Extraction([Mention("person:joanna", "person", "Joanna", as_speaker=True)]),
        Extraction([Mention("person:nate", "person", "Nate", as_speaker=True)]),
    ]
    resolver.learn_speakers(speakers)
    nate = Mention("person:nate", "person", "Nate", as_speaker=True)
    called = Mention("person:jo", "person", "Jo", addressed=True)
    out = _resolve(resolver, nate, called)
    assert _keys(out) == ["person:nate", "person:joanna"]
    assert out.aliases == {"person:joanna": {"Jo"}}
    # a short form that is no prefix of the name ("Mell" for Melanie) still begins like it
    resolver.learn_speakers(
        [Extraction([Mention("person:melanie", "person", "Melanie", as_speaker=True)])]
    )
    mell = Mention("person:mell", "person", "Mell", addressed=True)
    assert "person:melanie" in _keys(_resolve(resolver, nate, mell))
    # said about someone, not called out to; or called but beginning like nobody listening
    assert "person:joe" in _keys(_resolve(resolver, nate, Mention("person:joe", "person", "Joe")))
    kim = Mention("person:kim", "person", "Kim", addressed=True)
    assert "person:kim" in _keys(_resolve(resolver, nate, kim))
    # the speaker's own name is never the listener
    assert "person:na" in _keys(
        _resolve(resolver, nate, Mention("person:na", "person", "Na", addressed=True))
    )


def test_an_acronym_is_the_one_known_name_of_those_initials() -> None:
    resolver = Resolver(
        [
            KnownEntity("person:harry_potter", "person", "Harry Potter"),
            KnownEntity("topic:lord_of_the_rings", "topic", "The Lord of the Rings"),
        ]
    )
    out = _resolve(resolver, Mention("org:hp", "org", "HP"), Mention("org:lotr", "org", "LOTR"))
    assert _keys(out) == ["person:harry_potter", "topic:lord_of_the_rings"]
    # lower case is a word, not an acronym; two names with the initials: no guess
    assert _keys(_resolve(resolver, Mention("org:hp", "org", "Hp"))) == ["org:hp"]
    resolver.learn(KnownEntity("org:hewlett_packard", "org", "Hewlett Packard"))
    assert _keys(_resolve(resolver, Mention("org:hp", "org", "HP"))) == ["org:hp"]


def test_relations_follow_resolution_and_batch_learning() -> None:
    resolver = Resolver()
    first = _resolve(resolver, Mention("person:mary_smith", "person", "Mary Smith"))
    second = _resolve(
        resolver,
        Mention("person:mary", "person", "Mary"),
        Mention("place:boston", "place", "Boston"),
        relations=(Relation("person:mary", "LIVES_IN", "place:boston"),),
    )
    assert _keys(first) == ["person:mary_smith"]
    assert second.extraction.relations == [
        Relation("person:mary_smith", "LIVES_IN", "place:boston")
    ]
    assert resolver.resolve_key("person:mary") == "person:mary_smith"
    assert resolver.resolve_key("person:nobody") is None


def test_named_finds_keys_by_label_and_alias_in_learn_order() -> None:
    resolver = Resolver(
        [
            KnownEntity("person:mary_smith", "person", "Mary Smith", ("Mary",)),
            KnownEntity("org:mary", "org", "Mary"),
        ]
    )
    assert resolver.named("mary") == ["person:mary_smith", "org:mary"]
    assert resolver.named("mary_smith") == ["person:mary_smith"]
    assert resolver.named("nobody") == []
    # learning again (a new mention count) neither duplicates nor reorders
    resolver.learn(KnownEntity("person:mary_smith", "person", "Mary Smith", ("Mary",), 5))
    assert resolver.named("mary") == ["person:mary_smith", "org:mary"]


def test_a_tentative_name_is_kept_only_when_known() -> None:
    resolver = Resolver([KnownEntity("person:blue", "person", "Blue")])
    glad = Mention("person:glad", "person", "Glad", tentative=True)
    blue = Mention("person:blue", "person", "Blue", tentative=True)
    out = _resolve(
        resolver, glad, blue, relations=(Relation("person:glad", "RELATED_TO", "person:blue"),)
    )
    assert _keys(out) == ["person:blue"]
    assert out.extraction.relations == []


def test_a_candidate_topic_becomes_an_entity_when_it_recurs() -> None:
    resolver = Resolver(candidates=[("topic:lighthouse", ["m0"])])
    harbour = Mention("topic:harbour", "topic", "harbour", candidate=True)
    first = _resolve(resolver, harbour, memory_id="m1")
    assert _keys(first) == [] and first.candidates == ["topic:harbour"]
    again = _resolve(resolver, harbour, memory_id="m1")  # the same memory does not count twice
    assert _keys(again) == []
    second = _resolve(resolver, harbour, memory_id="m2")
    assert _keys(second) == ["topic:harbour"]
    assert second.back_mentions == [("m1", "topic:harbour")]
    # a candidate read back from the graph counts as the first memory
    lighthouse = _resolve(
        resolver, Mention("topic:lighthouse", "topic", "lighthouse", candidate=True), memory_id="m3"
    )
    assert _keys(lighthouse) == ["topic:lighthouse"]
    assert lighthouse.back_mentions == [("m0", "topic:lighthouse")]
    # once an entity, a candidate mention is a plain mention
    later = _resolve(resolver, harbour, memory_id="m4")
    assert _keys(later) == ["topic:harbour"] and later.back_mentions == []


def _pronoun(gender: str) -> Mention:
    return Mention(f"{REF_PREFIX}{gender}", "person", "she", reference=Reference("pronoun", gender))


def test_a_pronoun_is_the_last_person_of_its_gender_in_the_session() -> None:
    resolver = Resolver([KnownEntity("person:ben", "person", "Ben", gender="male")])
    caro = Mention("person:caro", "person", "Caro", as_speaker=True)
    mel = Mention("person:mel", "person", "Mel", as_speaker=True)
    resolver.learn_speakers([Extraction([caro]), Extraction([mel])])
    _resolve(resolver, caro, Mention("person:ana", "person", "Ana", gender="female"))
    _resolve(resolver, mel, Mention("person:ben", "person", "Ben"))
    ana_teaches = _resolve(
        resolver,
        caro,
        _pronoun("female"),
        Mention("topic:school", "topic", "school"),
        relations=(Relation(f"{REF_PREFIX}female", "WORKS_AT", "topic:school"),),
    )
    # Ben (male) and the speakers (addressed as "you") are passed over
    assert ("person:ana", "WORKS_AT", "topic:school") in _typed(ana_teaches)
    # another session knows nobody: the pronoun and its fact are dropped
    other = _resolve(
        resolver,
        caro,
        _pronoun("female"),
        Mention("topic:school", "topic", "school"),
        relations=(Relation(f"{REF_PREFIX}female", "WORKS_AT", "topic:school"),),
        session="s2",
    )
    assert _typed(other) == set()


def _husband(owner: str) -> Mention:
    reference = Reference("role", "male", owner, "husband")
    return Mention(f"{REF_PREFIX}role:{owner}:husband", "person", "husband", reference=reference)


def test_a_role_of_an_owner_merged_away_in_the_same_text_follows_the_merge() -> None:
    """The owner of "her husband" was settled on a guess that a typed mention of the same
    name then merged away, in the same text: the role follows the merge (a KeyError on a
    LongMemEval haystack before)."""
    resolver = Resolver([KnownEntity("place:ada_hall", "place", "Ada Hall")])
    ref = _husband("place:ada_hall")
    out = _resolve(
        resolver,
        Mention("place:ada_hall", "place", "Ada Hall"),
        Mention("person:ada_hall", "person", "Ada Hall", gender="female"),
        ref,
    )
    assert out.merges == [("place:ada_hall", "person:ada_hall")]
    assert sorted(_keys(out)) == ["person:ada_hall", "person:ada_hall_husband"]


def test_an_unnamed_relative_is_a_person_merged_into_the_name_given_later() -> None:
    resolver = Resolver([KnownEntity("person:mel", "person", "Mel")])
    ref = _husband("person:mel")
    out = _resolve(
        resolver,
        Mention("person:mel", "person", "Mel", as_speaker=True),
        ref,
        relations=(Relation("person:mel", "PARTNER_OF", ref.key, "husband"),),
    )
    assert ("person:mel", "PARTNER_OF", "person:mel_husband") in _typed(out)
    husband = resolver.entities["person:mel_husband"]
    assert (husband.label, husband.unnamed, husband.gender) == ("Mel's husband", True, "male")
    # the same role later is the same person
    again = _resolve(resolver, _husband("person:mel"), memory_id="m2")
    assert _keys(again) == ["person:mel_husband"]
    # "my husband Tom": the unnamed husband is merged into Tom, who inherits the role
    named = _resolve(
        resolver,
        Mention("person:mel", "person", "Mel", as_speaker=True),
        Mention("person:tom", "person", "Tom"),
        relations=(Relation("person:mel", "PARTNER_OF", "person:tom", "husband"),),
        memory_id="m3",
    )
    assert named.merges == [("person:mel_husband", "person:tom")]
    assert "person:mel_husband" not in resolver.entities
    assert "Mel's husband" in resolver.entities["person:tom"].aliases
    assert _keys(_resolve(resolver, _husband("person:mel"), memory_id="m4")) == ["person:tom"]


def test_roles_read_from_the_graph_resolve_and_many_friends_are_nobody() -> None:
    resolver = Resolver(
        [
            KnownEntity("person:mel", "person", "Mel"),
            KnownEntity("person:tom", "person", "Tom"),
        ],
        roles=[RoleLink("person:mel", "husband", "person:tom")],
    )
    assert _keys(_resolve(resolver, _husband("person:mel"))) == ["person:tom"]
    friend = Reference("role", None, "person:mel", "friend")
    out = _resolve(
        resolver,
        Mention(f"{REF_PREFIX}role:person:mel:friend", "person", "friend", reference=friend),
    )
    assert _keys(out) == []


def test_you_is_the_other_speaker_of_the_session() -> None:
    resolver = Resolver()
    jon = Mention("person:jon", "person", "Jon", as_speaker=True)
    gina = Mention("person:gina", "person", "Gina", as_speaker=True)
    you = Mention(f"{REF_PREFIX}addressee", "person", "you", reference=Reference("addressee"))
    resolver.learn_speakers([Extraction([jon]), Extraction([gina])])
    # nobody has spoken to Jon yet: "you" is nobody, the fact is dropped
    alone = _resolve(resolver, jon, you, relations=(Relation("person:jon", "SUPPORTS", you.key),))
    assert _typed(alone) == set()
    _resolve(resolver, gina, memory_id="m2")
    out = _resolve(
        resolver, jon, you, relations=(Relation("person:jon", "SUPPORTS", you.key),), memory_id="m3"
    )
    assert _typed(out) == {("person:jon", "SUPPORTS", "person:gina")}
    # another session has no other speaker
    other = _resolve(
        resolver,
        jon,
        you,
        relations=(Relation("person:jon", "SUPPORTS", you.key),),
        memory_id="m4",
        session="s2",
    )
    assert _typed(other) == set()


def test_most_mentions_follows_the_catalogue_without_rescanning_it() -> None:
    """Frequency's scale: the top count rises with learning, and is counted again when the
    entity holding it drops (a recount) or is merged away."""
    resolver = Resolver(
        [
            KnownEntity("person:ann", "person", "Ann", mention_count=5),
            KnownEntity("person:bob", "person", "Bob", mention_count=9),
        ]
    )
    assert resolver.most_mentions == 9
    resolver.learn(KnownEntity("person:cy", "person", "Cy", mention_count=12))
    assert resolver.most_mentions == 12
    resolver.learn(KnownEntity("person:cy", "person", "Cy", mention_count=3))
    assert resolver.most_mentions == 9
    resolver.learn_alias("person:ann", "person:bob", ["Bob"])
    assert resolver.most_mentions == 5
    assert Resolver().most_mentions == 0


def _spoken(
    resolver: Resolver, speaker: str, *relations: Relation, stated: bool = False
) -> set[tuple[str, str, str]]:
    key = f"person:{speaker.lower()}"
    extraction = Extraction(
        [
            Mention(key, "person", speaker, as_speaker=True),
            Mention("person:ann", "person", "Ann"),
            Mention("place:boston", "place", "Boston"),
        ],
        list(relations),
    )
    resolver.learn_speakers([extraction])
    return _typed(resolver.resolve(extraction, "m", "s1", stated=stated))


def test_a_typed_fact_about_another_speaker_is_not_stated_by_this_one() -> None:
    resolver = Resolver()
    _spoken(resolver, "Ann")  # Ann speaks in this user's memories
    about_ann = Relation("person:ann", "MOVED_TO", "place:boston")
    assert _spoken(resolver, "Assistant", about_ann) == set()
    assert _spoken(resolver, "Ann", about_ann) == {("person:ann", "MOVED_TO", "place:boston")}
    # co-occurrence states nothing; a stated fact is the client's assertion
    near = Relation("person:ann", "RELATED_TO", "place:boston")
    assert _spoken(resolver, "Assistant", near) == {("person:ann", "RELATED_TO", "place:boston")}
    assert _spoken(resolver, "Assistant", about_ann, stated=True) == {
        ("person:ann", "MOVED_TO", "place:boston")
    }
    # the rule only measures when off
    resolver.attribution = False
    assert _spoken(resolver, "Assistant", about_ann) == {("person:ann", "MOVED_TO", "place:boston")}


def test_a_fact_between_two_speakers_stands_only_on_theirs() -> None:
    resolver = Resolver()
    _spoken(resolver, "Ann")
    _spoken(resolver, "Bob")
    acknowledged = Relation("person:ann", "SUPPORTS", "person:bob", attested=True)

    def said_by(speaker: str, support: Relation = acknowledged) -> set[tuple[str, str, str]]:
        extraction = Extraction(
            [
                Mention(f"person:{speaker.lower()}", "person", speaker, as_speaker=True),
                Mention("person:ann", "person", "Ann"),
                Mention("person:bob", "person", "Bob"),
            ],
            [support],
        )
        return _typed(resolver.resolve(extraction, "m", "s1"))

    fact = {("person:ann", "SUPPORTS", "person:bob")}
    assert said_by("Ann") == fact  # the one who does it
    assert said_by("Bob") == fact  # the one it is done to, thanking for it
    assert said_by("Cy") == set()  # a third speaker states nothing about Ann
    # named as done to Bob but not acknowledged by him ("show your support"): not his to state
    assert said_by("Bob", replace(acknowledged, attested=False)) == set()


def test_a_fact_about_someone_who_never_speaks_comes_from_any_speaker() -> None:
    resolver = Resolver()
    about_ann = Relation("person:ann", "MOVED_TO", "place:boston")
    assert _spoken(resolver, "Assistant", about_ann) == {("person:ann", "MOVED_TO", "place:boston")}


def test_a_resolver_from_its_own_catalogue_knows_what_it_knew() -> None:
    """A saved catalogue (graph/catalog_files.py) carries the names' slugs, so a big user's
    resolver is built without slugifying every name again: built so, it holds the same indexes
    as one learning the same entities."""
    known = [
        KnownEntity("person:mary_smith", "person", "Mary Smith", ("Mare", "M. Smith"), 4),
        KnownEntity("person:ann", "person", "Ann", (), 2, gender="female"),
        KnownEntity("person:ann_husband", "person", "Ann's husband", (), 1, unnamed=True),
        KnownEntity("title:lord_of_the_rings", "title", "Lord of the Rings", ("LOTR",), 2),
        KnownEntity("org:globex", "org", "Globex", ("Globex Corp.",), 3),
    ]
    roles = [RoleLink("person:ann", "husband", "person:ann_husband")]
    resolver = Resolver(known, roles, [("topic:cello", ["m1", "m2"])])
    rebuilt = Resolver.from_catalog(resolver.catalog())
    for part in ("entities", "_alias", "_by_slug", "_first_names", "_names"):
        assert getattr(rebuilt, part) == getattr(resolver, part), part
    assert rebuilt.initials() == resolver.initials()
    assert rebuilt._order == resolver._order and rebuilt.roles == resolver.roles
    assert rebuilt.candidates == resolver.candidates
    assert rebuilt.resolve_key("person:mare") == "person:mary_smith"
    assert "title:lord_of_the_rings" in rebuilt.initials()["lotr"]
    with pytest.raises(ValueError, match="slugs"):
        Resolver().learn(known[0], ["mary_smith"])  # three names, one slug

"""The pure stages of entity-first retrieval: each takes plain values and returns one, so each can
be tested alone (tests/test_stages.py); graph/recall/retrieval.py runs them in order and does the
I/O between them.

    seeds → expand → cued evidence → entity sources (hub cut-off) → [candidates read]
          → Scorer.score → with neighbour bonus → rank → select → [cards, block]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from extraction.keys import slug
from extraction.model import Extraction
from extraction.resolver import Resolver
from graph.lexical import LexicalScores
from graph.recall import scoring
from graph.recall.config import Weights
from graph.recall.content import ContentMatch
from graph.recall.features import Features, log_rank
from graph.recall.tense import Focus
from graph.records import EntityRecord, MemoryFacts, MemoryRecord
from graph.vocabulary import SINGLE_VALUED

_WORD = re.compile(r"[\w'’-]+", re.UNICODE)

M = TypeVar("M", MemoryFacts, MemoryRecord)
N = TypeVar("N", MemoryFacts, MemoryRecord)


@dataclass(frozen=True)
class Scored(Generic[M]):
    """A memory with its score and the parts of it. While candidates are ranked `memory` holds
    only their facts; the few that are shown carry their full record."""

    memory: M
    score: float
    similarity: float
    recency: float
    frequency: float
    via: tuple[str, ...]
    neighbour: float = 0.0  # the share of the best adjacent turn's score added to `score`
    cosine: float = 0.0  # its best cosine to the message or a part: a learnt ranker's feature
    # the blend's score when a learnt ranker's correction is in `score` (graph/recall/ranker.py):
    # the trees learn an order, not a level, so the relevance floor reads the blend's
    blend: float | None = None

    @property
    def floor_score(self) -> float:
        """What the relevance floor compares: the blend's score, with or without trees."""
        return self.score if self.blend is None else self.blend

    def rescored(self, score: float) -> Scored[M]:
        """The same candidate with a learnt ranker's score, its blend's kept for the floor."""
        return self._as(self.memory, score, self.score)

    def shown(self, record: MemoryRecord) -> Scored[MemoryRecord]:
        return self._as(record, self.score, self.blend)

    def _as(self, memory: N, score: float, blend: float | None) -> Scored[N]:
        """A copy with another memory record and score (a direct constructor call:
        dataclasses.replace costs several microseconds, and a call rescores hundreds)."""
        return Scored(
            memory,
            score,
            self.similarity,
            self.recency,
            self.frequency,
            self.via,
            self.neighbour,
            self.cosine,
            blend,
        )


@dataclass(frozen=True)
class Seeds:
    """Known entity keys a message refers to, in order of appearance, and its relation cues."""

    keys: list[str]
    cues: frozenset[str]
    # the named people the message is about (a clause's subject), else every person it names
    # (none when it asks what the listener said)
    people: list[str] = field(default_factory=list)
    # memories holding a name the message says that no entity stands for (an agent's
    # recommendation the user asks about again) → the name and how many memories hold it
    held: dict[str, tuple[str, int]] = field(default_factory=dict)


# the memories read of a name held on them (the last this process learnt, or in the graph's
# order after a restart), as an entity's newest memories are
HELD_READ = 20


def find_seeds(extraction: Extraction, resolver: Resolver, message: str) -> Seeds:
    """The message's mentions resolved against the catalogue, then every 3-, 2- and 1-word
    n-gram of it that names a known entity (lower-case or NER-missed names still count); a
    name of the message no entity stands for finds the memories holding it."""
    keys: list[str] = []
    held: dict[str, tuple[str, int]] = {}
    for mention in extraction.mentions:
        found = resolver.resolve_key(mention.key)
        if found and found not in keys:
            keys.append(found)
        elif not found and mention.reference is None and not mention.as_speaker:
            value = mention.key.partition(":")[2]
            holding = resolver.held_memories(value)
            held.update((i, (f"named:{value}", len(holding))) for i in holding[-HELD_READ:])
    words = _WORD.findall(message)
    for size in (3, 2, 1):
        for start in range(len(words) - size + 1):
            value = slug(" ".join(words[start : start + size]))
            for key in resolver.named(value) if value else ():
                if key not in keys:
                    keys.append(key)
    subjects = [resolver.resolve_key(k) for k in extraction.subjects]
    people = [k for k in dict.fromkeys(subjects) if k is not None]
    # "what did you tell me?" is about the listener's turns: no fallback to the asker
    if not people and not extraction.about_listener:
        people = [k for k in keys if k.startswith("person:")]
    return Seeds(keys, extraction.cues, people, held)


def expand(seeds: Seeds, cards: Mapping[str, EntityRecord], per_seed: int) -> dict[str, str]:
    """One-hop expansion: per seed (in order), up to `per_seed` linked entities that are neither
    seeds nor taken already — relations of a type the message cues first, then relations backed
    by pinned or importance-3 memories, then the most frequent. Returns key → why."""
    expanded: dict[str, str] = {}
    for seed in seeds.keys:
        card = cards.get(seed)
        if card is None:
            continue
        ranked = sorted(
            card.relations,
            key=lambda r: (r.type in seeds.cues, r.strong > 0, r.count),
            reverse=True,
        )
        taken = 0
        for rel in ranked:
            if taken >= per_seed:
                break
            if rel.target in seeds.keys or rel.target in expanded:
                continue
            expanded[rel.target] = f"{rel.type} of {seed}"
            taken += 1
    return expanded


@dataclass(frozen=True)
class Evidence:
    """A relation of a seed's card whose type the message cues, with its newest evidence."""

    key: str  # the seed whose card holds it
    type: str
    target: str
    src: str  # the relation's source (the seed, or the target for an incoming relation)
    count: int
    strong: int
    valid_to: float | None
    memory_ids: tuple[str, ...]


def relation_evidence(
    cards: Mapping[str, EntityRecord], cues: Iterable[str], limit: int
) -> list[Evidence]:
    """The relations of the seeds' cards whose type the message cues, each with its newest
    `limit` evidence ids: the seed cards are read with every cued relation and enough evidence,
    so this costs no statement of its own."""
    wanted = set(cues)
    return [
        Evidence(
            key=key,
            type=rel.type,
            target=rel.target,
            src=key if rel.direction == "out" else rel.target,
            count=rel.count,
            strong=rel.strong,
            valid_to=rel.valid_to,
            memory_ids=rel.evidence[-limit:] if limit > 0 else (),
        )
        for key, card in cards.items()
        for rel in card.relations
        if rel.type in wanted
    ]


def cued_evidence(rows: Sequence[Evidence], cap: int) -> dict[str, str]:
    """Evidence memories of the relations the message asks about, strongest relations first and
    each relation's newest evidence first, until `cap` memories: an org WORKS_AT-related to
    hundreds of people would otherwise make each of their statements a candidate. Returns
    memory id → why."""
    ordered = sorted(rows, key=lambda r: (r.strong, r.count), reverse=True)
    cued: dict[str, str] = {}
    for row in ordered:
        for memory_id in reversed(row.memory_ids):
            if len(cued) >= cap:
                return cued
            cued.setdefault(memory_id, f"relation:{row.type}:{row.target}")
    return cued


def cue_lifts(
    rows: Sequence[Evidence],
    cued: Mapping[str, str],
    seeds: Sequence[str],
    paired: float,
    single: float,
) -> dict[str, float]:
    """How far each cued memory's similarity moves toward 1: `paired` when its relation links
    two entities of the message ("did Caroline go to the support group?": Caroline ATTENDED
    support group), `single` when only the relation's type and one end match ("what did
    Caroline go to?"), which a talkative user's hundreds of LIKES and ATTENDED facts would
    otherwise let crowd out the answer."""
    wanted = set(seeds)
    lifts: dict[str, float] = {}
    for row in rows:
        both = row.key in wanted and row.target in wanted
        for memory_id in row.memory_ids:
            if memory_id in cued:
                lifts[memory_id] = max(lifts.get(memory_id, 0.0), paired if both else single)
    return lifts


def time_lifts(
    rows: Sequence[Evidence],
    lifts: Mapping[str, float],
    asked: Focus | None,
    demotion: float,
    history_lift: float,
) -> dict[str, float]:
    """The cued lifts adjusted for the time a message asks about, where a one-value-at-a-time
    fact has history (a relation with `valid_to`: the old home after a move). Asked about the
    present, the superseded values' evidence moves `demotion` of the way to 0; asked about the
    past, it is lifted `history_lift` toward 1 and the current value's evidence moves `demotion`
    toward 0. A memory that states both ("I moved from Boston to Lisbon") is left as it is."""
    out = dict(lifts)
    if asked is None:
        return out
    group = {t: i for i, types in enumerate(SINGLE_VALUED) for t in types}
    with_history = {(r.src, group.get(r.type)) for r in rows if r.valid_to is not None}
    old: set[str] = set()
    new: set[str] = set()
    for row in rows:
        if (row.src, group.get(row.type)) not in with_history:
            continue
        (new if row.valid_to is None else old).update(row.memory_ids)
    for memory_id in old - new:
        if asked is Focus.PRESENT:
            out[memory_id] = -demotion
        else:
            out[memory_id] = max(out.get(memory_id, 0.0), history_lift)
    if asked is Focus.PAST:
        for memory_id in new - old:
            out[memory_id] = -demotion
    return out


def hubs(keys: Iterable[str], counts: Mapping[str, int], hub_mentions: int) -> list[str]:
    """The keys mentioned by more than `hub_mentions` memories (the user, a constant topic):
    anything read per hub (its memories, its relations) grows with the user's history."""
    return [k for k in keys if counts.get(k, 0) > hub_mentions]


def entity_sources(keys: Iterable[str], counts: Mapping[str, int], hub_mentions: int) -> list[str]:
    """The entities whose memories become candidates. A hub is no way to find one memory, and
    reading its memories would grow with the user's history; it still counts in scoring."""
    keys = list(keys)
    cut = set(hubs(keys, counts, hub_mentions))
    return [k for k in keys if k not in cut]


@dataclass(frozen=True, kw_only=True)
class Scorer:
    """Scores one candidate from its facts: similarity (cosine blended with BM25, raised for the
    evidence of a cued relation), recency against `as_of`, and the frequency of the strongest
    linked seed or expanded entity; `via` says why it was found."""

    weights: Weights
    as_of: float
    seeds: Sequence[str]
    expanded: Mapping[str, str]
    cued: Mapping[str, str]
    lifts: Mapping[str, float]  # cued memory id -> how far its similarity moves toward 1
    # memories holding a name the message says that no entity stands for → why, and how many
    # hold it (Seeds.held): linked to it as to an entity, by its frequency
    held: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    counts: Mapping[str, int]
    max_count: int  # the user's most-mentioned entity's count, the scale of frequency
    lexical: LexicalScores
    vector_hits: frozenset[str]
    lexical_hits: frozenset[str]
    # the time the message names, [start, end), and how far a memory of that time (what it speaks
    # of, or else when it was said) moves its similarity toward 1
    when: tuple[float, float] | None = None
    time_lift: float = 0.0
    # how far a memory said by a person the message is about moves its similarity toward 1
    speaker_lift: float = 0.0
    # whether a learnt ranker weighs who said a memory (its feature `said_by_subject`) in place
    # of the lift: `via` names the speaker either way
    speaker_learnt: bool = False
    people: Sequence[str] = ()
    # similarity's base as rank fusion of the candidates' dense and lexical ranks (None: blend)
    fusion: scoring.Fusion | None = None
    # the candidates' dense and lexical rankings, for the features' ranks (None: no ranks)
    ranks: scoring.Fusion | None = None
    # each candidate's personalised PageRank share (graph/recall/walk.py), for the features
    walk: Mapping[str, float] = field(default_factory=dict)
    # the entity types the question asks for (Extraction.asked), for the features
    asked: frozenset[str] = frozenset()
    # each candidate's cosine to the message without its people's names, for the features
    # (None: it names nobody, and the features repeat the cosine's)
    content: ContentMatch | None = None
    content_hits: frozenset[str] = frozenset()

    def score(
        self, memory: MemoryFacts, cosine: float, extra: tuple[str, ...] = ()
    ) -> Scored[MemoryFacts]:
        memory_id = memory.id
        lift = self.lifts.get(memory_id, 0.0)
        in_time = self.when is not None and memory.within(*self.when)
        if in_time:
            lift = max(lift, self.time_lift)
        words = self.lexical.normalized(memory_id)
        if self.fusion is not None:
            sim = scoring.lifted(self.fusion.base(cosine, words), lift)
        else:
            sim = scoring.similarity(cosine, words, self.weights.lexical, lift)
        counted = self.speaker_lift or self.speaker_learnt
        said_by = self._said_by(memory) if counted else []
        if said_by and self.speaker_lift:
            sim = scoring.toward_one(sim, self.speaker_lift)
        rec = scoring.recency(memory.occurred_at, self.as_of, self.weights.half_life_days)
        linked = self._linked(memory)
        freq = max(
            (scoring.frequency(self.counts.get(k, 0), self.max_count) for k in linked), default=0.0
        )
        named = self.held.get(memory_id)
        if named is not None:
            freq = max(freq, scoring.frequency(named[1], self.max_count))
        via = [f"entity:{k}" for k in linked if k in self.seeds]
        via += [f"expanded:{k} ({self.expanded[k]})" for k in linked if k in self.expanded]
        via += [f"speaker:{k}" for k in said_by]
        if memory_id in self.cued:
            via.append(self.cued[memory_id])
        if named is not None:
            via.append(named[0])
        if memory_id in self.vector_hits:
            via.append("similarity")
        if memory_id in self.lexical_hits:
            via.append("lexical")
        if memory_id in self.content_hits:
            via.append("content")
        if in_time:
            via.append("time")
        if memory.pinned:
            via.append("pinned")
        via.extend(extra)
        total = scoring.combine(self.weights, sim, rec, freq)
        return Scored(memory, total, sim, rec, freq, tuple(via), cosine=cosine)

    def _of_asked_type(self, memory: MemoryFacts) -> bool:
        """Whether the memory names a thing of a type the question asks for, not a seed of it and
        not who said it (a memory's entity keys hold its speaker: every turn of anyone would
        answer "who…?")."""
        asked, seeds, spoken = self.asked, self.seeds, memory.speaker_keys
        return bool(asked) and any(
            k.partition(":")[0] in asked and k not in seeds and k not in spoken
            for k in memory.entity_keys
        )

    def _linked(self, memory: MemoryFacts) -> list[str]:
        """The memory's entities that are seeds or expanded: the frequency's, `via`'s and the
        features' (one reading, so that they cannot drift apart)."""
        return [k for k in memory.entity_keys if k in self.expanded or k in self.seeds]

    def _said_by(self, memory: MemoryFacts) -> list[str]:
        """The people the message is about who said `memory`: the lift's and the features'."""
        return [k for k in memory.speaker_keys if k in self.people]

    def features(self, item: Scored[MemoryFacts]) -> Features:
        """What a learnt ranker sees of a scored candidate (graph/recall/features.py): the
        signals the blend mixed, kept apart. Computed for the candidates a ranker corrects, not
        in `score`: a context call scores hundreds."""
        memory = item.memory
        memory_id = memory.id
        cosine = min(1.0, max(0.0, item.cosine))
        words = self.lexical.normalized(memory_id)
        dense_rank, lexical_rank = self.ranks.ranks(item.cosine, words) if self.ranks else (1, 1)
        best = self.ranks.best_cosine if self.ranks else cosine
        subjects = self._said_by(memory)
        lift = self.lifts.get(memory_id, 0.0)  # a cued relation's, before a named time's
        linked = self._linked(memory)
        seeds = sum(1 for k in linked if k in self.seeds)
        via = item.via
        cosine_gap = max(0.0, best - cosine)
        content, content_gap, content_rank = cosine, cosine_gap, dense_rank
        if self.content is not None:
            content = self.content.of_memory(memory_id)
            content_gap, content_rank = self.content.best - content, self.content.rank(content)
        return Features(
            cosine=cosine,
            cosine_gap=cosine_gap,
            dense_rank=log_rank(dense_rank),
            content=content,
            content_gap=content_gap,
            content_rank=log_rank(content_rank),
            lexical=words,
            lexical_rank=log_rank(lexical_rank) if words > 0 else 0.0,
            words=1.0 if words > 0 else 0.0,
            cued=max(0.0, lift),
            demoted=max(0.0, -lift),
            in_time=1.0 if "time" in via else 0.0,
            said_by_subject=1.0 if subjects else 0.0,
            subject_frequency=max(
                (scoring.frequency(self.counts.get(k, 0), self.max_count) for k in subjects),
                default=0.0,
            ),
            recency=item.recency,
            frequency=item.frequency,
            seed_links=min(3, seeds) / 3.0,
            expanded_link=1.0 if any(k in self.expanded for k in linked) else 0.0,
            held=1.0 if memory_id in self.held else 0.0,
            asked_type=1.0 if self._of_asked_type(memory) else 0.0,
            vector_hit=1.0 if memory_id in self.vector_hits else 0.0,
            lexical_hit=1.0 if memory_id in self.lexical_hits else 0.0,
            content_hit=1.0 if memory_id in self.content_hits else 0.0,
            part=1.0 if "part" in via else 0.0,
            neighbour_only=1.0 if "neighbour" in via else 0.0,
            pinned=1.0 if memory.pinned else 0.0,
            episode=1.0 if memory.kind == "episode" else 0.0,
            walk=self.walk.get(memory_id, 0.0),
        )


def adjacency(links: Mapping[str, tuple[str | None, str | None]]) -> dict[str, set[str]]:
    """Turn → its previous and next turns, both ways, from the NEXT links of some turns."""
    adjacent: dict[str, set[str]] = {}
    for memory_id, pair in links.items():
        for other in pair:
            if other:
                adjacent.setdefault(memory_id, set()).add(other)
                adjacent.setdefault(other, set()).add(memory_id)
    return adjacent


def neighbour_bonus(
    scored: Mapping[str, Scored[MemoryFacts]], adjacent: Mapping[str, set[str]], share: float
) -> dict[str, Scored[MemoryFacts]]:
    """Adjacent turns of a session answer each other ("Did you go?" "Yes, last Sunday!"): every
    memory adds `share` × the better of its scored neighbours' own scores to its score."""
    out: dict[str, Scored[MemoryFacts]] = {}
    for memory_id, item in scored.items():
        best = max(
            (scored[o].score for o in adjacent.get(memory_id, ()) if o in scored), default=0.0
        )
        bonus = share * best
        out[memory_id] = replace(item, score=item.score + bonus, neighbour=bonus) if bonus else item
    return out


def rank(scored: Iterable[Scored[MemoryFacts]]) -> list[Scored[MemoryFacts]]:
    """Best first; equal scores: the newer first."""
    return sorted(scored, key=lambda s: (s.score, s.memory.occurred_at), reverse=True)


def select(
    ordered: Sequence[Scored[MemoryFacts]],
    on_screen: set[str],
    own_episode: str | None,
    max_memories: int,
    max_episodes: int,
    session_spread: float = 0.0,
) -> tuple[list[Scored[MemoryFacts]], list[Scored[MemoryFacts]]]:
    """The memories and the episodes to show: memories not already in the current session's
    window (`on_screen`), spread over sessions by `session_spread` (`spread`), and episodes of
    other sessions than the current one (whose episode is named by the external id
    `own_episode`)."""
    top = [s for s in ordered if s.memory.kind != "episode" and s.memory.id not in on_screen]
    episodes = [
        s for s in ordered if s.memory.kind == "episode" and s.memory.external_id != own_episode
    ]
    return spread(top, max_memories, session_spread), episodes[:max_episodes]


def spread(
    ordered: Sequence[Scored[MemoryFacts]], count: int, share: float
) -> list[Scored[MemoryFacts]]:
    """`count` memories chosen greedily from `ordered` (best first): each next one is the best by
    score × (1 - share)^n, n the memories of its session already chosen. A session's second and
    third turns still come when they score well above the other sessions' best; a memory of no
    session is never held back. `share` 0 is the plain top `count`."""
    if share <= 0:
        return list(ordered[:count])
    pool = list(ordered[: count * 4])  # beyond this the plain order already decides
    chosen: list[Scored[MemoryFacts]] = []
    taken: dict[str, int] = {}

    def held(item: Scored[MemoryFacts]) -> float:
        session = item.memory.session_id
        return item.score * (1.0 - share) ** taken.get(session, 0) if session else item.score

    while pool and len(chosen) < count:
        item = pool.pop(max(range(len(pool)), key=lambda i: held(pool[i])))
        chosen.append(item)
        if item.memory.session_id:
            taken[item.memory.session_id] = taken.get(item.memory.session_id, 0) + 1
    return chosen


def collapse(
    ordered: Sequence[Scored[MemoryFacts]],
    vectors: Mapping[str, Any],
    threshold: float,
    weights: Weights,
) -> list[Scored[MemoryFacts]]:
    """Near-identical memories (cosine of their vectors at least `threshold`: "I love pottery" said
    in three sessions) by the same speaker about the same entities (`same_voice`, the gate of
    graph/repeats.py) are shown once: the group keeps the rank and score of its best member,
    shows its newest, says `repeats:N` in `via`, and counts the repeats in its frequency (a tenth
    per repeat, up to 1). `ordered` is best first; memories without a vector stay as they are."""
    groups: list[list[Scored[MemoryFacts]]] = []
    for item in ordered:
        vector = vectors.get(item.memory.id)
        home = None
        if vector is not None:
            for group in groups:
                lead = vectors.get(group[0].memory.id)
                if (
                    lead is not None
                    and same_voice(group[0].memory, item.memory)
                    and float(lead @ vector) >= threshold
                ):
                    home = group
                    break
        if home is None:
            groups.append([item])
        else:
            home.append(item)
    total = weights.similarity + weights.recency + weights.frequency
    out: list[Scored[MemoryFacts]] = []
    for group in groups:
        best = group[0]
        if len(group) == 1:
            out.append(best)
            continue
        newest = max(group, key=lambda s: s.memory.occurred_at)
        repeats = len(group) - 1
        frequency = min(1.0, best.frequency + 0.1 * repeats)
        gain = weights.frequency * (frequency - best.frequency) / total if total else 0.0
        out.append(
            replace(
                best,
                memory=newest.memory,
                score=best.score + gain,
                frequency=frequency,
                via=(*best.via, f"repeats:{repeats}"),
                blend=None if best.blend is None else best.blend + gain,
            )
        )
    return out


def same_voice(a: MemoryFacts, b: MemoryFacts) -> bool:
    """Said by the same speaker about the same entities and names: an assistant echoing the
    user's words, or one sentence about two people, says something of its own and is no repeat.
    The names an agent said that no entity stands for yet count (`held_keys`): two of its
    answers naming different chapters are two answers."""
    return set(a.speaker_keys) == set(b.speaker_keys) and _named(a) == _named(b)


def _named(memory: MemoryFacts) -> set[str]:
    return {*memory.entity_keys, *(k for k in memory.held_keys if not k.startswith("topic:"))}


def card_keys(seeds: Seeds, expanded: Mapping[str, str], max_cards: int) -> list[str]:
    """Seeds first, then expanded entities."""
    return [*seeds.keys, *expanded][:max_cards]


def cards_as_of(cards: Iterable[EntityRecord], latest: float) -> list[EntityRecord]:
    """The cards as they stood at `latest` (a block asked as of a past moment, with the clocks'
    skew): an entity first named after it has no card, a fact first stated after it is not on
    its card, and a value superseded only after it was current then ("where did Ana live?" asked
    before her move: Boston, not Lisbon); when the entity was last seen is not told when that
    was after it."""
    out = []
    for card in cards:
        if card.first_seen is not None and card.first_seen > latest:
            continue
        relations = tuple(
            replace(rel, valid_to=None)
            if rel.valid_to is not None and rel.valid_to > latest
            else rel
            for rel in card.relations
            if rel.first_seen is None or rel.first_seen <= latest
        )
        seen = card.last_seen if card.last_seen is None or card.last_seen <= latest else None
        out.append(replace(card, relations=relations, last_seen=seen))
    return out

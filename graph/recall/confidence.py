"""How far a context block can be trusted, the floor under its memories, and the messages that
give one person's fact to another: a stage after ranking (graph/recall/retrieval.py). Pure: it
reads only what the lookup and the ranking already hold, and changes no score or order.

- `find_conflicts`: the message names a person and a thing (a seed that is not a person) that
  the graph holds, through a typed relation, for other people and not for the named one ("what
  did Caroline realise after her charity race?" when the race is Melanie's). Co-occurrence
  (`RELATED_TO`) is no fact and never counts.
- `Signals` → `confidence`: the product of two logistic models over the evidence the ranking
  has, one per way a message goes unanswered. `MENTIONED`: the memory holds what it asks about
  at all (the best candidate's cosine to the message without the names of its people, the
  share of its words no memory holds, and whether a noun it asks about is held by none).
  `CALIBRATION`: what the memory holds is the named person's (whether the best memories, and
  the memories about the things it names, were said by the person it names, and conflicts).
  Both were fitted on the dev splits of LoCoMo and LongMemEval, each against its own kind of
  unanswerable question (docs/retrieval.md says how, and how well they separate). Whether a
  message's cued relations were found on the named person's card was tried as a signal and
  separated nothing (AUROC 0.508 on LoCoMo dev).
- `above_floor`: the memories whose score reaches `min_score` (a preset knob, or the caller's
  `minScore`); a block whose confidence is below `min_confidence` shows none; a block left with
  none says that nothing relevant was found.

Must not import the store or the service: its inputs are plain values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from extraction.model import KnownEntity
from graph.recall.stages import Scored, Seeds
from graph.records import EntityRecord, MemoryFacts

CO_OCCURRENCE = "RELATED_TO"


@dataclass(frozen=True, kw_only=True)
class Conflict:
    """The message gives `target` to `asked`; the graph holds it for `found` (through
    `relation`, stated by the memories `evidence`) and holds no typed fact of it for `asked`."""

    asked: str
    found: str
    relation: str
    target: str
    evidence: tuple[str, ...]
    count: int = 1  # how often the relation was stated
    note: str = ""  # the [NOTE] line, once the block has named the people and the thing


@dataclass(frozen=True, kw_only=True)
class Signals:
    """What the ranking found, each in [0, 1] (docs/retrieval.md)."""

    dense: float  # the best cosine of a candidate to the message (or a part of it)
    unknown: float  # the share of the message's words (by IDF) that no memory holds
    # of the best `PERSON_TOP` memories, the share said by a person the message is about (0.5
    # when it names no one who said anything, so that a message about nobody in particular, or
    # about someone who never speaks in the memory, is not penalised)
    person: float
    # of the candidates that mention a thing the message names (a seed that is not a person),
    # the share said by a person the message is about: the owner of a race talks about it, the
    # friend asks about it (0.5 when no candidate mentions one, or as for `person`)
    thing: float
    conflict: float  # 1 when find_conflicts found one
    flagged: float  # 1 when one of them is well attested (a [NOTE] line)
    # of the message's words that some memory holds, the share (by IDF) that the best BM25
    # memory holds: one memory saying all of it (`LexicalScores.covered`)
    covered: float = 0.0
    # the share of the best AGREE_TOP by cosine that are among the best AGREE_TOP by BM25: the
    # two searches agreeing on what matches
    agree: float = 0.0
    # the share of the things the message names (mentions that are not people) that the
    # user's catalogue does not know: asked about something the memory never names
    unresolved: float = 0.0
    top: float = 0.0  # the best memory's score (clipped to [0, 1])
    # of a message in parts ("who became a parent first, Tom or Alex?"), how far the best match
    # of its worst-matched part falls below that of its best-matched part: one part never said
    part_gap: float = 0.0
    # how much closer the message comes to the best candidate said by a person it names than
    # to the best said by someone else, by cosine (`voice`) and by BM25 (`voice_lexical`):
    # 0.5 + half the difference (`voice_gap`); 0.5 when it names no one who said a candidate
    voice: float = 0.5
    voice_lexical: float = 0.5
    # 1 when a noun the message's questions name is held by no memory (not very common
    # English): "what is my blood type?" of a history that never says "blood"
    unmentioned: float = 0.0
    # the best cosine of a candidate to the message without the names of the people it is
    # about (`dense` when it names none): a name in the message brings every turn of that
    # person closer, whatever they said ("what is the name of Caroline's dentist?" reaches 0.5
    # by the name alone)
    content: float = 0.0


@dataclass(frozen=True)
class Calibration:
    """A logistic model: confidence = σ(intercept + Σ weight · signal)."""

    intercept: float
    dense: float
    unknown: float
    person: float
    thing: float
    conflict: float
    flagged: float
    covered: float = 0.0
    agree: float = 0.0
    unresolved: float = 0.0
    top: float = 0.0
    part_gap: float = 0.0
    voice: float = 0.0
    voice_lexical: float = 0.0
    unmentioned: float = 0.0
    content: float = 0.0


# a logistic regression of "the question is answerable" on the signals, fitted on the dev splits
# (LoCoMo's 997 questions of categories 1-5 and a 15-question LongMemEval sample, each data set
# weighted by the square root of its share; L2 1.0), see docs/retrieval.md "Confidence". The
# later signals (covered, agree, unresolved, top, part_gap) weigh 0: refitted with them on the
# merged tree, no model did better on the LongMemEval split it was not fitted on (held-out
# AUROC 0.643 on validation, 0.550 on dev, against 0.653 / 0.675 for these weights) and LoCoMo
# moved by under 0.005 (bench/fit_confidence.py; docs/retrieval.md "Signals tried"). `voice`
# and `voice_lexical` weigh 0 too: refitted on LoCoMo with the lexical one, the AUROC of each
# conversation left out rose from 0.767 to 0.779, but the floors' trade did not move (category
# 5 caught 0.19-0.21 where answerable R@8 falls by 0.01, as without it), and on the
# LongMemEval dev sample it points the wrong way (0.460 alone; that sample's AUROC 0.720 falls
# to 0.640 fitted with it)
CALIBRATION = Calibration(
    intercept=-3.015,
    dense=3.561,
    unknown=-1.587,
    person=1.436,
    thing=2.01,
    conflict=-1.021,
    flagged=-0.036,
)
PERSON_TOP = 5
AGREE_TOP = 10


# whether the memory holds what the message asks about at all: a logistic regression of
# "answerable" against the questions unanswerable by construction (bench/unanswerable.py: a
# car's make, a dentist, a blood type that the conversation never names) on LoCoMo dev,
# LongMemEval dev and LoCoMo dev's questions said in other words (bench/reworded.py), L2 1.0,
# each file weighted by the square root of its share (`bench/fit_confidence.py --against
# constructed --signals content,unknown,unmentioned`). A question said in other words names
# nouns no memory holds, as an unanswerable one does; what tells them apart is how close the
# best memory comes to what it asks, its names left out (`content`): fitted without the
# reworded questions and on `dense`, the floor emptied 29% of LoCoMo's reworded blocks and 20%
# of LongMemEval's. Each template's questions scored by the fit without them: AUROC 0.998 on
# LoCoMo, 1.000 on LongMemEval validation (never fitted on); and at the default floor no block
# of LongMemEval's reworded questions (never fitted on) is emptied (docs/retrieval.md "Said in
# other words, and the floor")
MENTIONED = Calibration(
    intercept=3.296,
    dense=0.0,
    unknown=-4.238,
    person=0.0,
    thing=0.0,
    conflict=0.0,
    flagged=0.0,
    unmentioned=-4.034,
    content=7.444,
)


def confidence(
    signals: Signals,
    calibration: Calibration = CALIBRATION,
    mentioned: Calibration = MENTIONED,
) -> float:
    """The chance that the block holds what the message asks (0–1): that the memory holds
    the things it asks about at all (`mentioned`), times that what it holds is theirs and
    answers it (`calibration`). Two ways to fail, each fitted on its own kind of question."""
    return logistic(signals, calibration) * logistic(signals, mentioned)


def logistic(signals: Signals, calibration: Calibration) -> float:
    """σ(intercept + Σ weight · signal)."""
    z = calibration.intercept
    z += calibration.dense * signals.dense + calibration.unknown * signals.unknown
    z += calibration.person * signals.person + calibration.thing * signals.thing
    z += calibration.conflict * signals.conflict + calibration.flagged * signals.flagged
    z += calibration.covered * signals.covered + calibration.agree * signals.agree
    z += calibration.unresolved * signals.unresolved + calibration.top * signals.top
    z += calibration.part_gap * signals.part_gap
    z += calibration.voice * signals.voice
    z += calibration.voice_lexical * signals.voice_lexical
    z += calibration.unmentioned * signals.unmentioned
    z += calibration.content * signals.content
    return 1.0 / (1.0 + math.exp(-z))


def person_share(
    ranked: Sequence[Scored[MemoryFacts]], people: Sequence[str], speakers: Collection[str]
) -> float:
    """Of the best PERSON_TOP memories, the share said by one of `people`; 0.5 (no evidence
    either way) when the message names no one who said any candidate (`speakers`): a user
    telling an assistant about their sister Ana is never answered by Ana's own words."""
    if not set(people) & set(speakers):
        return 0.5
    top = [s for s in ranked if s.memory.kind != "episode"][:PERSON_TOP]
    if not top:
        return 0.0
    wanted = set(people)
    return sum(1 for s in top if wanted & set(s.memory.speaker_keys)) / len(top)


def thing_share(
    seeds: Seeds, candidates: Iterable[MemoryFacts], speakers: Collection[str]
) -> float:
    """Of the candidates that mention a seed that is not a person, the share said by one of
    the message's people; 0.5 when none mentions one or no named person said any candidate."""
    people = set(seeds.people)
    if not people & set(speakers):
        return 0.5
    things = {k for k in seeds.keys if not k.startswith("person:")}
    said = [bool(people & set(m.speaker_keys)) for m in candidates if things & set(m.entity_keys)]
    return sum(said) / len(said) if said else 0.5


def find_conflicts(seeds: Seeds, cards: Mapping[str, EntityRecord]) -> list[Conflict]:
    """For each seed that is not a person, the people its card links to by a typed relation;
    when there are some and none is a person the message is about, one conflict per relation
    found (strongest first, as the card lists them). `flagged` keeps the well-attested ones."""
    asked = [p for p in seeds.people if p.startswith("person:")]
    if not asked:
        return []
    out: list[Conflict] = []
    for key in seeds.keys:
        card = cards.get(key)
        if key.startswith("person:") or card is None:
            continue
        held = [r for r in card.relations if r.target.startswith("person:")]
        held = [r for r in held if r.type != CO_OCCURRENCE]
        if not held or any(r.target in asked for r in held):
            continue
        out += [
            Conflict(
                asked=asked[0],
                found=r.target,
                relation=r.type,
                target=key,
                evidence=tuple(r.evidence),
                count=r.count,
            )
            for r in held
        ]
    return out


def flagged(conflicts: Sequence[Conflict], min_count: int) -> list[Conflict]:
    """The conflicts worth a note: the other person's relations to the thing were stated at
    least `min_count` times in all. A fact stated once is too often the extractor's slip (the
    dev split's false flags on answerable questions fell from 6.8% to 1.1%, docs/retrieval.md)."""
    totals: dict[tuple[str, str], int] = {}
    for c in conflicts:
        totals[(c.target, c.found)] = totals.get((c.target, c.found), 0) + c.count
    return [c for c in conflicts if totals[(c.target, c.found)] >= min_count]


def structural_match(ranked: Sequence[Scored[MemoryFacts]]) -> bool:
    """Whether the best memory was found by the time the message names or as the evidence of a
    relation it asks about: then something did match, however low the confidence ("what did we
    do on May 13?" shares few words with "we went camping last Saturday"), and the confidence
    floor does not empty the block. The best by the blend, as the floors are the blend's: the
    learnt trees lift a cued relation's evidence to the top, and read in their order "what was my
    grandmother's maiden name?" kept a turn about her past the floor (LongMemEval validation's
    unanswerable blocks left empty fell from 75% to 61% with the refit trees)."""
    if not ranked:
        return False
    best = max(ranked, key=lambda s: s.floor_score)
    return any(v == "time" or v.startswith("relation:") for v in best.via)


def above_floor(
    ranked: Sequence[Scored[MemoryFacts]], min_score: float, keep: Collection[str] = ()
) -> list[Scored[MemoryFacts]]:
    """The memories whose score (the blend's, under a learnt ranker) reaches the floor, and
    those of `keep`, in their order."""
    return [s for s in ranked if s.floor_score >= min_score or s.memory.id in keep]


def with_notes(conflicts: Sequence[Conflict], known: Mapping[str, KnownEntity]) -> list[Conflict]:
    """Each conflict with its [NOTE] line, one line per thing and person found, naming every
    relation found: `[NOTE] the memory has the charity race as Melanie's, not Caroline's
    (ATTENDED, PLANS)`."""

    def name(key: str) -> str:
        entity = known.get(key)
        return entity.label if entity else key.split(":", 1)[-1].replace("_", " ")

    types: dict[tuple[str, str], list[str]] = {}
    for c in conflicts:
        types.setdefault((c.target, c.found), []).append(c.relation)
    return [
        replace(
            c,
            note=f"[NOTE] the memory has the {name(c.target)} as {name(c.found)}'s, not "
            f"{name(c.asked)}'s ({', '.join(dict.fromkeys(types[(c.target, c.found)]))})",
        )
        for c in conflicts
    ]


def by_blend(ranked: Sequence[Scored[MemoryFacts]]) -> list[Scored[MemoryFacts]]:
    """The ranking as the hand-set blend ordered it (the same under no learnt ranker)."""
    return sorted(ranked, key=lambda s: -s.floor_score)


@dataclass(frozen=True, kw_only=True)
class Assessment:
    """What the stage hands to the block: the confidence, its signals, and the conflicts."""

    confidence: float
    signals: Signals
    conflicts: list[Conflict]


def assess(
    seeds: Seeds,
    cards: Mapping[str, EntityRecord],
    ranked: Sequence[Scored[MemoryFacts]],
    candidates: Iterable[MemoryFacts],
    evidence: MatchEvidence,
    min_count: int,
) -> Assessment:
    """The block's confidence and its flagged conflicts from the lookup (`seeds`, their
    `cards`), the ranking, the candidates as gathered, and how well they matched the
    message."""
    conflicts = find_conflicts(seeds, cards)
    noted = flagged(conflicts, min_count)
    signals = Signals(
        dense=min(1.0, max(0.0, evidence.dense)),
        unknown=min(1.0, max(0.0, evidence.unknown)),
        # read in the blend's order: the learnt trees reorder what the calibration was fitted
        # on (refitted with reworded questions, their order cut LongMemEval validation's
        # unanswerable blocks left empty from 75% to 61%)
        person=person_share(by_blend(ranked), seeds.people, evidence.speakers),
        thing=thing_share(seeds, candidates, evidence.speakers),
        conflict=1.0 if conflicts else 0.0,
        flagged=1.0 if noted else 0.0,
        covered=_unit(evidence.covered),
        agree=_unit(evidence.agree),
        unresolved=_unit(evidence.unresolved),
        top=_unit(ranked[0].floor_score) if ranked else 0.0,
        part_gap=_unit(evidence.part_gap),
        voice=_unit(evidence.voice),
        voice_lexical=_unit(evidence.voice_lexical),
        unmentioned=_unit(evidence.unmentioned),
        content=_unit(evidence.dense if evidence.content is None else evidence.content),
    )
    return Assessment(confidence=confidence(signals), signals=signals, conflicts=noted)


@dataclass(frozen=True, kw_only=True)
class MatchEvidence:
    """How well the candidates matched the message: the best cosine of any, the share of the
    message's words (by IDF) that no memory holds, and who said the candidates."""

    dense: float
    unknown: float
    content: float | None = None  # Ranking.content; None: as `dense`
    speakers: frozenset[str] = frozenset()  # who said any of the candidates
    covered: float = 0.0  # LexicalScores.covered
    agree: float = 0.0  # agreement(): the dense and lexical searches' overlap
    unresolved: float = 0.0  # unresolved(): the named things the catalogue does not know
    part_gap: float = 0.0  # part_gap(): the best-matched part's cosine less the worst's
    voice: float = 0.5  # voice_gap() by cosine
    voice_lexical: float = 0.5  # voice_gap() by BM25 (a share of the best)
    unmentioned: float = 0.0  # LexicalScores.unmentioned


def part_gap(row_best: Sequence[float]) -> float:
    """`row_best` holds the best cosine of the message, then of each of its parts; of two parts
    or more, the best part's less the worst part's (0 for a message of one part)."""
    parts = row_best[1:]
    return max(parts) - min(parts) if len(parts) >= 2 else 0.0


def voice_gap(
    people: Collection[str],
    candidates: Iterable[MemoryFacts],
    closeness: Callable[[str], float],
) -> float:
    """0.5 + half of (the best `closeness` of a candidate said by one of `people`, less the
    best of one said by anyone else); 0.5 when none of `people` said a candidate. A question
    that gives one speaker's event to another finds the event in the other speaker's words,
    and the named person's own words match it worse; a memory nobody said counts for no one."""
    wanted = set(people)
    named, other = -1.0, 0.0
    for memory in candidates:
        if not memory.speaker_keys:
            continue
        value = closeness(memory.id)
        if wanted & set(memory.speaker_keys):
            named = max(named, value)
        else:
            other = max(other, value)
    return 0.5 if named < 0 else _unit(0.5 + (named - other) / 2)


def _unit(value: float) -> float:
    return min(1.0, max(0.0, value))


def agreement(cosine: Mapping[str, float], lexical_top: Sequence[str]) -> float:
    """The share of the AGREE_TOP candidates closest by cosine that are also among the
    AGREE_TOP best by BM25 (`lexical_top`, best first): when the message's meaning and its rare
    words point at the same memories, something in the memory is about it; a question about
    something never said finds near neighbours of its phrasing and none of its words."""
    dense = sorted(cosine, key=lambda i: -cosine[i])[:AGREE_TOP]
    if not dense:
        return 0.0
    return len(set(dense) & set(lexical_top[:AGREE_TOP])) / len(dense)


def unresolved(mentions: Iterable[tuple[str, bool]]) -> float:
    """Of the message's mentions that are not people (`(key, known)` pairs: its entity key and
    whether the catalogue resolved it), the share not known; 0 when it names no thing. People
    are left out: the asker and the person asked about are always known."""
    things = [known for key, known in mentions if not key.startswith(("person:", "ref:"))]
    return sum(1 for known in things if not known) / len(things) if things else 0.0

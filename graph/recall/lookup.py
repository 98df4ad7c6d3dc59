"""What the graph says about a message, before any candidate is scored (stages 1–3 of
graph/recall/retrieval.py):

1. seeds: the message's mentions (spaCy) and n-grams naming known entities, resolved against the
   user's catalogue, and the relation types its words cue ("work" → WORKS_AT, WORKS_ON);
2. the seeds' cards, read with every relation of a cued type, and one-hop expansion from them;
3. the cued relations' evidence and how far each is lifted (by the relation's match to the
   message and by the time the message asks about), the newest memories of each seed and
   expanded entity (hubs excepted), and the memories of a time the message names.

One statement for the cards (a hub's card is read bare unless a type is cued); the rest comes
from the caches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from extraction.lexicon import FIRST_PERSON
from extraction.model import Extraction
from extraction.resolver import Resolver
from extraction.when import event_interval
from graph.model_threads import Rows
from graph.recall import tense
from graph.recall.config import RetrievalConfig
from graph.recall.content import embed_content
from graph.recall.reads import RecallReads
from graph.recall.request import ContextRequest
from graph.recall.stages import (
    Seeds,
    cue_lifts,
    cued_evidence,
    entity_sources,
    expand,
    find_seeds,
    hubs,
    relation_evidence,
    time_lifts,
)
from graph.records import MAX_EVIDENCE, EntityRecord
from graph.relation_facts import Capped
from graph.request_cost import Laps

# words split at apostrophes too: "I'm" and "I’ve" speak in the first person
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Lookup:
    """The message as the graph reads it, and the candidates that need no vector to find."""

    said: Extraction
    resolver: Resolver
    seeds: Seeds
    # the time the message names ("last weekend"), resolved against asOf: [start, end)
    when: tuple[float, float] | None
    counts: dict[str, int]  # mention counts of the seeds and expanded entities
    cards: dict[str, EntityRecord]  # the seeds' cards
    expanded: dict[str, str]  # expanded entity → why
    cued: dict[str, str]  # evidence memory of a cued relation → why
    lifts: dict[str, float]  # memory → how far its similarity moves toward 1 (or 0)
    known: list[str]  # candidates found without the message's vector
    # the message without the names of its people, being embedded (graph/recall/content.py)
    content: Rows | None = None

    def mention_count(self, key: str) -> int:
        return self.counts.get(key, 0)


def look_up(reads: RecallReads, request: ContextRequest, as_of: float) -> Lookup:
    """Stages 1–3. The message without the names of its people starts being embedded as soon
    as they are known, beside the reads that follow (graph/recall/content.py): the confidence
    reads it under every preset, a learnt ranker's features and candidates too."""
    laps = Laps()
    resolver = reads.caches.catalog(request.user_id)
    laps.lap("lookup")
    said = reads.models.extract(request.message, asker(reads, request))
    laps.lap("parse")
    seeds = find_seeds(said, resolver, request.message)
    if request.config.uncued:
        seeds = replace(seeds, cues=seeds.cues - request.config.uncued)
    content = embed_content(reads.models, request.message, resolver, seeds.people)
    try:
        return _around(reads, request, as_of, said, resolver, seeds, content)
    except BaseException:
        if content is not None:
            content.cancel()  # a failed call leaves no work queued
        raise


def _around(
    reads: RecallReads,
    request: ContextRequest,
    as_of: float,
    said: Extraction,
    resolver: Resolver,
    seeds: Seeds,
    content: Rows | None,
) -> Lookup:
    """What the graph holds around the seeds: cards, expansion, cued evidence, the entities'
    and the named time's memories."""
    user_id, message, config = request.user_id, request.message, request.config
    laps = Laps()
    when = event_interval(said.dates, as_of) if config.time_lift > 0 else None
    # mention counts of the entities scoring links to (not the whole catalogue: a call must not
    # cost in proportion to the user's history)
    counts = _mentions(resolver, seeds.keys)
    laps.lap("lookup")
    # the seeds' cards carry every relation of a cued type with enough evidence for the cued
    # candidates: one statement for both. A hub's card (the user, a constant topic) is read with
    # its relations only when the message cues a type: ranking its thousands of relations costs in
    # proportion to the user's history, and its strongest few say nothing about this message
    hub_keys = hubs(seeds.keys, counts, config.hub_mentions)
    cards = read_cards(
        reads,
        user_id,
        seeds.keys,
        config.card_relations,
        seeds.cues,
        max(MAX_EVIDENCE, config.evidence_per_relation),
        bare=() if seeds.cues else hub_keys,
        capped=Capped(frozenset(hub_keys), config.hub_cued_relations),
    )
    laps.lap("cards")
    expanded = expand(seeds, cards, config.expand_per_seed)
    counts.update(_mentions(resolver, expanded))
    cued, lifts = _cued(cards, seeds, message, config)
    sources = entity_sources([*seeds.keys, *expanded], counts, config.hub_mentions)
    entity_ids = reads.caches.entity_memory_ids(user_id, sources, config.per_entity)
    early = [i for ids in entity_ids.values() for i in ids]
    timed = (
        reads.store.memories_in_time(user_id, when[0], when[1], config.time_candidates)
        if when
        else []
    )
    laps.lap("lookup")
    return Lookup(
        said=said,
        resolver=resolver,
        seeds=seeds,
        when=when,
        counts=counts,
        cards=cards,
        expanded=expanded,
        cued=cued,
        lifts=lifts,
        known=[*cued, *early, *timed, *seeds.held],
        content=content,
    )


def _cued(
    cards: Mapping[str, EntityRecord], seeds: Seeds, message: str, config: RetrievalConfig
) -> tuple[dict[str, str], dict[str, float]]:
    """The cued relations' evidence memories (→ why) and how far each moves toward 1 (or 0:
    a fact superseded at the time asked about)."""
    evidence = relation_evidence(cards, seeds.cues, config.evidence_per_relation)
    cued = cued_evidence(evidence, config.cued_evidence)
    lifts = cue_lifts(evidence, cued, seeds.keys, config.paired_lift, config.cued_lift)
    asked = tense.focus(message)
    lifts = time_lifts(evidence, lifts, asked, config.superseded_demotion, config.paired_lift)
    return cued, lifts


def read_cards(
    reads: RecallReads,
    user_id: str,
    keys: Sequence[str],
    limit: int,
    cued: Iterable[str],
    evidence: int = MAX_EVIDENCE,
    bare: Iterable[str] = (),
    capped: Capped | None = None,
) -> dict[str, EntityRecord]:
    """Context cards: each entity with its strongest `limit` relations and every relation of a
    `cued` type (the `bare` keys with none; the `capped` keys with the strongest `capped.cued`
    of those). The relations come from the copy the service holds (graph/relation_facts.py)
    when it does, with the entities' own properties read bare, so the read does not grow with an
    entity's relations; else from the graph."""
    cued = list(cued)
    capped = capped or Capped()
    held = reads.caches.relations(user_id, keys, limit, cued, evidence, bare, capped)
    if held is None:
        cards = reads.store.entities(user_id, keys, limit, cued, evidence, bare=bare)
        # the strongest `limit` come first, then the cued ones, each in card order
        cut = limit + max(0, capped.cued)
        return {
            k: replace(card, relations=card.relations[:cut]) if k in capped.keys else card
            for k, card in cards.items()
        }
    cards = reads.store.entities(user_id, keys, limit, (), evidence, bare=keys)
    return {k: replace(card, relations=held.get(k, ())) for k, card in cards.items()}


def asker(reads: RecallReads, request: ContextRequest) -> str | None:
    """Who asks: the call's `speaker`, else the user's main speaker when the message speaks in
    the first person (RetrievalConfig.default_asker says why). A speaker is a mention of the
    message, so an asker nobody named would seed every third-person question ("what did Mel
    paint?") with the main speaker: LoCoMo dev R@8 0.721 → 0.718 before this condition."""
    if request.speaker or not request.config.default_asker:
        return request.speaker
    words = {w.casefold() for w in _WORD.findall(request.message)}
    if words.isdisjoint(FIRST_PERSON):
        return None
    return reads.caches.main_speaker(request.user_id)


def _mentions(resolver: Resolver, keys: Iterable[str]) -> dict[str, int]:
    """Mention counts of the known `keys`, from the catalogue."""
    known = resolver.entities
    return {k: known[k].mention_count for k in keys if k in known}

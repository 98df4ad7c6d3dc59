"""The shipped levers of `default`, each switched off alone, as presets registered in the bench's
own process (the service's presets stay as shipped): bench/locomo.py and bench/longmemeval.py run
them side by side with `default` on the same ingest, so every lever's effect shows on each split
and a lever that only helps one split shows too (issue 35).

`default-no-X` is `default` without lever X. A lever is kept only when switching it off costs on
both the development and the validation questions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from graph.recall.config import PRESETS, RetrievalConfig

Lever = Callable[[RetrievalConfig], RetrievalConfig]


def _weights(config: RetrievalConfig, **changes: float) -> RetrievalConfig:
    return replace(config, weights=replace(config.weights, **changes))


LEVERS: dict[str, Lever] = {
    # BM25's share of similarity
    "lexical": lambda c: _weights(c, lexical=0.0),
    # adjacent turns lending each other a share of their score, and bringing each other in
    "neighbours": lambda c: _weights(c, neighbours=0.0),
    # recency and entity frequency in the score
    "recency": lambda c: _weights(c, recency=0.0),
    "frequency": lambda c: _weights(c, frequency=0.0),
    # the graph's candidates and lifts
    "expansion": lambda c: replace(c, expand_per_seed=0),
    "entity-memories": lambda c: replace(c, per_entity=0),
    "cued": lambda c: replace(c, cued_evidence=0),
    # the SUPPORTS cue alone ("support", "charity", "cause", "advocate", "donate"): issue 34's
    # encouragement evidence made SUPPORTS relations of many turns
    "cue-supports": lambda c: replace(c, uncued=frozenset({"SUPPORTS"})),
    # (no speaker lever: `default` lifts no one's turns, its trees weigh who said a memory, and
    # bench/train_ranker.py's feature ablation measures that)
    "asker": lambda c: replace(c, default_asker=False),
    "hub-cut": lambda c: replace(c, hub_mentions=10**9),
    # change and time
    # (the lift only: the ranker's guard for the time named, graph/recall/ranker.py, stays)
    "time": lambda c: replace(c, time_lift=0.0),
    "demotion": lambda c: replace(c, superseded_demotion=0.0),
    "skew": lambda c: replace(c, clock_skew_hours=0.0),
    # the message read part by part
    "parts": lambda c: replace(c, message_parts=False),
    # near-identical turns shown once
    "repeats": lambda c: replace(c, repeat_cosine=1.0),
}


# candidate levers not shipped (yet): `default` with one added, named `default+X`
ADDITIONS: dict[str, Lever] = {
    "rrf60": lambda c: replace(c, fusion_k=60.0),
    "rrf60-even": lambda c: _weights(replace(c, fusion_k=60.0), lexical=0.5),
    "rrf10": lambda c: replace(c, fusion_k=10.0),
    "spread10": lambda c: replace(c, session_spread=0.1),
    "spread20": lambda c: replace(c, session_spread=0.2),
}


def register(levers: list[str] | None = None, base: str = "default") -> list[str]:
    """Registers `base` without each lever named (every shipped one when `levers` is None), as
    `base-no-X`, and with each candidate lever of ADDITIONS named, as `base+X`; returns the
    preset names in the order given."""
    chosen = list(LEVERS) if levers is None else levers
    if "all" in chosen:  # every shipped lever, where "all" stands
        at = chosen.index("all")
        chosen = [*chosen[:at], *LEVERS, *chosen[at + 1 :]]
    unknown = sorted(set(chosen) - set(LEVERS) - set(ADDITIONS))
    if unknown:
        known = ", ".join([*LEVERS, *ADDITIONS])
        raise SystemExit(f"unknown levers {unknown}; known: {known}")
    names = []
    for lever in chosen:
        if lever in LEVERS:
            name, config = f"{base}-no-{lever}", LEVERS[lever](PRESETS[base])
        else:
            name, config = f"{base}+{lever}", ADDITIONS[lever](PRESETS[base])
        PRESETS[name] = config
        names.append(name)
    return names

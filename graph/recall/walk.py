"""A personalised PageRank over a call's candidates and what links them: a graph feature for the
learnt ranker (graph/recall/features.py), HippoRAG 2's idea without its LLM.

The walk runs on a small graph built from the candidates' facts alone, so it costs no read: every
candidate memory is a node, and so is every entity it mentions (not who said it: that is the
speaker feature) and its session. It restarts at the message's seed entities and at the best
dense and lexical candidates, so a memory scores high when it shares entities or a session with
what the message names and with what already matches it — the second hop of "what did the friend
Caroline met at the support group do?". Hubs (an entity of more than `hub_mentions` memories, the
user) link everything and so nothing: they are left out, as the lookup leaves them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from graph.records import MemoryFacts

RESTART = 0.5  # the walk's chance to restart at each step: short walks, one or two hops
STEPS = 20  # power iterations: (1 - RESTART)^20 is below 1e-6
SEED_STARTS = 5  # the best dense and the best lexical candidates the walk also restarts at


def personalised_pagerank(
    facts: Mapping[str, MemoryFacts],
    seeds: Sequence[str],
    dense: Sequence[str],
    lexical: Sequence[str],
    counts: Mapping[str, int],
    hub_mentions: int,
) -> dict[str, float]:
    """Each candidate memory's share of the walk's visits, divided by the best memory's (so in
    [0, 1]); empty when there is nowhere to start."""
    memories = list(facts)
    index = {m: n for n, m in enumerate(memories)}
    nodes = dict(index)
    ends: list[int] = []  # memory end of each link
    keys: list[int] = []  # entity or session end of each link
    for at, memory in enumerate(facts.values()):
        spoken = memory.speaker_keys
        for key in memory.entity_keys:
            if key in spoken or counts.get(key, 0) > hub_mentions:
                continue
            node = nodes.get(key)
            if node is None:
                node = nodes[key] = len(nodes)
            ends.append(at)
            keys.append(node)
        if memory.session_id:
            key = f"session:{memory.session_id}"
            node = nodes.get(key)
            if node is None:
                node = nodes[key] = len(nodes)
            ends.append(at)
            keys.append(node)
    starts = [nodes[k] for k in seeds if k in nodes]
    starts += [index[m] for m in [*dense[:SEED_STARTS], *lexical[:SEED_STARTS]] if m in index]
    if not starts or not ends:
        return {}
    size = len(nodes)
    src = np.array(ends + keys)  # every link both ways
    dst = np.array(keys + ends)
    degree = np.bincount(src, minlength=size).astype(float)
    weight = 1.0 / degree[src]
    restart = np.zeros(size)
    np.add.at(restart, np.array(starts), 1.0)
    restart /= restart.sum()
    rank = restart.copy()
    for _ in range(STEPS):
        moved = np.bincount(dst, weights=rank[src] * weight, minlength=size)
        rank = RESTART * restart + (1.0 - RESTART) * moved
    visits = rank[: len(memories)]
    best = float(visits.max())
    if best <= 0:
        return {}
    return {m: float(v) / best for m, v in zip(memories, visits, strict=True)}

"""What a learnt ranker sees of one candidate: every signal the hand blend mixes, kept apart.

The hand blend (graph/recall/scoring.py) folds cosine, BM25, lifts and recency into one number
with shares chosen on one split; a model fitted on two kinds of conversation
(bench/train_ranker.py) weighs them itself, and can only weigh what it is shown. The Scorer
computes a `Features` for the candidates a learnt ranker corrects (the blend's best, on demand:
a call scores hundreds), and for every candidate when a bench writes them out beside the
evidence labels (`rank_candidates`).

Query-relative features (a rank among the call's candidates, the gap to the best cosine) carry
what raw scores cannot: a cosine of 0.45 is the best match in one history and noise in another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from operator import attrgetter


@dataclass(frozen=True, slots=True)
class Features:
    """One candidate as the ranker sees it; every value a float, 0 when the signal is absent."""

    cosine: float  # the best cosine to the message or one of its parts, clipped to [0, 1]
    cosine_gap: float  # the call's best candidate cosine minus this one's
    dense_rank: float  # log2 of its rank by cosine among the call's candidates (0: the first)
    # the same three of its cosine to the message without the names of the people it is about
    # (graph/recall/content.py; equal to the three above when it names nobody)
    content: float
    content_gap: float
    content_rank: float
    lexical: float  # BM25 score as a share of the call's best (0: no word shared)
    lexical_rank: float  # log2 of its rank by BM25 among those sharing a word (0 if none)
    words: float  # 1 when it shares a word of the message
    cued: float  # how far a cued relation's evidence lifts it (RetrievalConfig's lifts)
    demoted: float  # how far a superseded fact's evidence is pushed down
    in_time: float  # 1 when it is of the time the message names
    said_by_subject: float  # 1 when a person the message is about said it
    # ... and that person's share of the user's mentions (log-scaled, as frequency): being said
    # by the main user of a history tells little, by a rare speaker much
    subject_frequency: float
    recency: float  # 0.5^(age / half-life) against asOf
    frequency: float  # the strongest linked seed's or expanded entity's frequency
    seed_links: float  # seeds it mentions, at most 3, over 3
    expanded_link: float  # 1 when it mentions an entity one hop from a seed
    held: float  # 1 when it holds a name of the message no entity stands for
    # 1 when it mentions a thing of the kind the question asks for ("where…?": a place), other
    # than one the question names or the memory's speaker (extraction/asked.py)
    asked_type: float
    vector_hit: float  # 1 when FAISS found it
    lexical_hit: float  # 1 when BM25's top-k found it
    content_hit: float  # 1 when FAISS found it for the message without its people's names
    part: float  # 1 when one part of the message is closer to it than the whole
    neighbour_only: float  # 1 when only a better candidate's session neighbour brought it in
    pinned: float
    episode: float  # 1 for a session's episode, 0 for a turn
    # its share of a personalised PageRank's visits from the message's seeds and best matches
    # over the candidates' entities and sessions (graph/recall/walk.py), over the best's
    walk: float


# the model's inputs: the fields above, then the share of its best session neighbour's score the
# blend added (stages.neighbour_bonus), which is known only once every candidate is scored and is
# kept on the Scored, not copied into its features
NAMES: tuple[str, ...] = (*(f.name for f in fields(Features)), "neighbour")
_FIELDS = attrgetter(*NAMES[:-1])


def row(features: Features, neighbour: float) -> tuple[float, ...]:
    """One candidate's model inputs, in NAMES order (attrgetter: a candidate's 29 values in a
    microsecond, where dataclasses.astuple took twenty)."""
    return (*_FIELDS(features), neighbour)


def log_rank(rank: int | None) -> float:
    """log2 of a 1-based rank (0 for the first); None (not ranked) counts as far down."""
    return math.log2(rank) if rank is not None else math.log2(1024)

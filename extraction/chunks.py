"""A long text as paragraph-level parts, and the parts' extractions as the text's one.

A pasted story, note or meeting summary states its facts anywhere in it, and only the head of a
text used to be parsed. A text longer than PART_CHARS is split into parts of at most that many
characters (about 500 tokens of English): at blank lines first, then at line breaks, then after
sentence ends, and only a sentence longer than a part at a space. Each part is parsed on its own
(spaCy's cost grows with a doc's length, and one doc per part keeps a batch's docs even) and the
parts' extractions are joined as one memory's (`joined`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from extraction.embedder import embedding_text
from extraction.keys import is_agent_voice
from extraction.model import REF_PREFIX, Extraction, Mention, Relation

# about 500 tokens of English text (four characters a token)
PART_CHARS = 2000
# what the embedder takes of a text (its first 128 word pieces, extraction/embedder.py) is about
# this many characters: a person's longer text is embedded again in passages of this size
PASSAGE_CHARS = 500
# where a part may end, tried in order: a paragraph, a line, a sentence, a word
_BREAKS = (
    re.compile(r"\n\s*\n"),
    re.compile(r"\n"),
    re.compile(r"(?<=[.!?])\s+"),
    re.compile(r" "),
)


def text_parts(text: str, limit: int = PART_CHARS) -> list[str]:
    """`text` as consecutive parts of at most `limit` characters that together hold all of it;
    a text within the limit is its own one part."""
    if len(text) <= limit:
        return [text]
    return _packed(_pieces(text, limit, 0), limit)


def passages(text: str, speaker: str | None) -> list[str]:
    """The passages of a person's long text embedded beside the text's own vector (which holds
    its head): every part of at most PASSAGE_CHARS after the first, as "Speaker: passage". An
    agent's reply has none (its head alone is parsed too: see Extractor.extract_many)."""
    if len(text) <= PASSAGE_CHARS or (speaker is not None and is_agent_voice(speaker)):
        return []
    return [embedding_text(p, speaker) for p in text_parts(text, PASSAGE_CHARS)[1:]]


def _pieces(text: str, limit: int, level: int) -> list[str]:
    """`text` cut after each break of the first kind (from `level` on) that shortens it, each
    piece longer than `limit` cut further; a piece keeps the break that ends it."""
    if len(text) <= limit:
        return [text]
    if level == len(_BREAKS):
        return [text[at : at + limit] for at in range(0, len(text), limit)]
    ends = [m.end() for m in _BREAKS[level].finditer(text) if 0 < m.end() < len(text)]
    if not ends:
        return _pieces(text, limit, level + 1)
    bounds = [0, *ends, len(text)]
    out: list[str] = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        out.extend(_pieces(text[start:end], limit, level + 1))
    return out


def _packed(pieces: list[str], limit: int) -> list[str]:
    """Consecutive pieces joined while the part stays within `limit`."""
    parts: list[str] = []
    for piece in pieces:
        if parts and len(parts[-1]) + len(piece) <= limit:
            parts[-1] += piece
        else:
            parts.append(piece)
    return [p for p in parts if p.strip()]


def joined(extractions: list[Extraction]) -> Extraction:
    """The parts' extractions as one text's. A reference is settled from one text alone only
    within its part, so each part's `ref:` keys get the part's number; a pronoun after the first
    part is dropped with its relations ("She" opening part 3 means someone part 2 named, whom
    the resolver, which looks back at earlier turns, cannot see)."""
    if len(extractions) == 1:
        return extractions[0]
    mentions: list[Mention] = []
    relations: list[Relation] = []
    endings: list[Relation] = []
    for n, part in enumerate(extractions):
        dropped = {
            m.key
            for m in part.mentions
            if n > 0 and m.reference is not None and m.reference.kind == "pronoun"
        }
        mentions.extend(_renamed(m, n) for m in part.mentions if m.key not in dropped)
        for listed, out in ((part.relations, relations), (part.endings, endings)):
            out.extend(
                replace(r, src=_ref(r.src, n), dst=_ref(r.dst, n))
                for r in listed
                if r.src not in dropped and r.dst not in dropped
            )
    first = extractions[0]
    return Extraction(
        mentions=list(dict.fromkeys(mentions)),
        relations=list(dict.fromkeys(relations)),
        cues=frozenset().union(*(e.cues for e in extractions)),
        dates=tuple(dict.fromkeys(d for e in extractions for d in e.dates)),
        subjects=tuple(dict.fromkeys(s for e in extractions for s in e.subjects)),
        about_listener=first.about_listener,
        endings=list(dict.fromkeys(endings)),
    )


def _ref(key: str, part: int) -> str:
    """A `ref:` key made the part's own (part 0 keeps its keys)."""
    if part == 0 or not key.startswith(REF_PREFIX):
        return key
    return f"{REF_PREFIX}p{part}.{key[len(REF_PREFIX) :]}"


def _renamed(mention: Mention, part: int) -> Mention:
    key = _ref(mention.key, part)
    reference = mention.reference
    if reference is not None and reference.owner is not None:
        reference = replace(reference, owner=_ref(reference.owner, part))
    return replace(mention, key=key, reference=reference)

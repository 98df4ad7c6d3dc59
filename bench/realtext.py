"""Real conversation text for the performance benches: LoCoMo dev turns and LongMemEval dev
haystack turns, read at run time from ../shared/data (never copied), assembled into one user's
history in a fixed order.

The history is a sequence of whole sessions. LoCoMo sessions (short chat turns between two
people) are mixed in so that they make up `locomo_share` of every prefix while they last — with
the default share they run out near 10,000 turns, so the 1,000 and 10,000 prefixes hold the same
mix and larger ones add only LongMemEval sessions (a user and an assistant whose replies are often
1,000–3,000 characters). A LongMemEval session shared by several haystacks is taken once. Session
k starts k × 6 hours after 2023-01-01 and its j-th turn is j minutes later, so the history is
chronological and every session ends before the next begins (episodes are written as for a real
user). Questions alternate between the two datasets' questions.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from locomo import DEFAULT_DATA as LOCOMO_DIR
from locomo import conversation_files
from locomo import load as load_locomo
from longmemeval import DEFAULT_DATA as LME_FILE
from longmemeval import MAX_CHARS

START = datetime(2023, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class RealTurn:
    text: str
    speaker: str
    session: str
    external_id: str
    occurred_at: str = ""

    def input(self, user: str) -> dict[str, str]:
        """The turn as a GraphQL MemoryInput (and a `recollect ingest` JSON line)."""
        return {
            "userId": user,
            "text": self.text,
            "speaker": self.speaker,
            "sessionId": self.session,
            "externalId": self.external_id,
            "occurredAt": self.occurred_at,
        }


Session = list[RealTurn]


def _locomo_sessions(folder: Path) -> Iterator[Session]:
    for path in conversation_files(str(folder)):
        conversation = load_locomo(path)
        current: Session = []
        for turn in conversation.turns:
            session = f"{conversation.user}:{turn.session}"
            if current and current[0].session != session:
                yield current
                current = []
            current.append(RealTurn(turn.text, turn.speaker, session, f"{session}:{turn.dia_id}"))
        if current:
            yield current


def _lme_sessions(path: Path) -> Iterator[Session]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        raw = json.load(handle)
    seen: set[str] = set()
    for item in raw:
        for session, messages in zip(
            item["haystack_session_ids"], item["haystack_sessions"], strict=True
        ):
            if session in seen:
                continue
            seen.add(session)
            turns = [
                RealTurn(
                    m["content"][:MAX_CHARS],
                    "User" if m["role"] == "user" else "Assistant",
                    f"lme:{session}",
                    f"lme:{session}:{j}",
                )
                for j, m in enumerate(messages)
                if m["content"].strip()
            ]
            if turns:
                yield turns


def real_turns(
    size: int,
    locomo_dir: Path = LOCOMO_DIR,
    lme_file: Path = LME_FILE,
    locomo_share: float = 0.28,
) -> list[RealTurn]:
    """The first `size` turns of the assembled history (the same every run)."""
    locomo, lme = _locomo_sessions(locomo_dir), _lme_sessions(lme_file)
    out: list[RealTurn] = []
    from_locomo = 0
    k = 0
    while len(out) < size:
        source = locomo if from_locomo < locomo_share * max(len(out), 1) else lme
        session = next(source, None)
        if session is None and source is locomo:
            locomo_share = 0.0
            continue
        if session is None:
            raise SystemExit(f"the shared data holds fewer than {size} turns ({len(out)})")
        start = START + timedelta(hours=6 * k)
        k += 1
        session = session[: size - len(out)]
        if source is locomo:
            from_locomo += len(session)
        out.extend(
            RealTurn(
                t.text,
                t.speaker,
                t.session,
                t.external_id,
                (start + timedelta(minutes=j)).isoformat(),
            )
            for j, t in enumerate(session)
        )
    return out


def real_questions(n: int, locomo_dir: Path = LOCOMO_DIR, lme_file: Path = LME_FILE) -> list[str]:
    """`n` questions, alternating LoCoMo and LongMemEval ones (fixed order)."""
    locomo = [q.text for p in conversation_files(str(locomo_dir)) for q in load_locomo(p).questions]
    with gzip.open(lme_file, "rt", encoding="utf-8") as handle:
        lme = [item["question"] for item in json.load(handle)]
    mixed = [q for pair in zip(locomo, lme, strict=False) for q in pair]
    if len(mixed) < n:
        raise SystemExit(f"the shared data holds {len(mixed)} questions, fewer than {n}")
    return mixed[:n]

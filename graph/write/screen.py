"""The first stage of the write path after validation: personal data and secrets are redacted
or refused (graph/write/policy.py) before anything is written anywhere — graph, FAISS, BM25,
episodes (built from stored texts), the engine's write log, logs and metrics all see the
redacted text only.

The text is screened, and so are the client's identifiers that are stored and logged beside it —
`speaker`, `sessionId`, `externalId` — with the same policy: a card number in an externalId is
as much on disk as one in the text. A redacted identifier is stored redacted, so two externalIds
that differ only in a redacted span are one idempotency key (the second is a REPEAT): a client
that puts such data in its keys should refuse it instead (docs/storage.md).

A whole batch is screened before its first write, so a refused item rejects the batch and
nothing of it is written. The error names the field and the type, never the value.
The detector (Presidio, extraction/pii.py) is loaded on first need: a policy that keeps
everything never loads it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Protocol

from extraction.model import Finding
from graph.errors import InvalidInput
from graph.validation import NewMemory
from graph.write.policy import REDACT, REFUSE, PiiPolicy

# (NewMemory attribute, input field name) screened, the text first
FIELDS = (
    ("text", "text"),
    ("speaker", "speaker"),
    ("session_id", "sessionId"),
    ("external_id", "externalId"),
)


def load_detector() -> Detector:
    """Presidio's detector (extraction/pii.py), imported only when a policy first needs it: the
    import alone takes seconds, which a read-only command or a server's first answer should not
    wait for."""
    from extraction.pii import load_detector as load

    return load()


class Detector(Protocol):
    def find(self, text: str, types: Collection[str]) -> list[Finding]:
        """The spans of `types` in `text`, without overlaps."""
        ...

    def redact(self, text: str, findings: Sequence[Finding]) -> str:
        """`text` with each finding replaced by `[TYPE]`."""
        ...


class Screen:
    """The service's policy and the detector it needs."""

    def __init__(self, policy: PiiPolicy, detector: Callable[[], Detector]) -> None:
        self.policy = policy
        self._load = detector
        self._detector: Detector | None = None
        self._loading = threading.Lock()

    def detector(self) -> Detector:
        with self._loading:
            if self._detector is None:
                self._detector = self._load()
            return self._detector

    def batch(self, memories: Sequence[NewMemory]) -> list[NewMemory]:
        """Each memory as it may be stored: redacted, with the types it lost in `redactions`;
        InvalidInput for a bad `piiPolicy` or a type the policy refuses."""
        many = len(memories) > 1
        seen: dict[tuple[str, str | None], tuple[str, list[str]]] = {}
        return [
            self.one(m, prefix=f"inputs[{i}]." if many else "", seen=seen)
            for i, m in enumerate(memories)
        ]

    def one(
        self,
        memory: NewMemory,
        prefix: str = "",
        seen: dict[tuple[str, str | None], tuple[str, list[str]]] | None = None,
    ) -> NewMemory:
        """`seen`: identifiers already screened in this batch under a memory's `piiPolicy` (a
        batch's turns mostly share their speaker and session)."""
        known = {} if seen is None else seen
        policy = self.policy.overridden(memory.pii_policy, f"{prefix}piiPolicy")
        if not policy.watched:
            return memory
        stored: dict[str, str | None] = {}
        lost: list[str] = []
        for name, field in FIELDS:
            value = getattr(memory, name)
            stored[name] = value
            if not value:
                continue
            memo = (value, memory.pii_policy) if name != "text" else None
            if memo is not None and memo in known:
                stored[name], types = known[memo]
            else:
                stored[name], types = self._value(value, policy, prefix + field)
                if memo is not None:
                    known[memo] = (stored[name] or "", types)
            lost.extend(types)
        if not lost:
            return memory
        return replace(
            memory,
            text=stored["text"] or memory.text,
            speaker=stored["speaker"],
            session_id=stored["session_id"],
            external_id=stored["external_id"],
            redactions=tuple(dict.fromkeys(lost)),  # in order of appearance, the text's first
        )

    def _value(self, value: str, policy: PiiPolicy, field: str) -> tuple[str, list[str]]:
        """`value` as it may be stored and the types redacted from it; InvalidInput naming
        `field` for a type the policy refuses."""
        findings = self.detector().find(value, policy.watched)
        refused = [f.type for f in findings if policy.action(f.type) == REFUSE]
        if refused:
            raise InvalidInput(
                field,
                f"holds personal data of type {', '.join(dict.fromkeys(refused))}, which the "
                "storage policy refuses; nothing was stored",
            )
        redacted = [f for f in findings if policy.action(f.type) == REDACT]
        if not redacted:
            return value, []
        return self.detector().redact(value, redacted), [f.type for f in redacted]

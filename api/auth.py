"""API keys: `RECOLLECT_API_KEYS="key1=alice|bob;key2=*"` grants key1 the users alice and bob and
key2 every user. Keys are kept only as sha256 digests. With no keys configured every request is
allowed, and the server refuses to listen anywhere but loopback.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from graph.errors import Forbidden, Unauthenticated


@dataclass(frozen=True)
class Principal:
    all_users: bool
    users: frozenset[str] = frozenset()

    def check(self, user_id: str) -> None:
        if not self.all_users and user_id not in self.users:
            raise Forbidden(f"this API key does not grant access to user {user_id!r}")


OPEN = Principal(all_users=True)


@dataclass(frozen=True)
class Denied(Principal):
    """A caller whose key was missing or unknown: every scoped resolver raises `reason`."""

    reason: str = ""

    def check(self, user_id: str) -> None:
        raise Unauthenticated(self.reason)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class KeyRing:
    def __init__(self, spec: str | None) -> None:
        self._grants: dict[str, Principal] = {}
        for part in (spec or "").split(";"):
            part = part.strip()
            if not part:
                continue
            key, sep, users = part.partition("=")
            if not sep or not key.strip() or not users.strip():
                raise ValueError("RECOLLECT_API_KEYS entries look like key=user1|user2 or key=*")
            names = frozenset(u.strip() for u in users.split("|") if u.strip())
            grant = Principal(all_users="*" in names, users=names - {"*"})
            self._grants[_digest(key.strip())] = grant

    @property
    def enabled(self) -> bool:
        return bool(self._grants)

    def authenticate(self, authorization: str | None) -> Principal:
        if not self.enabled:
            return OPEN
        if not authorization or not authorization.startswith("Bearer "):
            return Denied(all_users=False, reason="missing Authorization: Bearer <key> header")
        digest = _digest(authorization.removeprefix("Bearer ").strip())
        for known, grant in self._grants.items():
            if hmac.compare_digest(known, digest):
                return grant
        return Denied(all_users=False, reason="unknown API key")

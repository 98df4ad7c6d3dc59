"""The profile operations callers mean: read a person's profile with the user's settings, set the
settings by hand, rebuild on demand. The API (GraphQL, MCP) calls these; the profiles themselves
are written by graph/write/profiles.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol
from zoneinfo import available_timezones

from graph.caches import UserCaches
from graph.errors import InvalidInput
from graph.profile.coverage import Index
from graph.profile_store import Settings
from graph.records import Profile, Style
from graph.store import Store
from graph.validation import DOMAIN, check_no_nul, check_user_id

MAX_NAME_CHARS = 80
_EMPTY_STYLE = Style("moderate", False, None, 0.0, 0.0, None)


class Folds(Protocol):
    """What folds profiles and indexes from the tallies (graph/write/profiles.py ProfileWriter)."""

    def rebuild(self, user_id: str) -> list[Profile]: ...

    def index(self, user_id: str, domain: str | None) -> Index: ...


class ProfileReads(Protocol):
    """What the profile operations read and fold through; the service satisfies it, so these
    reads import nothing above them (graph/recall/reads.py is the same shape for recall)."""

    @property
    def store(self) -> Store: ...

    @property
    def caches(self) -> UserCaches: ...

    @property
    def profiles(self) -> Folds: ...


@dataclass(frozen=True)
class ProfileView:
    """A person's profile as served: the stored profile (empty before any session ended) with the
    user's settings; `preferred_name` is the one set by hand, else the one the person asked for."""

    profile: Profile
    timezone: str | None
    preferred_name: str | None
    built: bool  # False when no ended session has built it yet


def _speaker(reads: ProfileReads, user_id: str, speaker: str | None) -> str | None:
    check_user_id(user_id)
    check_no_nul(speaker, "speaker")
    return speaker if speaker else reads.caches.main_speaker(user_id)


def _view(profile: Profile | None, speaker: str, settings: Settings) -> ProfileView:
    built = profile is not None
    shown = profile if profile is not None else Profile(speaker, None, _EMPTY_STYLE)
    name = settings.preferred_name or shown.preferred_name
    return ProfileView(shown, settings.timezone, name, built)


def read_profile(
    reads: ProfileReads, user_id: str, speaker: str | None = None
) -> ProfileView | None:
    """One person's profile (the user's main speaker by default); None when there is neither a
    profile nor settings for them."""
    who = _speaker(reads, user_id, speaker)
    found = reads.store.profiles.read(user_id, who) if who else []
    settings = reads.store.profiles.settings(user_id)
    if not found and settings == Settings():
        return None
    return _view(found[0] if found else None, who or user_id, settings)


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones() | {"UTC"})


def check_timezone(value: str) -> str:
    """An IANA zone name `zoneinfo` knows ("Europe/Lisbon"); InvalidInput naming the field else."""
    check_no_nul(value, "timezone")
    if value not in _zones():
        hint = "an IANA zone name such as Europe/Lisbon, America/New_York or UTC"
        raise InvalidInput("timezone", f"is {value!r}; not a known time zone, want {hint}")
    return value


def check_name(value: str) -> str:
    check_no_nul(value, "preferredName")
    name = " ".join(value.split())
    if not name or len(name) > MAX_NAME_CHARS:
        raise InvalidInput(
            "preferredName", f"has {len(name)} characters; allowed 1 to {MAX_NAME_CHARS}"
        )
    return name


def set_user_settings(
    reads: ProfileReads, user_id: str, timezone: str | None, preferred_name: str | None
) -> ProfileView:
    """Sets the timezone and preferred name (each only when given), checked before anything is
    written; returns the main speaker's profile with them."""
    check_user_id(user_id)
    which = set()
    if timezone is not None:
        timezone = check_timezone(timezone)
        which.add("timezone")
    if preferred_name is not None:
        preferred_name = check_name(preferred_name)
        which.add("preferred_name")
    settings = reads.store.profiles.set_settings(
        user_id, timezone, preferred_name, time.time(), which=which
    )
    return read_profile(reads, user_id) or _view(None, user_id, settings)


def refresh_profile(reads: ProfileReads, user_id: str) -> ProfileView | None:
    """Rebuilds every profile of the user from all ended sessions, then reads the main one."""
    check_user_id(user_id)
    reads.caches.follow(user_id)
    reads.profiles.rebuild(user_id)
    return read_profile(reads, user_id)


def knowledge_index(reads: ProfileReads, user_id: str, domain: str | None = None) -> Index:
    """The user's knowledge index (of one domain, or of all their memories)."""
    check_user_id(user_id)
    check_no_nul(domain, "domain")
    if domain is not None and not DOMAIN.fullmatch(domain):
        raise InvalidInput("domain", f"is {domain!r}; allowed lowercase letters, digits and dashes")
    reads.caches.follow(user_id)
    return reads.profiles.index(user_id, domain)

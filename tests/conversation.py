"""A hand-written two-speaker conversation (Alice Smith and Ben Carter) over three weeks, with
family, work, place and preference facts, used by the end-to-end tests."""

from __future__ import annotations

import time
from typing import Any

from graph.validation import NewMemory

USER = "alice"

_TURNS: list[tuple[str, str, str]] = [
    ("2026-10-01T09:00:00Z", "Alice Smith", "Hi Ben, it has been a while since we talked."),
    ("2026-10-01T09:01:00Z", "Ben Carter", "Hi Alice! I just got back from a long trip."),
    (
        "2026-10-01T09:02:00Z",
        "Alice Smith",
        "My sister Mary lives in Boston and I visited her last week.",
    ),
    ("2026-10-01T09:03:00Z", "Ben Carter", "How is Mary doing these days?"),
    ("2026-10-01T09:04:00Z", "Alice Smith", "Mary works at Boston Children's Hospital as a nurse."),
    ("2026-10-01T09:05:00Z", "Ben Carter", "That sounds like demanding work."),
    ("2026-10-01T09:06:00Z", "Alice Smith", "I work at Acme Corp as a software engineer."),
    ("2026-10-01T09:07:00Z", "Ben Carter", "I work at Globex in the finance department."),
    ("2026-10-01T09:08:00Z", "Alice Smith", "I'm working on Project Apollo, a new billing system."),
    ("2026-10-01T09:09:00Z", "Ben Carter", "My brother Jake lives in Denver with his two dogs."),
    ("2026-10-08T18:00:00Z", "Alice Smith", "I love pottery and I take a class every Thursday."),
    ("2026-10-08T18:01:00Z", "Ben Carter", "I joined the Denver Chess Club when I visited Jake."),
    ("2026-10-08T18:02:00Z", "Alice Smith", "My husband David is a chef at a French restaurant."),
    ("2026-10-08T18:03:00Z", "Ben Carter", "David cooked an amazing dinner for us last spring."),
    ("2026-10-08T18:04:00Z", "Alice Smith", "We visited Japan for our anniversary in April."),
    ("2026-10-08T18:05:00Z", "Ben Carter", "I would love to travel to Kyoto someday."),
    ("2026-10-08T18:06:00Z", "Alice Smith", "My friend Priya moved to Toronto for a new job."),
    ("2026-10-08T18:07:00Z", "Ben Carter", "Toronto is cold in the winter, I hear."),
    ("2026-10-08T18:08:00Z", "Alice Smith", "Priya works at Shopify on their payments team."),
    (
        "2026-10-08T18:09:00Z",
        "Ben Carter",
        "I enjoy running marathons; I ran the Chicago Marathon last year.",
    ),
    (
        "2026-10-15T12:00:00Z",
        "Alice Smith",
        "My mother Linda lives in Portland and gardens every day.",
    ),
    ("2026-10-15T12:01:00Z", "Ben Carter", "Linda's garden sounded lovely when you described it."),
    ("2026-10-15T12:02:00Z", "Alice Smith", "I'm allergic to peanuts, so I avoid Thai food."),
    ("2026-10-15T12:03:00Z", "Ben Carter", "I'll remember that when we pick a restaurant."),
    ("2026-10-15T12:04:00Z", "Alice Smith", "Our daughter Emma started kindergarten in September."),
    ("2026-10-15T12:05:00Z", "Ben Carter", "Emma must be so excited about school."),
    (
        "2026-10-15T12:06:00Z",
        "Alice Smith",
        "Project Apollo launches in December if testing goes well.",
    ),
    ("2026-10-15T12:07:00Z", "Ben Carter", "Good luck with the launch at Acme Corp."),
    (
        "2026-10-15T12:08:00Z",
        "Alice Smith",
        "Mary is coming to visit us in Seattle for Thanksgiving.",
    ),
    ("2026-10-15T12:09:00Z", "Ben Carter", "I live in Seattle too, so let's all meet up."),
    ("2026-10-15T12:10:00Z", "Alice Smith", "I live in Seattle near Green Lake."),
    ("2026-10-15T12:11:00Z", "Ben Carter", "Jake is a firefighter in Denver."),
]


def turns() -> list[dict[str, Any]]:
    return [
        {
            "userId": USER,
            "text": text,
            "speaker": speaker,
            "occurredAt": when,
            "sessionId": f"s{when[8:10]}",
            "externalId": f"turn-{i}",
        }
        for i, (when, speaker, text) in enumerate(_TURNS)
    ]


def new_memories() -> list[NewMemory]:
    """The same turns as `turns()`, for a test that writes through the service in-process (the
    time as the same-zone timestamp the tests have always used)."""
    return [
        NewMemory(
            user_id=USER,
            text=t["text"],
            speaker=t["speaker"],
            session_id=t["sessionId"],
            external_id=t["externalId"],
            occurred_at=time.mktime(time.strptime(t["occurredAt"], "%Y-%m-%dT%H:%M:%SZ")),
        )
        for t in turns()
    ]


def text_of(i: int) -> str:
    return _TURNS[i][2]

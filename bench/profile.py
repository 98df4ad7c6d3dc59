"""Profiles and knowledge index on LoCoMo dev, against the dataset's human observations.

Every conversation is ingested through the public GraphQL API session by session, with the
session's date on every turn (as bench/locomo.py does), and each session is ended with
`endSession` right after its turns, so the profiles are built incrementally, as in production.
Then, per conversation, both speakers' profiles and the knowledge index are printed for reading,
and measured:

- expertise precision proxy: the share of a speaker's expertise items whose area occurs in that
  speaker's observations (Snowball stems in order, as bench/graph_quality.py compares them); the
  observations are read by this bench only, the product never sees them;
- items per speaker, and whether the two speakers' profiles differ (their expertise areas);
- incremental = rebuild: the stored profiles before and after `refreshProfile`;
- the update cost: the time of the last endSession's background fold (from the log), and of a
  rebuild, beside the number of sessions and memories.

    python bench/profile.py [--data ../shared/data/locomo-dev] [--only 26] [--quiet]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

from graph_quality import annotations, occurs, stems
from locomo import DEFAULT_DATA, REMEMBER_MANY, Client, Conversation, conversation_files, load
from locomo import service as start_service
from machine import describe

END = "mutation($u: ID!, $s: ID!) { endSession(userId: $u, sessionId: $s) { turnCount } }"
PROFILE = """query($u: ID!, $speaker: String) { profile(userId: $u, speaker: $speaker) {
  speaker preferredName relationshipStage
  expertise { area depth reason evidence(first: 2) { text } }
  style { verbosity providesStructuredData respondsToFollowUps wordsPerTurn structuredShare
          answeredShare }
  topicsDeclined sessionsCompleted entriesContributed lastActiveAt } }"""


def ingest_by_session(client: Client, conversation: Conversation) -> int:
    """Each session's turns in one rememberMany, then endSession; returns the sessions."""
    sessions: dict[str, list[dict[str, Any]]] = {}
    for t in conversation.turns:
        sessions.setdefault(t.session, []).append(
            {
                "userId": conversation.user,
                "text": t.text,
                "speaker": t.speaker,
                "occurredAt": t.occurred_at,
                "sessionId": t.session,
                "externalId": t.dia_id,
            }
        )
    for session, inputs in sessions.items():
        client.call(REMEMBER_MANY, inputs=inputs)
        client.call(END, u=conversation.user, s=session)
    return len(sessions)


def precision(items: list[dict[str, Any]], observed: list[str]) -> tuple[int, int]:
    """(items whose area occurs in the speaker's observations, items)."""
    hits = sum(1 for item in items if occurs(item["area"], observed))
    return hits, len(items)


def show(profile: dict[str, Any], hits: set[str]) -> None:
    style = profile["style"]
    print(
        f"\n### {profile['speaker']} — stage {profile['relationshipStage']}, "
        f"{profile['sessionsCompleted']} sessions, {profile['entriesContributed']} turns, "
        f"preferred name {profile['preferredName']!r}"
    )
    print(
        f"style: {style['verbosity']} ({style['wordsPerTurn']} words/turn), structured data "
        f"{style['providesStructuredData']} ({style['structuredShare']}), answers follow-ups "
        f"{style['respondsToFollowUps']} ({style['answeredShare']})"
    )
    print(f"topics declined: {profile['topicsDeclined']}")
    for item in profile["expertise"]:
        mark = "+" if item["area"] in hits else "-"
        said = item["evidence"][0]["text"][:90] if item["evidence"] else ""
        print(f"  {mark} {item['area']} [{item['depth']}] {item['reason']} — “{said}”")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo folder (*.json)")
    parser.add_argument("--only", help="comma-separated file stems, e.g. 26,30")
    parser.add_argument("--quiet", action="store_true", help="the table only")
    args = parser.parse_args()
    rows = []
    with start_service(None) as (client, _embed, runtime):
        for path in conversation_files(args.data, args.only):
            rows.append(run_one(client, runtime, path, args.quiet))
    print(f"\nLoCoMo profiles: {len(rows)} conversations\nmachine: {describe()}\n")
    print("| conversation | speaker | items | in observations | precision | sessions | rebuild ms |")
    print("|---|---|---|---|---|---|---|")
    total_hits = total_items = 0
    for user, speaker, hits, items, sessions, rebuild_ms in rows_flat(rows):
        share = f"{hits / items:.2f}" if items else "—"
        print(f"| {user} | {speaker} | {items} | {hits} | {share} | {sessions} | {rebuild_ms:.0f} |")
        total_hits += hits
        total_items += items
    overall = total_hits / total_items if total_items else 0.0
    print(f"\noverall precision proxy {overall:.3f} ({total_hits}/{total_items})")
    same = [r["user"] for r in rows if not r["equal"]]
    print("incremental = rebuild: " + ("yes, every conversation" if not same else f"NO: {same}"))
    alike = [r["user"] for r in rows if not r["differ"]]
    print("speakers' profiles differ: " + ("yes, every conversation" if not alike else f"NO: {alike}"))


def rows_flat(rows: list[dict[str, Any]]) -> list[tuple[str, str, int, int, int, float]]:
    return [
        (r["user"], s, h, n, r["sessions"], r["rebuild_ms"]) for r in rows for s, h, n in r["speakers"]
    ]


def run_one(client: Client, runtime: Any, path: Path, quiet: bool) -> dict[str, Any]:
    conversation = load(path)
    notes = annotations(path)
    sessions = ingest_by_session(client, conversation)
    runtime.service.drain()
    user = conversation.user
    speakers = list(dict.fromkeys(t.speaker for t in conversation.turns))
    store = runtime.store
    incremental = [dataclasses.asdict(p) for p in store.profiles.read(user, None)]
    started = time.perf_counter()
    runtime.service.profiles.rebuild(user)
    rebuild_ms = (time.perf_counter() - started) * 1000
    rebuilt = [dataclasses.asdict(p) for p in store.profiles.read(user, None)]
    result: dict[str, Any] = {
        "user": user,
        "sessions": sessions,
        "rebuild_ms": rebuild_ms,
        "equal": incremental == rebuilt,
        "speakers": [],
    }
    if not quiet:
        print(f"\n## {user}: {len(conversation.turns)} turns, {sessions} sessions")
    areas = []
    for speaker in speakers:
        profile = client.call(PROFILE, u=user, speaker=speaker)["profile"]
        observed = stems(" ".join(o.text for o in notes.observations if o.speaker == speaker))
        items = profile["expertise"] if profile else []
        hits = {i["area"] for i in items if occurs(i["area"], observed)}
        result["speakers"].append((speaker, *precision(items, observed)))
        areas.append({i["area"] for i in items})
        if profile and not quiet:
            show(profile, hits)
    result["differ"] = len(areas) < 2 or areas[0] != areas[1]
    print(f"  {user}: done", file=sys.stderr)
    return result


if __name__ == "__main__":
    main()

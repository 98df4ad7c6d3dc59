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

    python bench/profiles.py [--data ../shared/data/locomo-dev] [--only 26] [--quiet]

With `--scale 10000,50000` it measures the update cost on one user of that many real turns
instead (bench/perf.py's history, bulk-built once under --cache with sessions left open, as that
bench builds it): the tally of one session, the fold over every session's tally (all sessions
tallied directly: the bulk build ends none, and ending thousands would write thousands of
episodes), and one knowledge index update: every session's share (tallied with its profile
tally) parsed and folded, the index built and stored.

    python bench/profiles.py --scale 10000,50000 [--cache DIR] [--any-build]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

# this file's name is the standard library's `profile` (which cProfile imports, and torch imports
# cProfile): the folder of the benches goes after the standard library on the path, so that
# `import profile` finds the library's and the benches' own imports still resolve
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p != _HERE] + [_HERE]

from graph_quality import annotations, occurs, stems  # noqa: E402
from locomo import (  # noqa: E402
    DEFAULT_DATA,
    REMEMBER_MANY,
    Client,
    Conversation,
    conversation_files,
    load,
)
from locomo import service as start_service  # noqa: E402
from machine import describe  # noqa: E402

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


INDEX = """query($u: ID!) { knowledgeIndex(userId: $u) {
  totalEntries lastReindexed categories { name entryCount uniqueTopics wellCovered weak }
  themes temporalCoverage { period count } places { label count }
  gaps { kind reason question } } }"""


def show_index(index: dict[str, Any], conversation: Conversation) -> None:
    dates = sorted({t.occurred_at[:7] for t in conversation.turns})
    print(f"\n### knowledge index: {index['totalEntries']} entries")
    for c in index["categories"]:
        if c["entryCount"]:
            print(
                f"  {c['name']}: {c['entryCount']} entries, {c['uniqueTopics']} topics; "
                f"well covered {c['wellCovered']}; weak {c['weak']}"
            )
    print(f"themes: {index['themes']}")
    periods = ", ".join(f"{p['period']} {p['count']}" for p in index["temporalCoverage"])
    print(f"temporal coverage: {periods}")
    print(f"session months: {dates[0]} to {dates[-1]}")
    print("places: " + ", ".join(f"{p['label']} {p['count']}" for p in index["places"]))
    print("gaps:")
    for gap in index["gaps"]:
        print(f"  {gap['kind']}: {gap['question']} ({gap['reason']})")


def in_span(index: dict[str, Any], conversation: Conversation) -> tuple[int, int]:
    """(entries in buckets inside the sessions' span, all entries): a bucket outside is a time
    the turns speak of (an event time), not when they were said."""
    first = min(t.occurred_at for t in conversation.turns)
    last = max(t.occurred_at for t in conversation.turns)
    inside = 0
    for p in index["temporalCoverage"]:
        period = p["period"]
        if period.endswith("s"):  # a decade: "2020s"
            decade = int(period[:-1])
            inside += p["count"] * (int(first[:4]) // 10 * 10 <= decade <= int(last[:4]))
        elif first[: len(period)] <= period <= last[: len(period)]:
            inside += p["count"]
    return inside, sum(p["count"] for p in index["temporalCoverage"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo folder (*.json)")
    parser.add_argument("--only", help="comma-separated file stems, e.g. 26,30")
    parser.add_argument("--quiet", action="store_true", help="the table only")
    parser.add_argument("--scale", help="comma-separated history sizes, e.g. 10000,50000")
    # bench/perf.py's cache: the histories are the same builds
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "recollect-perf")
    parser.add_argument(
        "--any-build",
        action="store_true",
        help="with --scale: a cached build by other ingest code will do (its key is printed)",
    )
    args = parser.parse_args()
    if args.scale:
        scale(args.cache, [int(n) for n in args.scale.split(",")], args.any_build)
        return
    rows = []
    with start_service(None) as (client, _embed, runtime):
        for path in conversation_files(args.data, args.only):
            rows.append(run_one(client, runtime, path, args.quiet))
    print(f"\nLoCoMo profiles: {len(rows)} conversations\nmachine: {describe()}\n")
    print("| conversation | speaker | items | area in observations | precision |")
    print("|---|---|---|---|---|")
    total_hits = total_items = 0
    for r in rows:
        for speaker, hits, items in r["speakers"]:
            share = f"{hits / items:.2f}" if items else "—"
            print(f"| {r['user']} | {speaker} | {items} | {hits} | {share} |")
            total_hits += hits
            total_items += items
    overall = total_hits / total_items if total_items else 0.0
    print(f"\noverall precision proxy {overall:.3f} ({total_hits}/{total_items})")
    fewest = min((n for r in rows for _, _, n in r["speakers"]), default=0)
    print(f"fewest items of a speaker: {fewest}")
    same = [r["user"] for r in rows if not r["equal"]]
    print("incremental = rebuild, profiles: " + ("yes, all" if not same else f"NO: {same}"))
    apart = {r["user"]: r["index_diff"] for r in rows if r["index_diff"]}
    print("incremental = rebuild, index: " + ("yes, all" if not apart else f"NO: {apart}"))
    alike = [r["user"] for r in rows if not r["differ"]]
    print("the two speakers' profiles differ: " + ("yes, all" if not alike else f"NO: {alike}"))
    inside = sum(r["span"][0] for r in rows)
    entries = sum(r["span"][1] for r in rows)
    print(f"index entries within the sessions' span: {inside}/{entries}")
    targets = {
        "precision proxy >= 0.8": overall >= 0.8,
        ">= 5 items per speaker": fewest >= 5,
        "speakers differ": not alike,
        "incremental = rebuild": not same and not apart,
    }
    print("targets: " + "; ".join(f"{k} {'met' if ok else 'NOT met'}" for k, ok in targets.items()))
    print(
        "\n| conversation | sessions | turns | tally ms | update ms | index ms | rebuild ms "
        "| in span |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['user']} | {r['sessions']} | {r['turns']} | {r['tally_ms']:.0f} | "
            f"{r['update_ms']:.0f} | "
            f"{r['index_ms']:.0f} | {r['rebuild_ms']:.0f} | {r['span'][0]}/{r['span'][1]} |"
        )
    print(
        "\ntally: one session's tally; update: what endSession queues (that tally, the fold of "
        "all sessions' tallies, the profiles written, the knowledge index folded); index: one "
        "index update alone (every session's stored share read and folded, the index built); "
        "rebuild: refreshProfile (every session tallied again, then the index); "
        "in span: index entries whose period lies within the sessions' dates"
    )


def _ms(fn: Any, *args: Any) -> float:
    started = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - started) * 1000


def _fold_index(store: Any, user: str) -> None:
    """The index update: the stored shares of every ended session read and folded, built, kept."""
    from graph.write.knowledge import build_index
    from graph.write.profiles import Due, counted_all

    build_index(store, user, None, [c.coverage for c in counted_all(store, user, Due())])


def _without_time(index: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in index.items() if k != "lastReindexed"}


def run_one(client: Client, runtime: Any, path: Path, quiet: bool) -> dict[str, Any]:
    conversation = load(path)
    notes = annotations(path)
    sessions = ingest_by_session(client, conversation)
    runtime.service.drain()
    user = conversation.user
    speakers = list(dict.fromkeys(t.speaker for t in conversation.turns))
    store = runtime.store
    incremental = [dataclasses.asdict(p) for p in store.profiles.read(user, None)]
    folded_index = _without_time(client.call(INDEX, u=user)["knowledgeIndex"])
    writer = runtime.service.profiles
    last = conversation.turns[-1].session
    tallied = _ms(writer.tally, user, last)
    folded = _ms(writer.update, user, [last])
    index_ms = _ms(_fold_index, store, user)
    rebuild_ms = _ms(writer.rebuild, user)
    rebuilt = [dataclasses.asdict(p) for p in store.profiles.read(user, None)]
    index = client.call(INDEX, u=user)["knowledgeIndex"]
    rebuilt_index = _without_time(index)
    index_diff = [k for k in folded_index if folded_index[k] != rebuilt_index.get(k)]
    result: dict[str, Any] = {
        "user": user,
        "sessions": sessions,
        "turns": len(conversation.turns),
        "tally_ms": tallied,
        "update_ms": folded,
        "index_ms": index_ms,
        "rebuild_ms": rebuild_ms,
        "equal": incremental == rebuilt,
        "index_diff": index_diff,
        "speakers": [],
        "span": in_span(index, conversation),
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
    if not quiet:
        show_index(index, conversation)
    result["differ"] = len(areas) < 2 or areas[0] != areas[1]
    print(f"  {user}: done", file=sys.stderr)
    return result


def scale(cache: Path, sizes: list[int], any_build: bool = False) -> None:
    from perf import USER, cached_data, real_corpus

    from api.runtime import start
    from api.settings import Settings
    from graph.profile import rules
    from graph.profile.coverage_tally import CoverageTally
    from graph.profile.tally import SessionTally
    from graph.write.knowledge import build_index

    print(f"profile and index cost at scale\nmachine: {describe()}\n")
    print("| memories | sessions | tally ms (one session) | fold ms | index ms | shares KB |")
    print("|---|---|---|---|---|---|")
    for size in sizes:
        data_dir, _ = cached_data(cache, real_corpus(), size, any_build)
        runtime = start(Settings(data_dir=data_dir, session_idle_minutes=0))
        try:
            store, writer = runtime.store, runtime.service.profiles
            sessions = sorted({t.session for t in _turns(size)})
            counted, times = [], []
            for session_id in sessions:
                began = time.perf_counter()
                counted.append(writer.tally(USER, session_id))
                times.append(time.perf_counter() - began)
            texts = [c.profile.to_json() for c in counted]
            shares = [c.coverage.to_json() for c in counted]
            began = time.perf_counter()
            rules.build([t for t in map(SessionTally.from_json, texts) if t is not None])
            fold_ms = (time.perf_counter() - began) * 1000
            began = time.perf_counter()
            parsed = [t for t in map(CoverageTally.from_json, shares) if t is not None]
            index = build_index(store, USER, None, parsed)  # as an update runs it
            index_ms = (time.perf_counter() - began) * 1000
            tally_ms = sorted(times)[len(times) // 2] * 1000
            kb = sum(map(len, shares)) / 1024
            print(
                f"| {size} | {len(sessions)} | {tally_ms:.0f} (median) | {fold_ms:.0f} | "
                f"{index_ms:.0f} | {kb:.0f} |"
            )
            print(f"  entries {index.total_entries}", file=sys.stderr)
        finally:
            runtime.close()
    print(
        "\ntally: one session's profile tally and index share; fold: the profile tallies parsed "
        "from JSON and folded; index: the shares parsed from JSON, then build_index (the open "
        "threads read, the shares folded, the index built and stored); the statement reading "
        "the tallies is not timed: the bulk build ends no session"
    )


def _turns(size: int) -> list[Any]:
    from realtext import real_turns

    return real_turns(size)


if __name__ == "__main__":
    main()

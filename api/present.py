"""How both surfaces show a record's values: GraphQL (api/types.py) and MCP (api/mcp_server.py)
print the same moment the same way, in UTC with its offset, whatever the server's own zone, so an
agent that reads both never sees one event at two times. Cards list current relations first on
both (graph/records.py `card_order`)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from graph.records import MAX_EVIDENCE
from graph.service import ProfileView


def moment(stamp: float | None) -> datetime | None:
    """An epoch second as an aware UTC datetime (GraphQL's `DateTime`)."""
    return None if stamp is None else datetime.fromtimestamp(stamp, tz=UTC)


def iso(stamp: float | None) -> str | None:
    """ "2026-10-16T01:00:00+00:00": the same moment as text (MCP's JSON)."""
    at = moment(stamp)
    return None if at is None else at.isoformat()


def profile_dict(view: ProfileView) -> dict[str, Any]:
    """The profile as MCP answers it: times as ISO text in UTC, as everywhere on MCP."""
    p = view.profile
    return {
        "speaker": p.speaker,
        "preferred_name": view.preferred_name,
        "relationship_stage": p.relationship_stage,
        "timezone": view.timezone,
        "expertise": [
            {
                "area": i.area,
                "depth": i.depth,
                "reason": i.reason,
                "evidence": list(i.evidence[::-1][:MAX_EVIDENCE]),
            }
            for i in p.expertise
        ],
        "style": asdict(p.style),
        "topics_declined": list(p.topics_declined),
        "sessions_completed": p.sessions_completed,
        "entries_contributed": p.entries_contributed,
        "last_active_at": iso(p.last_active_at),
        "last_session_id": p.last_session_id,
        "built": view.built,
    }

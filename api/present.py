"""How both surfaces show a record's values: GraphQL (api/types.py) and MCP (api/mcp_server.py)
print the same moment the same way, in UTC with its offset, whatever the server's own zone, so an
agent that reads both never sees one event at two times. Cards list current relations first on
both (graph/records.py `card_order`)."""

from __future__ import annotations

from datetime import UTC, datetime


def moment(stamp: float | None) -> datetime | None:
    """An epoch second as an aware UTC datetime (GraphQL's `DateTime`)."""
    return None if stamp is None else datetime.fromtimestamp(stamp, tz=UTC)


def iso(stamp: float | None) -> str | None:
    """ "2026-10-16T01:00:00+00:00": the same moment as text (MCP's JSON)."""
    at = moment(stamp)
    return None if at is None else at.isoformat()

"""The one seam to the database: run a named Cypher statement with parameters, get rows as dicts.

Two adapters: `FalkorExecutor` (FalkorDB's native protocol, the embedded default) and
`BoltExecutor` (the neo4j driver, for Neo4j 5 or FalkorDB's Bolt port). Driver errors are
translated here, once, into graph.errors. Nothing above this module knows which driver runs.
Logs carry statement names only, never parameters.

Both may run in a namespace (RECOLLECT_NAMESPACE): several deployments, or test runs, share one
database, each seeing only its own users (`Namespace`).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol

from graph.errors import Conflict, InvalidInput, QueryFailed, StoreUnavailable
from graph.queries import Queries
from graph.records import Params, Row

log = logging.getLogger("recollect.executor")

# uniqueness the graph itself enforces, so that two processes writing the same input at the same
# instant cannot both store it: a memory's externalId within its user, as a digest
# (graph/batch.py external_key; a memory without an externalId has none and is not constrained).
# On Neo4j it is cypher/schema/neo4j/constraint_memory_external_id.cypher, over the properties.
UNIQUE = (("Memory", ("external_key",)),)
# Neo4j's code when existing data violates a constraint being created
CONSTRAINT_VIOLATED_BY_DATA = "Neo.DatabaseError.Schema.ConstraintCreationFailed"


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_nul(v) for v in value)
    return False


def _failed(name: str, reason: str) -> QueryFailed:
    """The engine rejected a statement. Clients get its name only: a driver's message can quote
    the statement text, and the native client inlines parameters (user text) into it. The log
    gets the error class or code; the driver's exception stays chained for a debugger."""
    log.error("statement %s failed (%s)", name, reason)
    return QueryFailed(f"statement {name} failed")


NAMESPACE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


# the properties a namespace prefixes: the user id, and a memory's uniqueness key (graph/batch.py)
SCOPED = ("user_id", "external_key")


class Namespace:
    """User ids of one deployment in a database it shares with others: `alice` is stored as
    `<namespace>/alice`. Applied here, at the one seam, so every statement stays scoped without
    knowing: the `user_id` parameter (and `user_id` of exported rows being imported) gains the
    prefix, and rows coming back lose it — a row of another namespace (only statements that read
    across users return one: the list of users) is dropped."""

    def __init__(self, name: str = "") -> None:
        if name and not NAMESPACE.match(name):
            raise ValueError(f"namespace {name!r}: use 1 to 40 letters, digits, '_' or '-'")
        self.prefix = f"{name}/" if name else ""

    def params(self, params: Params | None) -> Params:
        values = dict(params or {})
        if not self.prefix:
            return values
        if isinstance(values.get("user_id"), str):
            values["user_id"] = self.prefix + values["user_id"]
        # a write's memories and an import's rows: their user ids and uniqueness keys
        for name in ("memories", "rows"):
            listed = values.get(name)
            if isinstance(listed, list):
                values[name] = [self._scoped(r) if isinstance(r, dict) else r for r in listed]
        return values

    def rows(self, rows: list[Row]) -> list[Row]:
        if not self.prefix:
            return rows
        out: list[Row] = []
        for row in rows:
            user_id = row.get("user_id")
            if isinstance(user_id, str):
                if not user_id.startswith(self.prefix):
                    continue
                row = {**row, "user_id": user_id[len(self.prefix) :]}
            props = row.get("props")
            if isinstance(props, dict):  # an exported node: as another namespace imports it
                row = {**row, "props": self._unscoped(props)}
            out.append(row)
        return out

    def _scoped(self, values: Row) -> Row:
        scoped = dict(values)
        for key in SCOPED:
            if isinstance(scoped.get(key), str):
                scoped[key] = self.prefix + scoped[key]
        return scoped

    def _unscoped(self, values: Row) -> Row:
        unscoped = dict(values)
        for key in SCOPED:
            value = unscoped.get(key)
            if isinstance(value, str) and value.startswith(self.prefix):
                unscoped[key] = value[len(self.prefix) :]
        return unscoped


class Executor(Protocol):
    queries: Queries

    def run(self, name: str, params: Params | None = None) -> list[Row]: ...

    def apply_schema(self) -> None: ...

    def ping(self) -> bool: ...

    def close(self) -> None: ...


class FalkorExecutor:
    """Native-protocol adapter. The falkordb client's connection pool is thread-safe."""

    def __init__(self, host: str, port: int, graph_name: str, namespace: str = "") -> None:
        import redis
        from falkordb import FalkorDB

        self._redis_errors: tuple[type[BaseException], ...] = (
            redis.exceptions.ConnectionError,
            redis.exceptions.TimeoutError,
        )
        self._response_error = redis.exceptions.ResponseError
        self.queries = Queries("falkordb")
        self._falkordb = FalkorDB
        self._namespace = Namespace(namespace)
        self._graph_name = graph_name
        self._db = FalkorDB(host=host, port=port)
        self._graph = self._db.select_graph(graph_name)

    def reconnect(self, host: str, port: int) -> None:
        """Points the executor at a restarted engine (possibly on another port). The old pool is
        left to the garbage collector: requests in flight may still hold it."""
        db = self._falkordb(host=host, port=port)
        self._graph = db.select_graph(self._graph_name)
        self._db = db

    def run(self, name: str, params: Params | None = None) -> list[Row]:
        text = self.queries[name]
        if _holds_nul(params):
            # the client inlines parameters into the query text, which a NUL would cut short
            raise InvalidInput("parameters", f"of {name} contain a NUL character (\\0)")
        try:
            result = self._graph.query(text, self._namespace.params(params))
        except self._redis_errors as exc:
            raise StoreUnavailable(f"graph engine unreachable while running {name}") from exc
        except self._response_error as exc:
            if "unique constraint violation" in str(exc):
                raise Conflict(f"{name} met a uniqueness constraint") from exc
            raise _failed(name, type(exc).__name__) from exc
        header = [column[1] for column in result.header]
        rows = [dict(zip(header, row, strict=True)) for row in result.result_set]
        return self._namespace.rows(rows)

    def apply_schema(self) -> None:
        for text in self.queries.schema:
            try:
                self._graph.query(text)
            except self._response_error as exc:
                if "already indexed" not in str(exc):
                    raise QueryFailed(f"schema statement failed: {exc}") from exc
        for label, properties in UNIQUE:
            # a Redis command, not Cypher: FalkorDB creates constraints outside the language.
            # Built in the background on the indexes above; on a graph that already holds
            # duplicates it ends FAILED and is not enforced (each process's check remains)
            try:
                self._db.connection.execute_command(
                    "GRAPH.CONSTRAINT", "CREATE", self._graph_name, "UNIQUE", "NODE", label,
                    "PROPERTIES", len(properties), *properties,
                )  # fmt: skip
            except self._response_error as exc:
                if "already exists" not in str(exc):
                    raise QueryFailed(f"constraint on {label} failed: {exc}") from exc

    def ping(self) -> bool:
        try:
            return bool(self._db.connection.ping())
        except self._redis_errors:
            return False

    def close(self) -> None:
        try:
            self._db.connection.close()
        except Exception:  # noqa: BLE001 - closing a dead connection is not an error
            log.debug("closing the engine connection failed", exc_info=True)


class BoltExecutor:
    """neo4j-driver adapter: auto-commit statements (one statement per write is atomic).

    One session per statement costs no round trip of its own (a direct bolt:// driver has no
    routing table; the server picks the home database): RUN and PULL go out together. What a
    statement costs beyond the server's work is decoding its rows, which the driver does in
    Python unless `neo4j-rust-ext` is installed (a dependency: it halves that). The session pulls
    every row at once (`fetch_size=-1`): rows are all read anyway, and the default of 1,000 a
    batch cost a round trip per thousand rows of a user's facts or texts. Notifications are off:
    Neo4j warns of every property key a statement reads that no node has yet (`fact_type` in a
    graph without stated facts), and the driver logged each with the statement's text."""

    def __init__(
        self,
        uri: str,
        user: str | None,
        password: str | None,
        database: str | None = None,
        engine: str = "neo4j",
        namespace: str = "",
    ) -> None:
        import neo4j

        self._neo4j = neo4j
        self._namespace = Namespace(namespace)
        auth = (user, password or "") if user else None
        self.queries = Queries(engine)
        self._database = database
        try:
            self._driver = neo4j.GraphDatabase.driver(
                uri, auth=auth, notifications_min_severity="OFF"
            )
        except (neo4j.exceptions.ConfigurationError, ValueError) as exc:
            raise StoreUnavailable(f"invalid graph URI {uri!r}: {exc}") from exc

    def run(self, name: str, params: Params | None = None) -> list[Row]:
        text = self.queries[name]
        errors = self._neo4j.exceptions
        try:
            with self._driver.session(database=self._database, fetch_size=-1) as session:
                result = session.run(text, self._namespace.params(params))
                return self._namespace.rows([record.data() for record in result])
        except (errors.ServiceUnavailable, errors.SessionExpired) as exc:
            raise StoreUnavailable(f"graph server unreachable while running {name}") from exc
        except errors.ConstraintError as exc:
            raise Conflict(f"{name} met a uniqueness constraint") from exc
        except errors.Neo4jError as exc:
            raise _failed(name, str(exc.code)) from exc

    def apply_schema(self) -> None:
        errors = self._neo4j.exceptions
        for text in self.queries.schema:
            try:
                with self._driver.session(database=self._database) as session:
                    session.run(text).consume()
            except errors.Neo4jError as exc:
                if exc.code == CONSTRAINT_VIOLATED_BY_DATA:
                    # a graph written before the constraint holds duplicates: the service
                    # runs, each process's own check stays, and the operator is told
                    log.error("a uniqueness constraint is not enforced: %s", exc.message)
                    continue
                raise QueryFailed(f"schema statement failed: {exc.code}") from exc

    def ping(self) -> bool:
        try:
            self._driver.verify_connectivity()
            return True
        except Exception:  # noqa: BLE001 - any failure means "not reachable"
            return False

    def close(self) -> None:
        self._driver.close()

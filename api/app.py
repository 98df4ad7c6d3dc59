"""The ASGI app: POST /graphql (GraphiQL on GET), MCP's streamable HTTP at /mcp, GET /healthz,
GET /metrics (Prometheus), GET /explore and the pages' files under /static (api/explore.py),
resources in the lifespan."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse
from strawberry.types import ExecutionResult

from api import explore
from api.auth import Denied, KeyRing
from api.errors import format_error
from api.loaders import Context
from api.mcp_server import build_server, key_caller
from api.metrics import Metrics
from api.schema import schema
from api.settings import Settings
from api.starting import Starting

log = logging.getLogger("recollect.app")


class RecollectGraphQL(GraphQL[Context, None]):
    def __init__(self, app_state: Any) -> None:
        super().__init__(schema, graphql_ide="graphiql")
        self.app_state = app_state

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        # a request that comes while the service starts waits for it (off the event loop, so
        # that /healthz answers meanwhile)
        runtime = await anyio.to_thread.run_sync(self.app_state.starting.runtime)
        keyring: KeyRing = self.app_state.keyring
        principal = keyring.authenticate(request.headers.get("authorization"))
        return Context(service=runtime.service, principal=principal, metrics=self.app_state.metrics)

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL served offline: its scripts come from this service (api/explore.py)."""
        return explore.graphiql_html()

    async def process_result(
        self, request: Request | WebSocket, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            data["errors"] = [format_error(e) for e in result.errors]
        if result.extensions:
            data["extensions"] = result.extensions
        return data


class BodyLimit:
    """Refuses request bodies over `limit` bytes with 413 and a GraphQL-shaped error, whether the
    size is announced (Content-Length) or streamed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    def _refusal(self, size: str) -> JSONResponse:
        message = f"request body is {size}; at most {self.limit} bytes allowed"
        return JSONResponse(
            {"errors": [{"message": message, "extensions": {"code": "BAD_USER_INPUT"}}]},
            status_code=413,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        announced = headers.get(b"content-length")
        if announced is not None and announced.isdigit() and int(announced) > self.limit:
            await self._refusal(f"{int(announced)} bytes")(scope, receive, send)
            return
        seen = 0
        too_big = False

        async def counting() -> Message:
            nonlocal seen, too_big
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    too_big = True
                    return {"type": "http.disconnect"}
            return message

        started = False

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if too_big and not started:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counting, guarded_send)
        if too_big and not started:
            await self._refusal(f"over {self.limit} bytes")(scope, receive, send)


class KeyGate:
    """Refuses MCP requests without a valid API key (401) before the protocol starts, when keys
    are configured; the tools check each user against the key again."""

    def __init__(self, app: ASGIApp, keyring: KeyRing) -> None:
        self.app = app
        self.keyring = keyring

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.keyring.enabled:
            headers = dict(scope.get("headers") or [])
            raw = headers.get(b"authorization")
            principal = self.keyring.authenticate(raw.decode("latin-1") if raw else None)
            if isinstance(principal, Denied):
                response = JSONResponse(
                    {"error": principal.reason, "code": "UNAUTHENTICATED"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    settings: Settings | None = None, runtime: Any = None, starting: Starting | None = None
) -> Starlette:
    """`runtime` may be passed in (tests share one), or `starting`, one coming up beside the
    server (`recollect serve`); otherwise the lifespan starts one and closes it. Either way the
    app answers `/healthz` while the engine starts and the models load."""
    settings = settings or Settings.from_env()
    keyring = KeyRing(settings.api_keys)
    metrics = Metrics(lambda: app.state.starting.current())
    agent_server = build_server(
        # MCP over HTTP is told to retry while the service starts (its tools run on the loop)
        lambda: app.state.starting.ready().service,
        lambda ctx: key_caller(keyring, (ctx.headers or {}).get("authorization")),
        metrics.observe_tool,
    )
    # stateless: every request stands alone, so any replica can answer it
    agent_app = agent_server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True, host=settings.host
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        owned = runtime is None and starting is None
        if owned:  # on a thread of its own, which the engine's process is tied to
            app.state.starting = Starting(settings)
        try:
            async with agent_server.session_manager.run():
                yield
        finally:
            if owned:
                await anyio.to_thread.run_sync(app.state.starting.close)

    async def healthz(request: Request) -> JSONResponse:
        up: Starting = request.app.state.starting
        rt = up.current()
        if rt is None:  # starting (the engine, the models), or why the start failed
            return JSONResponse(up.state(), status_code=503)
        body = await anyio.to_thread.run_sync(rt.health)
        return JSONResponse(body, status_code=200 if body["status"] == "ok" else 503)

    app = Starlette(
        lifespan=lifespan,
        routes=[Route("/healthz", healthz)],
        middleware=[Middleware(BodyLimit, limit=settings.max_body_bytes)],
    )
    app.state.keyring = keyring
    app.state.metrics = metrics
    if runtime is not None or starting is not None:
        app.state.starting = starting or Starting.running(runtime)
    app.add_route("/metrics", metrics.endpoint, methods=["GET"])
    for page_route in explore.routes():  # GET /explore and the pages' files under /static
        app.router.routes.append(page_route)
    graphql_app = RecollectGraphQL(app.state)
    app.add_route("/graphql", graphql_app)  # type: ignore[arg-type]  # an ASGI app, not a view
    for route in agent_app.routes:  # the SDK's one /mcp route, behind the key check
        assert isinstance(route, Route)
        app.router.routes.append(Route(route.path, KeyGate(route.endpoint, keyring)))
    return app

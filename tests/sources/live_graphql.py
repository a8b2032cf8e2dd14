"""A real GraphQL server for the introspection tests: ariadne on uvicorn, 127.0.0.1, own thread.

Routes (all ``POST``):

* ``/graphql`` — the schema (``server.sdl`` can be swapped while it runs); with ``token`` set,
  requests without ``Authorization: Bearer <token>`` get 401;
* ``/flaky`` — answers 503 ``flaky_failures`` times, then like ``/graphql``;
* ``/garbage`` — an HTML page with status 200; ``/errors`` — GraphQL ``errors`` only;
* ``/noschema`` — JSON ``data`` without ``__schema``; ``/chunked`` — the introspection result
  streamed without ``Content-Length``; ``/slow`` — waits ``slow_s`` seconds before answering.

Every request's path and headers are recorded in ``server.requests``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import uvicorn
from ariadne import make_executable_schema
from ariadne.asgi import GraphQL
from graphql import get_introspection_query, graphql_sync
from starlette.responses import JSONResponse, Response, StreamingResponse

Scope = dict[str, Any]


class LiveGraphQL:
    """See the module docstring; use as a context manager."""

    def __init__(self, sdl: str, token: str | None = None) -> None:
        self.token = token
        self.flaky_failures = 0
        self.slow_s = 0.0
        self.requests: list[tuple[str, dict[str, str]]] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port = int(self._sock.getsockname()[1])
        self.sdl = sdl
        config = uvicorn.Config(
            self._app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws="none",
            interface="asgi3",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    @property
    def sdl(self) -> str:
        return self._sdl

    @sdl.setter
    def sdl(self, value: str) -> None:
        schema = make_executable_schema(value)
        self._sdl = value
        self._graphql = GraphQL(schema)
        result = graphql_sync(schema, get_introspection_query(descriptions=True))
        self._introspection = json.dumps({"data": result.data}).encode()

    def url(self, path: str = "/graphql") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> LiveGraphQL:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the GraphQL test server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *_: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()

    async def _app(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        path = scope["path"]
        self.requests.append((path, headers))
        authorized = self.token is None or headers.get("authorization") == f"Bearer {self.token}"
        if path in ("/graphql", "/flaky") and not authorized:
            response: Response = JSONResponse({"errors": [{"message": "no"}]}, 401)
            await response(scope, receive, send)
            return
        if path == "/flaky" and self.flaky_failures > 0:
            self.flaky_failures -= 1
            await Response("busy", 503)(scope, receive, send)
        elif path in ("/graphql", "/flaky"):
            await self._graphql(scope, receive, send)
        elif path == "/garbage":
            await Response("<html><body>Bad gateway</body></html>", 200)(scope, receive, send)
        elif path == "/errors":
            body = {"errors": [{"message": "introspection is disabled"}]}
            await JSONResponse(body)(scope, receive, send)
        elif path == "/noschema":
            await JSONResponse({"data": {"hello": "world"}})(scope, receive, send)
        elif path == "/chunked":
            await StreamingResponse(self._chunks(), media_type="application/json")(
                scope, receive, send
            )
        elif path == "/slow":
            await asyncio.sleep(self.slow_s)
            await Response(self._introspection, 200)(scope, receive, send)
        else:
            await Response("not found", 404)(scope, receive, send)

    async def _chunks(self) -> AsyncIterator[bytes]:
        for part in _split(self._introspection, 4096):
            yield part


def _split(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]

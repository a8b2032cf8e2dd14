"""The request body as the service's ASGI app handles it: read whole before answering, and
drained before a response that ends early (both keep Hypercorn's HTTP/2 connections alive)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["Message", "Receive", "RequestBody", "ends_response", "read_body"]

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]


def ends_response(message: Message) -> bool:
    kind = message["type"]
    if kind == "http.response.body":
        return not message.get("more_body", False)
    return kind == "http.response.trailers" and not message.get("more_trailers", False)


class RequestBody:
    """The request's ``receive``, remembering whether the body has ended.

    A response must not end before the request body has: Hypercorn forgets an HTTP/2 stream
    once its response ends, and a DATA frame arriving for it afterwards tears down the whole
    connection (every other stream on it too). So a response that ends early (a refusal
    before the body was read) first drains the rest of the body, for at most ``DRAIN_S``.
    """

    DRAIN_S = 5.0

    def __init__(self, receive: Receive) -> None:
        self.receive = receive
        self.done = False

    async def __call__(self) -> Message:
        message = await self.receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.done = True
        return message

    async def drain(self) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.DRAIN_S):
                while not self.done:
                    await self()


async def read_body(receive: Receive, limit: int) -> tuple[Receive, bytes]:
    """Read the whole request body first (every RPC here takes one request message), then
    hand it on as one message; later calls reach the server (disconnects). Returns that
    ``receive`` and the body (at most ``limit`` + 1 bytes).

    Answering before the client has finished sending lets Hypercorn's HTTP/2 layer meet data
    for a stream it already closed and drop the connection; reading first avoids that. Past
    ``limit`` bytes the rest is read and discarded, and the app sees one byte too many (so
    it answers with its own size error).
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            first: Message = message
            break
        data = bytes(message.get("body", b""))
        if size <= limit:
            chunks.append(data[: limit + 1 - size])
        size += len(data)
        if not message.get("more_body", False):
            first = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            break
    pending = [first]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay, bytes(first.get("body", b"")) if first["type"] == "http.request" else b""

"""Request limits, enforced before a request is parsed or worked on, on every transport.

The Connect runtime hands every request message (Connect JSON and binary, unary and streamed,
GET and POST, gRPC) to a codec after reading at most ``max_request_bytes`` (also after
decompression). The codecs here check before they parse and after:

* **before**: a JSON message nests at most ``max_json_depth`` arrays and objects, measured in
  one linear pass without recursion (:func:`json_depth`, vectorised with numpy), so the native
  protobuf JSON parser never recurses deeply (15,000 nested ``[`` used to crash the process).
  Binary messages cannot nest here: no message of the contract is recursive, and the parser
  caps unknown groups at 100 levels;
* **after**, before any handler runs (:func:`check_message`): filter patterns (how many, how
  long), sources and kinds, ids per call, cursor size.

A broken limit is ``invalid_argument`` (``resource_exhausted`` for the body size, from the
runtime) naming the limit and the setting that raises it. :func:`check_json_body` applies the
same size and depth limits to ``/mcp`` requests, which do not go through the codecs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from connectrpc.code import Code
from connectrpc.codec import Codec, proto_binary_codec, proto_json_codec
from connectrpc.errors import ConnectError

from schemaseek.service.gen.schemaseek.v1 import admin_pb
from schemaseek.service.gen.schemaseek.v1 import search_pb as pb
from schemaseek.service.settings import ServiceConfig

__all__ = ["Limits", "check_json_body", "check_message", "json_depth", "limited_codecs"]

_OPEN = np.zeros(256, dtype=np.int8)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1


@dataclass(frozen=True, slots=True)
class Limits:
    """The request limits of :class:`~schemaseek.service.settings.ServiceConfig`."""

    max_bytes: int = 1 << 20
    json_depth: int = 32
    filter_patterns: int = 256
    pattern_length: int = 512
    list_items: int = 64
    ids: int = 200
    cursor_bytes: int = 2048

    @classmethod
    def of(cls, config: ServiceConfig) -> Limits:
        return cls(
            max_bytes=config.max_request_bytes,
            json_depth=config.max_json_depth,
            filter_patterns=config.max_filter_patterns,
            pattern_length=config.max_pattern_length,
            list_items=config.max_list_items,
            ids=config.max_ids,
            cursor_bytes=config.max_cursor_bytes,
        )


def json_depth(data: bytes | bytearray | memoryview) -> int:
    """How deeply arrays and objects nest in ``data`` (JSON text, valid or not), in linear
    time without recursion: brackets inside strings do not count. A quote is escaped when an
    odd number of backslashes precedes it; every unescaped quote opens or closes a string."""
    chars = np.frombuffer(bytes(data), dtype=np.uint8)
    steps = _OPEN[chars]
    if not steps.any():
        return 0
    quotes = chars == ord('"')
    if quotes.any():
        if (chars == ord("\\")).any():
            quotes &= ~_escaped(chars)
        outside = (np.cumsum(quotes, dtype=np.int32) & 1) == 0
        steps = np.where(outside, steps, 0).astype(np.int8)
    return int(np.cumsum(steps, dtype=np.int32).max())


def _escaped(chars: np.ndarray[Any, np.dtype[np.uint8]]) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Whether each character follows an odd run of backslashes."""
    positions = np.arange(chars.size, dtype=np.int32)
    backslash = chars == ord("\\")
    last_other = np.maximum.accumulate(np.where(backslash, -1, positions))
    before = np.empty(chars.size, dtype=np.int32)  # backslashes right before each character
    before[0] = 0
    before[1:] = positions[:-1] - last_other[:-1]
    odd: np.ndarray[Any, np.dtype[np.bool_]] = (before & 1) == 1
    return odd


def _refuse(message: str) -> ConnectError:
    return ConnectError(Code.INVALID_ARGUMENT, message)


def check_json(data: bytes | bytearray | memoryview, limits: Limits) -> None:
    """``invalid_argument`` when ``data`` nests deeper than ``limits.json_depth``."""
    depth = json_depth(data)
    if depth > limits.json_depth:
        raise _refuse(
            f"the JSON message nests {depth} levels deep; the limit (max_json_depth) is "
            f"{limits.json_depth}"
        )


def check_json_body(data: bytes, limits: Limits) -> tuple[int, str] | None:
    """For plain-HTTP JSON bodies (``/mcp``): ``(status, message)`` when ``data`` breaks the
    size or depth limit, else None."""
    if len(data) > limits.max_bytes:
        return 413, f"the request is larger than {limits.max_bytes} bytes (max_request_bytes)"
    try:
        check_json(data, limits)
    except ConnectError as exc:
        return 400, exc.message
    return None


def _count(values: Any, most: int, what: str, setting: str) -> None:
    if len(values) > most:
        raise _refuse(f"{len(values)} {what}; the limit ({setting}) is {most}")


def _search(request: pb.SearchRequest, limits: Limits) -> None:
    patterns = [*request.filter.include, *request.filter.exclude] if request.filter else []
    _count(patterns, limits.filter_patterns, "filter patterns", "max_filter_patterns")
    longest = max((len(p) for p in patterns), default=0)
    if longest > limits.pattern_length:
        raise _refuse(
            f"a filter pattern is {longest} characters; the limit (max_pattern_length) is "
            f"{limits.pattern_length}"
        )
    _count(request.sources, limits.list_items, "sources", "max_list_items")
    _count(request.kinds, limits.list_items, "kinds", "max_list_items")
    if len(request.cursor) > limits.cursor_bytes:
        raise _refuse(
            f"the cursor is {len(request.cursor)} characters; the limit (max_cursor_bytes) is "
            f"{limits.cursor_bytes}"
        )


def check_message(message: object, limits: Limits) -> None:
    """``invalid_argument`` when a decoded request breaks a limit (module docstring)."""
    if isinstance(message, admin_pb.TraceQueryRequest) and message.search is not None:
        message = message.search
    if isinstance(message, pb.SearchRequest):
        _search(message, limits)
    elif isinstance(message, pb.ReportUsageRequest):
        _count(message.selected_ids, limits.ids, "selected ids", "max_ids")
    elif isinstance(message, admin_pb.StreamEventsRequest):
        _count(message.types, limits.list_items, "event types", "max_list_items")


class _Limited:
    """A Connect codec (binary or JSON) with the limits checked around its decoding."""

    def __init__(self, inner: Codec, limits: Limits, *, json: bool) -> None:
        self.inner = inner
        self.limits = limits
        self.json = json

    def name(self) -> str:
        return self.inner.name()

    def encode(self, message: Any) -> bytes:
        return self.inner.encode(message)

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> Any:
        if self.json:
            check_json(data, self.limits)
        message = self.inner.decode(data, message_class)
        check_message(message, self.limits)
        return message


def limited_codecs(limits: Limits) -> list[Codec]:
    """The binary and JSON codecs every RPC application of the service decodes with."""
    return [
        _Limited(proto_binary_codec(), limits, json=False),
        _Limited(proto_json_codec(), limits, json=True),
    ]

"""Opaque, tamper-evident keyset cursors for paging a search.

A cursor holds the ``(score, id)`` of the last result served, how many results were served so
far, and a hash of everything that defines the search (question, sources, kinds, filter,
mode). It is ``base64url(json) + "." + base64url(hmac_sha256(secret, json)[:16])``: a client
cannot forge or edit one, nor reuse one for another search.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Cursor", "CursorError", "decode_cursor", "encode_cursor", "search_hash"]

MAX_CURSOR_LENGTH = 2048


class CursorError(ValueError):
    """The cursor is malformed, forged, or belongs to another search."""


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the previous page ended."""

    score: float
    id: str
    served: int
    search: str


def search_hash(
    query: str,
    sources: Sequence[str],
    kinds: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    mode: str,
) -> str:
    """A digest of what defines a search (the page size may change between pages)."""
    payload = json.dumps(
        [query, sorted(sources), sorted(kinds), list(include), list(exclude), mode],
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(secret: bytes, body: bytes) -> bytes:
    return hmac.new(secret, body, hashlib.sha256).digest()[:16]


def encode_cursor(secret: bytes, cursor: Cursor) -> str:
    """The opaque text of ``cursor``."""
    body = json.dumps(
        {"s": cursor.score, "i": cursor.id, "n": cursor.served, "q": cursor.search},
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")
    return f"{_b64(body)}.{_b64(_sign(secret, body))}"


def decode_cursor(secret: bytes, text: str, expected_search: str) -> Cursor:
    """The cursor in ``text``; :class:`CursorError` unless it is intact and for this search."""
    if len(text) > MAX_CURSOR_LENGTH or text.count(".") != 1:
        raise CursorError("the cursor is malformed")
    body_text, tag_text = text.split(".")
    try:
        body, tag = _unb64(body_text), _unb64(tag_text)
    except (binascii.Error, ValueError):
        raise CursorError("the cursor is malformed") from None
    if not hmac.compare_digest(tag, _sign(secret, body)):
        raise CursorError("the cursor was not issued by this service (or was altered)")
    try:
        data = json.loads(body)
        cursor = Cursor(float(data["s"]), str(data["i"]), int(data["n"]), str(data["q"]))
    except (ValueError, KeyError, TypeError):
        raise CursorError("the cursor is malformed") from None
    if not hmac.compare_digest(cursor.search, expected_search):
        raise CursorError("the cursor belongs to a different search")
    if cursor.served < 1:
        raise CursorError("the cursor is malformed")
    return cursor

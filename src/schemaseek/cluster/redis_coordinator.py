"""The :class:`~schemaseek.cluster.coordinator.Coordinator` on Redis (redis-py, extra ``redis``).

Keys, all under ``prefix`` (default ``schemaseek:``), source names percent-encoded:

* ``lease:<source>`` — ``<replica>|<token>`` with a TTL (``PX``); set only when absent;
* ``token:<source>`` — the fencing-token counter (``INCR``; raised to the store's highest
  registered token when Redis lost it, e.g. after a restart without persistence);
* ``active:<source>:<fingerprint>`` — the announced generation, as JSON
  ``{"generation", "token", "holder", "unix_time"}``;
* channel ``events`` — JSON messages: ``announce``, ``progress`` (holder, token, phase, done,
  total).

Acquiring, renewing, releasing and announcing are Lua scripts, so each compare-and-set is one
atomic step in Redis. An announcement with a token older than the counter is refused. Calls
fail fast (no retries, ``timeout_s`` per socket operation) and raise
:class:`~schemaseek.errors.CoordinationError`; a listening thread re-subscribes after an
outage and then tells every listener ``{"type": "reconnected"}``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

from schemaseek.cluster.coordinator import Announcement, Lease, Listener, Message, check_token
from schemaseek.errors import CoordinationError, MissingExtraError

__all__ = ["RedisCoordinator", "default_replica_id"]

logger = logging.getLogger(__name__)
T = TypeVar("T")

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, redis.call('GET', KEYS[1])}
end
local token = redis.call('INCR', KEYS[2])
local floor = tonumber(ARGV[3])
if token <= floor then
  token = floor + 1
  redis.call('SET', KEYS[2], token)
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return {token, ''}
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
_ANNOUNCE = """
local mine = tonumber(ARGV[1])
if mine < tonumber(redis.call('GET', KEYS[1]) or '0') then
  return 0
end
local active = redis.call('GET', KEYS[2])
if active then
  local ok, decoded = pcall(cjson.decode, active)
  if ok and tonumber(decoded['token'] or 0) > mine then
    return 0
  end
end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
"""


def default_replica_id() -> str:
    """``<host>-<pid>-<random>``: unique per process, readable in logs."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


class RedisCoordinator:
    """See the module docstring.

    Args:
        url: ``redis://[:password@]host:port/db`` (or ``rediss://``).
        prefix: key and channel prefix (one per deployment; tests use their own).
        replica_id: this process's name (default :func:`default_replica_id`).
        lease_ttl_s: how long a lease lives without renewal.
        timeout_s: connect and socket timeout of each call.
        client: a ready ``redis.Redis`` (overrides ``url``'s connection).
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "schemaseek:",
        replica_id: str | None = None,
        lease_ttl_s: float = 30.0,
        timeout_s: float = 2.0,
        client: Any = None,
    ) -> None:
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:
            raise MissingExtraError("redis", "redis") from None
        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)
        if client is None:
            client = redis.Redis.from_url(
                url,
                socket_timeout=timeout_s,
                socket_connect_timeout=timeout_s,
                retry=Retry(NoBackoff(), 0),
                decode_responses=True,
            )
        self._client = client
        self._url = _redacted(url)
        self.prefix = prefix
        self._replica_id = replica_id or default_replica_id()
        self._ttl_s = lease_ttl_s
        self._channel = f"{prefix}events"
        self._scripts = {
            name: client.register_script(body)
            for name, body in (
                ("acquire", _ACQUIRE),
                ("renew", _RENEW),
                ("release", _RELEASE),
                ("announce", _ANNOUNCE),
            )
        }
        self._healthy = True
        self._listeners: dict[str, list[Listener]] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self.subscribed = threading.Event()
        """Set while the listening thread is subscribed to the channel."""

    # -- properties -------------------------------------------------------------------------

    @property
    def replica_id(self) -> str:
        return self._replica_id

    @property
    def lease_ttl_s(self) -> float:
        return self._ttl_s

    @property
    def healthy(self) -> bool:
        return self._healthy

    @property
    def description(self) -> str:
        return f"Redis at {self._url}"

    def _key(self, kind: str, *parts: str) -> str:
        return self.prefix + ":".join([kind, *(quote(p, safe="") for p in parts)])

    def _call(self, fn: Callable[[], T]) -> T:
        try:
            result = fn()
        except self._errors as exc:
            self._healthy = False
            raise CoordinationError(f"{self.description} is unreachable: {exc}") from None
        self._healthy = True
        return result

    # -- leases -----------------------------------------------------------------------------

    def try_acquire(self, source: str, min_token: int = 0) -> Lease | None:
        keys = [self._key("lease", source), self._key("token", source)]
        args = [self._replica_id, max(1, round(self._ttl_s * 1000)), max(0, min_token)]
        token, _holder = self._call(lambda: self._scripts["acquire"](keys=keys, args=args))
        if int(token) == 0:
            return None
        return Lease(source, check_token(token), self._replica_id)

    def renew(self, lease: Lease) -> bool:
        keys = [self._key("lease", lease.source)]
        args = [lease.value, max(1, round(self._ttl_s * 1000))]
        return bool(self._call(lambda: self._scripts["renew"](keys=keys, args=args)))

    def release(self, lease: Lease) -> None:
        keys = [self._key("lease", lease.source)]
        self._call(lambda: self._scripts["release"](keys=keys, args=[lease.value]))

    def holder(self, source: str) -> str | None:
        """``<replica>|<token>`` of the current lease of ``source``, or None."""
        value = self._call(lambda: self._client.get(self._key("lease", source)))
        return str(value) if value is not None else None

    # -- announcements and progress ---------------------------------------------------------

    def announce(self, source: str, fingerprint: str, generation: str, token: int) -> bool:
        now = time.time()
        payload = {"generation": generation, "token": token, "holder": self._replica_id}
        message = {"type": "announce", "source": source, "fingerprint": fingerprint, **payload}
        keys = [self._key("token", source), self._key("active", source, fingerprint)]
        args = [
            token,
            json.dumps({**payload, "unix_time": now}),
            self._channel,
            json.dumps({**message, "unix_time": now}),
        ]
        return bool(self._call(lambda: self._scripts["announce"](keys=keys, args=args)))

    def active(self, source: str, fingerprint: str) -> Announcement | None:
        raw = self._call(lambda: self._client.get(self._key("active", source, fingerprint)))
        if raw is None:
            return None
        try:
            data = json.loads(raw)
            return Announcement(
                source,
                fingerprint,
                str(data["generation"]),
                check_token(data["token"]),
                str(data.get("holder", "")),
                float(data.get("unix_time", 0.0)),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise CoordinationError(
                f"the active generation of {source!r} is malformed: {exc}"
            ) from None

    def report_progress(self, source: str, token: int, phase: str, done: int, total: int) -> None:
        message = {
            "type": "progress", "source": source, "holder": self._replica_id, "token": token,
            "phase": phase, "done": done, "total": total, "unix_time": time.time(),
        }  # fmt: skip
        self._call(lambda: self._client.publish(self._channel, json.dumps(message)))

    # -- listening --------------------------------------------------------------------------

    def listen(self, source: str, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.setdefault(source, []).append(listener)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._listen_loop, name="schemaseek-redis-listen", daemon=True
                )
                self._thread.start()

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._listeners.get(source, []).remove(listener)

        return unsubscribe

    def _dispatch(self, message: Message, source: str | None) -> None:
        with self._lock:
            if source is None:
                targets = [item for group in self._listeners.values() for item in group]
            else:
                targets = list(self._listeners.get(source, []))
        for listener in targets:
            try:
                listener(message)
            except Exception as exc:  # one listener's bug must not stop the others
                logger.warning("coordination listener failed on %s: %s", message.get("type"), exc)

    def _listen_loop(self) -> None:
        lost = False
        delay = 0.1
        while not self._closed.is_set():
            pubsub = None
            try:
                pubsub = self._client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self._channel)
                pubsub.get_message(timeout=1.0)  # the subscription's confirmation
                self.subscribed.set()
                self._healthy = True
                delay = 0.1
                if lost:
                    lost = False
                    logger.info("%s is reachable again", self.description)
                    self._dispatch({"type": "reconnected"}, None)
                while not self._closed.is_set():
                    item = pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
                    if item is not None and item.get("type") == "message":
                        self._received(item["data"])
            except self._errors as exc:
                self.subscribed.clear()
                if not lost:
                    logger.warning("%s is unreachable: %s; retrying", self.description, exc)
                lost = True
                self._healthy = False
                self._closed.wait(delay)
                delay = min(delay * 2, 2.0)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(*self._errors):
                        pubsub.close()

    def _received(self, data: Any) -> None:
        try:
            message = json.loads(data)
            source = str(message["source"])
        except (ValueError, KeyError, TypeError):
            logger.warning("ignoring a malformed coordination message")
            return
        self._dispatch(message, source)

    def close(self) -> None:
        """Stop listening and close the connections."""
        self._closed.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(2.0)
        with contextlib.suppress(*self._errors):
            self._client.close()

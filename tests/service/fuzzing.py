"""A seeded request generator for the service: every RPC, Connect JSON and binary, GET and
POST, raw gRPC frames, the health and reflection services, and the hostile cases that once
crashed or stalled the server (deep JSON nesting, tens of thousands of filter patterns, unknown
sources, unsupported compressions). Used by ``tests/service/test_fuzz.py`` (≥ 2,000 requests)
and ``bench/fuzz.py`` (≥ 50,000).

:func:`requests` yields :class:`FuzzRequest` values deterministically from a seed;
:func:`send` sends one over an HTTP/1.1 or HTTP/2 client and returns the status.
"""

from __future__ import annotations

import base64
import gzip
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from schemaseek.service.gen.schemaseek.v1 import admin_pb, search_pb

SEARCH = "/schemaseek.v1.SearchService/"
ADMIN = "/schemaseek.v1.AdminService/"
HEALTH = "/grpc.health.v1.Health/"
REFLECTION = (
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
)
#: (path, message factory, streaming response): every RPC of the contract.
UNARY = [
    (SEARCH + "Search", "search"),
    (SEARCH + "GetSchema", "get_schema"),
    (SEARCH + "ReportUsage", "report_usage"),
    (ADMIN + "GetEngines", "empty"),
    (ADMIN + "RefreshEngine", "source"),
    (ADMIN + "TraceQuery", "trace"),
    (ADMIN + "GetGlossary", "source"),
    (ADMIN + "UpdateGlossary", "glossary"),
    (ADMIN + "ListSnapshots", "source"),
    (ADMIN + "RollbackSnapshot", "rollback"),
    (ADMIN + "GetConfig", "empty"),
    (ADMIN + "GetGraph", "graph"),
    (HEALTH + "Check", "health"),
    (HEALTH + "List", "empty"),
]
STREAMS = [
    (ADMIN + "StreamEvents", "events"),
    (HEALTH + "Watch", "health"),
    (REFLECTION[0], "reflection"),
    (REFLECTION[1], "reflection"),
]
OTHER_PATHS = ["/health", "/health/ready", "/metrics", "/", "/nope", SEARCH, SEARCH + "Nope"]
WORDS = ["royalty", "payments", "Sony", "track", "contract", "artist", "label", "tracks"]
IDS = ["royalty_payment", "AbacusRoyaltyPayment", "Query.abacusContract", "abacus_contract"]
SOURCES = ["music_api", "music_db", "nope", "", "music_api\x00"]
HOSTILE_DEPTHS = (15_000, 100_000)


@dataclass(slots=True)
class FuzzRequest:
    """One request to send; ``http2`` picks the client, ``label`` says what it tests."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""
    query: str = ""
    http2: bool = False
    label: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _text(rng: random.Random, most: int = 40) -> str:
    kind = rng.random()
    if kind < 0.5:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
    if kind < 0.7:
        return rng.choice(IDS)
    if kind < 0.85:
        return "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(0, most)))
    return "".join(rng.choice('ab.*_ \t\n"\\{}[]') for _ in range(rng.randint(0, most)))


def _fields(rng: random.Random, kind: str) -> dict[str, Any]:
    """Mostly valid field values of one request kind (snake_case names)."""
    if kind == "search":
        out: dict[str, Any] = {"query": _text(rng)}
        if rng.random() < 0.5:
            out["limit"] = rng.choice([0, 1, 5, 10, 200, 201, -1, 2**31 - 1])
        if rng.random() < 0.3:
            out["mode"] = rng.choice(["hybrid", "keyword", "vector", "psychic", ""])
        if rng.random() < 0.3:
            out["sources"] = [rng.choice(SOURCES) for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.2:
            out["kinds"] = [rng.choice(["sql_table", "graphql_type", "x"])]
        if rng.random() < 0.3:
            count = rng.choice([1, 3, 65, 3000])
            out["filter"] = {
                rng.choice(["include", "exclude"]): [
                    rng.choice(["Abacus*", "royalty_payment", "*", "x" * rng.randint(1, 400)])
                    for _ in range(count)
                ]
            }
        if rng.random() < 0.2:
            out["cursor"] = rng.choice(["", "a.b", "x" * 5000, base64.b64encode(b"{}").decode()])
        if rng.random() < 0.2:
            out["explain"] = True
        return out
    if kind == "trace":
        return {"search": _fields(rng, "search")}
    if kind == "get_schema":
        return {"source": rng.choice(SOURCES), "known_hash": _text(rng, 12)}
    if kind == "report_usage":
        count = rng.choice([0, 1, 3, 201, 5000])
        return {
            "query_id": rng.choice(["", "abc", "x" * 200]),
            "selected_ids": [rng.choice(IDS) for _ in range(count)],
        }
    if kind == "source":
        return {"source": rng.choice(SOURCES)} if rng.random() < 0.8 else {}
    if kind == "glossary":
        return {"glossary_json": rng.choice(["{", "[]", '{"entries": [{}]}', _text(rng)]),
                "dry_run": True}  # fmt: skip
    if kind == "rollback":
        return {"source": rng.choice(SOURCES), "generation": _text(rng, 20)}
    if kind == "graph":
        return {"source": rng.choice(SOURCES), "max_nodes": rng.choice([-5, 0, 3, 10**9])}
    if kind == "events":
        return {"types": ["state_changed"], "replay": rng.random() < 0.5}
    if kind == "health":
        return {"service": rng.choice(["", "schemaseek.v1.SearchService", "nope"])}
    if kind == "reflection":
        return {rng.choice(["list_services", "file_containing_symbol", "file_by_filename"]):
                rng.choice(["", "schemaseek.v1.SearchService", "schemaseek/v1/search.proto",
                            "nope", "schemaseek.v1.SearchRequest"])}  # fmt: skip
    return {}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def _json_body(value: Any) -> Any:
    if isinstance(value, dict):
        return {_camel(k): _json_body(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_body(v) for v in value]
    return value


def _binary(kind: str, values: dict[str, Any]) -> bytes:
    """The protobuf binary encoding of ``values`` (schemaseek messages; b"" otherwise)."""
    makers: dict[str, Callable[..., Any]] = {
        "search": search_pb.SearchRequest,
        "get_schema": search_pb.GetSchemaRequest,
        "report_usage": search_pb.ReportUsageRequest,
        "source": admin_pb.GetGlossaryRequest,
        "glossary": admin_pb.UpdateGlossaryRequest,
        "rollback": admin_pb.RollbackSnapshotRequest,
        "events": admin_pb.StreamEventsRequest,
    }
    maker = makers.get(kind)
    if maker is None:
        return b""
    fields = dict(values)
    if isinstance(fields.get("filter"), dict):
        fields["filter"] = search_pb.SearchFilter(**fields["filter"])
    if kind == "search" and fields.get("limit", 0) > 2**31 - 1:
        fields["limit"] = 2**31 - 1
    try:
        data: bytes = maker(**fields).to_binary()
    except (TypeError, ValueError):
        return b""
    return data


def deep_json(depth: int) -> bytes:
    """A search whose filter is ``depth`` nested arrays (crashed the native JSON parser)."""
    return b'{"query":"x","filter":' + b"[" * depth + b"]" * depth + b"}"


def frame(payload: bytes, flags: int = 0) -> bytes:
    """One length-prefixed message (gRPC and Connect streaming)."""
    return bytes([flags]) + len(payload).to_bytes(4, "big") + payload


def _mutate(rng: random.Random, body: bytes) -> bytes:
    choice = rng.random()
    if not body or choice < 0.4:
        return body
    if choice < 0.55:
        return body[: rng.randint(0, len(body))]
    if choice < 0.7:
        data = bytearray(body)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if choice < 0.8:
        return rng.randbytes(rng.randint(0, 300))
    if choice < 0.9:
        return body + rng.randbytes(rng.randint(1, 20))
    return b"[" * rng.randint(1, 3000) + body


def _headers(rng: random.Random, token: str | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    if token is not None and rng.random() < 0.95:
        headers["authorization"] = f"Bearer {token}"
    elif rng.random() < 0.5:
        headers["authorization"] = rng.choice(["Bearer x", "Basic abc", "Bearer", ""])
    if rng.random() < 0.1:
        headers["connect-protocol-version"] = rng.choice(["1", "2", "x"])
    if rng.random() < 0.1:
        headers["x-request-id"] = rng.choice(["abc", "x" * 300, "id-1"])
    if rng.random() < 0.3:
        headers["accept-encoding"] = rng.choice(["gzip", "br", "zstd", "*", "x;q=abc", ""])
    return headers


def _unary(rng: random.Random, path: str, kind: str, token: str | None) -> FuzzRequest:
    values = _fields(rng, kind)
    headers = _headers(rng, token)
    if rng.random() < 0.3:
        headers["connect-timeout-ms"] = rng.choice(["1", "50", "2000", "x", "99999999999"])
    style = rng.random()
    if style < 0.45:  # Connect JSON POST
        body = _mutate(rng, json.dumps(_json_body(values)).encode())
        headers["content-type"] = rng.choice(
            ["application/json", "application/json; charset=utf-8"]
        )
        if rng.random() < 0.1:
            headers["content-encoding"] = rng.choice(["gzip", "bogus", "identity", "br"])
            if headers["content-encoding"] == "gzip" and rng.random() < 0.7:
                body = gzip.compress(body)
        return FuzzRequest("POST", path, headers, body, http2=rng.random() < 0.3, label="json")
    if style < 0.65:  # Connect binary POST
        body = _mutate(rng, _binary(kind, values))
        headers["content-type"] = "application/proto"
        return FuzzRequest("POST", path, headers, body, http2=rng.random() < 0.3, label="proto")
    if style < 0.8:  # Connect GET
        encoding = rng.choice(["json", "proto", "x"])
        raw = (
            json.dumps(_json_body(values)).encode()
            if encoding != "proto"
            else _binary(kind, values)
        )
        raw = _mutate(rng, raw)
        params = [f"encoding={encoding}"]
        if encoding == "proto" or rng.random() < 0.3:
            params += ["base64=1", "message=" + base64.urlsafe_b64encode(raw).decode()]
        else:
            params.append("message=" + quote(raw.decode("utf-8", "replace")))
        if rng.random() < 0.2:
            params.append("compression=" + rng.choice(["bogus", "gzip", "identity", "zstd"]))
        query = "?" + "&".join(rng.sample(params, len(params)))
        if len(query) > 6000:
            query = query[:6000]
        return FuzzRequest("GET", path, headers, query=query, http2=rng.random() < 0.3, label="get")
    payload = (
        _binary(kind, values) if rng.random() < 0.8 else json.dumps(_json_body(values)).encode()
    )
    return _grpc(rng, path, headers, payload)


def _grpc(rng: random.Random, path: str, headers: dict[str, str], payload: bytes) -> FuzzRequest:
    """A raw gRPC request over HTTP/2 (sometimes malformed frames)."""
    headers["content-type"] = rng.choice(
        ["application/grpc", "application/grpc+proto", "application/grpc+json", "application/grpc"]
    )
    headers["te"] = "trailers"
    if rng.random() < 0.2:
        headers["grpc-timeout"] = rng.choice(["1m", "100m", "2S", "1x", "abc", "999999999S"])
    if rng.random() < 0.1:
        headers["grpc-encoding"] = rng.choice(["gzip", "bogus", "identity"])
    choice = rng.random()
    if choice < 0.6:
        body = frame(payload)
    elif choice < 0.7:
        body = frame(gzip.compress(payload), flags=1)
    elif choice < 0.8:
        body = frame(payload)[: rng.randint(0, 6)]
    elif choice < 0.9:
        body = bytes([0]) + (2**31).to_bytes(4, "big") + payload
    else:
        body = frame(payload) + frame(payload)
    return FuzzRequest("POST", path, headers, body, http2=rng.random() < 0.95, label="grpc")


def _stream(rng: random.Random, path: str, kind: str, token: str | None) -> FuzzRequest:
    values = _fields(rng, kind)
    headers = _headers(rng, token)
    if rng.random() < 0.5:
        payload = _binary(kind, values) if kind != "reflection" else b""
        request = _grpc(rng, path, headers, payload)
        request.headers["grpc-timeout"] = "300m"
        return request
    headers["content-type"] = rng.choice(["application/connect+json", "application/connect+proto"])
    headers["connect-timeout-ms"] = "300"
    body = json.dumps(_json_body(values)).encode()
    if headers["content-type"].endswith("proto"):
        body = _binary(kind, values)
    data = _mutate(rng, frame(body)) if rng.random() < 0.5 else frame(body)
    return FuzzRequest("POST", path, headers, data, http2=rng.random() < 0.5, label="stream")


def hostile(token: str | None) -> list[FuzzRequest]:
    """The cases that crashed, stalled or got a 5xx before (each sent once per run)."""
    auth = {"authorization": f"Bearer {token}"} if token else {}
    json_headers = {**auth, "content-type": "application/json"}
    out = [
        FuzzRequest("POST", SEARCH + "Search", dict(json_headers), deep_json(depth), label="deep")
        for depth in HOSTILE_DEPTHS
    ]
    out.append(
        FuzzRequest(
            "POST",
            ADMIN + "TraceQuery",
            dict(json_headers),
            b'{"search":' + deep_json(15_000) + b"}",
            label="deep",
        )
    )
    for side in ("include", "exclude"):
        body = {"query": "royalty payments", "filter": {side: ["x*"] * 30_000}}
        out.append(
            FuzzRequest(
                "POST",
                SEARCH + "Search",
                dict(json_headers),
                json.dumps(body).encode(),
                label="patterns",
            )
        )
    unknown: list[tuple[str, dict[str, Any]]] = [
        (ADMIN + "GetGlossary", {"source": "nope"}),
        (SEARCH + "Search", {"query": "royalty", "sources": ["nope"]}),
        (SEARCH + "GetSchema", {"source": "nope"}),
        (ADMIN + "GetGraph", {"source": "nope"}),
        (ADMIN + "ListSnapshots", {"source": "nope"}),
        (ADMIN + "RefreshEngine", {"source": "nope"}),
        (ADMIN + "RollbackSnapshot", {"source": "nope", "generation": "g"}),
    ]
    for path, body in unknown:
        out.append(
            FuzzRequest("POST", path, dict(json_headers), json.dumps(body).encode(), label="404")
        )
    message = quote(json.dumps({"query": "royalty"}))
    out.append(
        FuzzRequest("GET", SEARCH + "Search", dict(auth),
                    query=f"?encoding=json&compression=bogus&message={message}", label="get-enc")
    )  # fmt: skip
    grpc_deep = {**auth, "content-type": "application/grpc+json", "te": "trailers"}
    out.append(
        FuzzRequest(
            "POST", SEARCH + "Search", grpc_deep, frame(deep_json(15_000)), http2=True, label="deep"
        )
    )
    return out


def requests(seed: int, count: int, token: str | None) -> Iterator[FuzzRequest]:
    """``count`` requests from ``seed`` (the hostile cases first)."""
    rng = random.Random(seed)
    fixed = hostile(token)
    yield from fixed[:count]
    for _ in range(count - len(fixed)):
        roll = rng.random()
        if roll < 0.75:
            path, kind = rng.choice(UNARY)
            yield _unary(rng, path, kind, token)
        elif roll < 0.9:
            path, kind = rng.choice(STREAMS)
            yield _stream(rng, path, kind, token)
        else:
            method = rng.choice(["GET", "POST", "PUT", "DELETE", "HEAD"])
            headers = _headers(rng, token)
            headers["content-type"] = rng.choice(["application/json", "text/plain", ""])
            path = rng.choice(OTHER_PATHS + [p for p, _ in UNARY])
            body = rng.randbytes(rng.randint(0, 100)) if method in ("POST", "PUT") else b""
            yield FuzzRequest(method, path, headers, body, http2=rng.random() < 0.3, label="http")


def send(client: httpx.Client, request: FuzzRequest) -> httpx.Response:
    """Send ``request`` (headers that httpx would refuse are dropped)."""
    headers = {
        k: v
        for k, v in request.headers.items()
        if v == v.strip() and v.isascii() and v.isprintable()
    }
    return client.request(
        request.method, request.path + request.query, content=request.body or None,
        headers=headers,
    )  # fmt: skip

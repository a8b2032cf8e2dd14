"""``coverage_search``: two or three phrases in one call (spec 004, "adaptive coverage").

1. Each phrase must be unique and at most 512 UTF-8 bytes; anything else is rejected.
2. The phrases not yet in the index's query-embedding cache are embedded in **one** batched
   ``embed`` call and primed into that cache, so each phrase's search then makes no embedding
   call of its own. When vectors are unavailable, every phrase is searched lexically and the
   answer says so (the agent should not repeat the call).
3. Each phrase is searched on its own and keeps its own hits and provenance: cosine scores of
   different phrases are never compared. One distinct anchor is reserved per phrase (its best
   hit not already another phrase's anchor).
4. The rest is combined by equal-weight reciprocal rank fusion (k = 60); up to four SQL tables
   (anchors first) become endpoints for the same FK breadth-first search as ``join_path``.
5. ``next_ids`` hands the endpoints, the tables on their join paths and the GraphQL anchors to
   one ``describe`` call.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from schemaseek.documents import DocKind, Hit
from schemaseek.mcp.confidence import assess
from schemaseek.mcp.render import path_text, why
from schemaseek.mcp.tools import SchemaTools, ToolInputError
from schemaseek.query.fusion import NamedSignal, reciprocal_rank_fusion

logger = logging.getLogger(__name__)

MAX_PHRASE_BYTES = 512
RRF_K = 60.0
COMBINED = 8


def validate_phrases(phrases: Sequence[str]) -> list[str]:
    """2-3 unique non-empty phrases of at most 512 UTF-8 bytes, or :class:`ToolInputError`."""
    cleaned = [p.strip() for p in phrases]
    if not 2 <= len(cleaned) <= 3:
        raise ToolInputError("give 2 or 3 phrases")
    if any(not p for p in cleaned):
        raise ToolInputError("a phrase is empty")
    too_long = [p[:40] for p in cleaned if len(p.encode("utf-8")) > MAX_PHRASE_BYTES]
    if too_long:
        raise ToolInputError(f"phrases must be at most {MAX_PHRASE_BYTES} UTF-8 bytes: {too_long}")
    if len({p.casefold() for p in cleaned}) != len(cleaned):
        raise ToolInputError("phrases must be distinct")
    return cleaned


def prime_phrases(tools: SchemaTools, phrases: Sequence[str]) -> dict[str, Any]:
    """Embed the phrases some index has not cached in one batch and prime every index's query
    cache with them (the indexes served together share one embedding model)."""
    embedders = tools.served.embedders()
    if not embedders:
        return {"batched": 0, "cached": 0, "vectors": False}
    missing = [p for p in phrases if not all(e.cached(p) for e in embedders)]
    if missing:
        provider = embedders[0].provider
        prefix = str(getattr(provider, "query_prefix", ""))
        try:
            vectors = np.asarray(provider.embed([prefix + p for p in missing]), dtype=np.float32)
        except Exception as exc:  # the searches below fall back to lexical signals
            logger.warning("batched phrase embedding failed: %s", exc)
            return {"batched": 0, "cached": len(phrases) - len(missing), "vectors": False}
        for phrase, vector in zip(missing, vectors, strict=True):
            for embedder in embedders:
                embedder.prime(phrase, vector)
    return {"batched": len(missing), "cached": len(phrases) - len(missing), "vectors": True}


def coverage_search(
    tools: SchemaTools,
    phrases: Sequence[str],
    sources: Sequence[str] = (),
    kinds: Sequence[str] = (),
    limit: int = 5,
) -> dict[str, Any]:
    """Per-phrase anchors, combined candidates, endpoints and join paths (module docstring)."""
    cleaned = validate_phrases(phrases)
    embedding = prime_phrases(tools, cleaned)
    responses = [tools.search(p, sources, kinds, limit) for p in cleaned]
    anchors: list[Hit | None] = []
    taken: set[str] = set()
    for response in responses:
        anchor = next((h for h in response.hits if h.id not in taken), None)
        anchors.append(anchor)
        taken |= {anchor.id} if anchor else set()
    hits = {h.id: h for r in responses for h in r.hits}
    fused = reciprocal_rank_fusion(
        [
            NamedSignal(str(i), [(h.id, h.score) for h in r.hits], 1.0)
            for i, r in enumerate(responses)
        ],
        RRF_K,
    )
    ranked = [a.id for a in anchors if a] + sorted(
        (d for d in fused if d not in taken), key=lambda d: (-fused[d], d)
    )
    combined = ranked[:COMBINED]
    tables = [d for d in ranked if hits[d].document.kind is DocKind.SQL_TABLE][:4]
    paths = tools.join_paths([hits[t] for t in tables])
    root_paths = tools.root_paths([a for a in anchors if a])
    per_phrase = []
    for phrase, response, anchor in zip(cleaned, responses, anchors, strict=True):
        entry: dict[str, Any] = {"phrase": phrase, "query_id": response.query_id}
        entry["match"] = assess(response).match
        if anchor is not None:
            entry["anchor"] = {
                "id": anchor.id,
                "kind": anchor.document.kind.value,
                "why": why(anchor),
            }
            if anchor.id in root_paths:
                entry["anchor"]["path"] = path_text(root_paths[anchor.id])
        entry["hits"] = response.ids()
        per_phrase.append(entry)
    on_paths = [t for p in paths for t in p.tables]
    graphql = [a.id for a in anchors if a and a.document.kind is not DocKind.SQL_TABLE]
    next_ids = list(dict.fromkeys([*tables, *on_paths, *graphql]))[:8]
    out: dict[str, Any] = {"phrases": per_phrase, "combined": combined, "endpoints": tables}
    out["join_paths"] = [p.to_dict() for p in paths]
    out["next_ids"] = next_ids
    out["embedding"] = embedding
    if not embedding["vectors"]:
        out["message"] = (
            "Vectors unavailable: phrases were searched by keywords only; do not repeat."
        )
    elif len(tables) >= 2 and not paths:
        out["message"] = "No foreign-key path connects the endpoint tables; do not guess a join."
    return out

"""Domain objects → protobuf messages (one place, so every transport answers the same)."""

from __future__ import annotations

import json
from typing import Any

from schemaseek.documents import Explanation, Hit
from schemaseek.engine import EngineReport
from schemaseek.paths.joins import JoinPath
from schemaseek.service.federation import PageHit, SearchPage
from schemaseek.service.gen.schemaseek.v1 import admin_pb
from schemaseek.service.gen.schemaseek.v1 import search_pb as pb
from schemaseek.sources.base import SourceSchema
from schemaseek.sources.redact import redact_text

__all__ = ["explanation", "refresh_report", "search_response", "sql_tables"]


def explanation(value: Explanation) -> pb.Explanation:
    return pb.Explanation(
        fused_score=value.fused_score,
        signals={
            name: pb.SignalScore(rank=hit.rank, score=hit.score)
            for name, hit in value.signals.items()
        },
        pinned=value.pinned,
        glossary_terms=list(value.glossary_terms),
        prefer=value.prefer or "",
        reranked=value.reranked,
        notes=list(value.notes),
    )


def search_result(item: PageHit, explain: bool) -> pb.SearchResult:
    hit: Hit = item.hit
    doc = hit.document
    result = pb.SearchResult(
        id=doc.id,
        kind=doc.kind.value,
        source=doc.source,
        score=hit.score,
        name=doc.name,
        description=doc.description,
        related=[
            pb.RelatedItem(
                id=r.id, kind=r.kind.value, source=r.source, relation=str(r.relation), via=r.via
            )
            for r in hit.related
        ],
    )
    if explain:
        result.explanation = explanation(hit.explanation)
    if item.path is not None:
        result.path = item.path.text()
        result.required_args = [
            f"{step.field}: {name}: {type_}"
            for step in item.path.steps
            for name, type_ in step.args
        ]
    return result


def join_path(path: JoinPath) -> pb.JoinPath:
    return pb.JoinPath(
        tables=list(path.tables), on=list(path.on), inferred=path.inferred, sql=path.sql()
    )


def example(data: dict[str, Any]) -> pb.GlossaryExample:
    return pb.GlossaryExample(
        question=str(data.get("question", "")),
        query=str(data.get("query", "")),
        variables_json=json.dumps(data.get("variables") or {}, ensure_ascii=False),
    )


def search_response(
    page: SearchPage, *, explain: bool, query_id: str, next_cursor: str
) -> pb.SearchResponse:
    return pb.SearchResponse(
        results=[search_result(item, explain) for item in page.hits],
        join_paths=[join_path(p) for p in page.join_paths],
        examples=[example(e) for e in page.examples],
        next_cursor=next_cursor,
        query_id=query_id,
        degraded=page.degraded,
        mode=page.mode,
        took_ms=page.took_ms,
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def sql_tables(schema: SourceSchema) -> list[pb.SqlTable]:
    """The SQL catalog of ``schema`` (``raw["tables"]`` layout)."""
    out = []
    for table in schema.raw.get("tables") or []:
        out.append(
            pb.SqlTable(
                id=_text(table.get("id")),
                name=_text(table.get("name")),
                schema=_text(table.get("schema")),
                database=_text(table.get("database")),
                is_view=bool(table.get("is_view")),
                description=_text(table.get("description")),
                columns=[
                    pb.SqlColumn(
                        name=_text(c.get("name")),
                        type=_text(c.get("type")),
                        description=_text(c.get("description")),
                        primary_key=bool(c.get("primary_key")),
                        nullable=bool(c.get("nullable")),
                    )
                    for c in table.get("columns") or []
                ],
                primary_key=[_text(c) for c in table.get("primary_key") or []],
                foreign_keys=[
                    pb.SqlForeignKey(
                        name=_text(fk.get("name")),
                        columns=[_text(c) for c in fk.get("columns") or []],
                        ref_table=_text(fk.get("ref_table")),
                        ref_columns=[_text(c) for c in fk.get("ref_columns") or []],
                    )
                    for fk in table.get("foreign_keys") or []
                ],
            )
        )
    return out


def refresh_report(report: EngineReport) -> admin_pb.RefreshReport:
    return admin_pb.RefreshReport(
        source=report.source,
        documents=report.documents,
        embedded=report.embedded,
        reused=report.reused,
        added=report.added,
        changed=report.changed,
        removed=report.removed,
        generation=report.generation or "",
        took_ms=report.took_s * 1000.0,
        degraded=report.degraded,
        error=redact_text(report.error or report.save_error or ""),
    )

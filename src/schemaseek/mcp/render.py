"""What the MCP tools say about one schema item: hit cards at four detail levels, full texts.

Detail levels of a search hit (:func:`hit_card`), richest first:

* 3 — everything: full description, every field (with arguments and types) or every column
  (with type, key flag and comment), root path or every FK relationship with its ON clause;
* 2 — first sentence of the description, the first 12 fields or columns with types, the path or
  up to 6 relationships;
* 1 — a short description, the path or the neighbouring table names, up to 8 member names;
* 0 — id, kind, source and why it matched.

:func:`describe_text` renders one item in full: trimmed SDL for a GraphQL type (its fields with
arguments; nested types named only, or printed too at ``depth=2``), a signature for a GraphQL
field, DDL-like text with columns, types, comments, keys and FKs for a SQL table.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from schemaseek.documents import DocKind, Document, Hit, Relation
from schemaseek.paths.graphql import RootPath, root_path
from schemaseek.paths.joins import relationships

if TYPE_CHECKING:
    from schemaseek.index import SchemaIndex

_SENTENCE = re.compile(r"(?<=[.!?])\s")


def first_sentence(text: str, limit: int) -> str:
    """The first sentence of ``text``, at most ``limit`` characters (ending on a word)."""
    sentence = _SENTENCE.split(text.strip(), maxsplit=1)[0] if text else ""
    if len(sentence) <= limit:
        return sentence
    return sentence[:limit].rsplit(" ", 1)[0] + "…"


def why(hit: Hit) -> str:
    """A short reason: signals with ranks (cosine for the vector), glossary terms, pinning."""
    explanation = hit.explanation
    if explanation.pinned:
        return "exact identifier"
    parts = []
    for name, signal in explanation.signals.items():
        score = f" {signal.score:.2f}" if name == "vector" else ""
        parts.append(f"{name} #{signal.rank}{score}")
    if explanation.glossary_terms:
        parts.append("glossary: " + ", ".join(explanation.glossary_terms))
    if explanation.prefer:
        parts.append(f"use {explanation.prefer} instead")
    return "; ".join(parts)


def path_text(path: RootPath) -> str:
    """The root path with each step's required arguments inline: ``Query.x(id: ID!) → T``."""
    parts = []
    for step in path.steps:
        args = ", ".join(f"{n}: {t}" for n, t in step.args)
        parts.append(f"{step.field}({args})" if args else step.field)
    if path.steps[-1].field != path.target:
        parts.append(path.target)
    return " → ".join(parts)


def signature(doc: Document) -> str:
    """``name(arg: Type = default): ReturnType`` of a GraphQL field document."""
    args = [
        f"{a['name']}: {a['type']}" + (f" = {a['default']}" if a.get("default") else "")
        for a in doc.data.get("args", ())
    ]
    head = f"{doc.name}({', '.join(args)})" if args else doc.name
    return f"{head}: {doc.data.get('return_type', '?')}"


def type_fields(index: SchemaIndex, doc: Document) -> list[Document]:
    """A GraphQL type's field documents: schema order, then those beyond the members cap."""
    found = [d for m in doc.members if (d := index.get(f"{doc.id}.{m}")) is not None]
    if doc.data.get("member_count", 0) > len(doc.members):
        seen = {d.id for d in found}
        for other, relation, direction in index.graph.neighbors(doc.id):
            is_field = relation == Relation.MEMBER and direction == "out"
            field = index.get(other) if is_field else None
            if field is not None and other not in seen:
                found.append(field)
    return found


def _column(col: dict[str, Any], typed: bool, described: bool) -> str:
    text = f"{col['name']} {col.get('type', '')}".strip() if typed else str(col["name"])
    if typed and col.get("primary_key"):
        text += " PK"
    if described and col.get("description"):
        text += f" — {col['description']}"
    return text


def _members(index: SchemaIndex, doc: Document, detail: int) -> dict[str, Any]:
    cap = {3: None, 2: 12, 1: 8}[detail]
    if doc.kind is DocKind.SQL_TABLE:
        cols = doc.data.get("columns") or [{"name": m} for m in doc.members]
        shown = [_column(c, detail >= 2, detail == 3) for c in cols[:cap]]
        return {"columns": shown, "columns_total": len(cols)} if shown else {}
    if doc.kind is not DocKind.GRAPHQL_TYPE:
        return {}
    if doc.data.get("type_kind") in ("enum", "union", "scalar"):
        names = list(doc.members[:cap])
        return {"values" if doc.data["type_kind"] == "enum" else "members": names} if names else {}
    fields = type_fields(index, doc) if detail >= 2 else []
    shown = [signature(f) for f in fields[:cap]] if fields else list(doc.members[:cap])
    return {"fields": shown, "fields_total": doc.data.get("member_count", len(shown))}


def hit_card(
    index: SchemaIndex, hit: Hit, detail: int, path: RootPath | None = None
) -> dict[str, Any]:
    """One hit at ``detail`` 0–3 (module docstring); ``path`` is its root path, if any."""
    doc = hit.document
    card: dict[str, Any] = {"id": doc.id, "kind": doc.kind.value, "source": doc.source}
    card["why"] = why(hit)
    if detail == 0:
        return card
    limit = {3: 10_000, 2: 200, 1: 90}[detail]
    if doc.description:
        card["description"] = (
            doc.description if detail == 3 else first_sentence(doc.description, limit)
        )
    if doc.kind in (DocKind.GRAPHQL_FIELD, DocKind.GRAPHQL_ROOT_FIELD):
        card["signature"] = signature(doc)
    if path is not None:
        card["path"] = path_text(path)
    if doc.kind is DocKind.SQL_TABLE:
        rels = relationships(index.graph, doc.id)[: {3: None, 2: 6, 1: 8}[detail]]
        if rels and detail >= 2:
            card["relationships"] = [_relationship(r.tables[1], r.on[0], r.inferred) for r in rels]
        elif rels:
            card["related_tables"] = [r.tables[1] for r in rels]
    card.update(_members(index, doc, detail))
    return card


def _relationship(table: str, on: str, inferred: bool) -> str:
    return f"{table} ON {on}" + (" (inferred)" if inferred else "")


def describe_text(index: SchemaIndex, doc: Document, depth: int = 1) -> str:
    """Full detail of one item as text (module docstring)."""
    if doc.kind is DocKind.SQL_TABLE:
        return table_ddl(index, doc)
    if doc.kind is DocKind.GRAPHQL_TYPE:
        text = type_sdl(index, doc)
        if depth >= 2:
            named = {f.data.get("named_type") for f in type_fields(index, doc)}
            nested = [index.get(n) for n in sorted(n for n in named if n and n != doc.id)]
            text += "".join(
                "\n\n" + type_sdl(index, d, described=False)
                for d in nested[:12]
                if d is not None and d.kind is DocKind.GRAPHQL_TYPE
            )
        return text
    lines = [f"# {doc.description}"] if doc.description else []
    lines.append(f"{doc.data.get('parent', '?')}.{signature(doc)}")
    for arg in doc.data.get("args", ()):
        note = f"  # {arg['description']}" if arg.get("description") else ""
        lines.append(
            f"  {arg['name']}: {arg['type']}{' (required)' if arg['required'] else ''}{note}"
        )
    path = root_path(index, doc.id)
    if path is not None:
        lines.append(f"# reached by: {path_text(path)}")
    return "\n".join(lines)


def type_sdl(index: SchemaIndex, doc: Document, described: bool = True) -> str:
    """Trimmed SDL of a GraphQL type: description, fields with arguments, one-line comments."""
    kind = doc.data.get("type_kind", "type")
    keyword = {"object": "type", "input_object": "input", "interface": "interface"}.get(kind, kind)
    head = [f'"""{doc.description}"""'] if described and doc.description else []
    interfaces = doc.data.get("interfaces") or []
    implements = f" implements {' & '.join(interfaces)}" if interfaces else ""
    if kind == "union":
        return "\n".join([*head, f"union {doc.id} = {' | '.join(doc.members)}"])
    if kind == "scalar":
        return "\n".join([*head, f"scalar {doc.id}"])
    if kind == "enum":
        return "\n".join([*head, f"enum {doc.id} {{ {' '.join(doc.members)} }}"])
    body = []
    for field in type_fields(index, doc):
        note = first_sentence(field.description, 100) if described else ""
        body.append(f"  {signature(field)}" + (f"  # {note}" if note else ""))
    return "\n".join([*head, f"{keyword} {doc.id}{implements} {{", *body, "}"])


def table_ddl(index: SchemaIndex, doc: Document) -> str:
    """DDL-like text of a table: comment, columns with types and comments, PK, FKs, referrers."""
    data = doc.data
    lines = [f"-- {doc.description}"] if doc.description else []
    lines.append(f"CREATE {'VIEW' if data.get('is_view') else 'TABLE'} {doc.id} (")
    body = []
    for col in data.get("columns") or []:
        null = "" if col.get("nullable", True) else " NOT NULL"
        note = f"  -- {col['description']}" if col.get("description") else ""
        body.append((f"  {col['name']} {col.get('type', '')}".rstrip() + null, note))
    if data.get("primary_key"):
        body.append((f"  PRIMARY KEY ({', '.join(data['primary_key'])})", ""))
    for rel in relationships(index.graph, doc.id):
        edge = rel.edges[0]
        if edge.source == doc.id:
            cols, refs = (
                ", ".join(edge.data.get("columns", ())),
                ", ".join(edge.data.get("ref_columns", ())),
            )
            note = "  -- inferred" if rel.inferred else ""
            body.append((f"  FOREIGN KEY ({cols}) REFERENCES {edge.target} ({refs})", note))
    lines += [
        code + ("," if i < len(body) - 1 else "") + note for i, (code, note) in enumerate(body)
    ]
    lines.append(");")
    referrers = [r.on[0] for r in relationships(index.graph, doc.id) if r.edges[0].target == doc.id]
    lines += [f"-- referenced by: {on}" for on in referrers]
    return "\n".join(lines)

"""The snapshot codec of a one-source index: the pipeline's state ⇄ named files.

The keyword and vector signals write and read their own files
(:meth:`KeywordIndex.to_files <schemaseek.signals.keyword.KeywordIndex.to_files>`,
:meth:`VectorIndex.to_files <schemaseek.signals.vector.VectorIndex.to_files>`); this module
adds the documents and the source, and :func:`decode` gives back a state built by the one
constructor every other path uses (:func:`schemaseek.index.state.assemble`).

Files of a generation besides the signals' own:

* ``documents.bin`` + ``documents.offsets.npy`` — every indexed document (glossary context
  included) as a JSON record, read lazily: a warm start parses only the documents a search
  touches;
* ``doc_meta.json`` — ids, names, targets and content hashes, the columns a warm start needs
  at once;
* ``source.json`` — the source's name, kind,
  schema hash, edges and raw metadata;
* ``name_vocabulary.json`` + ``name_vectors.npy`` — the name bridge's words and their vectors
  (:mod:`schemaseek.signals.name_bridge`), when the index has them; a generation without
  them serves without the bridge until the next refresh or build.

No pickle anywhere: JSON, ``.npy`` and the libraries' own index formats only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemaseek.arrays import RecordReader, encode_records
from schemaseek.config import SearchSettings
from schemaseek.documents import Edge
from schemaseek.errors import SnapshotError
from schemaseek.glossary import Glossary
from schemaseek.index.diff import content_hash
from schemaseek.index.state import (
    Components,
    DocumentFacts,
    assemble,
    matcher_for,
    vector_params,
)
from schemaseek.query.state import IndexParts
from schemaseek.signals.files import SLOTS, decode_vectors
from schemaseek.signals.keyword import KeywordIndex
from schemaseek.signals.name_bridge import NameVocabulary
from schemaseek.signals.vector import VectorIndex
from schemaseek.snapshots.documents import LazyDocuments, SourceDocuments, document_record
from schemaseek.snapshots.manager import VerifiedGeneration
from schemaseek.sources.base import SourceSchema

__all__ = ["Decoded", "SnapshotError", "check_generation", "decode", "decode_keyword", "encode"]

DOCUMENTS = "documents.bin"
DOCUMENT_OFFSETS = "documents.offsets.npy"
DOC_META = "doc_meta.json"
SOURCE = "source.json"


def encode(parts: IndexParts | None, sources: Sequence[SourceSchema]) -> dict[str, bytes]:
    """The files of a built one-source state (vectors only when they are ready).

    Raises:
        SnapshotError: not built, not exactly one source, or data that JSON cannot hold.
    """
    if parts is None or len(sources) != 1:
        raise SnapshotError("only a built index of exactly one source can be saved")
    schema = sources[0]
    documents = parts.documents
    source_context = {d.id: d.context for d in schema.documents}
    ids = list(documents)
    try:
        records = []
        for doc_id in ids:
            record = document_record(documents[doc_id])
            raw = source_context.get(doc_id, record["context"])
            if raw != record["context"]:
                record["raw_context"] = raw
            records.append(record)
        data, offsets = encode_records(records)
        raw_meta: Any = schema.raw
        json.dumps(raw_meta)
    except (TypeError, ValueError) as exc:
        raise SnapshotError(f"source {schema.name!r} holds data JSON cannot store: {exc}") from None
    meta = {
        "ids": ids,
        "names": [documents[d].name for d in ids],
        "targets": [documents[d].target for d in ids],
        "hashes": [content_hash(documents, d) for d in ids],
    }
    source = {
        "name": schema.name,
        "kind": schema.kind,
        "schema_hash": schema.schema_hash,
        "edges": [[e.source, e.target, e.relation, e.data] for e in schema.edges],
        "raw": raw_meta,
    }
    files = {
        DOCUMENTS: data,
        DOCUMENT_OFFSETS: offsets,
        DOC_META: json.dumps(meta, ensure_ascii=False).encode(),
        SOURCE: json.dumps(source, ensure_ascii=False).encode(),
    }
    files.update(parts.keyword.to_files())
    if parts.vector is not None and parts.vectors_ready:
        files.update(parts.vector.to_files())
        if parts.name_vocabulary is not None:
            files.update(parts.name_vocabulary.to_files())
    return files


def check_generation(generation: VerifiedGeneration) -> None:
    """Whether the files of a verified generation hold what its manifest says: the source,
    the schema hash, the number of documents and of vectors (cheap: no index is built). The
    snapshot manager runs it as part of every verification, so ``snapshot verify``,
    ``snapshot list`` and a start-up agree.

    Raises:
        SnapshotError: naming the first disagreement.
    """
    manifest, files = generation.manifest, generation.files
    try:
        ids = json.loads(bytes(files[DOC_META]))["ids"]
        source = json.loads(bytes(files[SOURCE]))
        vectors = 0
        if SLOTS in files:
            vectors = sum(s is not None for s in decode_vectors(files)[2])
    except KeyError as exc:
        raise SnapshotError(f"generation lacks the file or field {exc}") from None
    except (ValueError, TypeError) as exc:
        raise SnapshotError(f"generation files are malformed: {exc!r}") from None
    problems = [
        f"{what}: the manifest says {said!r}, the files hold {held!r}"
        for what, said, held in (
            ("documents", manifest.documents, len(ids)),
            ("vectors", manifest.vectors, vectors),
            ("source", manifest.source, source.get("name")),
            ("schema hash", manifest.schema_hash, source.get("schema_hash")),
        )
        if said != held
    ]
    if problems:
        raise SnapshotError("; ".join(problems))


@dataclass(frozen=True, slots=True)
class Decoded:
    """A state read back from files, with the source it serves."""

    parts: IndexParts
    schema: SourceSchema
    documents: LazyDocuments


def decode(
    files: Mapping[str, memoryview],
    local_paths: Mapping[str, Path],
    components: Components,
    glossary: Glossary,
    *,
    dimensions: int | None,
) -> Decoded:
    """The state the files describe: documents lazily, keyword and vectors from their own
    files (vectors only when ``dimensions`` is given, and then of that width), no embedding.

    Raises:
        SnapshotError: a file is missing or does not make sense.
    """
    try:
        meta = json.loads(bytes(files[DOC_META]))
        source = json.loads(bytes(files[SOURCE]))
        reader = RecordReader(files[DOCUMENTS], files[DOCUMENT_OFFSETS])
        ids: list[str] = meta["ids"]
        documents = LazyDocuments(ids, meta["hashes"], reader)
        edges = [Edge(s, t, r, dict(d)) for s, t, r, d in source["edges"]]
        name = str(source["name"])
        schema = SourceSchema(
            name=name,
            kind=source["kind"],
            documents=SourceDocuments(documents),
            edges=edges,
            schema_hash=source["schema_hash"],
            raw=dict(source["raw"] or {}),
        )
        facts = DocumentFacts(
            ids=ids,
            names=dict(zip(ids, meta["names"], strict=True)),
            targets=dict(zip(ids, meta["targets"], strict=True)),
            sources=dict.fromkeys(ids, name),
        )
    except KeyError as exc:
        raise SnapshotError(f"generation lacks the file or field {exc}") from None
    except (ValueError, TypeError) as exc:
        raise SnapshotError(f"document files are malformed: {exc!r}") from None
    keyword = decode_keyword(files, components.settings)
    vector = None
    vocabulary = None
    if dimensions is not None:
        vocabulary = NameVocabulary.from_files(files, dimensions)
        try:
            vector = VectorIndex.from_files(
                files, local_paths=local_paths, **vector_params(components.settings)
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise SnapshotError(f"the vector files are malformed: {exc!r}") from None
        if vector.dimensions != dimensions or set(vector) != set(ids):
            raise SnapshotError("the vectors do not cover exactly the documents")
    parts = assemble(
        components, documents=documents, sources=[schema], keyword=keyword, vector=vector,
        matcher=matcher_for(glossary.narrowed_to_items(facts.names.items()), facts), facts=facts,
        vocabulary=vocabulary,
    )  # fmt: skip
    return Decoded(parts, schema, documents)


def decode_keyword(files: Mapping[str, memoryview], settings: SearchSettings) -> KeywordIndex:
    """The keyword index saved in ``files``, with ``settings``' field weights; a malformed
    file raises :class:`SnapshotError`."""
    try:
        return KeywordIndex.from_files(
            files,
            field_weights=settings.keyword_field_weights,
            prefix_min_results=settings.prefix_min_results,
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise SnapshotError(f"the keyword files are malformed: {exc!r}") from None

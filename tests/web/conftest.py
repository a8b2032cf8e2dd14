"""A keyword-only demo served as two members (one per source), as the service serves it."""

from __future__ import annotations

import pytest

from schemaseek.federation import Served
from schemaseek.index import SchemaIndex
from schemaseek.sources.demo import demo_glossary, demo_sources


@pytest.fixture(scope="package")
def members() -> list[Served]:
    out = []
    glossary = demo_glossary()
    for schema in demo_sources():
        index = SchemaIndex([schema], glossary=glossary.narrowed_to(schema), provider=None)
        index.build()
        out.append(Served(schema.name, index))
    return out

"""The entry editor: form ⇄ entry round trip, validation naming the field, add and delete."""

from __future__ import annotations

import pytest

from schemaseek.errors import GlossaryError
from schemaseek.sources.demo import demo_glossary
from schemaseek.web.entry_form import candidate_glossary, entry_form, form_from_fields


def fields(form_entry: str, **changes: str) -> dict[str, str]:
    form = entry_form(demo_glossary(), form_entry)
    data = {name: getattr(form, name) for name in form.__dataclass_fields__ if name != "delete"}
    return data | changes


def test_an_unchanged_form_gives_the_same_glossary() -> None:
    served = demo_glossary()
    for entry in ("0", "7", "14"):
        assert candidate_glossary(served, form_from_fields(fields(entry))) == served


def test_edit_add_delete() -> None:
    served = demo_glossary()
    edited = candidate_glossary(served, form_from_fields(fields("0", priority="0.5")))
    assert edited.entries[0].priority == 0.5 and edited.entries[1:] == served.entries[1:]
    added = candidate_glossary(
        served, form_from_fields({"entry": "new", "terms": "liner notes\n", "targets": "Product"})
    )
    assert len(added.entries) == len(served.entries) + 1
    assert added.entries[-1].terms == ("liner notes",)
    removed = candidate_glossary(served, form_from_fields(fields("3", delete="on")))
    assert removed.entries == served.entries[:3] + served.entries[4:]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"priority": "high"}, "priority"),
        ({"priority": "11"}, "priority"),
        ({"terms": "  \n"}, "terms"),
        ({"examples": "[{"}, "examples are not JSON"),
        ({"examples": '[{"question": "q"}]'}, "query"),
        ({"entry": "99"}, "entry 99 does not exist"),
    ],
)
def test_invalid_forms_name_the_problem(changes: dict[str, str], message: str) -> None:
    with pytest.raises(GlossaryError, match=message):
        candidate_glossary(demo_glossary(), form_from_fields(fields("0", **changes)))


def test_unknown_entries_are_refused() -> None:
    with pytest.raises(KeyError):
        entry_form(demo_glossary(), "15")
    with pytest.raises(GlossaryError, match="cannot be deleted"):
        candidate_glossary(demo_glossary(), form_from_fields({"entry": "new", "delete": "1"}))

"""FeedbackStore: append-only JSONL with fsync, in-memory mode, questions from recent searches."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from schemaseek.feedback import FeedbackStore
from schemaseek.recent import RecentQueries


def test_events_are_appended_as_json_lines_and_fsynced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    path = tmp_path / "nested" / "usage.jsonl"
    store = FeedbackStore(path)
    store.recent.remember("q1", "royalty payments for Sony")
    store.record("q1", ["Query.abacusContract", "AbacusRoyaltyPayment", "Query.abacusContract"])
    store.record("q2", ["royalty_payment"], query="explicit text")
    assert len(synced) == 2
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [set(line) for line in lines] == [{"ts", "query_id", "query", "selected_ids"}] * 2
    assert lines[0]["selected_ids"] == ["Query.abacusContract", "AbacusRoyaltyPayment"]
    assert lines[0]["query"] == "royalty payments for Sony"
    assert lines[1]["query"] == "explicit text"
    reopened = FeedbackStore(path).events()
    assert [e.query_id for e in reopened] == ["q1", "q2"]
    assert reopened[0].ts.endswith("+00:00")


def test_in_memory_store_and_unknown_queries() -> None:
    store = FeedbackStore(None)
    event = store.record("unknown", ["x"])
    assert event.query is None and store.events() == [event]
    with pytest.raises(ValueError):
        store.record("q", [])
    with pytest.raises(ValueError):
        store.record(" ", ["x"])


def test_reports_name_the_question_of_a_recent_search() -> None:
    recent = RecentQueries(maxsize=3)
    store = FeedbackStore(None, recent=recent)
    for i in range(5):
        recent.remember(f"q{i}", f"question {i}", [f"id{i}"])
    assert recent.question("q0") is None and recent.question("q1") is None
    assert recent.ranking("q4") == ("id4",) and len(recent) == 3
    assert store.record("q4", ["x"]).query == "question 4"
    assert store.record("q0", ["x"]).query is None


def test_unreadable_lines_are_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "usage.jsonl"
    store = FeedbackStore(path)
    store.record("q1", ["a"])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"ts": "2025-01-01", "query_id": "half\n')
    store.record("q2", ["b"])
    assert [e.query_id for e in store.events()] == ["q1", "q2"]
    assert "line 2 is unreadable" in caplog.text


def test_concurrent_writers_never_interleave(tmp_path: Path) -> None:
    store = FeedbackStore(tmp_path / "usage.jsonl")

    def write(worker: int) -> None:
        for i in range(25):
            store.record(f"w{worker}-{i}", [f"id{i}"])

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.events()) == 100

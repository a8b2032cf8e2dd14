"""The workbench's eval runs over time: one JSON line per run, the newest ``keep`` kept.

Runs live in ``<data dir>/workbench/eval_runs.jsonl`` (in memory when the service has no data
directory). A line that cannot be read is skipped, so a torn last write loses one run only.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemaseek.web.trials import QuestionRun

__all__ = ["EvalHistory", "RecordedRun"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordedRun:
    """A run and why it was made (``"manual"``, ``"glossary update"`` ...)."""

    run: QuestionRun
    label: str
    glossary_entries: int
    mode: str

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "glossary_entries": self.glossary_entries,
            "mode": self.mode,
        } | self.run.to_json()


class EvalHistory:
    """Append-only run history; see the module docstring."""

    def __init__(self, path: Path | None, keep: int = 100) -> None:
        self.path = path
        self.keep = keep
        self._lock = threading.Lock()
        self._runs: list[RecordedRun] = self._load()

    def _load(self) -> list[RecordedRun]:
        if self.path is None or not self.path.exists():
            return []
        runs = []
        for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                data = json.loads(line)
                runs.append(
                    RecordedRun(
                        QuestionRun.from_json(data),
                        str(data.get("label") or ""),
                        int(data.get("glossary_entries") or 0),
                        str(data.get("mode") or "hybrid"),
                    )
                )
            except (ValueError, KeyError, TypeError) as exc:
                logger.warning("%s, line %d: skipped an unreadable run: %s", self.path, number, exc)
        return runs[-self.keep :]

    def runs(self) -> list[RecordedRun]:
        """Oldest first."""
        with self._lock:
            return list(self._runs)

    def add(self, run: RecordedRun) -> None:
        with self._lock:
            self._runs = [*self._runs, run][-self.keep :]
            if self.path is None:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if len(self._runs) == self.keep:  # rewrite now and then so the file stays small
                text = "".join(json.dumps(r.to_json()) + "\n" for r in self._runs)
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(text, encoding="utf-8")
                tmp.replace(self.path)
            else:
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(run.to_json()) + "\n")

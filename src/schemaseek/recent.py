"""The one store of recent searches: ``query_id`` → the question and the ids it ranked.

Every interface that hands out a ``query_id`` (the library, the service, MCP) keeps it here,
so a usage report can name a search by its id alone. Bounded (oldest dropped first) and
thread-safe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["RECENT_QUERIES", "RecentQueries", "RecentSearch"]

RECENT_QUERIES = 10_000
"""How many recent searches are kept by default."""


@dataclass(frozen=True, slots=True)
class RecentSearch:
    """One remembered search."""

    question: str
    ranking: tuple[str, ...] = ()


class RecentQueries:
    """Recent searches by ``query_id`` (see the module docstring)."""

    def __init__(self, maxsize: int = RECENT_QUERIES) -> None:
        self.maxsize = max(1, maxsize)
        self._items: OrderedDict[str, RecentSearch] = OrderedDict()
        self._lock = threading.Lock()

    def remember(self, query_id: str, question: str, ranking: Sequence[str] = ()) -> None:
        """Keep ``query_id``'s question (and ranked ids), dropping the oldest past the bound."""
        with self._lock:
            self._items[query_id] = RecentSearch(question, tuple(ranking))
            self._items.move_to_end(query_id)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)

    def get(self, query_id: str) -> RecentSearch | None:
        with self._lock:
            return self._items.get(query_id)

    def question(self, query_id: str) -> str | None:
        """The question asked as ``query_id``, or None when unknown (or forgotten)."""
        found = self.get(query_id)
        return found.question if found is not None else None

    def ranking(self, query_id: str) -> tuple[str, ...] | None:
        """The ids ``query_id`` ranked, or None when unknown."""
        found = self.get(query_id)
        return found.ranking if found is not None else None

    def __len__(self) -> int:
        return len(self._items)

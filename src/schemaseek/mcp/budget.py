"""Token counting and the weighted allocation of a token budget over ranked items.

**Counting.** Answers are counted as the compact JSON text the tools return (:func:`dumps`).
The count is ``max(WordPiece tokens, ceil(characters / 4))``: WordPiece is the real tokenizer
of the embedding model (all-MiniLM-L6-v2's ``tokenizer.json``, loaded offline with the
``tokenizers`` library), and it splits every punctuation mark, so on JSON it counts more tokens
than the byte-pair encoders LLMs use; ``characters / 4`` is the usual rule of thumb for English
text and guards text WordPiece compresses well. Taking the larger of the two keeps the budget
conservative. When the tokenizer file is missing, ``characters / 4`` alone is used (and
:attr:`TokenCounter.name` says so). Budgets are checked with the same counter.

**Allocation** (spec 001, "Weighted context allocation", after LightRAG's weighted polling):
every item is first given its smallest rendering, as far down the ranking as the budget allows;
the rest is shared out with linear weights ``n, n-1, ..., 1`` so that higher-ranked items get
more detail. Shares are spent from the bottom of the ranking up, so what a lower item does not
use goes to the items above it; what is left at the end upgrades items in rank order. Items
are whole: an item gets one of its prepared renderings, never a cut one.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)


def dumps(payload: Any) -> str:
    """The compact JSON text a tool returns (and that budgets are counted on)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


class TokenCounter:
    """Counts tokens of text or JSON payloads (module docstring); thread-safe."""

    def __init__(self, use_tokenizer: bool = True) -> None:
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self._loaded = not use_tokenizer

    @property
    def name(self) -> str:
        """``"max(minilm-wordpiece, chars/4)"``, or ``"chars/4"`` without the tokenizer."""
        self._load()
        return "max(minilm-wordpiece, chars/4)" if self._tokenizer is not None else "chars/4"

    def _load(self) -> None:
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
            try:
                from tokenizers import Tokenizer

                from schemaseek.embedding.onnx import default_tokenizer_path

                tokenizer = Tokenizer.from_file(str(default_tokenizer_path()))
                tokenizer.no_padding()
                tokenizer.no_truncation()
                self._tokenizer = tokenizer
            except Exception as exc:  # any failure: fall back to the documented estimate
                logger.warning("token counting falls back to chars/4: %s", exc)

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        self._load()
        estimate = math.ceil(len(text) / 4)
        if self._tokenizer is None or not text:
            return estimate
        pieces = len(self._tokenizer.encode(text, add_special_tokens=False).ids)
        return max(pieces, estimate)

    def count_json(self, payload: Any) -> int:
        """Tokens of ``dumps(payload)``."""
        return self.count(dumps(payload))


@dataclass(frozen=True, slots=True)
class Allocation:
    """Which rendering each item got: ``chosen[i]`` indexes ``variants[i]``; None = omitted."""

    chosen: tuple[int | None, ...]
    used: int

    @property
    def omitted(self) -> int:
        return sum(1 for c in self.chosen if c is None)

    def truncated(self) -> int:
        """Items shown with less than their richest rendering."""
        return sum(1 for c in self.chosen if c is not None and c > 0)


def linear_shares(count: int, total: int) -> list[int]:
    """``total`` split with weights ``count, count-1, ..., 1`` (rounded down)."""
    weight_sum = count * (count + 1) // 2
    return [total * (count - i) // weight_sum for i in range(count)] if count else []


def allocate(costs: Sequence[Sequence[int]], budget: int) -> Allocation:
    """Choose one rendering per item within ``budget`` tokens.

    ``costs[i]`` holds the token cost of item ``i``'s renderings, richest first (so the last is
    the smallest). Items are ranked: the first is the most relevant.
    """
    chosen: list[int | None] = [None] * len(costs)
    used = 0
    for i, item in enumerate(costs):  # everyone's smallest rendering, while it fits
        if item and used + item[-1] <= budget:
            chosen[i] = len(item) - 1
            used += item[-1]
        else:
            break
    kept = [i for i, c in enumerate(chosen) if c is not None]
    carry = 0
    shares = linear_shares(len(kept), budget - used)
    for i, share in reversed(list(zip(kept, shares, strict=True))):  # unused shares flow up
        item, base = costs[i], costs[i][-1]
        allowance = share + carry
        best = next(v for v, cost in enumerate(item) if cost - base <= allowance)
        chosen[i] = best
        spent = item[best] - base
        used += spent
        carry = allowance - spent
    for i in kept:  # what is left upgrades items in rank order
        current = chosen[i] or 0
        best = next(
            v for v, cost in enumerate(costs[i]) if cost - costs[i][current] <= budget - used
        )
        if best < current:
            used += costs[i][best] - costs[i][current]
            chosen[i] = best
    return Allocation(tuple(chosen), used)

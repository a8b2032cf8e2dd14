"""How much to trust a search answer: ``"strong"``, ``"weak"`` or ``"none"``.

The evidence, over the top five hits:

* ``cosine`` — the best vector similarity between the question and a hit (absent when the
  search was degraded to keyword + glossary);
* ``coverage`` — the largest share of the question's content words (stemmed, stop words
  dropped) that one hit's own text contains (id, name, description, members, glossary context);
* ``glossary`` — a curated glossary term fired; ``pinned`` — the question is an exact id.

The rule:

* **strong** — pinned, or a glossary term fired, or ``cosine >= 0.50``, or ``cosine >= 0.40``
  with ``coverage >= 0.5`` (meaning and words agree);
* **weak** — ``cosine >= 0.30``, or ``coverage >= 0.4``, or — when there is no cosine (vectors
  unavailable or still being built) — any content word in common: without the vector evidence
  a miss cannot be told from a question worded differently from the schema;
* **none** — anything else.

Calibration with all-MiniLM-L6-v2 (``bench/confidence_calibration.py``, recorded in
``bench/RESULTS.md``): the weak thresholds were chosen on the labelled questions of eight GraphQL
schemas (``bench/questions``: 591 questions) against twelve generic off-topic questions asked of
each, leaving one schema out at a time. With 0.35 / 0.5, 78 of the 591 real questions got
``none`` (3 of 96 off-topic ones did not); with 0.30 / 0.4, 39 and 8. The two sets overlap
(off-topic questions reach a best cosine of 0.40): ``none`` says that nothing in the schema is
close, not that the schema cannot answer. The strong thresholds are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from schemaseek.documents import Document, SearchResponse
from schemaseek.text import tokenize

Match = Literal["strong", "weak", "none"]

STRONG_COSINE = 0.50
AGREEING_COSINE = 0.40
WEAK_COSINE = 0.30
COVERAGE = 0.5
WEAK_COVERAGE = 0.4
TOP = 5


@dataclass(frozen=True, slots=True)
class Confidence:
    """The verdict and the evidence it was drawn from."""

    match: Match
    cosine: float | None
    coverage: float
    glossary: bool
    pinned: bool

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cosine": None if self.cosine is None else round(self.cosine, 3)}
        out["word_coverage"] = round(self.coverage, 2)
        if self.glossary:
            out["glossary"] = True
        if self.pinned:
            out["exact_identifier"] = True
        return out


def _words(doc: Document) -> set[str]:
    return set(tokenize(" ".join([doc.id, doc.name, doc.description, *doc.members, doc.context])))


def assess(response: SearchResponse) -> Confidence:
    """Apply the module's rule to a search response."""
    top = response.hits[:TOP]
    cosines = [
        h.explanation.signals["vector"].score for h in top if "vector" in h.explanation.signals
    ]
    cosine = max(cosines) if cosines else None
    wanted = set(tokenize(response.query))
    coverage = max((len(wanted & _words(h.document)) / len(wanted) for h in top), default=0.0)
    coverage = coverage if wanted else 0.0
    glossary = any(h.explanation.glossary_terms for h in top)
    pinned = any(h.explanation.pinned for h in top)
    best = cosine if cosine is not None else -1.0
    match: Match = "none"
    if (
        pinned
        or glossary
        or best >= STRONG_COSINE
        or (best >= AGREEING_COSINE and coverage >= COVERAGE)
    ):
        match = "strong"
    elif best >= WEAK_COSINE or coverage >= WEAK_COVERAGE or (cosine is None and coverage > 0):
        match = "weak"
    return Confidence(match, cosine, coverage, glossary, pinned)

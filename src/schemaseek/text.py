"""Tokenizer shared by index and query time: split identifiers, lowercase, drop stop words, stem.

``getUserById`` → ``get user by id`` → ``get``, ``user``, ``id`` (``by`` is a stop word).
Splitting handles camelCase, PascalCase with acronyms (``HTTPServer`` → ``http server``),
snake_case, kebab-case, dotted names and digit runs. Stemming is Snowball English (Porter2)
from PyStemmer. The same function runs on documents and queries, so both sides always agree.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

import Stemmer

# Words that carry no retrieval signal in schema questions. Kept short on purpose: schema
# vocabulary such as "id", "name", "type", "status" or "date" is meaningful and stays.
STOP_WORDS: frozenset[str] = frozenset(
    {
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "find",
        "for",
        "from",
        "further",
        "get",
        "give",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "list",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "need",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "please",
        "same",
        "she",
        "should",
        "show",
        "so",
        "some",
        "such",
        "tell",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "want",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    }
)

# One regex pass does all the splitting: acronym runs before a capitalised word, capitalised or
# lowercase words, and digit runs. Anything else (``_``, ``-``, ``.``, spaces, punctuation)
# separates tokens.
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Non-ASCII words are not case-split (Python's re has no Unicode case classes); they are kept
# whole, lowercased, with digit runs apart, so that non-English text still matches itself.
_NON_ASCII = re.compile(r"\d+|[^\d]+")

_local = threading.local()


def _stemmer() -> Stemmer.Stemmer:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = Stemmer.Stemmer("english")
        _local.stemmer = stemmer
    return stemmer


def split_words(text: str) -> list[str]:
    """Split identifiers and prose into lowercase words, keeping stop words and inflections."""
    out: list[str] = []
    for chunk in re.split(r"[^\w]+|_", text):
        if not chunk:
            continue
        pieces = _WORD.findall(chunk) if chunk.isascii() else _NON_ASCII.findall(chunk)
        out.extend(p.lower() for p in pieces)
    return out


def stem(word: str) -> str:
    """Snowball English stem of one lowercase word."""
    result: str = _stemmer().stemWord(word)
    return result


def tokenize(text: str) -> list[str]:
    """The full pipeline: split, lowercase, drop stop words, stem. Order is kept."""
    words = [w for w in split_words(text) if w not in STOP_WORDS]
    if not words:
        return []
    stems: list[str] = _stemmer().stemWords(words)
    return stems


def tokenize_all(texts: Iterable[str]) -> list[str]:
    """Tokens of several texts, concatenated."""
    out: list[str] = []
    for text in texts:
        out.extend(tokenize(text))
    return out


def normalize_identifier(text: str) -> str:
    """Case- and separator-insensitive form of an identifier: ``Query.abacus_Contract`` →
    ``queryabacuscontract``. Used for exact-identifier pinning."""
    return re.sub(r"[\W_]+", "", text).lower()

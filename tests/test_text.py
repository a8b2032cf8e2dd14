"""Tokenizer: splitting rules, stop words, stemming, and properties that must always hold."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schemaseek.text import STOP_WORDS, normalize_identifier, split_words, tokenize


def test_identifier_styles_split_into_words() -> None:
    assert split_words("getUserById") == ["get", "user", "by", "id"]
    assert split_words("HTTPServerError") == ["http", "server", "error"]
    assert split_words("royalty_payment") == ["royalty", "payment"]
    assert split_words("delivery-status") == ["delivery", "status"]
    assert split_words("FACTS.PROD.DIM_CONTRACT") == ["facts", "prod", "dim", "contract"]
    assert split_words("ISRC2Code") == ["isrc", "2", "code"]


def test_stop_words_dropped_and_words_stemmed() -> None:
    assert tokenize("royalty payments for Sony") == ["royalti", "payment", "soni"]
    assert tokenize("contracts") == tokenize("contract")
    assert tokenize("the of and") == []


def test_index_and_query_forms_agree() -> None:
    assert tokenize("abacusContract") == tokenize("abacus contract")
    assert tokenize("DistributionDeliveryType") == tokenize("distribution delivery types")


def test_non_ascii_words_survive() -> None:
    assert split_words("Müller straße") == ["müller", "straße"]


def test_normalize_identifier_ignores_case_and_separators() -> None:
    assert normalize_identifier("Query.abacusContract") == normalize_identifier(
        "query_abacus-contract"
    )


@given(st.text())
def test_tokens_are_lowercase_nonempty_and_not_stop_words(text: str) -> None:
    for token in tokenize(text):
        assert token
        assert token == token.lower()
        assert token not in STOP_WORDS or token != token  # stems of stop words never appear
        assert not any(ch.isspace() for ch in token)


@given(st.text())
def test_tokenize_is_deterministic_and_idempotent_on_its_output(text: str) -> None:
    first = tokenize(text)
    assert tokenize(text) == first
    # re-tokenizing the joined stems never yields new words (stems are stable-ish words)
    assert len(tokenize(" ".join(first))) <= len(first)


@given(st.lists(st.from_regex(r"[a-z]{2,8}", fullmatch=True), min_size=1, max_size=5))
def test_snake_and_camel_forms_of_the_same_words_agree(words: list[str]) -> None:
    # single letters are excluded: in camelCase "aBC" is ambiguous (a + BC acronym)
    snake = "_".join(words)
    camel = words[0] + "".join(w.capitalize() for w in words[1:])
    assert tokenize(snake) == tokenize(camel)

"""engine.textfold: what one spelling of a word folds to, and that the folding is settled (folding twice
changes nothing)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.textfold import fold, fold_spans, sql_fold


@pytest.mark.parametrize(
    ("typed", "folded"),
    [
        (unicodedata.normalize("NFD", "brûlée"), "brûlée"),
        (unicodedata.normalize("NFD", "Việt"), "việt"),
        (unicodedata.normalize("NFD", "한국어"), "한국어"),  # conjoining jamo become syllables
        ("ＡＰＩ", "api"),
        ("ﬁle", "file"),
        ("Straße", "strasse"),
        ("STRASSE", "strasse"),
        ("ｶﾀｶﾅ", "カタカナ"),  # half-width katakana
        ("ΣΊΣΥΦΟΣ", "σίσυφοσ"),
        ("wo\u200brd", "word"),  # zero-width space
        ("wo\u200cr\u200dd", "word"),  # ZWNJ, ZWJ
        ("so\u00adft", "soft"),  # soft hyphen
        ("\ufeffbom", "bom"),
        ("wo\u2060rd", "word"),  # word joiner
        ("☃\ufe0f", "☃"),  # variation selector
        ("x\u3164y", "xy"),  # Hangul filler (NFKC turns it into another ignorable)
        ("plain ascii Text", "plain ascii text"),
    ],
)
def test_fold(typed: str, folded: str) -> None:
    assert fold(typed) == folded


def test_the_sql_function_folds_texts_and_passes_other_values() -> None:
    assert sql_fold("ＡＰＩ") == "api"
    assert sql_fold(None) is None
    assert sql_fold(42) == 42


@given(st.text())
def test_folding_is_settled(text: str) -> None:
    once = fold(text)
    assert fold(once) == once


@given(st.text())
def test_fold_spans_point_into_the_text(text: str) -> None:
    folded, spans = fold_spans(text)
    assert len(spans) == len(folded)
    assert all(0 <= start < end <= len(text) for start, end in spans)
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)


def test_fold_spans_equal_fold_piece_by_piece() -> None:
    text = "REST ＡＰＩ, ﬁle, pass\u200bword, cre\u0300me, Straße"
    folded, spans = fold_spans(text)
    assert folded == fold(text)
    assert text[spans[folded.index("api")][0] : spans[folded.index("api") + 2][1]] == "ＡＰＩ"
    at = folded.index("crème")
    assert text[spans[at][0] : spans[at + 4][1]] == "cre\u0300me"

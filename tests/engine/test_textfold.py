"""engine.textfold: what one spelling of a word folds to, and that the folding is settled (folding twice
changes nothing)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.textfold import fold, sql_fold


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

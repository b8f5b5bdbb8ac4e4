"""Snippets (MCP hits, the CLI): the query's terms are found in any spelling search folds alike, and the
window is cut around them in the stored text."""

from __future__ import annotations

from engine.search.snippets import snippet, snippet_terms


def test_snippet_finds_folded_spellings_and_cuts_the_stored_text_around_them() -> None:
    content = "x " * 150 + "the REST ＡＰＩ and the pass\u200bword" + " y" * 150
    terms = snippet_terms("API password")
    assert terms == ["password", "api"]
    text, matched = snippet(content, terms, limit=80)
    assert sorted(matched) == ["api", "password"]
    assert "ＡＰＩ" in text and "pass\u200bword" in text
    assert text.startswith("…") and text.endswith("…")

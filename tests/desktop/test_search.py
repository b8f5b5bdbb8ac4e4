"""The search flow: query, highlighted results with context, and a result that scrolls the conversation."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6.QtGui import QColor, QPalette

from desktop import contrast
from desktop.state import AppState
from desktop.viewer.highlight import excerpt, highlight_html, hit_html, terms
from desktop.viewer.window import ViewerWindow


@pytest.fixture
def viewer(state: AppState, qtbot: Any) -> ViewerWindow:
    window = ViewerWindow(state)
    qtbot.addWidget(window)
    window.present("search")
    return window


def search(viewer: ViewerWindow, qtbot: Any, text: str) -> list[Any]:
    viewer.search.box.setText(text)  # setText, never keyClicks, for non-ASCII text
    with qtbot.waitSignal(viewer.search.search_did_finish, timeout=5000) as blocker:
        viewer.search.button.click()
    return blocker.args[0]


def test_terms_and_highlighting() -> None:
    assert terms('記憶體 "trip budget" the migration') == [
        "trip budget",
        "migration",
        "記憶體",
        "記憶",
        "憶體",
    ]
    html = highlight_html("我的電腦記憶體不足 <b>", ["記憶體"])
    assert '<span style="background-color:#ffe066;font-weight:bold;">記憶體</span>' in html
    assert "&lt;b&gt;" in html
    assert excerpt("x " * 200 + "needle" + " y" * 200, ["needle"], 40).startswith("…")


def test_a_hit_found_in_a_passage_shows_that_passage_marked() -> None:
    content = (
        "opening words " * 200 + "the vault keys moved to a lighthouse near Reykjavik. " + "closing " * 300
    )
    start = content.index("the vault")
    shown = hit_html(content, ["lighthouse"], (start - 30, start + 120), mark="background:#123456;")
    assert shown.startswith('<span style="background:#123456;">…') and "Reykjavik" in shown
    assert '<span style="background:#123456;font-weight:bold;">lighthouse</span>' in shown
    whole = hit_html(content, ["lighthouse"], None, mark="")
    assert whole == highlight_html(excerpt(content, ["lighthouse"]), ["lighthouse"], mark="")


def test_highlighting_marks_whole_words() -> None:
    marked = highlight_html("Lower the low lows; slow e-mail", ["low", "e"], mark="")
    spans = re.findall(r"<span[^>]*>([^<]*)</span>", marked)
    assert spans == ["low", "lows", "e"]  # not "Low" in "Lower", not "low" in "slow"


def test_highlighting_uses_the_engines_query_terms() -> None:
    assert terms("what about your budget") == ["budget"]  # the engine's stop words
    assert terms("ㄅㄆㄇ 記憶體不足")[:5] == ["記憶體不足", "ㄅㄆㄇ", "記憶體", "憶體不", "體不足"]
    assert terms("ㄅㄆㄇ 記憶體不足")[5:] == [
        "ㄅㄆ",
        "ㄆㄇ",
        "記憶",
        "憶體",
        "體不",
        "不足",
    ]  # the bigrams searched
    html = highlight_html("premium budget", terms("um budget"))
    assert html.count("font-weight:bold") == 1  # a word is marked where a word starts, not inside one
    assert highlight_html("很好ㄅㄆㄇ", terms("ㄅㄆㄇ")).count("font-weight:bold") == 1  # CJK: anywhere


def test_only_keyword_search_without_the_semantic_tier(viewer: ViewerWindow) -> None:
    assert [viewer.search.match.itemData(i) for i in range(viewer.search.match.count())] == ["keyword"]
    viewer.search.set_semantic_available(True)
    assert [viewer.search.match.itemData(i) for i in range(viewer.search.match.count())] == [
        "hybrid",
        "keyword",
        "semantic",
    ]


def test_chinese_search_highlights_and_shows_context(
    viewer: ViewerWindow, qtbot: Any, screenshot: Any
) -> None:
    results = search(viewer, qtbot, "記憶體")
    assert {r.hit.message.session for r in results} == {"proj-zh"}
    first = next(r for r in results if r.hit.message.content.startswith("可以先關閉"))
    assert [m.content[:4] for m in first.context] == [
        "我的電腦",
        "可以先關",
        "幫我整理",
    ]  # 1 before (the first), 1 after
    html = viewer.search.view.toHtml()
    marked = viewer.search.view.palette().color(QPalette.ColorRole.Highlight).name()
    assert "記憶體" in html and marked in html
    assert (
        viewer.search.status.text() == f"{len(results)} results" or viewer.search.status.text() == "1 result"
    )
    screenshot(viewer, "search-chinese")


def test_english_search_in_this_session_with_time_range(
    viewer: ViewerWindow, qtbot: Any, screenshot: Any
) -> None:
    viewer.search.current_session = "english-notes"
    viewer.search.scope.setCurrentIndex(viewer.search.scope.findData("session"))
    results = search(viewer, qtbot, "budget trip")
    assert results and all(r.hit.message.session == "english-notes" for r in results)
    hit = next(r for r in results if "1,200 euros" in r.hit.message.content)
    assert len(hit.context) == 3  # two before, the hit (the last message: nothing after)
    screenshot(viewer, "search-english")
    viewer.search.time_range.setCurrentIndex(viewer.search.time_range.findData("1d"))
    assert search(viewer, qtbot, "budget") == []  # seeded in 2025: nothing in the last day
    assert viewer.search.status.text() == "No results."


def test_activating_a_result_scrolls_the_conversation_to_it(viewer: ViewerWindow, qtbot: Any) -> None:
    results = search(viewer, qtbot, "kiwi")
    assert len(results) == 1 and results[0].hit.message.session == "long-chat"
    target = results[0].hit.message.id
    with qtbot.waitSignal(viewer.conversation.message_did_reveal, timeout=5000) as blocker:
        viewer.search.activate(0)
    assert blocker.args == [target]
    assert viewer.tabs.currentWidget() is viewer.conversation
    current = viewer.conversation.list.currentIndex()
    assert viewer.conversation.model.message(current.row()).id == target  # type: ignore[union-attr]
    assert "kiwi fruit harvest" in viewer.conversation.detail.toPlainText()


def test_semantic_and_hybrid_search_with_the_tier(viewer: ViewerWindow, memory: Any, qtbot: Any) -> None:
    assert memory.wait_idle(60)
    viewer.search.set_semantic_available(True)
    for match in ("semantic", "hybrid"):
        viewer.search.match.setCurrentIndex(viewer.search.match.findData(match))
        viewer.search.box.setText("roses in the garden")
        with qtbot.waitSignal(viewer.search.search_did_finish, timeout=10000) as finished:
            viewer.search.search()
        hits = finished.args[0]
        assert hits and all(r.hit.source == match for r in hits)
        assert any("roses" in r.hit.message.content for r in hits)


def dark_palette() -> QPalette:
    """A dark theme whose own highlight pair is hard to read (white on a light blue)."""
    palette = QPalette()
    for role, color in (
        (QPalette.ColorRole.Window, "#202124"),
        (QPalette.ColorRole.Base, "#1b1b1b"),
        (QPalette.ColorRole.Text, "#e8e8e8"),
        (QPalette.ColorRole.WindowText, "#e8e8e8"),
        (QPalette.ColorRole.Highlight, "#5aa0ff"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"),
    ):
        palette.setColor(role, QColor(color))
    return palette


def styled_spans(html: str) -> list[tuple[str, str, str]]:
    """``(background, colour, text)`` of every span in Qt's HTML that sets a background."""
    found = []
    for style, text in re.findall(r'<span style="([^"]*background-color:[^"]*)">([^<]*)</span>', html):
        background = re.search(r"background-color:(#[0-9a-f]{6})", style)
        color = re.search(r"(?<![-\w])color:(#[0-9a-f]{6})", style)
        assert background and color, style
        found.append((background.group(1), color.group(1), text))
    return found


def test_a_dark_palette_highlights_matches_readably(
    viewer: ViewerWindow, qtbot: Any, screenshot: Any
) -> None:
    viewer.search.view.setPalette(dark_palette())
    results = search(viewer, qtbot, "migration")
    assert results
    spans = styled_spans(viewer.search.view.toHtml())
    assert spans and all(text.lower() == "migration" for _bg, _fg, text in spans)
    for background, color, _text in spans:
        assert background == "#5aa0ff"  # the palette's Highlight, not a fixed yellow
        assert contrast.contrast_ratio(QColor(background), QColor(color)) >= 4.5, (background, color)
    quiet = re.findall(r'<span style=" color:(#[0-9a-f]{6});">', viewer.search.view.toHtml())
    assert quiet  # the context lines: muted, still readable on the dark base
    for color in quiet:
        assert contrast.contrast_ratio(QColor(color), QColor("#1b1b1b")) >= 4.5, color
    screenshot(viewer, "search-dark-palette")


def test_a_new_palette_redraws_the_results(viewer: ViewerWindow, qtbot: Any) -> None:
    assert search(viewer, qtbot, "migration")
    light = styled_spans(viewer.search.view.toHtml())[0][0]
    viewer.search.setPalette(dark_palette())
    dark = styled_spans(viewer.search.view.toHtml())[0][0]
    assert light != dark == "#5aa0ff"


def test_contrast_ratio_follows_wcag() -> None:
    assert round(contrast.contrast_ratio(QColor("black"), QColor("white")), 1) == 21.0
    assert contrast.contrast_ratio(QColor("#777777"), QColor("#777777")) == 1.0
    # white on yellow, the old dark-theme highlight, is unreadable; the fallback picks black
    assert contrast.contrast_ratio(QColor("white"), QColor("#ffe066")) < 1.5
    assert contrast.readable_on(QColor("#ffe066"), QColor("white")) == QColor("black")


def test_typing_searches_once_after_a_pause_off_the_gui_thread(
    viewer: ViewerWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from desktop.viewer import hits
    from desktop.viewer import searcher as search_module

    calls: list[tuple[str, bool]] = []
    real = search_module.run_search

    def counted(mem: Any, query: Any, page: int = hits.PAGE) -> Any:
        calls.append((query.text, threading.current_thread() is threading.main_thread()))
        return real(mem, query, page)

    monkeypatch.setattr(search_module, "run_search", counted)
    with qtbot.waitSignal(viewer.search.search_did_finish, timeout=5000) as blocker:
        for text in ("m", "mi", "mig", "migration"):  # keystrokes closer together than TYPING_MS
            viewer.search.box.setText(text)
    assert calls == [("migration", False)]  # one search, on a worker
    assert blocker.args[0] and all("migration" in r.hit.message.content for r in blocker.args[0])
    qtbot.wait(search_module.TYPING_MS + 100)
    assert len(calls) == 1


def test_an_answer_to_old_text_is_never_shown(viewer: ViewerWindow, qtbot: Any) -> None:
    viewer.search.box.setText("budget")
    viewer.search.search()  # runs now
    viewer.search.box.setText("roses")  # typed while "budget" runs
    viewer.search.search()
    with qtbot.waitSignal(viewer.search.search_did_finish, timeout=5000) as blocker:
        pass
    assert blocker.args[0] and all("roses" in r.hit.message.content for r in blocker.args[0])


def test_many_hits_come_in_pages_with_a_count(viewer: ViewerWindow, qtbot: Any) -> None:
    from desktop.viewer.hits import MAX_RESULTS, PAGE

    results = search(viewer, qtbot, "garden roses")  # 240 messages of long-chat say it
    assert len(results) == PAGE
    assert viewer.search.status.text() == f"{PAGE} of {MAX_RESULTS}+ results"
    assert viewer.search.more_button.isVisible()
    shown = PAGE
    while viewer.search.more_button.isVisible():
        with qtbot.waitSignal(viewer.search.page_did_load, timeout=5000) as blocker:
            viewer.search.more_button.click()
        shown = min(shown + PAGE, MAX_RESULTS)
        assert len(blocker.args[0]) == shown == len(viewer.search.results)
    assert shown == MAX_RESULTS
    assert viewer.search.status.text().startswith(f"The first {MAX_RESULTS} results")
    viewer.search.activate(MAX_RESULTS - 1)  # a result of the last page opens too


def test_a_count_below_the_limit() -> None:
    from desktop.viewer.searcher import count_text

    assert count_text(50, 76, capped=False) == "50 of 76 results"
    assert count_text(1, 1, capped=False) == "1 result"
    assert count_text(76, 76, capped=False) == "76 results"


def test_both_search_boxes_make_their_query_in_one_place() -> None:
    from desktop.viewer.hits import Query

    assert Query.typed("  \t", "keyword") is None
    assert Query.typed("  retry  ", "hybrid", "proj", "7d") == Query("retry", "hybrid", "proj", "7d")


def test_the_search_tab_says_when_meaning_search_is_partial(
    viewer: ViewerWindow, memory: Any, qtbot: Any, screenshot: Any
) -> None:
    from engine import Message
    from tests.desktop.conftest import BASE_NS

    viewer.search.set_semantic_available(True)
    viewer.search.match.setCurrentIndex(viewer.search.match.findData("hybrid"))
    search(viewer, qtbot, "budget")
    assert "meaning search covers" not in viewer.search.status.text()  # every message is embedded
    assert viewer.search.status.toolTip() == ""
    memory.pause_embedding()
    later = [Message("user", f"budget note {i}", BASE_NS + (600 + i) * 1_000_000_000) for i in range(5)]
    memory.append("english-notes", later)
    total = sum(s.total_messages for s in memory.sessions(include_temp=True))
    found = search(viewer, qtbot, "budget")
    status = viewer.search.status.text()
    assert f"meaning search covers {total - 5:,} of {total:,} messages so far" in status, status
    assert status.startswith(f"{len(found)} results · ")  # keywords found the new notes all the same
    assert sum(r.hit.message.content.startswith("budget note") for r in found) == 5
    assert "embedded in the background" in viewer.search.status.toolTip()
    screenshot(viewer, "search-partial-coverage")
    viewer.search.match.setCurrentIndex(viewer.search.match.findData("keyword"))
    search(viewer, qtbot, "budget")
    assert "meaning search" not in viewer.search.status.text()  # keyword search ranks everything


def test_the_search_options_are_the_engines_each_with_a_label() -> None:
    from desktop.viewer.hits import MAX_RESULTS
    from desktop.viewer.search import MATCH_LABELS, TIME_RANGES
    from engine.clock import TIME_RANGES as ENGINE_TIME_RANGES
    from engine.search import MATCHES, MAX_LIMIT

    assert set(MATCH_LABELS) == set(MATCHES)
    assert {value for _label, value in TIME_RANGES} == {None, *ENGINE_TIME_RANGES}
    assert MAX_RESULTS == MAX_LIMIT  # asks for as many hits as the engine gives


def test_highlighting_marks_every_spelling_search_folds_alike() -> None:
    text = "the REST ＡＰＩ, the ﬁle, pass\u200bword and cre\u0300me at the Straße"
    html = highlight_html(text, terms("api file password crème strasse"))
    marked = [part.split("</span>")[0] for part in html.split('font-weight:bold;">')[1:]]
    assert marked == ["ＡＰＩ", "ﬁle", "pass\u200bword", "cre\u0300me", "Straße"]

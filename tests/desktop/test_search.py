"""The search flow: query, highlighted results with context, and a result that scrolls the conversation."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.state import AppState
from desktop.viewer.highlight import excerpt, highlight_html, terms
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
    assert "記憶體" in html and "#ffe066" in html
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

"""The chooser of Compact…/Reset… says what it will do before it does it, opens fresh each time, and its
default button is the mode's own (Enter never compacts every session); Compact under the limit never says
it compacted."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QLabel

from desktop.chooser import SessionChooser
from desktop.operations import Operations, Outcome
from desktop.state import AppState
from desktop.viewer.sessions import TOOLTIPS
from engine import Memory

LONG_TITLE = "long chat message 0: notes about the garden and the roses…"


@pytest.fixture
def chooser(state: AppState, qtbot: Any) -> SessionChooser:
    dialog = SessionChooser(state, "compact")
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def signals_of(chooser: SessionChooser) -> list[tuple[str, ...]]:
    seen: list[tuple[str, ...]] = []
    chooser.session_did_choose.connect(lambda mode, sid: seen.append((mode, sid)))
    chooser.all_did_choose.connect(lambda mode: seen.append(("all", mode)))
    return seen


def texts_of(chooser: SessionChooser) -> list[str]:
    found = [chooser.windowTitle()]
    found += [w.text() for w in chooser.findChildren(QLabel) + chooser.findChildren(QAbstractButton)]
    found += [w.toolTip() for w in chooser.findChildren(QAbstractButton)]
    return found


def lower_the_limit(state: AppState, memory: Memory, qtbot: Any) -> None:
    """A 4 KiB limit (3 KiB after compaction): the long chat is over it, the others are not."""
    memory.update_settings(max_history_bytes=4096)
    with qtbot.waitSignal(state.state_did_change, timeout=5000):
        state.refresh()


def test_compact_shows_the_limit_and_what_it_will_do(
    chooser: SessionChooser, state: AppState, memory: Memory, qtbot: Any, screenshot: Any
) -> None:
    assert (
        "The limit is 4.0 MiB: a session larger than 3.2 MiB is trimmed to about 3.2 MiB"
        in chooser.intro.text()
    )
    assert chooser.plan.text() == "Choose a session to see what happens to it."
    assert not chooser.choose_button.isEnabled()
    assert not chooser.all_button.isEnabled() and chooser.all_button.text() == "Compact all (0)"
    assert chooser.sessions.select("proj-zh")
    assert "compacting changes nothing" in chooser.plan.text()
    assert chooser.plan.text().startswith("“我的電腦記憶體不足，該怎麼辦？” has ")  # by its title
    assert not chooser.choose_button.isEnabled()  # nothing to do: nothing to press
    lower_the_limit(state, memory, qtbot)
    assert "The limit is 4 KiB: a session larger than 3 KiB" in chooser.intro.text()
    assert chooser.all_button.isEnabled() and chooser.all_button.text() == "Compact all (1)"
    assert chooser.all_button.toolTip() == "Compact the 1 session larger than 3 KiB"
    assert chooser.sessions.select("long-chat")
    assert chooser.plan.text().endswith(
        "of recent history: compacting moves its oldest messages to the archive until about 3 KiB remain."
    )
    assert chooser.choose_button.isEnabled()
    qtbot.wait(20)  # the layout follows the longer plan
    screenshot(chooser, "chooser-compact")
    words = texts_of(chooser) + [TOOLTIPS[c] for c in range(len(TOOLTIPS))]
    assert not [t for t in words if "history.json" in t]  # no file names for a person to decode


def test_reset_says_how_many_messages_go(chooser: SessionChooser) -> None:
    chooser.open_for("reset")
    assert chooser.choose_button.text() == "Reset…" and chooser.choose_button.isDefault()
    assert chooser.all_button.isHidden()
    assert chooser.sessions.select("english-notes")
    assert chooser.plan.text() == (
        "Reset deletes the 4 messages of “What did we decide about the database migration?”, after you confirm."
    )


def test_the_chooser_opens_fresh_and_enter_never_compacts_every_session(
    chooser: SessionChooser, state: AppState, memory: Memory, qtbot: Any
) -> None:
    lower_the_limit(state, memory, qtbot)  # "Compact all" has work to do, so it could be run by mistake
    seen = signals_of(chooser)
    chooser.open_for("reset")
    chooser.sessions.filter.setText("what did")
    assert chooser.sessions.select("english-notes")
    chooser.open_for("compact")  # the next visit: nothing of the last one is left
    assert chooser.sessions.filter.text() == "" and chooser.sessions.current_session() is None
    assert len(chooser.sessions.visible_sessions()) == 3
    assert chooser.choose_button.isDefault() and chooser.choose_button.text() == "Compact"
    assert not chooser.all_button.autoDefault() and not chooser.all_button.isDefault()
    assert chooser.all_button.isEnabled()
    for target in (chooser.sessions.filter, chooser.sessions.table, chooser.all_button, chooser):
        target.setFocus()
        qtbot.keyClick(target, Qt.Key.Key_Return)
        qtbot.keyClick(target, Qt.Key.Key_Enter)
    assert seen == [] and chooser.isVisible()  # nothing chosen: Enter does nothing at all
    assert chooser.sessions.select("long-chat")
    chooser.sessions.table.setFocus()
    qtbot.keyClick(chooser.sessions.table, Qt.Key.Key_Return)
    assert seen == [("compact", "long-chat")]  # Enter: the mode's own action on the selected session


def test_compact_under_the_limit_never_says_it_compacted(state: AppState, qtbot: Any) -> None:
    ops = Operations(state)
    found: list[Outcome] = []
    ops.operation_did_finish.connect(found.append)
    with qtbot.waitSignal(ops.operation_did_finish, timeout=10_000):
        ops.compact("english-notes")
    assert (
        found[0].ok
        and found[0].title == "Nothing to compact in “What did we decide about the database migration?”"
    )
    assert "Compacted" not in found[0].title and "trim" not in found[0].text
    assert found[0].text.startswith("Its recent history is ")
    assert "not more than 3.2 MiB (the limit is 4.0 MiB): nothing was moved (" in found[0].text
    assert "history.json" not in found[0].text


def test_compact_over_the_limit_says_what_moved(state: AppState, memory: Memory, qtbot: Any) -> None:
    lower_the_limit(state, memory, qtbot)
    ops = Operations(state)
    found: list[Outcome] = []
    ops.operation_did_finish.connect(found.append)
    with qtbot.waitSignal(ops.operation_did_finish, timeout=10_000):
        ops.compact(None)
    assert found[0].title == "Compacted 1 session"
    assert " messages trimmed from the recent history in " in found[0].text
    assert found[0].text.endswith("; 3 other sessions left as they were.")
    assert memory.compaction_cut("long-chat") > 0


def test_the_words_of_a_compaction() -> None:
    from desktop.operations import Compaction, compact_words
    from engine import CompactResult

    context = Compaction(4096, {"a": "Alpha", "b": "Beta", "priv-c": "Secret"}, frozenset({"priv-c"}))
    both = [CompactResult("a", 3, 5, 5000, 3000, 1), CompactResult("b", 2, 5, 5000, 3000, 1)]
    words = compact_words(both, 0.5, context)
    assert (words.title, words.text) == (
        "Compacted 2 sessions",
        "5 messages trimmed from the recent history in 0.5 s.",
    )
    private = compact_words([CompactResult("priv-c", 4, 2, 6000, 3000, 0)], 0.5, context)
    assert private.title == "Compacted “Secret”"
    assert private.text.startswith(
        "4 messages deleted (a private chat is not archived), 2 kept; recent history"
    )
    stuck = compact_words([CompactResult("a", 0, 2, 6000, 6000, 0)], 0.5, context)  # the newest exchange
    assert stuck.title == "Nothing to compact in “Alpha”" and "newest exchange always stays" in stuck.text

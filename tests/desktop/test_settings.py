"""The settings window: a round trip through the engine (the UI language too), autostart read from and
written to the login entry itself, the key through the key store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop import autostart
from desktop.settings_window import SettingsWindow
from desktop.state import AppState
from engine import Memory
from tests.desktop.fakes import FakeKeys


@pytest.fixture
def window(state: AppState, qtbot: Any, tmp_path: Path) -> SettingsWindow:
    win = SettingsWindow(state, autostart.XdgAutostart(["/opt/memtray/memtray"]))
    qtbot.addWidget(win)
    win.show()
    return win


def test_settings_round_trip(
    window: SettingsWindow, state: AppState, qtbot: Any, seeded_home: Path, screenshot: Any, tmp_path: Path
) -> None:
    assert window.data_folder.text() == str(seeded_home.resolve()) and window.data_folder.isReadOnly()
    qtbot.waitUntil(window.autostart.isEnabled, timeout=5000)  # the login entry was read: there is none
    assert not window.autostart.isChecked()
    assert window.ui_language.currentData() == "auto"
    assert "next" in window.ui_language_note.text() or "again" in window.ui_language_note.text()
    window.ui_language.setCurrentIndex(window.ui_language.findData("zh_TW"))
    window.summary_model.setCurrentText("gemini-2.5-pro")
    window.reply_lang.setCurrentIndex(window.reply_lang.findData("zh-TW"))
    window.window_messages.setValue(24)
    window.history_kib.setValue(2048)
    # "hash": a real embedder switch without loading a model in the background of the GUI tests.
    window.embedder.setCurrentIndex(window.embedder.findData("hash"))
    assert "re-embeds" in window.embedder_note.text()
    window.summaries_enabled.setChecked(False)
    window.autostart.setChecked(True)
    screenshot(window, "settings")
    with qtbot.waitSignal(window.settings_did_save, timeout=5000):
        window.save_button.click()
    assert window.status.text().startswith("Saved.")
    # Stored in the database: a fresh Memory on the same home reads them back.
    fresh = Memory.open(seeded_home, background=False)
    try:
        s = fresh.settings
        assert (s.summary_model, s.reply_lang, s.max_history_messages, s.max_history_bytes) == (
            "gemini-2.5-pro",
            "zh-TW",
            24,
            2048 * 1024,
        )
        assert (s.embedder, s.summaries_enabled, s.ui_language) == ("hash", False, "zh_TW")
        assert s.autostart is False  # the login entry is the user's, not a setting of the data folder
    finally:
        fresh.close()
    assert Memory.peek_settings(seeded_home).ui_language == "zh_TW"  # what the next start reads
    assert state.snapshot.settings.max_history_messages == 24
    entry = Path(tmp_path / "xdg" / "xdg_config_home" / "autostart" / "memtray.desktop")
    assert "Exec=/opt/memtray/memtray" in entry.read_text(encoding="utf-8")
    # Reopened, the window shows what was saved.
    window.load()
    assert window.window_messages.value() == 24 and not window.summaries_enabled.isChecked()
    assert window.ui_language.currentData() == "zh_TW"
    qtbot.waitUntil(lambda: window.autostart_loaded is True, timeout=5000)  # read back from the entry
    assert window.autostart.isChecked()
    window.autostart.setChecked(False)
    with qtbot.waitSignal(window.settings_did_save, timeout=5000):
        window.save()
    assert not entry.exists()


@pytest.mark.allow_warnings
def test_a_bad_value_is_refused_in_words(window: SettingsWindow, qtbot: Any) -> None:
    window.summary_model.setCurrentText("")  # allowed (text); try a bad embedder through the engine instead
    window.embedder.addItem("bogus", "bogus")
    window.embedder.setCurrentIndex(window.embedder.findData("bogus"))
    qtbot.waitUntil(lambda: True)
    window.save()
    qtbot.waitUntil(lambda: "setting was not saved" in window.status.text(), timeout=5000)
    assert "embedder must be one of" in window.status.text()


def test_before_the_memory_opens_the_key_field_is_disabled(window: SettingsWindow) -> None:
    assert not window.key.isEnabled() and not window.key_test.isEnabled()
    assert "not open yet" in window.key_status.text()


def test_key_is_masked_and_goes_to_the_key_store(state: AppState, qtbot: Any) -> None:
    keys = FakeKeys()
    state.keys = keys
    win = SettingsWindow(state)
    qtbot.addWidget(win)
    qtbot.waitUntil(lambda: win.key_status.text() == "No key is stored.")
    assert win.key.echoMode() == win.key.EchoMode.Password
    win.key.setText("AIza-secret-1234")
    with qtbot.waitSignal(win.key_did_change, timeout=5000):
        win.key_save.click()
    assert keys.value == "AIza-secret-1234" and win.key.text() == ""
    assert win.key_status.text() == "A key is stored (…1234)."
    with qtbot.waitSignal(win.key_did_change, timeout=5000):
        win.key_test.click()
    assert win.key_status.text() == "The key works."
    with qtbot.waitSignal(win.key_did_change, timeout=5000):
        win.key_delete.click()
    assert keys.value == ""


def test_the_choices_are_the_engines_each_with_a_label(window: SettingsWindow) -> None:
    """The window offers the engine's embedders, UI languages and Gemini models (one list of each, in the
    engine), and has a label for every embedder and language it offers."""
    from desktop import i18n, settings_window
    from engine import Settings, settings

    def data(box: Any) -> tuple[str, ...]:
        return tuple(box.itemData(i) for i in range(box.count()))

    def texts(box: Any) -> tuple[str, ...]:
        return tuple(box.itemText(i) for i in range(box.count()))

    assert data(window.embedder) == settings.EMBEDDERS
    assert data(window.ui_language) == settings.UI_LANGUAGES
    assert set(settings_window.EMBEDDERS) == set(settings.EMBEDDERS)
    assert set(settings_window.UI_LANGUAGES) == set(settings.UI_LANGUAGES)
    assert not set(texts(window.embedder)) & set(settings.EMBEDDERS)  # each shown by its label
    assert texts(window.summary_model) == texts(window.chat_model) == settings.GEMINI_MODELS
    assert texts(window.decision_model) == ("", *settings.GEMINI_MODELS)
    first = Settings()
    assert {first.summary_model, first.chat_model, first.decision_model} <= set(settings.GEMINI_MODELS)
    assert i18n.LANGUAGES == ("en", "zh_TW")
    from engine.summary import EVERY_MINUTES  # the schedule is the engine's, said in the window

    assert (
        window.summaries_enabled.text()
        == f"Summarize conversations on a schedule (every {EVERY_MINUTES} minutes)"
    )

"""Settings: typed, validated, stored in the database, defaults from the original (16 messages, 4 MiB)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Memory, database
from engine.errors import InvalidSetting
from engine.settings import DEFAULTS, coerce, from_stored


def test_defaults_follow_the_seed() -> None:
    assert DEFAULTS.max_history_messages == 16
    assert DEFAULTS.max_history_bytes == 4 * 1024 * 1024
    assert DEFAULTS.reply_lang == "auto"


def test_settings_survive_reopening(home: Path) -> None:
    with Memory.open(home) as mem:
        mem.update_settings(
            max_history_messages=24, gemini_base_url="http://127.0.0.1:9", summaries_enabled="off"
        )
    with Memory.open(home) as mem:
        assert mem.settings.max_history_messages == 24
        assert mem.settings.gemini_base_url == "http://127.0.0.1:9"
        assert mem.settings.summaries_enabled is False


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("max_history_messages", 0),
        ("max_history_messages", "x"),
        ("max_history_bytes", -5),
        ("nope", 1),
        ("embedder", "bert"),
        ("summaries_enabled", "maybe"),
        ("gemini_base_url", "ftp://x"),
        ("reply_lang", 3),
    ],
)
def test_bad_values_are_refused_and_nothing_is_stored(memory: Memory, name: str, value: object) -> None:
    with pytest.raises(InvalidSetting):
        memory.update_settings(**{name: value})
    assert memory.settings == DEFAULTS
    assert database.SettingsTable(memory._store).setting_rows() == {}


def test_unusable_stored_values_fall_back_to_defaults() -> None:
    loaded = from_stored(
        {"max_history_messages": "-3", "reply_lang": '"zh-TW"', "junk": "1", "embedder": "{"}
    )
    assert loaded.max_history_messages == 16 and loaded.reply_lang == "zh-TW" and loaded.embedder == "auto"
    assert coerce("max_history_messages", "32") == 32

"""Shared settings through the shared folder: what one device changes of engine.settings.SHARED reaches
the others (a joining device takes the folder's), the newest change wins on every device, a device's own
settings stay its own, and a value this version refuses is skipped."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.settings import DEFAULTS, SHARED
from engine.sync import pack, sharedsettings
from tests.engine.conftest import FakeClock
from tests.engine.sync.conftest import Homes, pair

PASS = "settings travel too"
T0 = 1_700_000_000 * 10**9


def rounds(*mems: Memory) -> None:
    for _ in range(2):
        for mem in mems:
            mem.sync.now()


def test_the_shared_ones_are_settings() -> None:
    assert SHARED.issubset(DEFAULTS.as_dict())
    assert not SHARED & {"embedder", "gemini_base_url", "ui_language", "search_shortcut", "agent_folders"}


def test_the_creating_devices_settings_reach_a_joining_one_and_per_device_ones_stay(
    homes: Homes, tmp_path: Path
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    a, b = homes.open("a"), homes.open("b")
    a.update_settings(reply_lang="en", summary_model="gemini-2.5-pro", search_shortcut="Ctrl+Alt+K")
    b.update_settings(max_history_messages=30, ui_language="zh_TW")  # b's own, before it joins
    a.sync.enable(folder, PASS, "a")
    b.sync.enable(folder, PASS, "b")
    rounds(a, b)
    assert (b.settings.reply_lang, b.settings.summary_model) == ("en", "gemini-2.5-pro")
    assert b.settings.search_shortcut == DEFAULTS.search_shortcut  # a device's keyboard is its own
    assert b.settings.ui_language == "zh_TW" and a.settings.ui_language == DEFAULTS.ui_language
    # a joining device keeps its own where the folder changed nothing, and does not send it
    assert b.settings.max_history_messages == 30
    assert a.settings.max_history_messages == DEFAULTS.max_history_messages


def test_a_change_on_either_device_reaches_the_other(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)
    b.update_settings(max_history_messages=24, redact_secrets=False)
    report = b.sync.now()
    assert report.changes_sent == 2
    assert a.sync.now().applied.settings == 2
    assert (a.settings.max_history_messages, a.settings.redact_secrets) == (24, False)
    assert b.sync.now().changes_sent == 0  # nothing echoes back
    assert a.sync.now().changes_sent == 0
    a.update_settings(redact_secrets=True)
    rounds(a, b)
    assert b.settings.redact_secrets is True


def test_concurrent_changes_converge_on_one_value(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    clocks = [FakeClock(T0 + 3 * 3600 * 10**9), FakeClock(T0)]  # a's clock three hours ahead of b's
    a, b = homes.open("a", clock=clocks[0]), homes.open("b", clock=clocks[1])
    a.sync.enable(folder, PASS, "a")
    b.sync.enable(folder, PASS, "b")
    a.update_settings(reply_lang="ja")
    b.update_settings(reply_lang="fr")
    a.sync.now()
    b.sync.now()  # b sends its own before it applies a's: two changes, neither seen by the other
    rounds(a, b)
    assert a.settings.reply_lang == b.settings.reply_lang == "ja"  # the later clock (a's) wins on both
    # a change b makes after seeing a's wins, whatever the clocks say
    a.update_settings(chat_model="gemini-2.5-pro")
    rounds(a, b)
    b.update_settings(chat_model="gemini-2.5-flash-lite")
    rounds(a, b)
    assert a.settings.chat_model == b.settings.chat_model == "gemini-2.5-flash-lite"


def test_a_change_made_by_another_program_or_before_a_kill_is_sent(homes: Homes, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)
    with Memory.open(homes.base / "a", embedder=HashEmbedder(), background=False) as other:  # `config set`
        other.update_settings(decision_model="")
    assert a.settings.decision_model == DEFAULTS.decision_model  # a's copy in use is older: not what is sent
    rounds(a, b)
    assert b.settings.decision_model == ""


def test_a_device_joining_from_a_snapshot_gets_the_settings(
    homes: Homes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pack, "PACK_AFTER", 2)
    folder = tmp_path / "shared"
    a, b = pair(homes, folder, PASS)
    a.update_settings(reply_lang="nl")
    for i in range(4):
        a.update_settings(max_history_messages=20 + i)
        rounds(a, b)
    c = homes.open("c")
    c.sync.enable(folder, PASS, "c")
    c.sync.now()
    assert (c.settings.reply_lang, c.settings.max_history_messages) == ("nl", 23)


def test_a_value_this_version_refuses_is_skipped(homes: Homes, caplog: pytest.LogCaptureFixture) -> None:
    mem = homes.open("a")
    told = [
        {"kind": "setting", "name": "max_history_messages", "value": -3, "at": 5},
        {"kind": "setting", "name": "a_setting_of_a_newer_version", "value": 1, "at": 5},
        {"kind": "setting", "name": "embedder", "value": "hash", "at": 5},  # not shared: not applied
        {"kind": "setting", "name": "reply_lang", "value": "de", "at": 5},
    ]
    with caplog.at_level(logging.WARNING, logger="memtray.sync"):
        assert sharedsettings.apply(mem._store, mem, "other-device", told) == 1
    assert "max_history_messages must be a positive whole number" in caplog.text
    assert mem.settings.max_history_messages == DEFAULTS.max_history_messages
    assert mem.settings.reply_lang == "de" and mem.settings.embedder == DEFAULTS.embedder


def test_a_change_not_sent_yet_is_kept_and_sent_past_the_one_that_arrived(homes: Homes) -> None:
    mem = homes.open("a")
    mem.update_settings(reply_lang="ja")  # made here; no segment has told it yet
    later = T0 + 10**12
    told = [{"kind": "setting", "name": "reply_lang", "value": "fr", "at": later}]
    assert sharedsettings.apply(mem._store, mem, "other-device", told) == 0
    assert mem.settings.reply_lang == "ja"
    with mem._store.read() as conn:
        assert sharedsettings.collect(conn, T0) == [
            {"kind": "setting", "name": "reply_lang", "value": "ja", "at": later + 1}
        ]

"""What the app follows without reading everything: the change mark, pausing the embedder, early settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.errors import InvalidSetting

NS = 1_760_000_000 * 1_000_000_000


def _msg(text: str, i: int = 0) -> Message:
    return Message("user", text, NS + i * 1_000_000_000)


def test_the_change_mark_moves_with_another_programs_commit_and_a_new_session(memory: Memory) -> None:
    memory.append("notes", [_msg("first")])
    assert memory.wait_idle(30)
    before = memory.change_mark()
    assert memory.change_mark() == before  # nothing happened: the same mark
    code = (
        "import sys; from engine import Memory; "
        "Memory.open(sys.argv[1], background=False).update_settings(max_history_messages=20)"
    )
    subprocess.run([sys.executable, "-c", code, str(memory.paths.home)], check=True, timeout=60)
    after_config = memory.change_mark()
    assert after_config != before
    assert memory.reload_settings().max_history_messages == 20
    memory.append("other", [_msg("second")])
    assert memory.change_mark() != after_config


def test_pausing_the_embedder_keeps_new_messages_queued_until_resumed(memory: Memory) -> None:
    assert memory.wait_idle(30)
    assert memory.embedding_paused is False
    memory.pause_embedding()
    assert memory.embedding_paused is True
    memory.append("notes", [_msg(f"message {i}", i) for i in range(40)])
    assert memory.wait_idle(5)  # paused counts as idle
    assert memory.semantic.status().queued == 40
    memory.resume_embedding()
    assert memory.embedding_paused is False
    assert memory.wait_idle(30)
    assert memory.semantic.status().queued == 0


def test_ui_language_is_a_validated_setting_read_early(home: Path) -> None:
    assert Memory.peek_settings(home).ui_language == "auto"  # no database yet: the default
    with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
        assert mem.settings.ui_language == "auto"
        with pytest.raises(InvalidSetting):
            mem.update_settings(ui_language="fr")
        mem.update_settings(ui_language="zh_TW")
    with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
        assert mem.settings.ui_language == "zh_TW"
    assert Memory.peek_settings(home).ui_language == "zh_TW"


def test_peeking_at_a_damaged_database_gives_the_defaults(home: Path) -> None:
    database = home / ".store" / "history.db"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"not a database" * 100)
    assert Memory.peek_settings(home).ui_language == "auto"

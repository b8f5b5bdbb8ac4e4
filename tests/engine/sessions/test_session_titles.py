"""Sessions carry a title (imported, set by the user, or their first user message shortened) and the times
of their first and last messages; every list sorts by the last message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.errors import SessionNotFound
from engine.imported import ImportedSession
from engine.sessions.titles import shorten

NS = 1_000_000_000
T0 = 1_750_000_000 * NS


def info(mem: Memory, session: str):  # type: ignore[no-untyped-def]
    return next(i for i in mem.sessions() if i.id == session)


def test_a_session_is_titled_by_its_first_user_message(memory: Memory) -> None:
    memory.append("s1", [Message("assistant", "Hello! How can I help?", T0)])
    memory.append("s1", [Message("user", "   \n  How do I\tresize a   LUKS partition?\nmore text", T0 + NS)])
    got = info(memory, "s1")
    assert (got.title, got.title_source) == ("How do I resize a LUKS partition?", "auto")
    assert (got.first_message_at, got.last_message_at, got.last_activity) == (T0, T0 + NS, T0 + NS)


def test_titles_are_shortened_on_a_word_or_at_the_limit_for_chinese() -> None:
    english = shorten("Please review the pull request that changes the compaction cut for user-only sessions")
    assert english.endswith("…") and len(english) <= 61 and " " not in english[-2:]
    assert english.startswith("Please review the pull request")
    chinese = shorten("晚上睡不好怎麼辦" * 20)
    assert chinese == ("晚上睡不好怎麼辦" * 20)[:60] + "…"
    assert shorten("短標題") == "短標題"


def test_an_imported_title_is_kept_and_a_users_title_wins_over_a_reimport(memory: Memory) -> None:
    conversation = [Message("user", "q", T0), Message("assistant", "a", T0 + NS)]
    memory.import_sessions([ImportedSession("gpt-1", conversation, title="Trip to Kyoto")])
    assert (info(memory, "gpt-1").title, info(memory, "gpt-1").title_source) == ("Trip to Kyoto", "imported")
    assert memory.set_title("gpt-1", "  Kyoto,\n spring 2026 ") == "Kyoto, spring 2026"
    memory.import_sessions([ImportedSession("gpt-1", conversation, title="Trip to Kyoto")])
    assert (info(memory, "gpt-1").title, info(memory, "gpt-1").title_source) == ("Kyoto, spring 2026", "user")
    memory.set_title("gpt-1", "")
    assert (info(memory, "gpt-1").title, info(memory, "gpt-1").title_source) == ("q", "auto")


def test_a_reimport_gives_titles_to_sessions_imported_before_titles_existed(memory: Memory) -> None:
    conversation = [Message("user", "first question", T0)]
    memory.import_sessions([ImportedSession("gpt-2", conversation)])
    assert info(memory, "gpt-2").title_source == "auto"
    report = memory.import_sessions([ImportedSession("gpt-2", conversation, title="Named now")])
    assert report.messages_added == 0
    assert info(memory, "gpt-2").title == "Named now"


def test_lists_sort_by_the_last_message_not_by_when_files_were_touched(memory: Memory) -> None:
    memory.import_sessions(
        [
            ImportedSession("old", [Message("user", "from 2021", T0 - 5 * 365 * 86400 * NS)]),
            ImportedSession("new", [Message("user", "from last year", T0)]),
            ImportedSession("mid", [Message("user", "from 2023", T0 - 2 * 365 * 86400 * NS)]),
        ]
    )
    os.utime(memory.paths.history_file("old"))  # touched now: must not move it up
    assert [i.id for i in memory.sessions()] == ["new", "mid", "old"]


def test_a_title_for_an_unknown_session_is_refused(memory: Memory) -> None:
    with pytest.raises(SessionNotFound):
        memory.set_title("nope", "x")


def test_the_cli_shows_and_sets_titles(home: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        code = "from desktop.launcher import main; import sys; sys.exit(main())"
        return subprocess.run(
            [sys.executable, "-c", code, "--home", str(home), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",  # the CLI writes UTF-8 (on Windows too, where the locale's is cp1252)
            timeout=60,
            env={**os.environ, "MEMTRAY_EMBEDDER": "hash"},
        )

    assert (
        run("append", "--session", "s1", "--role", "user", "--content", "Plan the Hualien trip").returncode
        == 0
    )
    assert "Plan the Hualien trip" in run("sessions").stdout
    assert run("title", "--session", "s1", "花蓮 2026").returncode == 0
    assert run("title", "--session", "s1").stdout.strip() == "花蓮 2026"
    listed = json.loads(run("sessions", "--json").stdout)
    assert listed[0]["title"] == "花蓮 2026" and listed[0]["titleSource"] == "user"
    assert listed[0]["lastMessageAt"] > 0
    missing = run("title", "--session", "nope", "x")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr

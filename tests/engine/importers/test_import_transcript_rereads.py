"""Claude Code transcripts read again: a rewrite in place, lines without a time, a copy under another name.

Each test runs the real ``memtray import claude-code`` on real files, as a user (or the hook) would, and
reads what was stored back through ``memtray history --json``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.clirun import run_cli
from tests.engine.transcriptdata import CC_SESSION, append_jsonl, cc_prompt, cc_reply, text, write_jsonl

SESSION = f"cc-{CC_SESSION}"


def _import(home: Path, path: Path) -> str:
    done = run_cli(home, "import", "claude-code", str(path))
    assert done.returncode == 0, done.stderr
    return done.stdout


def _stored(home: Path, session: str = SESSION) -> list[tuple[str, str]]:
    done = run_cli(home, "history", "--session", session, "--json")
    assert done.returncode == 0, done.stderr
    return [(m["role"], m["content"]) for m in json.loads(done.stdout)]


def _sessions(home: Path) -> list[str]:
    done = run_cli(home, "sessions", "--json")
    assert done.returncode == 0, done.stderr
    return sorted(str(s["id"]) for s in json.loads(done.stdout))


def _long_head() -> list[dict[str, Any]]:
    """Enough turns that the file's first 4,096 bytes (its hashed head) end well before its last line."""
    lines: list[dict[str, Any]] = []
    for n in range(1, 21, 2):
        lines += [cc_prompt(n, f"question {n} " + "x" * 200), cc_reply(n + 1, [text(f"answer {n + 1}")])]
    return lines


def test_a_transcript_rewritten_in_place_with_the_same_head_is_read_again_whole(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "projects" / "app" / f"{CC_SESSION}.jsonl", _long_head())
    home = tmp_path / "home"
    _import(home, path)
    inode = path.stat().st_ino

    # rewritten in place (same inode, same first 4 KB): the last reply grew, and a new turn followed
    rewritten = [*_long_head()[:-1], cc_reply(20, [text("answer 20, now with the whole explanation")])]
    write_jsonl(
        path, [*rewritten, cc_prompt(21, "one more question"), cc_reply(22, [text("one more answer")])]
    )
    assert path.stat().st_ino == inode
    said = _import(home, path)

    stored = _stored(home)
    assert "not JSON" not in said
    assert stored[-3:] == [
        ("assistant", "answer 20, now with the whole explanation"),
        ("user", "one more question"),
        ("assistant", "one more answer"),
    ]
    assert len(stored) == len(set(stored)) == 23  # 20 + the grown reply + the new turn, nothing twice


def test_a_line_without_a_time_gets_the_same_time_whichever_read_takes_it(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "projects" / "app" / f"{CC_SESSION}.jsonl", _long_head()[:2])
    home = tmp_path / "home"
    _import(home, path)
    untimed = cc_prompt(3, "a prompt without a time")
    del untimed["timestamp"]
    append_jsonl(path, [untimed, cc_reply(4, [text("a reply with one")])])
    _import(home, path)  # the untimed line is the first of this read

    (home / ".store" / "import-state.json").unlink()  # forgotten state: the whole file is read again
    _import(home, path)

    stored = _stored(home)
    assert stored.count(("user", "a prompt without a time")) == 1
    assert len(stored) == 4


def test_a_copy_under_another_name_is_the_same_session(tmp_path: Path) -> None:
    lines = [
        {"type": "file-history-snapshot", "messageId": "m-0", "snapshot": {}, "isSnapshotUpdate": False},
        *_long_head()[:4],
    ]
    original = write_jsonl(tmp_path / "projects" / "app" / f"{CC_SESSION}.jsonl", lines)
    copy = tmp_path / "backup" / "old-session.jsonl"
    copy.parent.mkdir()
    write_jsonl(copy, lines[:1])  # the copy was first seen holding only a line that names no session
    home = tmp_path / "home"
    _import(home, copy)
    append_jsonl(copy, lines[1:])
    _import(home, copy)
    shutil.copy(original, tmp_path / "backup" / "renamed.jsonl")
    _import(home, original)
    _import(home, tmp_path / "backup" / "renamed.jsonl")

    assert _sessions(home) == [SESSION]
    assert len(_stored(home)) == 4


def test_a_state_saved_before_the_tail_was_kept_still_reads_only_what_was_appended(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "projects" / "app" / f"{CC_SESSION}.jsonl", _long_head()[:2])
    home = tmp_path / "home"
    _import(home, path)
    state_file = home / ".store" / "import-state.json"
    saved = json.loads(state_file.read_text(encoding="utf-8"))
    for entry in saved["files"].values():
        assert entry.pop("tail")  # as an older memtray wrote it
    state_file.write_text(json.dumps(saved), encoding="utf-8")
    append_jsonl(path, [cc_prompt(3, "appended"), cc_reply(4, [text("after")])])

    said = _import(home, path)

    assert said.startswith("imported 2 messages") and "already there" not in said  # not read again whole
    assert len(_stored(home)) == 4

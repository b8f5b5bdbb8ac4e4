"""The command line: its stable contract (commands, exit codes), JSON shapes, one clear line for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_append_history_search_roundtrip(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run(
            capsys,
            "append",
            "--session",
            "cli-a",
            "--role",
            "user",
            "--content",
            "我的電腦記憶體不足",
            "--send-at",
            "1700000000000000000",
            "--sender",
            "Ann",
        )[0]
        == 0
    )
    assert (
        run(capsys, "append", "--session", "cli-a", "--role", "assistant", "--content", "Close some tabs")[0]
        == 0
    )
    code, out, _ = run(capsys, "history", "--session", "cli-a", "--json")
    history = json.loads(out)
    assert code == 0 and [m["content"] for m in history] == ["我的電腦記憶體不足", "Close some tabs"]
    assert history[0]["sendAt"] == 1700000000000000000 and history[0]["sender"] == "Ann"
    code, out, _ = run(capsys, "search", "記憶體", "--match", "keyword", "--json")
    hits = json.loads(out)
    assert code == 0 and len(hits) == 1
    assert set(hits[0]) == {"session", "id", "role", "content", "sendAt", "sender", "score", "source"}
    assert hits[0]["session"] == "cli-a" and hits[0]["source"] == "recent" and isinstance(hits[0]["id"], int)
    code, out, _ = run(capsys, "sessions", "--json")
    assert json.loads(out)[0]["id"] == "cli-a"


def test_import_and_export_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "chat.jsonl"
    lines = [
        {"role": "user", "content": "你好", "sendAt": 1_700_000_000},  # seconds
        {"role": "assistant", "content": "hi", "sender": "Bot"},
    ]
    source.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n\n", encoding="utf-8")
    code, out, _ = run(capsys, "import", "jsonl", str(source), "--session", "cli-imp")
    assert code == 0 and "imported 2 messages" in out
    code, out, _ = run(capsys, "import", "jsonl", str(source), "--session", "cli-imp")
    assert code == 0 and "imported 0 messages" in out and "2 already there" in out
    target = tmp_path / "out.jsonl"
    assert run(capsys, "export", "--session", "cli-imp", "--format", "jsonl", "-o", str(target))[0] == 0
    exported = [json.loads(x) for x in target.read_text(encoding="utf-8").splitlines()]
    assert exported == [
        {"role": "user", "content": "你好", "sendAt": 1_700_000_000 * 10**9},
        {"role": "assistant", "content": "hi", "sendAt": 1_700_000_000 * 10**9 + 1, "sender": "Bot"},
    ]
    code, out, _ = run(capsys, "export", "--session", "cli-imp", "--format", "markdown")
    assert code == 0 and "## assistant · Bot" in out and "你好" in out


@pytest.mark.parametrize(
    ("bad_line", "why"),
    [
        ("{not json", "not valid JSON"),
        ('{"role": "tool", "content": "x"}', "role must be"),
        ('{"role": "user", "content": 5}', "'content' must be text"),
        ("[1, 2]", "expected a JSON object"),
        ('{"role": "user", "content": "x", "sendAt": "soon"}', "sendAt must be a number"),
    ],
)
def test_a_bad_jsonl_line_is_named_and_nothing_is_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_line: str, why: str
) -> None:
    source = tmp_path / "chat.jsonl"
    source.write_text('{"role": "user", "content": "fine"}\n' + bad_line + "\n", encoding="utf-8")
    code, out, err = run(capsys, "import", "jsonl", str(source), "--session", "cli-x")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("memtray: line 2: ") and why in err
    code, out, err = run(capsys, "history", "--session", "cli-x")
    assert code == 1 and "no session 'cli-x'" in err


@pytest.mark.parametrize(
    "args",
    [
        ["history", "--session", "cli-missing"],
        ["append", "--session", "../up", "--role", "user", "--content", "x"],
        ["import", "jsonl", "/nonexistent/file.jsonl", "--session", "cli-a"],
        ["config", "no_such_key"],
        ["config", "max_history_messages", "-1"],
        ["search", "x", "--limit", "0", "--match", "keyword"],
        ["reset", "--session", "cli-missing"],
        ["export", "--session", "cli-missing", "--format", "jsonl"],
    ],
)
def test_user_mistakes_give_one_line_and_exit_1(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    code, out, err = run(capsys, *args)
    assert code == 1 and out == ""
    assert err.startswith("memtray: ") and err.count("\n") == 1 and "Traceback" not in err


def test_config_reads_and_sets(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "config", "summary_model")[1].strip() == "gemini-2.5-flash"
    assert run(capsys, "config", "gemini_base_url", "http://127.0.0.1:1")[0] == 0
    assert run(capsys, "config", "gemini_base_url")[1].strip() == "http://127.0.0.1:1"
    assert "max_history_messages = 16" in run(capsys, "config")[1]


def test_compact_reset_remove(capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "append", "--session", "cli-a", "--role", "user", "--content", "hello")
    assert "nothing to compact" in run(capsys, "compact", "--session", "cli-a")[1]
    assert "summary kept" in run(capsys, "reset", "--session", "cli-a")[1]
    assert "removed cli-a" in run(capsys, "remove", "--session", "cli-a")[1]
    assert run(capsys, "sessions")[1].strip() == "no sessions yet"


def test_the_installed_command_runs_without_a_display(tmp_path: Path) -> None:
    home = tmp_path / "h"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktop.launcher",
            "--home",
            str(home),
            "append",
            "--session",
            "cli-p",
            "--role",
            "user",
            "--content",
            "from a subprocess",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "desktop.launcher", "--home", str(home), "history", "--session", "cli-nope"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and done.stderr.strip() == "memtray: no session 'cli-nope'"

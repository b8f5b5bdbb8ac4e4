"""``memtray import`` and ``memtray export`` through the CLI: exit codes, output, nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Memory
from engine.cli import main
from tests.engine.exportdata import claude_conversation, claude_message, gpt_linear, write_json


def run(home: Path, *argv: str) -> int:
    return main(["--home", str(home), *argv])


@pytest.fixture
def chatgpt_file(tmp_path: Path) -> Path:
    return write_json(
        tmp_path / "conversations.json",
        [
            gpt_linear("c-1", ["我的電腦記憶體不足", "關掉分頁", "謝謝"]),
            gpt_linear("c-2", ["hello", "hi"]),
            "broken",
        ],
    )


def test_import_says_what_it_did_and_is_quiet_on_a_pipe(
    home: Path, chatgpt_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(home, "import", "chatgpt", str(chatgpt_file)) == 0
    out, err = capsys.readouterr()
    assert out == "imported 5 messages into 2 sessions; left out: 1 broken conversation\n"
    assert "importing" not in err  # stderr is not a terminal here

    assert run(home, "import", "chatgpt", str(chatgpt_file)) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("imported 0 messages into 2 sessions; 5 already there;")
    with Memory.open(home) as mem:
        assert [m.content for m in mem.history("gpt-c-1")] == ["我的電腦記憶體不足", "關掉分頁", "謝謝"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('[{"id": "c-1"', "not valid JSON (line 1"),
        ('{"conversations": []}', "expected a JSON list of conversations"),
    ],
)
def test_bad_file_is_one_stderr_line_and_nothing_is_written(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(content, encoding="utf-8")

    assert run(home, "import", "chatgpt", str(path)) == 1

    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("memtray: ") and expected in err
    assert not (home / "sessions").exists() or not any((home / "sessions").iterdir())


def test_broken_agenvoy_session_folder_imports_nothing(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "cli-abc"
    folder.mkdir()
    (folder / "history.json").write_text('[{"role": "user", "content": "a"}, oops]', encoding="utf-8")

    assert run(home, "import", "agenvoy", str(folder)) == 1
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and "history.json: not valid JSON (line 1" in err
    assert not (home / "sessions" / "cli-abc").exists()


def test_session_option_with_many_conversations_is_refused(
    home: Path, chatgpt_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(home, "import", "chatgpt", str(chatgpt_file), "--session", "cli-one") == 1
    _, err = capsys.readouterr()
    assert err.splitlines() == [
        "memtray: skipped conversation 3: expected an object, not str",
        "memtray: --session needs exactly one conversation to import; this has 2 "
        "(leave --session out to import one session per conversation)",
    ]
    assert not (home / "sessions" / "cli-one").exists()


def test_claude_import_through_the_cli(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_json(
        tmp_path / "conversations.json",
        [
            claude_conversation(
                "c-9",
                [
                    claude_message("human", "你好", "2024-05-01T04:34:56Z", files=[{"file_name": "a.pdf"}]),
                    claude_message("assistant", "哈囉", "2024-05-01T04:34:58Z"),
                ],
            )
        ],
    )
    assert run(home, "import", "claude", str(path)) == 0
    out, _ = capsys.readouterr()
    assert out == "imported 2 messages into 1 session; left out: 1 file (not imported)\n"


def test_import_help_lists_the_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--help"]) == 0  # main returns argparse's exit status instead of raising
    out, _ = capsys.readouterr()
    for name in ("agenvoy", "chatgpt", "claude", "claude-code", "codex", "jsonl"):
        assert f"  {name} " in out


def test_export_one_session_round_trips_through_jsonl(
    home: Path, tmp_path: Path, chatgpt_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(home, "import", "chatgpt", str(chatgpt_file)) == 0
    out_file = tmp_path / "gpt-c-1.jsonl"
    assert run(home, "export", "--session", "gpt-c-1", "--format", "jsonl", "-o", str(out_file)) == 0
    capsys.readouterr()

    records = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]
    assert [(r["role"], r["content"]) for r in records][:1] == [("user", "我的電腦記憶體不足")]
    other = tmp_path / "other-home"
    assert run(other, "import", "jsonl", str(out_file)) == 0
    with Memory.open(home) as a, Memory.open(other) as b:
        assert [(m.role, m.content, m.send_at) for m in a.iter_archive("gpt-c-1")] == [
            (m.role, m.content, m.send_at) for m in b.iter_archive("gpt-c-1")
        ]


@pytest.mark.parametrize(("fmt", "suffix"), [("jsonl", ".jsonl"), ("markdown", ".md")])
def test_export_all_writes_one_file_per_session(
    home: Path, tmp_path: Path, chatgpt_file: Path, capsys: pytest.CaptureFixture[str], fmt: str, suffix: str
) -> None:
    assert run(home, "import", "chatgpt", str(chatgpt_file)) == 0
    target = tmp_path / "out" / "all"

    assert run(home, "export", "--all", "--format", fmt, "-o", str(target)) == 0

    out, _ = capsys.readouterr()
    assert out.endswith(f"exported 2 session(s) to {target}\n")
    assert sorted(p.name for p in target.iterdir()) == [f"gpt-c-1{suffix}", f"gpt-c-2{suffix}"]
    text = (target / f"gpt-c-1{suffix}").read_text(encoding="utf-8")
    assert "關掉分頁" in text
    if fmt == "markdown":
        assert text.startswith("# gpt-c-1\n")


def test_export_all_needs_a_folder(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(home, "export", "--all", "--format", "jsonl") == 1
    assert "--all needs -o DIR" in capsys.readouterr().err
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert run(home, "export", "--all", "--format", "jsonl", "-o", str(a_file)) == 1
    assert "is not a folder" in capsys.readouterr().err


def test_export_needs_session_or_all(home: Path) -> None:
    assert run(home, "export", "--format", "jsonl") == 2
    assert run(home, "export", "--all", "--session", "x", "--format", "jsonl") == 2


def test_export_unknown_session_is_one_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(home, "export", "--session", "cli-none", "--format", "markdown") == 1
    _, err = capsys.readouterr()
    assert err == "memtray: no session 'cli-none'\n"

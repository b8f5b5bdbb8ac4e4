"""JSONL import (BOM, standard input, epoch units), the CLI's progress and report, the Markdown export."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from engine import Memory
from engine.cli import main
from engine.cli.commands_io import Progress
from engine.imported import ImportReport
from engine.importers import jsonl
from engine.messages import Message
from engine.sessions.export import markdown_lines
from tests.engine.exportdata import gpt_linear, write_json
from tests.engine.transcriptdata import (
    CC_SESSION,
    append_jsonl,
    cc_prompt,
    cc_reply,
    claude_code_lines,
    text,
    write_jsonl,
)

NS = 1_000_000_000


def run(home: Path, *argv: str) -> int:
    return main(["--home", str(home), *argv])


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"role": "user", "content": "hello"}\n{"role": "assistant", "content": "hi"}\n'
    )

    [session] = jsonl.read(path, None).sessions

    assert [m.content for m in session.messages] == ["hello", "hi"]


def test_standard_input(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = b'\xef\xbb\xbf{"role": "user", "content": "from a pipe", "sendAt": 1736600000}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    assert run(home, "import", "jsonl", "-", "--session", "cli-pipe") == 0

    out, _ = capsys.readouterr()
    assert out == "imported 1 message into 1 session; left out: nothing\n"
    with Memory.open(home) as mem:
        assert [(m.content, m.send_at) for m in mem.history("cli-pipe")] == [
            ("from a pipe", 1_736_600_000 * NS)
        ]


def test_standard_input_needs_a_session(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(home, "import", "jsonl", "-") == 1
    assert "standard input needs --session" in capsys.readouterr().err


def test_send_at_units_are_told_by_size_and_impossible_times_are_skipped(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        {"role": "user", "content": "seconds", "sendAt": 1_736_600_000},
        {"role": "assistant", "content": "seconds with a fraction", "sendAt": 1_736_600_000.25},
        {"role": "user", "content": "milliseconds", "sendAt": 1_736_600_001_000},
        {"role": "assistant", "content": "microseconds", "sendAt": 1_736_600_002_000_000},
        {"role": "user", "content": "nanoseconds", "sendAt": 1_736_600_003_000_000_000},
        {"role": "assistant", "content": "negative", "sendAt": -1},
        {"role": "user", "content": "1970", "sendAt": 5},
        {"role": "assistant", "content": "year 5000", "sendAt": 95_617_584_000_000_000_000},
    ]
    path = write_jsonl(tmp_path / "units.jsonl", records)

    assert run(home, "import", "jsonl", str(path)) == 0

    out, err = capsys.readouterr()
    assert out == (
        "imported 5 messages into 1 session; left out: 1 message with a negative time, "
        "1 message with a time after 2200, 1 message with a time before 1990\n"
    )
    assert "skipped line 6: sendAt -1" in err
    with Memory.open(home) as mem:
        assert [m.send_at for m in mem.history("units")] == [
            1_736_600_000 * NS,
            1_736_600_000 * NS + NS // 4,
            1_736_600_001 * NS,
            1_736_600_002 * NS,
            1_736_600_003 * NS,
        ]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_rewritten_in_place_on_a_terminal_only() -> None:
    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        progress = Progress(stream)
        progress.note("reading export.zip …")
        progress(1, 4)
        progress(4, 4)
        progress.close()

    assert pipe.getvalue() == ""
    shown = terminal.getvalue()
    assert "\n" not in shown
    assert shown.startswith("\rreading export.zip …")
    assert "\rimporting: 4/4 messages (100 %)" in shown and shown.endswith("\r\x1b[K")


def test_the_cli_shows_progress_on_a_terminal(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_json(tmp_path / "conversations.json", [gpt_linear("c-1", ["a", "b", "c"])])
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    assert run(home, "import", "chatgpt", str(path)) == 0

    assert "\rimporting: 3/3 messages (100 %)" in terminal.getvalue()
    assert capsys.readouterr().out == "imported 3 messages into 1 session; left out: nothing\n"


def test_report_words() -> None:
    report = ImportReport(2, 1, 3, {"thinking": 2, "tool call or result": 5}, unchanged=1)

    assert report.describe() == (
        "imported 1 message into 2 sessions; 3 already there; 1 transcript unchanged since the last import; "
        "left out: 5 tool call or result, 2 thinking"
    )


def test_claude_code_through_the_cli_is_incremental(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "projects" / "-home-u-app" / f"{CC_SESSION}.jsonl", claude_code_lines()[:6])

    assert run(home, "import", "claude-code", str(tmp_path / "projects")) == 0
    assert run(home, "import", "claude-code", str(tmp_path / "projects")) == 0
    append_jsonl(path, [cc_prompt(30, "one more thing"), cc_reply(31, [text("sure")])])
    assert run(home, "import", "claude-code", str(tmp_path / "projects")) == 0

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("imported 2 messages into 1 session; left out: ")
    assert lines[1].startswith(
        "imported 0 messages into 0 sessions; 1 transcript unchanged since the last import"
    )
    assert lines[2] == "imported 2 messages into 1 session; left out: nothing"
    assert (home / ".store" / "import-state.json").is_file()
    with Memory.open(home) as mem:
        assert [m.content for m in mem.history(f"cc-{CC_SESSION}")] == [
            "Add a retry to the fetch helper",
            "I added a retry with backoff.",
            "one more thing",
            "sure",
        ]


TRICKY = [
    "---",
    "# not a heading\n\n---\n\ntext under a rule",
    "```python\nprint('fenced')\n```",
    "````\nfour backticks\n````\nand ``` three",
    "    indented code\n\ttab",
    "trailing newline\n",
    "\n\nleading blank lines",
    "<details>html</details>\n***\n- list",
    "`inline` and ``double``",
]


def fenced_blocks(markdown: str) -> list[str]:
    """The text of each backtick-fenced block, as a CommonMark reader finds it."""
    blocks, lines, i = [], markdown.split("\n"), 0
    while i < len(lines):
        opening = re.fullmatch(r" {0,3}(`{3,})", lines[i])
        if opening is None:
            i += 1
            continue
        fence, body, i = opening.group(1), [], i + 1
        while i < len(lines) and not re.fullmatch(rf" {{0,3}}`{{{len(fence)},}}[ \t]*", lines[i]):
            body.append(lines[i])
            i += 1
        blocks.append("\n".join(body))
        i += 1
    return blocks


def test_markdown_export_fences_every_text_so_it_round_trips() -> None:
    messages = [
        Message("user" if i % 2 == 0 else "assistant", t, 1_736_600_000 * NS + i)
        for i, t in enumerate(TRICKY)
    ]

    markdown = "".join(markdown_lines("cli-x", messages))

    assert fenced_blocks(markdown) == TRICKY
    headings = [line for line in markdown.split("\n") if line.startswith("## ")]
    assert len(headings) == len(TRICKY)


def test_exported_jsonl_reimports_exactly(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_jsonl(
        tmp_path / "cli-rt.jsonl",
        [{"role": "user", "content": t, "sendAt": 1_736_600_000 + i} for i, t in enumerate(TRICKY)],
    )
    assert run(home, "import", "jsonl", str(source)) == 0
    out_file = tmp_path / "out.jsonl"
    assert run(home, "export", "--session", "cli-rt", "--format", "jsonl", "-o", str(out_file)) == 0
    capsys.readouterr()

    exported = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]

    assert [r["content"] for r in exported] == TRICKY
    assert [r["sendAt"] for r in exported] == [(1_736_600_000 + i) * NS for i in range(len(TRICKY))]

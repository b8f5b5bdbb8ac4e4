"""Output safe for a terminal: a real ``memtray`` process writing to a pty shows the escape sequences of
stored text instead of sending them; ``--json`` keeps the exact text (and sends no raw escape either)."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.cli.visible import json_text, visible
from tests.clirun import CLI, ROOT, run_cli

T0 = 1_700_000_000 * 1_000_000_000
HOSTILE = (
    "osc52 \x1b]52;c;ZXZpbA==\x07 link \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ "
    "clear \x1b[2J c1 \x9b31m bidi \u202eexe.txt cr\rover del\x7f"
)
SHOWN = (
    "osc52 ^[]52;c;ZXZpbA==^G link ^[]8;;https://evil.example/^[\\click^[]8;;^[\\ "
    "clear ^[[2J c1 \\x9b31m bidi \\u202eexe.txt cr^Mover del^?"
)
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)
RAW = (b"\x1b", b"\x07", "\x9b".encode(), "\u202e".encode(), b"\r" + b"over")


def in_a_pty(home: Path, *args: str) -> bytes:
    """What ``memtray --home HOME ARGS…`` writes to a terminal (stdout and stderr on one pty)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "--home", str(home), *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the process closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=120) == 0, b"".join(chunks)
    return b"".join(chunks).replace(b"\r\n", b"\n")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("terminal") / "home"
    with Memory.open(home, background=False) as mem:
        mem.append(
            "s", [Message("user", HOSTILE, T0, sender="Eve\x1b[8m"), Message("assistant", "fine", T0 + 1)]
        )
    return home


def test_visible_shows_every_unsafe_character_and_keeps_newline_and_tab() -> None:
    assert visible(HOSTILE) == SHOWN
    assert visible("a\tb\nc ok 繁體 👩‍👩‍👧") == "a\tb\nc ok 繁體 👩‍👩‍👧"  # a ZWJ emoji is no control
    assert visible("\u2028\ud800\x00") == "\\u2028\\ud800^@"


@pytest.mark.parametrize(
    "args",
    [
        ("history", "--session", "s"),
        ("search", "osc52"),
        ("sessions",),
        ("title", "--session", "s"),
        ("export", "--session", "s", "--format", "markdown"),
    ],
)
def test_human_output_on_a_terminal_shows_escapes_instead_of_sending_them(
    home: Path, args: tuple[str, ...]
) -> None:
    out = in_a_pty(home, *args)
    for raw in RAW:
        assert raw not in out, (args, raw, out)
    text = out.decode("utf-8")
    assert "^[]52;c;ZXZpbA==^G" in text, text  # a title shows the start of the first message
    if args[0] in ("history", "search", "export"):
        assert "^[[2J" in text and "\\x9b31m" in text and "\\u202eexe" in text, text
    if args[0] == "history":
        assert SHOWN in text and "Eve^[[8m" in text


@pytest.mark.parametrize("args", [("history", "--session", "s", "--json"), ("search", "osc52", "--json")])
def test_json_keeps_the_exact_text_without_raw_escapes(home: Path, args: tuple[str, ...]) -> None:
    done = run_cli(home, *args)
    assert done.returncode == 0, done.stderr
    assert not any(c in done.stdout for c in "\x1b\x07\x9b\u202e\r")
    found = json.loads(done.stdout)
    assert HOSTILE in [item["content"] for item in found]


def test_json_text_round_trips_every_character() -> None:
    value = {"t": HOSTILE + "\u2028\u2029\x85\ud800"}
    assert json.loads(json_text(value)) == value


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=()), max_size=200))
def test_no_text_sends_a_control_to_the_terminal_and_json_keeps_it_exact(text: str) -> None:
    shown = visible(text)
    assert not UNSAFE.search(shown)
    assert shown.count("\n") == text.count("\n")  # lines stay lines
    dumped = json_text({"t": text})
    assert not UNSAFE.search(dumped) and json.loads(dumped) == {"t": text}

"""``memtray append`` in a real process: one message-size bound (standard input read no further than it),
and ``--send-at`` read in seconds, ms, µs or ns as the JSONL import reads a time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.messages import MAX_CONTENT_CHARS
from tests.clirun import CLI, ROOT, run_cli

APPEND = ("append", "--session", "s", "--role", "user")


def _stored(home: Path) -> list[dict[str, object]]:
    done = run_cli(home, "history", "--session", "s", "--json")
    return json.loads(done.stdout) if done.returncode == 0 else []


def test_an_endless_standard_input_is_refused_in_words_after_a_bounded_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, "-c", CLI, "--home", str(home), *APPEND, "--content", "-"],
            cwd=ROOT,
            stdin=zero,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr == (
        "memtray: standard input is longer than a message may be (1,000,000 characters); nothing was stored\n"
    )
    assert _stored(home) == []


def test_the_bound_is_the_same_for_an_argument_and_standard_input(tmp_path: Path) -> None:
    home = tmp_path / "home"
    exact = "é" * MAX_CONTENT_CHARS  # two bytes each in UTF-8: a read bound in bytes must not cut it
    assert run_cli(home, *APPEND, "--content", "-", stdin=exact).returncode == 0
    over = run_cli(home, *APPEND, "--content", "-", stdin=exact + "x")
    assert over.returncode == 1
    assert "the message has 1,000,001 characters; a message may have at most 1,000,000" in over.stderr
    stored = _stored(home)
    assert [m["content"] for m in stored] == [exact]


def test_standard_input_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-c", CLI, "--home", str(home), *APPEND, "--content", "-"],
        cwd=ROOT,
        input=b"ok \xff\xfe",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 1 and b"not UTF-8 text (byte 3)" in done.stderr
    assert _stored(home) == []


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("1700000000", 1_700_000_000_000_000_000),
        ("1700000000123", 1_700_000_000_123_000_000),
        ("1700000000123456", 1_700_000_000_123_456_000),
        ("1700000000123456789", 1_700_000_000_123_456_789),
        ("1700000000.25", 1_700_000_000_250_000_000),
    ],
)
def test_send_at_in_any_unit_is_stored_as_the_jsonl_import_stores_it(
    tmp_path: Path, given: str, stored: int
) -> None:
    home = tmp_path / "home"
    done = run_cli(home, *APPEND, "--content", "hi", f"--send-at={given}", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sendAt"] == stored
    line = json.dumps({"role": "user", "content": "hi", "sendAt": json.loads(given)})
    (tmp_path / "same.jsonl").write_text(line + "\n", encoding="utf-8")
    imported = run_cli(tmp_path / "other", "import", "jsonl", str(tmp_path / "same.jsonl"), "--session", "s")
    assert imported.returncode == 0, imported.stderr
    assert [m["sendAt"] for m in _stored(tmp_path / "other")] == [stored]


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("100", "a time before 1990"),
        ("-5", "a negative time"),
        ("99999999999999999999", "a time after 2200"),
        ("nan", "a time that is not a number"),
        ("yesterday", "is not a Unix time"),
    ],
)
def test_a_send_at_no_message_can_have_is_refused(tmp_path: Path, given: str, why: str) -> None:
    home = tmp_path / "home"
    done = run_cli(home, *APPEND, "--content", "hi", f"--send-at={given}")
    assert done.returncode == 1 and why in done.stderr and "Traceback" not in done.stderr
    assert _stored(home) == []

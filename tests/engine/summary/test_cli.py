"""``memtray summarize`` and ``memtray daemon`` as the user runs them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Memory
from engine.cli import main
from tests.engine.summary.conftest import conversation, summary_json
from tests.fakegemini import FakeGemini


def test_summarize_without_a_key_is_one_line_and_nonzero(
    memory: Memory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    memory.append("s", conversation(2))
    home = str(memory.paths.home)
    assert main(["--home", home, "summarize"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "summarizer is off" in err
    assert main(["--home", home, "search", "m0", "--match", "keyword"]) == 0  # the rest still works


def test_summarize_one_session(
    memory: Memory, fake: FakeGemini, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    memory.update_settings(gemini_base_url=fake.url, decision_model="")
    memory.append("s", conversation(2))
    fake.reply_json(summary_json("cli"))
    assert main(["--home", str(memory.paths.home), "summarize", "--session", "s"]) == 0
    assert "1 chunks merged" in capsys.readouterr().out
    assert memory.summaries.load("s").current_discussion.topic == "cli"


def test_daemon_exits_cleanly_on_sigterm(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MEMTRAY_HOME": str(tmp_path / "home"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop.launcher", "daemon"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the start line: the daemon is in its loop
        assert first.startswith("memtray daemon:") and "next run at" in first
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


def test_cli_reset_brings_the_summary_up_to_date_first(
    fake: FakeGemini, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    assert main(["config", "gemini_base_url", fake.url]) == 0
    assert main(["config", "decision_model", ""]) == 0
    for role, text in (("user", "let's plan the trip"), ("assistant", "Kyoto in May")):
        assert main(["append", "--session", "cli-r", "--role", role, "--content", text]) == 0
    capsys.readouterr()
    fake.reply_error(400, "refused")  # not retried: one failed call
    assert main(["reset", "--session", "cli-r"]) == 1
    err = capsys.readouterr().err
    assert "nothing was reset" in err and err.count("\n") == 1
    assert main(["history", "--session", "cli-r", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2  # untouched
    assert fake.pending() == 0
    fake.reply_json(summary_json("trip"))
    assert main(["reset", "--session", "cli-r"]) == 0
    assert "summary kept" in capsys.readouterr().out
    summary = json.loads(
        (Path(os.environ["MEMTRAY_HOME"]) / "sessions/cli-r/summary.json").read_text("utf-8")
    )
    assert summary["current_discussion"]["topic"] == "trip"


def test_a_200_answer_that_is_not_json_is_one_line_in_words(
    memory: Memory, fake: FakeGemini, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    memory.update_settings(gemini_base_url=fake.url, decision_model="")
    memory.append("s", conversation(2))
    for _ in range(2):  # the summary model, then its fallback
        fake.reply_raw(b"<html><body>Please log in to the hotel wifi</body></html>")
    assert main(["--home", str(memory.paths.home), "summarize", "--session", "s"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Gemini reply" in err, err
    assert "internal error" not in err and "hotel wifi" not in err

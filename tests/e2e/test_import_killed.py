"""``memtray import claude-code`` killed with SIGKILL mid-import, transcripts growing in between: every
complete line ends up stored once, none twice, and a half-written last line only once it is complete."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import Memory
from tests.clirun import CLI, ROOT
from tests.engine.transcriptdata import append_jsonl, cc_prompt, cc_reply, text, write_jsonl

TRANSCRIPTS = 120
TURNS = 25  # 6,000 messages in two import batches (of at most 5,000): folders appear in two steps
KILL_AFTER_SESSIONS = (15, 60)


def transcript(n: int, turns: range) -> list[dict[str, object]]:
    session = f"kill-{n:04d}"
    lines: list[dict[str, object]] = []
    for t in turns:
        lines.append(cc_prompt(2 * t + 1, f"{session} prompt {t} " + "p" * 100, sessionId=session))
        lines.append(cc_reply(2 * t + 2, [text(f"{session} reply {t} " + "r" * 100)], sessionId=session))
    return lines


def start(home: Path, folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "--home", str(home), "import", "claude-code", str(folder)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_after(proc: subprocess.Popen[str], home: Path, sessions: int) -> None:
    """SIGKILL ``proc`` once ``sessions`` session folders exist (or when it is about to finish)."""
    deadline = time.monotonic() + 120
    folder = home / "sessions"
    while proc.poll() is None and time.monotonic() < deadline:
        if folder.is_dir() and sum(1 for _ in folder.iterdir()) >= sessions:
            break
        time.sleep(0.005)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_a_killed_import_stores_every_complete_line_once(tmp_path: Path) -> None:
    home, folder = tmp_path / "home", tmp_path / "projects" / "-home-u-app"
    files = [
        write_jsonl(folder / f"kill-{n:04d}.jsonl", transcript(n, range(TURNS))) for n in range(TRANSCRIPTS)
    ]
    expected = {n: TURNS for n in range(TRANSCRIPTS)}

    for round_no, sessions in enumerate(KILL_AFTER_SESSIONS):
        kill_after(start(home, folder.parent), home, sessions)
        if round_no == 0:  # killed mid-import: some sessions stored, the state never saved
            assert 0 < sum(1 for _ in (home / "sessions").iterdir()) < TRANSCRIPTS
            assert not (home / ".store" / "import-state.json").exists()
        for n in range(round_no, TRANSCRIPTS, 17):  # the agents go on writing between the imports
            append_jsonl(files[n], transcript(n, range(expected[n], expected[n] + 1)))
            expected[n] += 1
    growing = json.dumps(transcript(3, range(expected[3], expected[3] + 1))[0]) + "\n"
    with files[3].open("a", encoding="utf-8") as handle:
        handle.write(growing[:40])  # a line still being written

    finish(home, folder.parent)
    check(home, expected)

    with files[3].open("a", encoding="utf-8") as handle:
        handle.write(growing[40:])
    expected[3] += 1  # the prompt of the next turn, and nothing else, is new
    finish(home, folder.parent)
    check(home, expected, last_prompt_only=3)


def finish(home: Path, folder: Path) -> None:
    done = start(home, folder)
    _, err = done.communicate(timeout=300)
    assert done.returncode == 0, err
    assert "internal error" not in err


def check(home: Path, expected: dict[int, int], last_prompt_only: int | None = None) -> None:
    with Memory.open(home) as mem:
        for n, turns in expected.items():
            lines = transcript(n, range(turns))
            if n == last_prompt_only:
                lines = lines[:-1]  # the last turn has its prompt written, not yet its reply
            wanted = [content(line) for line in lines]
            stored = [m.content for m in mem.iter_archive(f"cc-kill-{n:04d}")]
            assert stored == wanted, f"kill-{n:04d}: {len(stored)} stored, {len(wanted)} written"


def content(line: dict[str, object]) -> str:
    message = line["message"]
    assert isinstance(message, dict)
    body = message["content"]
    return body if isinstance(body, str) else str(body[0]["text"])

"""Several memtray processes log to one file at once (the app, the CLI, the MCP server, a hook): every
line of each lands whole, none overwrites another's. On Windows the C runtime's append mode is a seek to
the end and then a write, which two processes can interleave; the log's handle may only append there."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from engine.logs import LOG_FILE
from tests.clirun import ROOT

WRITERS = 4
LINES = 2000
LOGGER = """
import logging, sys, time
from pathlib import Path
from engine.logs import configure
logs, me, lines = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
configure(logs, console_level=None)
log = logging.getLogger("memtray.test")
(logs.parent / f"ready-{me}").touch()
while not (logs.parent / "go").exists():  # all start writing together
    time.sleep(0.005)
for n in range(lines):
    log.info("writer %s line %d", me, n)
"""


def test_processes_logging_at_once_lose_no_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    writers = [
        subprocess.Popen([sys.executable, "-c", LOGGER, str(logs), str(w), str(LINES)], cwd=ROOT)
        for w in range(WRITERS)
    ]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ready-*"))) < WRITERS:
        assert time.monotonic() < deadline and all(w.poll() is None for w in writers)
        time.sleep(0.05)
    (tmp_path / "go").touch()
    assert [w.wait(timeout=120) for w in writers] == [0] * WRITERS
    lines = (logs / LOG_FILE).read_text(encoding="utf-8").splitlines()
    written = [line.split("memtray.test: ", 1)[1] for line in lines if "memtray.test: " in line]
    expected = {f"writer {w} line {n}" for w in range(WRITERS) for n in range(LINES)}
    assert len(written) == len(lines) == len(expected) and set(written) == expected

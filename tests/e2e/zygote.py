"""A fork server for the crash test: ``python -m tests.e2e.zygote``.

Starting a Python process with the engine imported takes about a second; forking one that already has it
takes milliseconds, so the crash test can kill hundreds of real writer processes in little time.

Reads one JSON job per line on stdin, forks a child that runs it, kills the child with SIGKILL after
``delay`` seconds if it is still running, and answers one JSON line ``{"killed": bool, "status": int}``.
Jobs (the child appends a line to the ``acks`` file after each acknowledged step):

- ``{"job": "append", "home", "session", "prefix", "count", "max_bytes", "acks", "delay"}``: appends
  ``count`` user/assistant pairs ``<prefix>-<n>-q`` / ``<prefix>-<n>-a``; ack line ``<n>``.
- ``{"job": "import", "home", "session", "path", "acks", "delay"}``: ``memtray import jsonl PATH`` through
  the CLI's ``main``; ack line ``done`` when it returned 0.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from typing import Any

from engine import Memory, Message
from engine.cli import main as cli_main


def _ack(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, f"{line}\n".encode())
    finally:
        os.close(fd)


def _child(job: dict[str, Any]) -> int:
    if job["job"] == "append":
        with Memory.open(job["home"], background=False) as mem:
            if mem.settings.max_history_bytes != job["max_bytes"]:
                mem.update_settings(max_history_bytes=job["max_bytes"])
            for n in range(job["count"]):
                now = mem.clock()
                mem.append(
                    job["session"],
                    [
                        Message("user", f"{job['prefix']}-{n}-q " + "x" * 300, now),
                        Message("assistant", f"{job['prefix']}-{n}-a " + "y" * 300, now + 1),
                    ],
                )
                _ack(job["acks"], str(n))
        return 0
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    code = cli_main(["--home", job["home"], "import", "jsonl", job["path"], "--session", job["session"]])
    if code == 0:
        _ack(job["acks"], "done")
    return code


def _run(job: dict[str, Any]) -> dict[str, Any]:
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = _child(job)
        finally:
            os._exit(code)
    deadline = time.monotonic() + job["delay"]
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return {"killed": False, "status": os.waitstatus_to_exitcode(status)}
        time.sleep(0.001)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return {"killed": os.waitstatus_to_exitcode(status) == -signal.SIGKILL, "status": 0}


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as warm,
        Memory.open(warm, background=False) as mem,
    ):  # import all a child needs
        mem.append("warm", [Message("user", "warm up", 1)])
        mem.search("warm", match="keyword")
    for line in sys.stdin:
        sys.stdout.write(json.dumps(_run(json.loads(line))) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

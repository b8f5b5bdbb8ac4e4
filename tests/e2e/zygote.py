"""A fork server for the crash tests: ``python -m tests.e2e.zygote``, driven through :class:`Zygote`.

Starting a Python process with the engine imported takes about a second; forking one that already has it
takes milliseconds, so the crash tests can kill hundreds of real writer processes in little time.

Reads one JSON job per line on stdin, forks a child that runs it, kills the child with SIGKILL after
``delay`` seconds if it is still running, and answers one JSON line ``{"killed": bool, "status": int,
"armed_s": float}``. The delay counts from the fork, or, when the job has ``after_lines``, from the moment
the file ``arm_file`` (default: the job's acks file) has that many lines (the acks of a child, or a log
another process writes), or, when the job has ``arm_glob``, from the moment a file matches that pattern
(e.g. a temporary file the child writes); ``armed_s`` is how long the child ran from then.
Jobs (the child appends a line to the ``acks`` file after each acknowledged step):

- ``{"job": "append", "home", "session", "prefix", "count", "max_bytes", "acks", "delay"}``: appends
  ``count`` user/assistant pairs ``<prefix>-<n>-q`` / ``<prefix>-<n>-a``; ack line ``<n>``.
- ``{"job": "import", "home", "session", "path", "acks", "delay"}``: ``memtray import jsonl PATH`` through
  the CLI's ``main``; ack line ``done`` when it returned 0. With ``"format": "chatgpt"`` (and no
  ``session``): ``memtray import chatgpt PATH``, every conversation its own session, ``batch_messages``
  (optional) messages per batch (``importing.BATCH_MESSAGES``, set in the child only).
- ``{"job": "rebuild", "home", "session", "probe", "probe_id", "prefix", "count", "size", "max_bytes",
  "exact_below", "acks", "delay"}``: opens the memory with the background embedder (as the app does) and
  Annoy used from ``exact_below`` archived vectors (``annoyindex.EXACT_BELOW``, set in the child only);
  searches the archive for ``probe`` (exit status 3 unless message ``probe_id`` comes first), then
  appends ``count`` pairs of ``size``-character messages that compact history.json, so the session's
  archive index is rebuilt (temp file + ``os.replace``); ack line ``<n>`` after each append, ``idle``
  once the embedding and the rebuild are done.
- ``{"job": "summarize", "home", "session", "acks", "delay"}``: ``memtray summarize --session SESSION``
  through the CLI's ``main`` (the real google-genai SDK; the key and the server come from the
  environment and the settings); ack line ``done`` when it returned 0.

The children inherit the server's environment (``MEMTRAY_EMBEDDER=hash`` and ``GEMINI_API_KEY`` from
the test).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import Memory, Message
from engine.cli import main as cli_main
from engine.semantic import annoyindex
from engine.sessions import importing

ROOT = Path(__file__).resolve().parents[2]


def _ack(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, f"{line}\n".encode())
    finally:
        os.close(fd)


def _append(job: dict[str, Any]) -> int:
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


def _rebuild(job: dict[str, Any]) -> int:
    annoyindex.EXACT_BELOW = job["exact_below"]
    with Memory.open(job["home"]) as mem:  # background embedding: compactions rebuild the index here
        if mem.settings.max_history_bytes != job["max_bytes"]:
            mem.update_settings(max_history_bytes=job["max_bytes"])
        # First a search of the archive (as `memtray search` does: once what is queued is embedded),
        # through whatever index file the last writer left.
        if not mem.wait_idle(timeout=120):
            return 75
        hits = mem.search(job["probe"], session=job["session"], match="semantic", scope="all", limit=1)
        if not hits or hits[0].message.id != job["probe_id"]:
            return 3
        for n in range(job["count"]):
            now = mem.clock()
            mem.append(
                job["session"],
                [
                    Message("user", f"{job['prefix']}-{n}-q ".ljust(job["size"], "x"), now),
                    Message("assistant", f"{job['prefix']}-{n}-a ".ljust(job["size"], "y"), now + 1),
                ],
            )
            _ack(job["acks"], str(n))
        if not mem.wait_idle(timeout=120):
            return 75
        _ack(job["acks"], "idle")
    return 0


def _cli(job: dict[str, Any], argv: list[str]) -> int:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    code = cli_main(["--home", job["home"], *argv])
    if code == 0:
        _ack(job["acks"], "done")
    return code


def _child(job: dict[str, Any]) -> int:
    kind = job["job"]
    if kind == "append":
        return _append(job)
    if kind == "rebuild":
        return _rebuild(job)
    if kind == "summarize":
        return _cli(job, ["summarize", "--session", job["session"]])
    if job.get("format", "jsonl") == "chatgpt":
        importing.BATCH_MESSAGES = job.get("batch_messages", importing.BATCH_MESSAGES)
        return _cli(job, ["import", "chatgpt", job["path"]])
    return _cli(job, ["import", "jsonl", job["path"], "--session", job["session"]])


def _lines(path: str) -> int:
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except FileNotFoundError:
        return 0


def _matches(pattern: str) -> bool:
    """Whether a file matches ``pattern`` (a folder and a glob of names in it)."""
    where = Path(pattern)
    return any(where.parent.glob(where.name))


def _run(job: dict[str, Any]) -> dict[str, Any]:
    """Fork a child for ``job``; kill it ``delay`` seconds after the fork, or, when the job has
    ``after_lines``, after the file ``arm_file`` (default: the acks file) has that many lines, or with
    ``arm_glob``, after a file matches that pattern.
    ``armed_s``: how long the child ran from then."""
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = _child(job)
        finally:
            os._exit(code)
    wait_for = job.get("after_lines", 0)
    arm_file = job.get("arm_file", job["acks"])
    arm_glob = job.get("arm_glob")
    armed = time.monotonic() if not wait_for and not arm_glob else None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        now = time.monotonic()
        if done:
            since = None if armed is None else now - armed
            return {"killed": False, "status": os.waitstatus_to_exitcode(status), "armed_s": since}
        if armed is None and (_matches(arm_glob) if arm_glob else _lines(arm_file) >= wait_for):
            armed = now
        if armed is not None and now - armed >= job["delay"]:
            break
        time.sleep(0.001)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return {"killed": code == -signal.SIGKILL, "status": 0 if code < 0 else code, "armed_s": now - armed}


def _warm_up(home: str) -> None:
    """Import and prime what a child needs, once: an append, a search, and a summary run against a
    throwaway fake Gemini (the SDK's client and pydantic schemas are built lazily, ~0.3 s the first time)."""
    from engine.llm.keys import Keys
    from tests.fakegemini import FakeGemini

    keys = Keys()
    keys.use_for_this_run("warm-up")
    with FakeGemini() as fake, Memory.open(home, keys=keys, background=False) as mem:
        mem.update_settings(gemini_base_url=fake.url)
        mem.append("warm", [Message("user", "warm up", 10**18), Message("assistant", "warm", 10**18 + 1)])
        mem.search("warm", match="keyword")
        fake.reply_json({"noise": [], "superseded": {"key_decisions": [], "past_discussions": []}})
        fake.reply_json(
            {
                "key_decisions": [],
                "past_discussions": [],
                "current_discussion": {
                    "topic": "t",
                    "description": "d",
                    "perspectives": "p",
                    "direction": "x",
                },
            }
        )
        mem.summaries.generate("warm")


def main() -> None:
    import annoy  # noqa: F401  (what a rebuild needs, imported once here)

    from engine.importers import chatgpt  # noqa: F401  (the reader a ChatGPT import loads when asked)

    with tempfile.TemporaryDirectory() as warm:
        _warm_up(warm)
    for line in sys.stdin:
        sys.stdout.write(json.dumps(_run(json.loads(line))) + "\n")
        sys.stdout.flush()


class Zygote:
    """The fork server in a subprocess (the test's side); its stderr goes to ``log``."""

    def __init__(self, log: Path) -> None:
        with log.open("w") as stderr:  # the writers' warnings ("replaying 2 archived messages ...")
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.e2e.zygote"],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )

    def run(self, **job: Any) -> dict[str, Any]:
        """Run one job (see the module docstring); ``{"killed": bool, "status": int, "seconds": float}``
        (``seconds``: how long the job took, seen from here, to calibrate kill delays)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        started = time.monotonic()
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        assert answer, "the fork server died"
        result: dict[str, Any] = json.loads(answer)
        result["seconds"] = time.monotonic() - started
        return result

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


if __name__ == "__main__":
    main()

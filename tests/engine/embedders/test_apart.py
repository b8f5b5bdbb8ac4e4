"""A worker process of :mod:`engine.embedders.apart` ends when the process that started it ends, however
that ends: at once (``os._exit``, as the app's quit does while a model builds) or killed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

PARENT = """
import os, sys, time
from engine.embedders import apart
workers = apart.pool()
print(workers.submit(os.getpid).result(), flush=True)
workers.submit(time.sleep, 120)
time.sleep(0.5)  # the task has reached the worker
print("busy", flush=True)
sys.stdin.readline()  # the test has seen the worker running
if sys.argv[1] == "exit":
    os._exit(0)
time.sleep(120)
"""


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie nobody has reaped yet counts as ended)."""
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        try:
            kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        finally:
            kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_a_worker_ends_with_its_parent(how: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, how],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdin is not None and parent.stdout is not None
    worker = int(parent.stdout.readline())
    assert parent.stdout.readline().strip() == "busy"
    assert running(worker)
    if how == "kill":
        parent.kill()
    else:
        parent.stdin.write("go\n")
        parent.stdin.flush()
    parent.wait(timeout=60)
    deadline = time.monotonic() + 30
    while running(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = running(worker)
    if alive:
        os.kill(worker, 9)
    assert not alive, f"the worker outlived its parent ({how})"

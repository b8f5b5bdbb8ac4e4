"""An Xvfb display with a trayer system tray, for the tray tests and the benchmark."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

NEEDED = ("Xvfb", "trayer", "xdotool")


def missing() -> list[str]:
    return [b for b in NEEDED if shutil.which(b) is None]


def _wait_for_trayer(trayer: subprocess.Popen[bytes], env: dict[str, str], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while subprocess.run(
        ["xdotool", "search", "--classname", "trayer"], env=env, capture_output=True
    ).returncode:
        if time.monotonic() > deadline or trayer.poll() is not None:
            return False
    return True


@contextmanager
def xvfb_with_tray(timeout: float = 15.0) -> Iterator[dict[str, str]]:
    """Start ``Xvfb`` (a free display number) and ``trayer``; yield an environment that uses them."""
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    trayer = None
    try:
        with os.fdopen(read_fd) as pipe:
            display = ":" + pipe.readline().strip()  # Xvfb writes the number once it accepts clients
        env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
        trayer = None
        for _attempt in range(3):  # trayer now and then exits at once on a fresh display; start it again
            trayer = subprocess.Popen(
                [
                    "trayer",
                    "--edge",
                    "top",
                    "--align",
                    "right",
                    "--widthtype",
                    "pixel",
                    "--width",
                    "200",
                    "--height",
                    "32",
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            if _wait_for_trayer(trayer, env, timeout):
                break
            trayer.kill()
            trayer.wait()
        else:
            raise RuntimeError(
                f"trayer did not start: {trayer.stderr.read().decode() if trayer and trayer.stderr else ''}"
            )
        yield env
    finally:
        for proc in (trayer, xvfb):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()

"""A test helper: faults of the environment made real — a small full disk, a read-only home.

``small_disk(folder, "4m")`` mounts a tmpfs of that size on ``folder`` (root only; the test is skipped
elsewhere). ``read_only(folder)`` makes a folder read-only for the block: as root (which ignores file
modes), a read-only bind mount of it on itself; as another user, its modes without write bits. Both
undo themselves; ``fill(disk)`` uses up a disk's last free byte.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _run(*command: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(list(command), capture_output=True)
    except FileNotFoundError:
        pytest.skip(f"no {command[0]} command here")


@contextlib.contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Path]:
    folder.mkdir()
    done = _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(folder))
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(disk: Path) -> Path:
    """Write a file that takes all the free space of ``disk``; return it (delete it to free the space)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (1 << 16, 512, 1):  # big blocks, then the last bytes
            block = b"\0" * size
            try:
                while handle.write(block):
                    pass
            except OSError:
                continue
    return filler


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[str]:
    """Make ``folder`` read-only for the block; yields how: ``"mount"`` (root) or ``"modes"``."""
    if os.geteuid() == 0:
        done = _run("mount", "--bind", str(folder), str(folder))
        if done.returncode != 0:
            pytest.skip(f"cannot bind-mount here: {done.stderr.decode(errors='replace').strip()}")
        remount = _run("mount", "-o", "remount,bind,ro", str(folder))
        if remount.returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], check=False)
            pytest.skip(f"cannot remount read-only here: {remount.stderr.decode(errors='replace').strip()}")
        try:
            yield "mount"
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=False)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")] if not p.is_symlink()}
    for path, mode in modes.items():
        os.chmod(path, stat.S_IMODE(mode) & ~0o222)
    try:
        yield "modes"
    finally:
        for path, mode in modes.items():
            os.chmod(path, stat.S_IMODE(mode))

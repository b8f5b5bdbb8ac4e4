"""Where the Wine prefix and its Windows CPython live, and how to run that ``python.exe`` from Linux.

Everything is outside the repository, under ``$MEMTRAY_WINE_HOME`` (default ``~/.cache/memtray-wine``):
``prefix/`` is the Wine prefix (``C:\\Python313`` holds the Windows CPython), ``downloads/`` keeps the
CPython package and the wheels between runs. Wine runs with ``WINEDEBUG=-all`` (an unimplemented Windows
function is still reported on stderr) and without the Mono and Gecko installers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import IO

PYTHON_DIR = "Python313"
DRAIN_SECONDS = 5.0
"""How long :meth:`WinePython.relay` copies output after the program ended (its pipes may stay open)."""


def wine_binary() -> str | None:
    """The 64-bit Wine loader: ``wine64`` or ``wine`` on PATH, or Debian's ``/usr/lib/wine/wine64``."""
    for name in ("wine64", "wine"):
        found = shutil.which(name)
        if found:
            return found
    debian = Path("/usr/lib/wine/wine64")
    return str(debian) if debian.is_file() else None


@dataclass(frozen=True)
class WinePython:
    """The Wine prefix under ``root`` and the Windows CPython installed in it."""

    root: Path

    @classmethod
    def default(cls) -> WinePython:
        root = os.environ.get("MEMTRAY_WINE_HOME") or str(Path.home() / ".cache" / "memtray-wine")
        return cls(Path(root))

    @property
    def prefix(self) -> Path:
        return self.root / "prefix"

    @property
    def downloads(self) -> Path:
        return self.root / "downloads"

    @property
    def python_dir(self) -> Path:
        """The Windows CPython's folder, seen from Linux."""
        return self.prefix / "drive_c" / PYTHON_DIR

    @property
    def site_packages(self) -> Path:
        return self.python_dir / "Lib" / "site-packages"

    @property
    def python_exe(self) -> str:
        """The Windows CPython, as Windows names it."""
        return f"C:\\{PYTHON_DIR}\\python.exe"

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            WINEPREFIX=str(self.prefix),
            WINEDEBUG=env.get("MEMTRAY_WINEDEBUG", "-all"),
            WINEDLLOVERRIDES="mscoree,mshtml=",
            WINEARCH="win64",
        )
        # Linux Python settings must not leak into the Windows one.
        for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
            env.pop(name, None)
        env.update(extra or {})
        return env

    def command(self, *args: str) -> list[str]:
        wine = wine_binary()
        if wine is None:
            raise SystemExit("wine is missing: apt-get install wine64")
        return [wine, self.python_exe, *args]

    def run(self, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        """``python.exe ARGS`` under Wine, its output captured (see :meth:`relay` for why); stdin is
        /dev/null unless given (a Windows Python needs one)."""
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("env", self.env())
        return subprocess.run(self.command(*args), text=True, **kwargs)  # type: ignore[call-overload, no-any-return]

    def relay(self, *args: str, cwd: Path | None = None) -> int:
        """``python.exe ARGS`` with its output copied to ours as it comes; its exit status.

        Wine 8.0 hands a Windows program an invalid handle for a stdout or stderr that is a regular file
        (``init_sys_streams: [WinError 6]``), so the program always writes into pipes, copied here.
        The end of the program, not of its pipes, ends this: a Windows process it started may keep them
        open (Wine's ``explorer.exe /desktop`` stays while another program uses the prefix, e.g. the
        Windows suite beside the build), so what is left is copied for a moment and the pipes are left.
        """
        process = subprocess.Popen(
            self.command(*args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env(),
            cwd=cwd,
        )
        assert process.stdout is not None and process.stderr is not None
        copiers = [
            threading.Thread(target=_copy, args=(process.stdout, sys.stdout.buffer), daemon=True),
            threading.Thread(target=_copy, args=(process.stderr, sys.stderr.buffer), daemon=True),
        ]
        for copier in copiers:
            copier.start()
        status = process.wait()
        for copier in copiers:
            copier.join(timeout=DRAIN_SECONDS)
        return status


def _copy(source: IO[bytes], sink: IO[bytes]) -> None:
    for chunk in iter(lambda: source.read1(65536), b""):  # type: ignore[attr-defined]
        sink.write(chunk)
        sink.flush()


def windows_path(path: Path) -> str:
    """A Linux path as Wine's Windows programs see it (the Z: drive maps /), or C: inside the prefix."""
    return str(PureWindowsPath("Z:\\", *path.resolve().parts[1:]))

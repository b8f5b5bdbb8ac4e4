"""Logging set-up: a rotating file under ``<home>/logs`` and, optionally, the console; the secrets in use.

Message text, API keys and tokens are never logged above DEBUG; modules log through named loggers
(``memtray.<part>``) and never print.

The secrets in use (the Gemini key, whatever its shape) are registered here when they are handed out
(:func:`register_secret`, called by :class:`engine.llm.keys.Keys`). Every memtray log handler has a
:class:`SecretFilter` that replaces them in each line and traceback, :func:`hide_secrets` does the same
for any text (the CLI's error line), and :func:`engine.llm.redact.redact` applies it before its patterns.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.paths import LOG_FILE, make_private_dir

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"

SECRET_MARK = "[REDACTED:key_in_use]"
MIN_SECRET = 8
"""Shorter values are not registered: replacing them would garble ordinary text (no real key is this short)."""

_secrets: frozenset[str] = frozenset()
_secrets_guard = threading.Lock()


def register_secret(value: str | None) -> None:
    """Remember a secret in use for this process (a key handed out or set), to hide wherever it appears."""
    global _secrets
    value = (value or "").strip()
    if len(value) < MIN_SECRET or value in _secrets:
        return
    with _secrets_guard:
        _secrets = _secrets | {value}


def hide_secrets(text: str) -> str:
    """``text`` with every registered secret replaced by :data:`SECRET_MARK`."""
    current = _secrets
    if not current or not text:
        return text
    for secret in sorted(current, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, SECRET_MARK)
    return text


class SecretFilter(logging.Filter):
    """Replaces the registered secrets in a record's message and traceback (it never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _secrets:
            return True
        message = record.getMessage()
        hidden = hide_secrets(message)
        if hidden != message:
            record.msg, record.args = hidden, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = hide_secrets(record.exc_text)
        if record.stack_info:
            record.stack_info = hide_secrets(record.stack_info)
        return True


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files are owner-only (0600), whatever the umask."""

    def _open(self) -> Any:
        # A log file that is a symbolic link is refused (ELOOP, an OSError: the log goes to the console):
        # following it would make memtray write to, and change the mode of, a file it does not own.
        fd = os.open(
            self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
        if os.name == "posix":
            os.fchmod(fd, 0o600)
        return os.fdopen(fd, self.mode, encoding=self.encoding, errors=self.errors)

    def handleError(self, record: logging.LogRecord) -> None:
        """A log line that cannot be written (a full disk) is dropped, not printed as a traceback."""

    if sys.platform == "win32":

        def emit(self, record: logging.LogRecord) -> None:
            """Each line written under a lock all memtray processes take (see :func:`_one_writer`)."""
            if self.stream is None:
                super().emit(record)
                return
            try:
                with _one_writer(self.stream.fileno()):
                    super().emit(record)
            except OSError:
                self.handleError(record)


if sys.platform == "win32":
    import ctypes
    import msvcrt
    from ctypes import wintypes

    class _Overlapped(ctypes.Structure):
        _fields_ = (
            ("internal", ctypes.c_void_p),
            ("internal_high", ctypes.c_void_p),
            ("offset", wintypes.DWORD),
            ("offset_high", wintypes.DWORD),
            ("event", wintypes.HANDLE),
        )

    _kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    _LOCKFILE_EXCLUSIVE_LOCK = 0x2
    _LOCKED_BYTE_HIGH = 0x4000_0000
    """The byte locked: at 2**62, far past a log's end, so no reader of the log ever meets the lock."""

    @contextmanager
    def _one_writer(fd: int) -> Iterator[None]:
        """Hold the log's writer lock (a byte range lock, waited for) around one line's write.

        The C runtime's append mode is a seek to the end and a write, which two processes logging at once
        (the app, the CLI, the MCP server, a hook) interleave: a line overwrites another or is garbled.
        Under the lock the seek and the write are one step. Closing the file releases it too."""
        handle = msvcrt.get_osfhandle(fd)
        where = _Overlapped(0, 0, 0, _LOCKED_BYTE_HIGH, None)
        if not _kernel32.LockFileEx(handle, _LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ctypes.byref(where)):
            raise ctypes.WinError(ctypes.get_last_error())
        try:
            yield
        finally:
            _kernel32.UnlockFileEx(handle, 0, 1, 0, ctypes.byref(where))


def configure(
    logs_dir: Path, *, console_level: int | None = logging.WARNING, file_level: int = logging.INFO
) -> None:
    """Send ``memtray.*`` logs to ``logs_dir/memtray.log`` (rotating, 1 MiB x 5) and to stderr."""
    root = logging.getLogger("memtray")
    root.setLevel(logging.DEBUG)
    for handler in list(root.handlers):
        if getattr(handler, "_memtray", False):
            root.removeHandler(handler)
            handler.close()
    try:
        make_private_dir(logs_dir)
        file_handler: logging.Handler = PrivateRotatingFileHandler(
            logs_dir / LOG_FILE, maxBytes=1024 * 1024, backupCount=5, encoding="utf-8"
        )
        file_handler.setLevel(file_level)
        file_handler.setFormatter(logging.Formatter(FORMAT))
        file_handler.addFilter(SecretFilter())
        file_handler._memtray = True  # type: ignore[attr-defined]
        root.addHandler(file_handler)
    except OSError as exc:
        unwritable: OSError | None = exc
    else:
        unwritable = None
    if console_level is not None:
        console = logging.StreamHandler()
        console.setLevel(console_level)
        console.setFormatter(logging.Formatter("memtray: %(message)s"))
        console.addFilter(SecretFilter())
        console._memtray = True  # type: ignore[attr-defined]
        root.addHandler(console)
    root.propagate = False
    if unwritable is not None:
        # INFO: a folder memtray cannot write fails the command itself, in one line that says what to do.
        logging.getLogger("memtray.logs").info(
            "cannot write the log file in %s: %s", logs_dir, unwritable.strerror or unwritable
        )

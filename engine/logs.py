"""Logging set-up: a rotating file under ``<home>/logs`` and, optionally, the console.

Message text, API keys and tokens are never logged above DEBUG; modules log through named loggers
(``memtray.<part>``) and never print.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path
from typing import Any

from engine.paths import make_private_dir

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose files are owner-only (0600), whatever the umask."""

    def _open(self) -> Any:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        if os.name == "posix":
            os.fchmod(fd, 0o600)
        return os.fdopen(fd, self.mode, encoding=self.encoding, errors=self.errors)

    def handleError(self, record: logging.LogRecord) -> None:
        """A log line that cannot be written (a full disk) is dropped, not printed as a traceback."""


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
            logs_dir / "memtray.log", maxBytes=1024 * 1024, backupCount=5, encoding="utf-8"
        )
        file_handler.setLevel(file_level)
        file_handler.setFormatter(logging.Formatter(FORMAT))
        file_handler._memtray = True  # type: ignore[attr-defined]
        root.addHandler(file_handler)
    except OSError as exc:
        logging.getLogger("memtray.logs").warning("cannot write the log file in %s: %s", logs_dir, exc)
    if console_level is not None:
        console = logging.StreamHandler()
        console.setLevel(console_level)
        console.setFormatter(logging.Formatter("memtray: %(message)s"))
        console._memtray = True  # type: ignore[attr-defined]
        root.addHandler(console)
    root.propagate = False

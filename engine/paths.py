"""Where memtray keeps its data, resolved in one place.

The home folder is ``platformdirs.user_data_path("memtray")`` unless ``MEMTRAY_HOME`` (or ``--home``) says
otherwise. Everything memtray writes lives below it, created owner-only (0700)::

    <home>/sessions/<id>/history.json, summary.json, .summary_cursor
    <home>/.store/history.db          the one SQLite database
    <home>/.store/integrity-checked   when the database's full check last ran (Unix ns)
    <home>/.store/vectors/            Annoy files (caches, rebuilt from the database)
    <home>/.store/locks/              cross-process lock files, one per session
    <home>/logs/memtray.log           the rotating log

Session ids are checked here too: an id that could escape the sessions folder is refused.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from engine.errors import InvalidSessionId

LOG_FILE = "memtray.log"
"""The log's file name in ``logs_dir``."""

HOME_ENV = "MEMTRAY_HOME"
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # fullmatch: "$" would accept a final newline
# Names Windows reserves for devices, with or without an extension (``con``, ``NUL.txt``, ``com1``).
_WINDOWS_DEVICE = re.compile(r"^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?$", re.IGNORECASE)


def platform_home() -> Path:
    """The platform's user data folder for memtray (the home when nothing says otherwise)."""
    return platformdirs.user_data_path("memtray", appauthor=False)


def default_home() -> Path:
    """The home folder: ``MEMTRAY_HOME`` if set, else the platform's user data folder."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    return platform_home()


def validate_session_id(session_id: str) -> str:
    """Return ``session_id`` unchanged if it is safe to use as a folder name.

    Raises:
        InvalidSessionId: for an empty id, one longer than 128 characters, or one with characters other
            than letters, digits, ``.``, ``_`` and ``-`` (so no ``/``, ``\\``, ``:``, NUL or ``..``); also
            a name Windows reserves for a device (``con``, ``nul.txt``) or one ending in ``.``, which
            Windows would silently change.
    """
    if (
        not isinstance(session_id, str)
        or not _SESSION_ID.fullmatch(session_id)
        or ".." in session_id
        or session_id.endswith(".")
        or _WINDOWS_DEVICE.match(session_id)
    ):
        shown = repr(session_id)[:80]
        raise InvalidSessionId(
            f"invalid session id {shown}: use 1-128 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit"
        )
    return session_id


def make_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) if needed, owner-only, and return it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name == "posix" and path.stat().st_mode & 0o777 != 0o700:  # unchanged: a read-only home opens
        os.chmod(path, 0o700)
    return path


@dataclass(frozen=True)
class Paths:
    """All locations under one home folder."""

    home: Path

    @classmethod
    def resolve(cls, home: Path | str | None = None) -> Paths:
        """Resolve the home (argument, then ``MEMTRAY_HOME``, then the default) and create it 0700."""
        root = Path(home).expanduser() if home is not None else default_home()
        paths = cls(root.resolve())
        for folder in (paths.home, paths.sessions_dir, paths.store_dir, paths.locks_dir):
            make_private_dir(folder)
        return paths

    @property
    def sessions_dir(self) -> Path:
        return self.home / "sessions"

    @property
    def store_dir(self) -> Path:
        return self.home / ".store"

    @property
    def database(self) -> Path:
        return self.store_dir / "history.db"

    @property
    def integrity_stamp(self) -> Path:
        return self.store_dir / "integrity-checked"

    @property
    def vectors_dir(self) -> Path:
        return self.store_dir / "vectors"

    @property
    def locks_dir(self) -> Path:
        return self.store_dir / "locks"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"

    @property
    def log_file(self) -> Path:
        """The rotating log (:func:`engine.logs.configure` writes it; older ones end ``.1`` … ``.5``)."""
        return self.logs_dir / LOG_FILE

    def session_dir(self, session_id: str) -> Path:
        return self.sessions_dir / validate_session_id(session_id)

    def history_file(self, session_id: str) -> Path:
        return self.session_dir(session_id) / "history.json"

    def summary_file(self, session_id: str) -> Path:
        return self.session_dir(session_id) / "summary.json"

    def cursor_file(self, session_id: str) -> Path:
        return self.session_dir(session_id) / ".summary_cursor"

"""Agents' transcripts imported as they grow: what Claude Code and Codex appended since the last look.

:func:`import_transcripts` is one incremental import of a transcript file or folder: the reader takes up
each file where ``<home>/.store/import-state.json`` says the last import stopped, the new messages are
stored, and only then is the state written (a crash in between reads those lines again, and the archive's
duplicate check adds nothing twice). ``memtray import claude-code|codex`` and the desktop app's import
dialog run it once; :func:`import_agent_folders` runs it over the folders the ``agent_folders`` setting
names (or, when that is empty, the agents' own folders that exist: :func:`agent_folders`), which is what
the desktop app does every minute or so while ``watch_agent_folders`` is on.

Another process importing the same transcripts at the same time (an agent's hook running ``memtray
import claude-code|codex --hook``) is harmless: the same lines may be read twice, and the duplicate check
keeps one copy.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from engine.errors import ImportFormatError, InvalidInput
from engine.imported import ImportedSession, ImportReport
from engine.importers import readers, reasons
from engine.importers.detect import sniff
from engine.importers.formats import FOLDERS, INCREMENTAL
from engine.importers.importstate import ImportState
from engine.paths import Paths
from engine.settings import Settings

log = logging.getLogger("memtray.import")

AGENT_FOLDERS = tuple((fmt, FOLDERS[fmt]) for fmt in INCREMENTAL)
"""The agents' own transcript folders, and the format of each."""

Progress = Callable[[int, int], None]


class Archive(Protocol):
    """What an import stores into: a :class:`~engine.memory.Memory`."""

    paths: Paths

    def import_sessions(
        self, imported: Sequence[ImportedSession], progress: Progress | None = None
    ) -> ImportReport: ...


def import_transcripts(
    mem: Archive, fmt: str, path: Path, session: str | None = None, progress: Progress | None = None
) -> ImportReport:
    """Import what was appended to the ``fmt`` transcripts at ``path`` since the last import.

    Raises:
        InvalidInput: ``fmt`` is not a transcript format, or the path does not exist.
        ImportFormatError: the path holds no transcript of that kind.
    """
    if fmt not in INCREMENTAL:
        raise InvalidInput(f"{fmt} is not an agent's transcript format ({', '.join(INCREMENTAL)})")
    state = ImportState.for_store(mem.paths.store_dir)
    result = readers(state)[fmt](path, session)
    report = mem.import_sessions(result.sessions, progress).with_read(result)
    state.save()  # only now: a crash before this reads the same lines again, adding nothing
    return report


def agent_folders(settings: Settings, home: Path | None = None) -> list[Path]:
    """The folders to watch: the setting's, or the agents' own folders that exist (``~`` is ``home``)."""
    if settings.agent_folders:
        return [_expand(folder, home) for folder in settings.agent_folders]
    return [path for _fmt, folder in AGENT_FOLDERS if (path := _expand(folder, home)).is_dir()]


def format_of(folder: Path) -> str | None:
    """``claude-code`` or ``codex`` for a folder of transcripts (the agents' own folders by their place,
    any other by a look at its files), or None."""
    parts = folder.expanduser().absolute().parts
    for fmt, usual in AGENT_FOLDERS:
        hidden = Path(usual).parts[1]  # .claude, .codex
        if hidden in parts:
            return fmt
    found = sniff(folder)
    return found if found in INCREMENTAL else None


def import_agent_folders(
    mem: Archive, folders: Sequence[Path], progress: Progress | None = None
) -> ImportReport:
    """Import the new turns of every transcript in ``folders``; one report for all of them.

    A folder that does not exist or holds no agent's transcripts is counted in the report's ``skipped``
    and the others are imported.
    """
    report = ImportReport(0, 0, 0, {})
    for folder in folders:
        folder = folder.expanduser()
        if not folder.is_dir():
            report = report.with_skipped({reasons.WATCHED_FOLDER_MISSING: 1})
            continue
        fmt = format_of(folder)
        if fmt is None:
            report = report.with_skipped({reasons.WATCHED_FOLDER_EMPTY: 1})
            continue
        try:
            part = import_transcripts(mem, fmt, folder, progress=progress)
        except ImportFormatError as exc:
            log.info("nothing to import from %s: %s", folder, exc)
            report = report.with_skipped({reasons.WATCHED_FOLDER_EMPTY: 1})
            continue
        if part.messages_added:
            log.info("imported %d new messages from %s (%s)", part.messages_added, folder, fmt)
        report = report.plus(part)
    return report


def _expand(folder: str, home: Path | None) -> Path:
    if home is not None and (folder == "~" or folder.startswith("~/")):
        return home / folder[2:]
    return Path(folder).expanduser()

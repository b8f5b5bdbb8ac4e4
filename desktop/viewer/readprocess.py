"""Reading a big export in a worker process, so that parsing it never freezes the window.

``json.loads`` of a 100 MB ChatGPT export is one C call that holds the interpreter lock for seconds: on the
store worker it would stop the GUI thread as long. :func:`read_export` runs the format's reader
(:func:`engine.importers.readers`) in a child process instead (``spawn``: nothing of the app is copied
into it) and takes its answer back in small pieces (a session's messages at most :data:`PIECE` at a time),
each unpickled quickly, so the GUI thread runs between them. Files smaller than :data:`PROCESS_FROM_BYTES`
are read on the calling thread (starting a process costs more than they take). A cancelled read kills the
child. The reader's errors come back as they were raised (an :class:`~engine.errors.ImportFormatError`
stays one), or, when one cannot be pickled, as an ``ImportFormatError`` with its words.
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import pickle
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from desktop.tasks import CancelToken
from engine.errors import ImportFormatError
from engine.importers import ImportedSession, ReadResult, readers

log = logging.getLogger("memtray.desktop.viewer.importing")

PROCESS_FROM_BYTES = 8 * 1024 * 1024
"""Exports at least this big are parsed in a worker process."""
PIECE = 2000
"""Messages sent back at a time."""
POLL_S = 0.1


def _size(path: Path) -> int:
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.glob("*.json"))
        return path.stat().st_size
    except OSError:
        return 0


def read_export(fmt: str, path: Path, session: str | None, token: CancelToken) -> ReadResult:
    """``readers()[fmt](path, session)``, in a worker process when the file is big (see the module)."""
    reader = readers()[fmt]
    if _size(path) < PROCESS_FROM_BYTES:
        return reader(path, session)
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(
        target=_child, args=(fmt, str(path), session, sender), name="memtray-read", daemon=True
    )
    child.start()
    sender.close()
    log.info("reading %s in a worker process (pid %s)", path, child.pid)
    try:
        return _receive(receiver, child, token)
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join(5)


def _receive(receiver: Connection, child: Any, token: CancelToken) -> ReadResult:
    sessions: list[ImportedSession] = []
    current: ImportedSession | None = None
    while True:
        token.check()
        if not receiver.poll(POLL_S):
            if not child.is_alive() and not receiver.poll(0):
                raise ImportFormatError(f"reading the export stopped (exit status {child.exitcode})")
            continue
        try:
            kind, value = receiver.recv()
        except EOFError:
            raise ImportFormatError(f"reading the export stopped (exit status {child.exitcode})") from None
        if kind == "session":
            current = value
            sessions.append(value)
        elif kind == "messages":
            assert current is not None
            current.messages.extend(value)
        elif kind == "done":
            skipped, unchanged = value
            return ReadResult(sessions, skipped, unchanged)
        else:  # "error"
            raise value


def _child(fmt: str, path: str, session: str | None, sender: Connection) -> None:
    """In the worker process: read, then send the result in pieces (or the error)."""
    try:
        result = readers()[fmt](Path(path), session)
    except Exception as exc:
        try:
            pickle.dumps(exc)
            sender.send(("error", exc))
        except Exception:
            sender.send(("error", ImportFormatError(str(exc))))
        sender.close()
        return
    for item in result.sessions:
        messages = item.messages
        sender.send(("session", dataclasses.replace(item, messages=list(messages[:PIECE]))))
        for start in range(PIECE, len(messages), PIECE):
            sender.send(("messages", messages[start : start + PIECE]))
    sender.send(("done", (result.skipped, result.unchanged)))
    sender.close()

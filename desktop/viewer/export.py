"""Export a session's complete archive to a file, in the engine's formats (``engine.sessions.export``).

Runs on the store worker; checks its cancel token between messages, and writes to a temporary file that
replaces the target only when complete.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from desktop.i18n import QT_TRANSLATE_NOOP
from desktop.tasks import CancelToken
from engine import Message
from engine.sessions import render_export

FORMATS = {
    "jsonl": QT_TRANSLATE_NOOP("Export", "JSON Lines (*.jsonl)"),
    "markdown": QT_TRANSLATE_NOOP("Export", "Markdown (*.md)"),
}
"""The file dialog's filters (untranslated: ``translate("Export", label)`` where they are shown)."""


def write_export(
    path: Path, session: str, messages: Iterable[Message], fmt: str, token: CancelToken | None = None
) -> int:
    """Write ``messages`` to ``path`` in ``fmt``; return how many were written."""
    tmp = path.with_name(path.name + ".part")
    count = 0

    def checked() -> Iterator[Message]:
        nonlocal count
        for message in messages:
            if token is not None and count % 500 == 0:
                token.check()
            count += 1
            yield message

    try:
        with tmp.open("w", encoding="utf-8") as out:
            out.writelines(render_export(fmt, session, checked()))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return count

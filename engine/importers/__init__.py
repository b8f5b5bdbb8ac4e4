"""Importers: turn other tools' files into sessions of messages.

Each format module has ``read(path, session=None) -> ReadResult`` and reads and checks everything before
anything is stored (the caller stores the result with ``Memory.import_sessions``). What is fatal and what
is skipped:

- a file that cannot be read, is not valid JSON, or whose top-level shape is wrong raises
  :class:`~engine.errors.ImportFormatError` (or ``InvalidInput``) naming the file and the line or record,
  and nothing is imported;
- in a file that holds many conversations (ChatGPT, Claude) or a folder of many sessions (Agenvoy), one
  broken conversation or message is skipped, counted with the reason, and named in a log warning;
- JSONL holds one conversation, so any bad line stops it (the line is named).

Things left out on purpose (system and tool messages, attachments, images, hidden nodes) are counted per
reason in ``skipped``; the report at the end adds them up. A file of another kind than the one asked for
(a Claude export given to the ChatGPT reader) is an error that names its kind (:mod:`engine.importers.detect`).

Agents' transcripts (Claude Code, Codex) are read incrementally when the caller passes an
:class:`~engine.importers.importstate.ImportState`: only what was appended since the last import is read.
:mod:`engine.importers.watch` runs such an incremental import and saves the state once the messages are
stored, for one path or for every watched agents' folder.

What a reader returns (:class:`~engine.imported.ReadResult` of :class:`~engine.imported.ImportedSession`)
and the report of an import are :mod:`engine.imported`'s; the formats' names and descriptions are
:mod:`engine.importers.formats`' (no reader loaded).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from engine.imported import ImportedSession, ReadResult
from engine.importers.formats import DESCRIPTIONS, FOLDERS, INCREMENTAL

if TYPE_CHECKING:
    from engine.importers.importstate import ImportState


__all__ = ["DESCRIPTIONS", "FOLDERS", "INCREMENTAL", "ImportedSession", "ReadResult", "Reader", "readers"]


Reader = Callable[[Path, "str | None"], ReadResult]


def readers(state: ImportState | None = None) -> dict[str, Reader]:
    """The formats ``memtray import`` knows, by name; ``state`` makes the transcript readers incremental."""
    from engine.importers import agenvoy, chatgpt, claude, claude_code, codex, jsonl

    return {
        "agenvoy": agenvoy.read,
        "chatgpt": chatgpt.read,
        "claude": claude.read,
        "claude-code": partial(claude_code.read, state=state),
        "codex": partial(codex.read, state=state),
        "jsonl": jsonl.read,
    }

"""What kind of history a file or folder is, so that a reader given the wrong kind can say which it is.

Every reader calls :func:`require` on its path (a cheap look: folder layout, zip member names, the first
64 KiB of a file) and, for JSON exports, :func:`check` with :func:`of_export` on what it parsed. Finding
another kind than the one asked for is an :class:`~engine.errors.ImportFormatError` in one sentence that
names it (``this looks like a Claude export; use `memtray import claude```). Finding nothing known is not
an error here: the reader's own checks then say what is wrong.

The kinds, and how each is told apart:

- ``chatgpt``: a JSON list of conversations with a ``mapping`` tree (``conversations.json`` or the split
  ``conversations-000.json``, ``-001`` …); ``claude``: a JSON list of conversations with ``chat_messages``;
- ``claude-code``: JSONL lines with a top-level ``type`` (``user``, ``assistant``, ``summary`` …) and a
  ``sessionId``/``uuid``/``leafUuid``; ``codex``: JSONL lines ``{"timestamp", "type", "payload"}``, or the
  older rollouts whose first line is a bare ``{"id", "timestamp"}`` followed by ``{"type": "message"}``;
- ``agenvoy``: an Agenvoy home (``.store/history.db``, ``sessions/``), a sessions folder, a session folder,
  a ``history.json`` (a JSON list of ``{role, content}``) or its ``history.db``;
- ``jsonl``: JSONL lines of ``{"role", "content"}`` records;
- ``markdown``: memtray's own Markdown export (``# <session>`` then ``## <role> — <time>`` headings).
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from engine.errors import ImportFormatError
from engine.importers import agenvoy_db

HEAD_BYTES = 64 * 1024
SAMPLE_LINES = 20
SAMPLE_FILES = 5
MAX_WALK_DIRS = 200
EXPORT_NAME = re.compile(r"(?:^|/)conversations(?:-(\d+))?\.json$", re.IGNORECASE)
"""A ChatGPT or Claude export's conversations file: ``conversations.json`` or a part ``conversations-012.json``."""


@dataclass(frozen=True)
class Kind:
    """A kind of history file: how to name it, and the command that imports it (None: not importable)."""

    label: str
    command: str | None


KINDS = {
    "chatgpt": Kind("a ChatGPT export", "memtray import chatgpt"),
    "claude": Kind("a Claude export", "memtray import claude"),
    "claude-code": Kind("a Claude Code transcript", "memtray import claude-code"),
    "codex": Kind("a Codex CLI rollout", "memtray import codex"),
    "agenvoy": Kind("an Agenvoy history", "memtray import agenvoy"),
    "jsonl": Kind("a JSONL file of history records", "memtray import jsonl"),
    "markdown": Kind("a memtray Markdown export", None),
}
CLAUDE_CODE_TYPES = frozenset(
    {"user", "assistant", "summary", "system", "ai-title", "queue-operation", "attachment", "progress",
     "file-history-snapshot"}
)  # fmt: skip
CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_MARKDOWN_HEADING = re.compile(r"^## (?:user|assistant)(?: · [^\n]*)? — ", re.MULTILINE)
_ARRAY_KEYS = (
    (re.compile(r'"mapping"\s*:\s*\{'), "chatgpt"),
    (re.compile(r'"chat_messages"\s*:\s*\['), "claude"),
    (re.compile(r'^\[\s*\{\s*"role"\s*:'), "agenvoy"),
)


def is_export_member(name: str) -> bool:
    """True for a conversations file of an export (not ``__MACOSX/`` or ``._`` resource forks)."""
    posix = name.replace("\\", "/")
    base = PurePosixPath(posix).name
    return bool(EXPORT_NAME.search(posix)) and "__MACOSX/" not in posix and not base.startswith("._")


def part_number(name: str) -> int:
    """The part number of a conversations file: -1 for ``conversations.json``, 12 for ``-012``."""
    found = EXPORT_NAME.search(name.replace("\\", "/"))
    return int(found.group(1)) if found and found.group(1) is not None else -1


def require(path: Path, wanted: str) -> None:
    """Refuse ``path`` if it looks like another kind than ``wanted``.

    Raises:
        ImportFormatError: one sentence naming the kind it looks like and how to import it.
    """
    check(sniff(path), wanted, str(path))


def check(found: str | None, wanted: str, where: str) -> None:
    """Refuse what was ``found`` (a kind name, or None for unknown) if it is not ``wanted``.

    Raises:
        ImportFormatError: one sentence naming the kind it looks like and how to import it.
    """
    if found is None or found == wanted:
        return
    kind = KINDS[found]
    if kind.command is None:
        raise ImportFormatError(
            f"{where}: this looks like {kind.label}, which cannot be imported; "
            "import a JSONL export instead (`memtray export --format jsonl`)"
        )
    raise ImportFormatError(f"{where}: this looks like {kind.label}; use `{kind.command}`")


def sniff(path: Path) -> str | None:
    """The kind of a file or folder from a cheap look, or None if it is none of the known kinds."""
    try:
        if path.is_dir():
            return _folder(path)
        if path.is_file():
            if zipfile.is_zipfile(path):
                return _zip(path)
            return _file(path)
    except OSError:
        return None  # the reader names the problem
    return None


def of_export(data: Any) -> str | None:
    """The kind of a parsed JSON export (a list of conversations or of history records, or one
    conversation object as browser exporters write it), or None."""
    if isinstance(data, dict) and is_conversation(data):
        data = [data]
    if not isinstance(data, list):
        return None
    for item in data[:SAMPLE_LINES]:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("mapping"), dict):
            return "chatgpt"
        if isinstance(item.get("chat_messages"), list):
            return "claude"
        if "role" in item and "content" in item:
            return "agenvoy"
    return None


def is_conversation(item: dict[str, Any]) -> bool:
    """Whether ``item`` is one ChatGPT (``mapping``) or Claude (``chat_messages``) conversation."""
    return isinstance(item.get("mapping"), dict) or isinstance(item.get("chat_messages"), list)


def of_lines(lines: list[Any]) -> str | None:
    """The kind of a JSONL file from its first parsed lines, or None."""
    objects = [line for line in lines if isinstance(line, dict)]
    if not objects:
        return None
    first = objects[0]
    if any(o.get("type") in CODEX_TYPES and "payload" in o for o in objects):
        return "codex"
    if (
        "id" in first
        and "timestamp" in first
        and "type" not in first
        and any(o.get("type") == "message" and "role" in o for o in objects[1:])
    ):
        return "codex"  # a rollout from before the {type, payload} envelope
    if any(
        o.get("type") in CLAUDE_CODE_TYPES and ("sessionId" in o or "uuid" in o or "leafUuid" in o)
        for o in objects
    ):
        return "claude-code"
    if any(isinstance(o.get("role"), str) and "content" in o and "payload" not in o for o in objects):
        return "jsonl"
    return None


def head_lines(data: bytes) -> list[Any]:
    """The complete JSON lines at the start of ``data`` (at most 20), parsed; a bad line ends the list."""
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    pieces = text.split("\n")
    if len(pieces) > 1:
        pieces = pieces[:-1]  # the last piece may be cut short
    parsed: list[Any] = []
    for piece in pieces:
        if not piece.strip():
            continue
        try:
            parsed.append(json.loads(piece))
        except (ValueError, RecursionError):
            break
        if len(parsed) >= SAMPLE_LINES:
            break
    return parsed


def _file(path: Path) -> str | None:
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    if head.startswith(b"SQLite format 3\x00"):
        return "agenvoy" if agenvoy_db.is_archive(path) else None
    if path.name in ("history.json", "summary.json"):
        return "agenvoy"
    return of_head(head)


def of_head(head: bytes) -> str | None:
    """The kind of a file from its first bytes, or None."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff").lstrip()
    if text.startswith("["):
        for pattern, kind in _ARRAY_KEYS:
            if pattern.search(text):
                return kind
        return None
    if text.startswith("{"):
        return of_lines(head_lines(head))
    if text.startswith("# ") and _MARKDOWN_HEADING.search(text):
        return "markdown"
    return None


def _zip(path: Path) -> str | None:
    with zipfile.ZipFile(path) as archive:
        names = [info for info in archive.infolist() if not info.is_dir()]
        parts = sorted((i for i in names if is_export_member(i.filename)), key=lambda i: i.filename)
        for info in parts[:1]:
            with archive.open(info) as member:
                found = of_head(member.read(HEAD_BYTES))
            if found is not None:
                return found
    return None


def _folder(path: Path) -> str | None:
    if (path / ".store" / "history.db").is_file() or (path / "history.json").is_file():
        return "agenvoy"
    if (path / "summary.json").is_file() or _holds_session_folders(path / "sessions"):
        return "agenvoy"
    exports = sorted(p for p in path.iterdir() if p.is_file() and is_export_member(p.name))
    if exports:
        with exports[0].open("rb") as handle:
            return of_head(handle.read(HEAD_BYTES))
    votes: list[str] = []
    for walked, (root, dirs, files) in enumerate(os.walk(path), start=1):
        dirs.sort()
        if _holds_session_folders(Path(root), dirs):
            return "agenvoy"
        for name in sorted(files):
            if name.endswith(".jsonl"):
                with (Path(root) / name).open("rb") as handle:
                    found = of_head(handle.read(HEAD_BYTES))
                if found is not None:
                    votes.append(found)
        if len(votes) >= SAMPLE_FILES or walked >= MAX_WALK_DIRS:
            break
    return max(set(votes), key=votes.count) if votes else None


def _holds_session_folders(folder: Path, names: list[str] | None = None) -> bool:
    """True if ``folder`` has Agenvoy session folders in it (looking at its first 50 subfolders)."""
    try:
        names = sorted(p.name for p in folder.iterdir() if p.is_dir()) if names is None else names
    except OSError:
        return False
    return any((folder / name / "history.json").is_file() for name in names[:50])

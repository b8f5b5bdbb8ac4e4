"""Loading the JSON files of a data export: the file itself, the unpacked export folder, or the .zip.

ChatGPT and Claude ship their conversations as ``conversations.json``; large ChatGPT accounts get it split
into parts, ``conversations-000.json``, ``conversations-001.json`` …, each a complete JSON list in the same
shape. Browser extensions that save one conversation write the conversation object alone: that is read as a
list of one. Whatever the user points at, this module finds every part (``conversations.json`` first, then the
parts by number; in a zip, those in the shallowest folder that has any; ``__MACOSX/`` and ``._`` entries are
not parts) and parses them one at a time, in order. A file given by name is read alone. Anything wrong with a
part (too big, not UTF-8, not JSON, nested too deeply) is one clear
:class:`~engine.errors.ImportFormatError` naming it; a UTF-8 byte order mark is accepted.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from engine.errors import ImportFormatError, InvalidInput
from engine.importers import detect
from engine.importers.detect import is_export_member, part_number

MAX_EXPORT_BYTES = 2 * 1024**3
MAX_MEMBER_BYTES = 1024**3
"""A zip member unpacks to at most this much (real ChatGPT exports split at far less)."""
BOMB_FLOOR_BYTES = 64 * 1024**2
MAX_RATIO = 100
"""Above the floor, a member may unpack to at most this many times its compressed size."""


@dataclass(frozen=True)
class Part:
    """One parsed conversations file and how to name it in messages (``export.zip:conversations-001.json``)."""

    data: Any
    source: str


def parts(path: Path) -> Iterator[Part]:
    """Every conversations file at ``path`` (that file, a folder holding them, or a zip), parsed, in order.

    Raises:
        InvalidInput: the path does not exist or cannot be read.
        ImportFormatError: no conversations file in the folder or zip, or one that is not valid JSON.
    """
    path = path.expanduser()
    try:
        if path.is_dir():
            found = sorted(
                (p for p in path.iterdir() if p.is_file() and is_export_member(p.name)), key=_order
            )
            if not found:
                raise ImportFormatError(
                    f"{path}: no conversations.json (or conversations-000.json) in this folder"
                )
            for target in found:
                yield Part(parse(_read_file(target), str(target)), str(target))
            return
        if path.is_file() and zipfile.is_zipfile(path):
            yield from _zip_parts(path)
            return
        if path.is_file():
            yield Part(parse(_read_file(path), str(path)), str(path))
            return
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from exc
    raise InvalidInput(f"no such file or folder: {path}")


def _order(path: Path | str) -> tuple[int, str]:
    name = path.name if isinstance(path, Path) else path
    return part_number(name), name


def _read_file(path: Path) -> bytes:
    if path.stat().st_size > MAX_EXPORT_BYTES:
        raise ImportFormatError(f"{path}: larger than {MAX_EXPORT_BYTES // 1024**3} GiB")
    return path.read_bytes()


def _zip_parts(path: Path) -> Iterator[Part]:
    try:
        with zipfile.ZipFile(path) as archive:
            members = [i for i in archive.infolist() if not i.is_dir() and is_export_member(i.filename)]
            if not members:
                raise ImportFormatError(
                    f"{path}: no conversations.json (or conversations-000.json) in this zip file"
                )
            depth = min(i.filename.count("/") for i in members)
            folder = min(
                str(PurePosixPath(i.filename).parent) for i in members if i.filename.count("/") == depth
            )
            chosen = [i for i in members if str(PurePosixPath(i.filename).parent) == folder]
            for member in sorted(chosen, key=lambda i: _order(PurePosixPath(i.filename).name)):
                source = f"{path}:{member.filename}"
                yield Part(parse(_unpacked(archive, member, source), source), source)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError) as exc:
        raise ImportFormatError(f"{path}: cannot read the zip file ({exc})") from exc


def _unpacked(archive: zipfile.ZipFile, member: zipfile.ZipInfo, source: str) -> bytes:
    """A member's bytes, refused before it is expanded when it would be a zip bomb.

    A member may unpack to :data:`MAX_MEMBER_BYTES` at most, and one larger than
    :data:`BOMB_FLOOR_BYTES` may not be more than :data:`MAX_RATIO` times its compressed size (JSON
    compresses about ten times; a bomb thousands of times). The count is kept while reading, so a member
    whose header understates its size is stopped at the limit too.
    """
    size, packed = member.file_size, max(1, member.compress_size)
    if size > MAX_MEMBER_BYTES or (size > BOMB_FLOOR_BYTES and size / packed > MAX_RATIO):
        raise ImportFormatError(
            f"{source}: unpacks to {size:,} bytes from {member.compress_size:,}; that is not an export "
            "(a zip bomb?); nothing was imported"
        )
    chunks: list[bytes] = []
    total = 0
    with archive.open(member) as handle:
        while chunk := handle.read(1024 * 1024):
            total += len(chunk)
            if total > max(size, BOMB_FLOOR_BYTES) or total > MAX_MEMBER_BYTES:
                raise ImportFormatError(
                    f"{source}: unpacks to more than its header says; nothing was imported"
                )
            chunks.append(chunk)
    return b"".join(chunks)


def parse(data: bytes, source: str) -> Any:
    """``data`` (UTF-8, with or without a byte order mark) as JSON.

    Raises:
        ImportFormatError: not UTF-8, not valid JSON, or nested too deeply; names ``source``.
    """
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ImportFormatError(f"{source}: not UTF-8 text (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise ImportFormatError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", exc.lineno
        ) from exc
    except RecursionError as exc:
        raise ImportFormatError(f"{source}: JSON nested too deeply") from exc
    except ValueError as exc:  # e.g. an integer with too many digits
        raise ImportFormatError(f"{source}: not usable JSON ({exc})") from exc


def conversation_lists(path: Path, kind: str, lacks: str) -> Iterator[Part]:
    """Each part of an export of ``kind`` (``chatgpt``, ``claude``), checked to be a list of its conversations.

    Raises:
        ImportFormatError: a part that is not a list, is another kind of export (the error names it), or
            has conversations none of which is of this kind (``lacks`` says what they lack).
    """
    for part in parts(path):
        if isinstance(part.data, dict) and detect.is_conversation(part.data):
            part = Part([part.data], part.source)  # one conversation, as browser exporters save it
        if not isinstance(part.data, list):
            raise ImportFormatError(
                f"{part.source}: expected a JSON list of conversations, not {type(part.data).__name__}"
            )
        found = detect.of_export(part.data)
        detect.check(found, kind, part.source)
        if part.data and found is None:
            raise ImportFormatError(f"{part.source}: {lacks}")
        yield part

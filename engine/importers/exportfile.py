"""Loading the JSON file of a data export: the file itself, the unpacked export folder, or the .zip.

ChatGPT and Claude both ship their conversations as one ``conversations.json``. Whatever the user points
at, this module finds that file and parses it; anything wrong with it (missing, too big, not JSON, nested
too deeply) is one clear :class:`~engine.errors.ImportFormatError` or ``InvalidInput``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from engine.errors import ImportFormatError, InvalidInput

MAX_EXPORT_BYTES = 2 * 1024**3


def load(path: Path, name: str = "conversations.json") -> tuple[Any, str]:
    """Parse ``name`` found at ``path`` (that file, a folder holding it, or a zip holding it).

    Returns:
        The parsed JSON value and how to name its source in messages (e.g. ``export.zip:conversations.json``).

    Raises:
        InvalidInput: the path does not exist or cannot be read.
        ImportFormatError: no such file in the folder or zip, or it is not valid JSON.
    """
    path = path.expanduser()
    try:
        if path.is_dir():
            target = path / name
            if not target.is_file():
                raise ImportFormatError(f"{path}: no {name} in this folder")
            return _parse(_read_file(target), str(target)), str(target)
        if path.is_file() and zipfile.is_zipfile(path):
            data, member = _read_zip(path, name)
            source = f"{path}:{member}"
            return _parse(data, source), source
        if path.is_file():
            return _parse(_read_file(path), str(path)), str(path)
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from exc
    raise InvalidInput(f"no such file or folder: {path}")


def _read_file(path: Path) -> bytes:
    if path.stat().st_size > MAX_EXPORT_BYTES:
        raise ImportFormatError(f"{path}: larger than {MAX_EXPORT_BYTES // 1024**3} GiB")
    return path.read_bytes()


def _read_zip(path: Path, name: str) -> tuple[bytes, str]:
    try:
        with zipfile.ZipFile(path) as archive:
            members = [
                info
                for info in archive.infolist()
                if PurePosixPath(info.filename).name == name and not info.is_dir()
            ]
            if not members:
                raise ImportFormatError(f"{path}: no {name} in this zip file")
            member = min(members, key=lambda info: (info.filename.count("/"), info.filename))
            if member.file_size > MAX_EXPORT_BYTES:
                raise ImportFormatError(f"{path}:{member.filename}: larger than {MAX_EXPORT_BYTES} bytes")
            return archive.read(member), member.filename
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError) as exc:
        raise ImportFormatError(f"{path}: cannot read the zip file ({exc})") from exc


def _parse(data: bytes, source: str) -> Any:
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

"""Import input bounds: a line without end is refused before it fills memory, and so is a zip bomb."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from engine.errors import ImportFormatError
from engine.importers import chatgpt, exportfile, jsonl


class EndlessZeros(io.RawIOBase):
    """Like ``/dev/zero``: bytes forever, no newline; counts what was read."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        buffer[:] = b"\0" * len(buffer)
        self.given += len(buffer)
        return len(buffer)


def test_a_jsonl_line_without_end_is_refused_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 1024 * 1024)
    zeros = EndlessZeros()
    with pytest.raises(ImportFormatError, match="longer than"):
        jsonl.read_lines(io.BufferedReader(zeros), "s1", "standard input")
    assert zeros.given < 4 * 1024 * 1024  # read up to the limit, not until memory runs out


def test_a_zip_bomb_is_refused_before_it_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exportfile, "BOMB_FLOOR_BYTES", 1024 * 1024)
    bomb = tmp_path / "export.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", b"[" + b" " * (20 * 1024 * 1024) + b"]")
    assert bomb.stat().st_size < 200 * 1024
    with pytest.raises(ImportFormatError, match="zip bomb"):
        chatgpt.read(bomb)


def test_an_ordinary_zip_export_still_reads(tmp_path: Path) -> None:
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", b"[]")
    assert chatgpt.read(export).sessions == []

"""A big export is parsed in a worker process: the same sessions as the reader gives on this thread, its
errors in the same words, and a cancelled read ends the process."""

from __future__ import annotations

import json
import multiprocessing
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from desktop.state import AppState
from desktop.tasks import Cancelled, CancelToken
from desktop.viewer import readprocess
from desktop.viewer.window import ViewerWindow
from engine.errors import ImportFormatError
from engine.importers import readers
from tests.engine.exportdata import gpt_linear


@pytest.fixture(autouse=True)
def every_file_in_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readprocess, "PROCESS_FROM_BYTES", 0)
    monkeypatch.setattr(readprocess, "PIECE", 7)  # sessions come back in several pieces


def test_the_process_reads_what_the_reader_reads(tmp_path: Path) -> None:
    export = tmp_path / "conversations.json"
    conversations = [
        gpt_linear(f"c{i}", [f"message {i}.{j} 中文 ✓" for j in range(3 + 5 * i)]) for i in range(4)
    ]
    export.write_text(json.dumps(conversations), encoding="utf-8")
    here = readers()["chatgpt"](export, None)
    there = readprocess.read_export("chatgpt", export, None, CancelToken())
    assert there == here and sum(len(s.messages) for s in there.sessions) == 3 + 8 + 13 + 18


def test_a_broken_export_fails_with_the_readers_words(tmp_path: Path) -> None:
    export = tmp_path / "conversations.json"
    export.write_text('[{"mapping": ', encoding="utf-8")
    with pytest.raises(ImportFormatError) as there:
        readprocess.read_export("chatgpt", export, None, CancelToken())
    with pytest.raises(ImportFormatError) as here:
        readers()["chatgpt"](export, None)
    assert str(there.value) == str(here.value) and "not valid JSON" in str(there.value)


def test_cancel_stops_the_read(tmp_path: Path) -> None:
    export = tmp_path / "conversations.json"
    big = [gpt_linear(f"c{i}", ["word " * 200] * 200) for i in range(200)]
    export.write_text(json.dumps(big), encoding="utf-8")
    token = CancelToken()
    threading.Timer(0.3, token.cancel).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        readprocess.read_export("chatgpt", export, None, token)
    assert time.monotonic() - started < 5
    assert not multiprocessing.active_children()  # the worker process was ended


def test_cancel_in_the_status_bar_says_the_import_was_cancelled(
    state: AppState, tmp_path: Path, qtbot: Any
) -> None:
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([gpt_linear(f"c{i}", ["word " * 200] * 200) for i in range(200)]), "utf-8")
    viewer = ViewerWindow(state)
    qtbot.addWidget(viewer)
    viewer.present()
    viewer.run_import("chatgpt", export, None)
    qtbot.waitUntil(lambda: viewer.progress.cancel.isVisible() and viewer.progress.cancel.isEnabled())
    with qtbot.waitSignal(viewer.import_did_finish, timeout=20_000) as finished:
        viewer.progress.cancel.click()
        assert "cancelling" in viewer.progress.label.text()
    assert finished.args[0].title == "Import of conversations.json cancelled"
    assert viewer.statusBar().currentMessage().startswith("Import of conversations.json cancelled")
    assert not any(s.id.startswith("gpt-c1") for s in state.memory.sessions())  # type: ignore[union-attr]

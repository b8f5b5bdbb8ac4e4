"""Fixtures of the desktop tests: offscreen Qt, a seeded memory home, a task runner and the app state.

``QT_QPA_PLATFORM=offscreen`` is set before any QApplication exists; tests that need a real display and
tray run the app in a subprocess under Xvfb (see ``test_tray_xvfb.py``). The UI is in English, as the app
shows it with its translations installed (``desktop/translations/*.ts``, compiled for the run into a
temporary folder, so the tests never depend on a stale ``.qm``); ``translations_dir`` gives that folder. Unexpected WARNING logs from
memtray's loggers fail the test (in the spirit of qutebrowser's logfail), unless the test expects them.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ["QT_QPA_PLATFORM"] = "offscreen"

from desktop import refguard

refguard.install()  # PySide6 6.12.0 on Python 3.11: see desktop/refguard.py

from desktop import i18n  # noqa: E402
from desktop.gcguard import MainThreadCollector  # noqa: E402
from desktop.state import AppState  # noqa: E402
from desktop.tasks import TaskRunner  # noqa: E402
from engine import Memory, Message, Settings  # noqa: E402
from engine.embedders.hashing import HashEmbedder  # noqa: E402
from engine.llm.gemini import ClientFactory  # noqa: E402
from engine.llm.keys import Keys  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
BASE_NS = 1_760_000_000 * 1_000_000_000  # 2025-10-09

ZH = [
    ("user", "我的電腦記憶體不足，該怎麼辦？", "小明"),
    ("assistant", "可以先關閉不用的分頁，再檢查哪個程式佔用最多記憶體。", ""),
    ("user", "幫我整理一下今天的會議紀錄。", "小明"),
    ("assistant", "好的：一、預算通過；二、下週三前交付設計稿。", ""),
]
EN = [
    ("user", "What did we decide about the database migration?", "alice"),
    ("assistant", "We agreed to run the migration on Sunday night with a backup first.", ""),
    ("user", "Remind me of the budget figure for the trip.", "alice"),
    ("assistant", "The trip budget is 1,200 euros, flights included.", ""),
]


def seed(home: Path, long_messages: int = 240) -> None:
    """A home with a Chinese session, an English one, a temporary one and a compacted long one."""
    mem = Memory.open(home, embedder=HashEmbedder())
    try:
        for session, rows in (("proj-zh", ZH), ("english-notes", EN), ("temp-subagent", EN[:2])):
            msgs = [Message(r, c, BASE_NS + i * 60_000_000_000, s) for i, (r, c, s) in enumerate(rows)]
            mem.append(session, msgs)
        mem.update_settings(max_history_bytes=8192)
        long = [
            Message(
                "user" if i % 2 == 0 else "assistant",
                f"long chat message {i}: "
                + ("notes about the garden and the roses " * 3)
                + ("the kiwi fruit harvest" if i == 7 else ""),
                BASE_NS + i * 1_000_000_000,
            )
            for i in range(long_messages)
        ]
        mem.append("long-chat", long)
        mem.update_settings(max_history_bytes=Settings().max_history_bytes)
        assert mem.wait_idle(60)  # embedded: a copy starts with nothing in the background
    finally:
        mem.close()


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("template") / "seeded"
    seed(home)
    return home


@pytest.fixture
def seeded_home(seeded_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the seeded home (seeding once per run keeps the suite fast)."""
    home = tmp_path / "seeded"
    shutil.copytree(seeded_template, home)
    return home


SOURCES = Path(__file__).resolve().parents[2] / "desktop" / "translations"


def lrelease() -> str:
    """The ``pyside6-lrelease`` of the interpreter running the tests."""
    found = shutil.which("pyside6-lrelease", path=str(Path(sys.executable).parent))
    assert found, f"pyside6-lrelease is missing next to {sys.executable}"
    return found


@pytest.fixture(scope="session")
def translations_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The .ts files compiled to .qm for this run."""
    out = tmp_path_factory.mktemp("translations")
    for ts in sorted(SOURCES.glob("*.ts")):
        subprocess.run([lrelease(), "-silent", str(ts), "-qm", str(out / f"{ts.stem}.qm")], check=True)
    return out


@pytest.fixture(autouse=True, scope="session")
def _english(qapp: Any, translations_dir: Path) -> Iterator[None]:
    """The UI in English, with its plural forms ("1 message", "2 messages")."""
    assert i18n.install(qapp, "en", translations_dir) == "en"
    yield
    i18n.uninstall(qapp)


@pytest.fixture(autouse=True, scope="session")
def _gc_on_the_gui_thread(qapp: Any) -> Iterator[None]:
    """As the app does: cycles holding Qt objects are collected on the GUI thread (desktop/gcguard.py)."""
    collector = MainThreadCollector(qapp)
    collector.start()
    yield
    collector.stop()


@pytest.fixture
def keys() -> Keys:
    """The memory's key store (``GEMINI_API_KEY``, then the OS keyring); a test may parametrize its own."""
    return Keys()


@pytest.fixture
def client_factory() -> ClientFactory | None:
    """The summarizer's Gemini client factory (None: the real one)."""
    return None


@pytest.fixture
def memory(seeded_home: Path, keys: Keys, client_factory: ClientFactory | None) -> Iterator[Memory]:
    mem = Memory.open(seeded_home, embedder=HashEmbedder(), keys=keys, client_factory=client_factory)
    yield mem
    mem.close()


@pytest.fixture
def runner(qapp: Any) -> Iterator[TaskRunner]:
    task_runner = TaskRunner()
    yield task_runner
    task_runner.shutdown()


@pytest.fixture
def state(runner: TaskRunner, memory: Memory, qtbot: Any) -> Iterator[AppState]:
    app_state = AppState(runner)
    app_state.set_memory(memory, summaries=None, errors=None, keys=None, semantic=False)
    with qtbot.waitSignal(app_state.state_did_change, timeout=5000):
        app_state.refresh()
    yield app_state
    runner.shutdown()  # its workers end before the memory closes, as when the app quits


@pytest.fixture
def screenshot() -> Any:
    """Save a widget's picture as ``artifacts/screenshots/<name>.png``."""

    def save(widget: Any, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        assert widget.grab().save(str(path)), f"could not save {path}"
        return path

    return save


class _WarningCatcher(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def fail_on_warnings(request: pytest.FixtureRequest) -> Iterator[None]:
    """Unexpected WARNING+ logs of ``memtray.*`` fail the test (mark ``allow_warnings`` to expect them)."""
    catcher = _WarningCatcher()
    logger = logging.getLogger("memtray")
    logger.addHandler(catcher)
    yield
    logger.removeHandler(catcher)
    if request.node.get_closest_marker("allow_warnings") is None and catcher.records:
        lines = "\n".join(f"{r.name}: {r.getMessage()}" for r in catcher.records)
        pytest.fail(f"unexpected warnings were logged:\n{lines}")

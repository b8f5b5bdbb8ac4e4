"""Quit ends the process, whatever windows were shown: tray ▸ Quit, ``memtray --quit`` and SIGTERM.

Each case is a real memtray process (``tests/desktop/quitcheck.py`` runs ``desktop.app.run``) that opens
windows in a given order, among them a chat whose reply is still streaming from the fake Gemini server
(its stream never ends) and an import of a ChatGPT export whose one big conversation is being stored;
then it is told to quit, and the process must be gone within 5 s, its lock released (a new launch takes
it). Offscreen (no tray: the viewer is the main window) and under Xvfb with trayer (a real tray).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import pytest

from bench.import_chatgpt import conversation
from desktop.single import SingleInstance
from engine import Memory
from engine.embedders.hashing import HashEmbedder
from tests.clirun import CLI, ROOT
from tests.desktop.conftest import seed
from tests.desktop.xdisplay import missing, xvfb_with_tray
from tests.fakegemini import FakeGemini

QUIT_WITHIN_S = 5.0
ORDERS = (
    "viewer,quick,settings,about,chooser",
    "chat,import,quick,settings,viewer,about",
    "quick,about,chooser,viewer,import,chat",
)
WAYS = ("tray", "--quit", "SIGTERM")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded home (copied for every case) and, beside it, a ChatGPT export of one 30,000-message
    conversation (imports store 5,000 messages at a time: the quit comes while they are being stored)."""
    folder = tmp_path_factory.mktemp("quit")
    seed(folder / "home", long_messages=40)
    export = [conversation(0, 30_000, random.Random(7))]
    (folder / "conversations.json").write_text(json.dumps(export), encoding="utf-8")
    return folder


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


def run_case(
    template: Path, tmp_path: Path, fake: FakeGemini, env: Mapping[str, str], order: str, way: str
) -> float:
    """Start memtray, open ``order``'s windows, quit it ``way``; return seconds from the quit to the exit."""
    home = tmp_path / "home"
    shutil.copytree(template / "home", home)
    with Memory.open(home, embedder=HashEmbedder()) as mem:
        mem.update_settings(gemini_base_url=fake.url, decision_model="")
    gate = threading.Event()  # never set while the app runs: the reply streams until the quit
    fake.reply_stream(["Once upon a time ", "there was a tray."], gate=gate)
    env = {
        **os.environ,
        **env,
        "GEMINI_API_KEY": "test-key",
        "IMPORT_FILE": str(template / "conversations.json"),
    }
    args = [sys.executable, "-m", "tests.desktop.quitcheck", str(home), order] + (
        ["tray"] if way == "tray" else []
    )
    proc = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        ready = ""
        for line in proc.stdout:
            if line.startswith(("READY", "FAILED")):
                ready = line
                break
        assert ready.startswith("READY"), ready + proc.stderr.read() if proc.stderr else ready
        shown = json.loads(ready.split(" ", 1)[1])
        assert shown["shown"] == order.split(",")
        if "chat" in order:
            assert any(label.startswith("Chat in") for label in shown["busy"]), shown
        if "import" in order:
            assert any(label.startswith("Importing") for label in shown["busy"]), shown
        started = time.monotonic()
        if way == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
        elif way == "--quit":
            knock = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    CLI.replace("engine.cli", "desktop.launcher"),
                    "--home",
                    str(home),
                    "--quit",
                ],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=30,
            )
            assert knock.returncode == 0, knock.stderr
        try:
            status = proc.wait(QUIT_WITHIN_S + 30)
        finally:
            seconds = time.monotonic() - started
        assert status == 0, proc.stderr.read() if proc.stderr else status
        return seconds
    finally:
        gate.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def check_after(home: Path) -> None:
    """The lock is free for a new launch, and the memory opens with the seeded sessions whole."""
    lock = SingleInstance(home, home / ".store" / "app.lock")
    assert lock.acquire(), "the quit process left its single-instance lock held"
    lock.release()
    with Memory.open(home, embedder=HashEmbedder()) as mem:
        sessions = {s.id: s for s in mem.sessions()}
        assert sessions["english-notes"].hot_messages == 4 and sessions["proj-zh"].hot_messages == 4


def _quit(
    template: Path,
    tmp_path: Path,
    fake: FakeGemini,
    context: AbstractContextManager[dict[str, str]],
    order: str,
    way: str,
) -> None:
    with context as env:
        seconds = run_case(template, tmp_path, fake, env, order, way)
    print(f"quit {way} after {order}: {seconds:.2f} s")
    assert seconds < QUIT_WITHIN_S, f"the process took {seconds:.2f} s to end after {way}"
    check_after(tmp_path / "home")


@pytest.mark.allow_warnings
@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("order", ORDERS)
def test_quit_ends_the_process_offscreen(
    template: Path, tmp_path: Path, fake: FakeGemini, qapp: object, order: str, way: str
) -> None:
    _quit(template, tmp_path, fake, nullcontext({"QT_QPA_PLATFORM": "offscreen"}), order, way)


@pytest.mark.tray
@pytest.mark.allow_warnings
@pytest.mark.skipif(bool(missing()), reason=f"needs {', '.join(missing())}")
@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("order", ORDERS[::2])
def test_quit_ends_the_process_with_a_tray(
    template: Path, tmp_path: Path, fake: FakeGemini, qapp: object, order: str, way: str
) -> None:
    _quit(template, tmp_path, fake, xvfb_with_tray(), order, way)


def test_a_second_launch_says_memtray_already_runs(template: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(template / "home", home)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    first = subprocess.Popen(
        [sys.executable, "-m", "tests.desktop.quitcheck", str(home), ""],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout is not None
        assert next(line for line in first.stdout if line.startswith(("READY", "FAILED"))).startswith("READY")
        launcher = [sys.executable, "-c", CLI.replace("engine.cli", "desktop.launcher"), "--home", str(home)]
        second = subprocess.run(launcher, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 0, second.stderr
        assert f"memtray is already running for {home}: its window was brought to the front." in second.stdout
        knock = subprocess.run(
            [*launcher, "--quit"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )
        assert knock.returncode == 0, knock.stderr
        assert first.wait(QUIT_WITHIN_S + 30) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


@pytest.mark.allow_warnings
@pytest.mark.parametrize("way", ["--quit", "SIGTERM"])
def test_quit_while_the_model_is_built_the_first_time(
    template: Path, tmp_path: Path, fake: FakeGemini, qapp: object, way: str
) -> None:
    """Right after the first start, the e5 model is being built (an empty model cache) and the quick
    search's warm-up waits for it: the quit does not wait for either."""
    from engine.embedders import e5weights
    from engine.errors import VectorIndexError

    try:
        e5weights.locate()
    except VectorIndexError as exc:
        pytest.skip(f"no e5 weights here: {exc}")
    env = {
        "QT_QPA_PLATFORM": "offscreen",
        "MEMTRAY_EMBEDDER": "e5",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    _quit(template, tmp_path, fake, nullcontext(env), "viewer", way)

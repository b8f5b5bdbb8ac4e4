"""Fixtures of the engine tests: a memory in a temporary home, with a controllable clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.llm.gemini import ClientFactory
from tests.timezone import reread, set_time_zone


class FakeClock:
    """A clock that only moves when told to (Unix nanoseconds)."""

    def __init__(self, start: int = 1_700_000_000 * 1_000_000_000) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> int:
        self.now += int(seconds * 1_000_000_000)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def client_factory() -> ClientFactory | None:
    """The summarizer's Gemini client factory (None: the real one; the summarizer tests override it)."""
    return None


@pytest.fixture
def memory(home: Path, clock: FakeClock, client_factory: ClientFactory | None) -> Iterator[Memory]:
    mem = Memory.open(home, clock=clock, embedder=HashEmbedder(), client_factory=client_factory)
    yield mem
    mem.close()


@pytest.fixture
def taipei(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The user's time zone is Taipei (UTC+8) for this test."""
    set_time_zone(monkeypatch, "Asia/Taipei")
    yield
    monkeypatch.undo()
    reread()

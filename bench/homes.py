"""Benchmark homes, built one way: a temporary memtray home opened without the OS keyring (and, unless
asked, with the hashing embedder), filled by a timed import, and the wait until keyword search finds a
word (``bench.import_chatgpt``, ``bench.sync``)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.imported import ImportedSession, ImportReport
from engine.llm.keys import Keys
from engine.messages import Message

WORDS = [
    "memory",
    "laptop",
    "search",
    "summary",
    "session",
    "archive",
    "question",
    "answer",
    "sqlite",
    "index",
    "python",
    "browser",
]


class InMemoryKeyring:
    """A keyring held in this process (a benchmark measures memtray, not the OS keyring)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, user: str) -> str | None:
        return self.entries.get((service, user))

    def set_password(self, service: str, user: str, value: str) -> None:
        self.entries[(service, user)] = value

    def delete_password(self, service: str, user: str) -> None:
        self.entries.pop((service, user), None)


def open_home(path: Path, *, background: bool = False, model: bool = False) -> Memory:
    """A memory in ``path`` with an in-process keyring; the hashing embedder unless ``model`` (then the
    home's own embedder, as the app has it); ``background``: embed in this process, as the app does."""
    return Memory.open(
        path,
        keys=Keys(backend=InMemoryKeyring()),
        embedder=None if model else HashEmbedder(),
        background=background,
    )


def marked(count: int, per: int) -> list[ImportedSession]:
    """``count`` messages in sessions of ``per`` (``conv-00000`` …), one a second, ~150 bytes each, each
    ending with a word of its own (:func:`mark`)."""
    sessions = []
    t0 = 1_700_000_000 * 10**9
    for s in range(0, count, per):
        messages = []
        for i in range(min(per, count - s)):
            n = s + i
            words = " ".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(18))
            messages.append(
                Message("user" if i % 2 == 0 else "assistant", f"{words} {mark(n)}", t0 + n * 10**9)
            )
        sessions.append(ImportedSession(f"conv-{s // per:05d}", messages))
    return sessions


def mark(n: int) -> str:
    """The word only message ``n`` of :func:`marked` has."""
    return f"mark{n}x"


@dataclass(frozen=True)
class Timed:
    """An import and what it took: wall and CPU seconds (of this process, every thread)."""

    report: ImportReport
    wall: float
    cpu: float


def timed_import(mem: Memory, sessions: Sequence[ImportedSession]) -> Timed:
    """``mem.import_sessions(sessions)``, timed."""
    started, cpu = time.perf_counter(), time.process_time()
    report = mem.import_sessions(sessions)
    return Timed(report, time.perf_counter() - started, time.process_time() - cpu)


def searchable(mem: Memory, word: str, session: str | None = None, timeout: float = 60.0) -> float:
    """Seconds until a keyword search for ``word`` finds a message (of ``session``, when given)."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        hits = mem.search(word, match="keyword", scope="all")
        if any(session is None or h.message.session == session for h in hits):
            return time.perf_counter() - started
        time.sleep(0.001)
    raise AssertionError(f"{word!r} not found after {timeout} s")

"""The small interfaces the desktop app uses for the engine's summarizer, error memory and key store.

The summary panel, the error-memory tab and the settings window's key field are built against the
protocols here, not against the engine's classes, so they can be tested with fakes and keep their shape
when the engine changes. The adapters translate the real engine APIs:

- ``mem.summaries`` (:class:`engine.summary.Summaries`): ``load(session)`` → a :class:`Summary` (empty when
  there is none), ``cursor_ns(session)`` → Unix ns or 0, ``generate(session)``,
  ``run_pending()``, ``pending()``, ``status()`` → :class:`SummaryStatus` (no last-run time: the adapter
  remembers the runs it made, and the app adds the newest ``summary.json`` time it already knows).
- ``mem.errors`` (:class:`engine.errormemory.ErrorMemory`): ``records(limit=)``, ``count()``,
  ``search(query, limit=)`` (at most 16 hits; a hit's expiry is refreshed), ``forget(id_prefix)``; the
  error-memory tab shows the engine's own :class:`engine.errormemory.ErrorRecord`.
- :class:`engine.llm.keys.Keys`: ``status()`` → :class:`KeyStatus`, ``get()``, ``set()``, ``delete()``,
  ``use_for_this_run()``; the one real Gemini call of "Test" goes through :func:`engine.llm.gemini.make_client`.

Every method of every adapter does I/O (SQLite, files, the keyring, the network): call it on a worker.
"""

from __future__ import annotations

import builtins
import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from engine import Memory, Settings
    from engine.errormemory import ErrorMemory, ErrorRecord
    from engine.llm import Keys
    from engine.summary import Summaries, Summary

log = logging.getLogger("memtray.desktop.seams")

translate = QCoreApplication.translate

KEY_TEST_PROMPT = "Reply with the single word OK."
KEY_TEST_TIMEOUT_S = 30.0

# -- plain views the widgets show ----------------------------------------------------------------


@dataclass(frozen=True)
class SummaryView:
    """A session's summary as the engine keeps it, and how far it goes (Unix ns; 0: not summarized)."""

    summary: Summary
    cursor_ns: int = 0


@dataclass(frozen=True)
class SummaryState:
    """The summarizer as the tray tooltip tells it.

    Attributes:
        last_run: Unix ns of the last run this app made (None: none yet).
        active: summaries run on the schedule (enabled and a key is available).
        message: the engine's one line about why not, when not active.
        running: sessions being summarized right now.
    """

    last_run: int | None = None
    active: bool = True
    message: str = ""
    running: tuple[str, ...] = ()


@dataclass(frozen=True)
class KeyInfo:
    """Where the Gemini key comes from, in words (never the key itself, at most a masked hint).

    Attributes:
        text: one or two sentences for the settings window.
        source: ``env``, ``this-run``, ``keyring`` or ``none``.
        secure_store: whether an OS keyring can store a key; False offers "use for this session only".
        masked: e.g. ``AIza…1234`` when a key is available, else ``""``.
    """

    text: str
    source: str = "none"
    secure_store: bool = True
    masked: str = ""


# -- protocols the widgets use -----------------------------------------------------------------


class SummarySource(Protocol):
    """Summaries, as the summary panel, the tray and the scheduler need them. Every call runs on a worker."""

    def load(self, session: str) -> SummaryView | None: ...
    def generate(self, session: str) -> object: ...
    def run_pending(self) -> object: ...
    def pending(self) -> list[str]: ...
    def state(self) -> SummaryState: ...


class ErrorSource(Protocol):
    """The error memory, as its tab needs it. Every call runs on a worker."""

    def list(self, limit: int = 500) -> builtins.list[ErrorRecord]: ...
    def count(self) -> int: ...
    def search(self, query: str, limit: int = 50) -> builtins.list[ErrorRecord]: ...
    def forget(self, record_id: str) -> None: ...


class KeyStore(Protocol):
    """The Gemini key, as the settings window needs it. Every call runs on a worker."""

    def status(self) -> KeyInfo: ...
    def set_key(self, value: str) -> KeyInfo: ...
    def use_for_session(self, value: str) -> KeyInfo: ...
    def delete_key(self) -> KeyInfo: ...
    def test_key(self, settings: Settings, candidate: str = "") -> str: ...


# -- summaries ---------------------------------------------------------------------------------


def summary_view(summary: Summary, cursor_ns: int = 0) -> SummaryView | None:
    """A :class:`SummaryView` of the engine's summary; None when there is no summary and no cursor."""
    if summary.is_empty and not cursor_ns:
        return None
    return SummaryView(summary, cursor_ns)


class EngineSummaries:
    """:class:`SummarySource` over ``mem.summaries``; remembers when this app last ran the summarizer."""

    def __init__(self, part: Summaries) -> None:
        self.part = part
        self._last_run: int | None = None
        self._guard = threading.Lock()

    def load(self, session: str) -> SummaryView | None:
        return summary_view(self.part.load(session), self.part.cursor_ns(session))

    def generate(self, session: str) -> object:
        try:
            return self.part.generate(session)
        finally:
            self._ran()

    def run_pending(self) -> object:
        try:
            return self.part.run_pending()
        finally:
            self._ran()

    def pending(self) -> list[str]:
        return list(self.part.pending())

    def state(self) -> SummaryState:
        status = self.part.status()
        with self._guard:
            last = self._last_run
        return SummaryState(last, status.active, "" if status.active else status.message, status.running)

    def _ran(self) -> None:
        with self._guard:
            self._last_run = time.time_ns()


# -- error memory ------------------------------------------------------------------------------


class EngineErrors:
    """:class:`ErrorSource` over ``mem.errors``."""

    def __init__(self, part: ErrorMemory) -> None:
        self.part = part

    def list(self, limit: int = 500) -> builtins.list[ErrorRecord]:
        return self.part.records(limit=limit)

    def count(self) -> int:
        return self.part.count()

    def search(self, query: str, limit: int = 50) -> builtins.list[ErrorRecord]:
        return self.part.search(query, limit=limit)

    def forget(self, record_id: str) -> None:
        self.part.forget(record_id)


# -- the key -----------------------------------------------------------------------------------


def mask(key: str) -> str:
    """A hint of a key that does not give it away: ``AIza…1234`` (only ``…`` for a short key)."""
    key = key.strip()
    return f"{key[:4]}…{key[-4:]}" if len(key) >= 16 else "…"


class EngineKeys:
    """:class:`KeyStore` over one :class:`engine.llm.keys.Keys` (the summarizer's own, so a key for this
    session reaches it)."""

    def __init__(self, keys: Keys) -> None:
        self.keys = keys

    def status(self) -> KeyInfo:
        status = self.keys.status()
        key = self.keys.get() if status.available else None
        masked = mask(key) if key else ""
        if status.source == "env":
            text = translate(
                "Keys",
                "The key comes from the GEMINI_API_KEY environment variable ({masked}); it wins over the keyring.",
            )
        elif status.source == "this-run":
            text = translate(
                "Keys", "A key ({masked}) is used for this session only: it is forgotten when memtray quits."
            )
        elif status.source == "keyring":
            text = translate("Keys", "A key ({masked}) is stored in the OS keyring ({backend}).")
        elif status.secure_store:
            text = translate(
                "Keys", "No key is stored. Paste one and press Save key; it goes to the OS keyring."
            )
        else:
            text = translate(
                "Keys",
                "This computer has no secure key store (OS keyring), and memtray never saves the key in "
                "plain text. Paste a key and press “Use for this session only”: it is kept in memory until "
                "memtray quits (or set GEMINI_API_KEY in the environment).",
            )
        backend = status.backend.rsplit(".", 2)[-2] if status.source == "keyring" else ""
        text = text.format(masked=masked, backend=backend)
        return KeyInfo(text, status.source, status.secure_store, masked)

    def set_key(self, value: str) -> KeyInfo:
        self.keys.set(value)
        self.keys.use_for_this_run(None)  # the stored key wins from now on
        return self.status()

    def use_for_session(self, value: str) -> KeyInfo:
        self.keys.use_for_this_run(value)  # the engine checks the key (InvalidKey), as for set_key
        return self.status()

    def delete_key(self) -> KeyInfo:
        if self.keys.secure_store():
            self.keys.delete()
        else:
            self.keys.use_for_this_run(None)
        return self.status()

    def test_key(self, settings: Settings, candidate: str = "") -> str:
        """Make one real call with ``candidate`` (or the configured key); say what happened.

        Raises:
            NoApiKey: no candidate and no configured key.
            AuthError, QuotaExceeded, GeminiTimeout, GeminiUnavailable, GeminiError: the call failed.
        """
        from engine.llm import make_client, translated_errors

        key = candidate.strip() or self.keys.require()
        model = settings.summary_model
        client = make_client(key, base_url=settings.gemini_base_url, timeout_s=KEY_TEST_TIMEOUT_S, attempts=1)
        started = time.perf_counter()
        with translated_errors(f"Gemini {model}"):
            client.models.generate_content(model=model, contents=KEY_TEST_PROMPT)
        seconds = time.perf_counter() - started
        log.info("key test: %s answered in %.2f s", model, seconds)
        if candidate.strip():
            text = translate("Keys", "This key works: {model} answered in {seconds} s.")
        else:
            text = translate("Keys", "The key works: {model} answered in {seconds} s.")
        return text.format(model=model, seconds=f"{seconds:.1f}")


# -- finding the parts -------------------------------------------------------------------------


def summaries_of(mem: Memory) -> EngineSummaries:
    return EngineSummaries(mem.summaries)


def errors_of(mem: Memory) -> EngineErrors:
    return EngineErrors(mem.errors)


def key_store(keys: Keys) -> EngineKeys:
    return EngineKeys(keys)

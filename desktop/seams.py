"""The small interfaces the desktop app uses for engine parts that land later, and their adapters.

The viewer's summary panel, error-memory tab and the settings window's key field are built against the
protocols here, not against the engine's classes, so they can be tested with fakes today and wired to the
engine by adapting, not rewriting. Each ``*_of(mem)`` returns an adapter when the engine part exists
and ``None`` when it does not (the app then leaves that piece out rather than showing a dead widget).

What each adapter expects from the engine (duck-typed; dicts or objects with these names both work):

- ``mem.semantic`` present → ``Memory.search(match="semantic"|"hybrid")`` works.
- ``mem.summaries``: ``load(session)`` → a summary with ``key_decisions`` (list of str),
  ``past_discussions`` (list of {topic, description, direction, last_discussed}) and
  ``current_discussion`` ({topic, description, perspectives, direction}), or None;
  ``cursor(session)`` → Unix ns (or ``YYYY-MM-DD HH:MM:SS``), 0/None if never;
  ``generate(session)``; ``pending()`` → session ids; ``status()`` → with ``last_run`` (Unix ns or None);
  ``tick()`` → runs due scheduled jobs (called off the GUI thread).
- ``mem.errors``: ``list(limit=)`` / ``search(query, limit=)`` → records with ``id``, ``tool_name``,
  ``symptom``, ``action``, ``outcome``, ``cause``, ``keywords``, ``expire_at`` (Unix seconds);
  ``forget(id_prefix)``.
- ``engine.keys`` (module): ``status()`` → short text, ``set_key(value)``, ``delete_key()``,
  ``test_key(settings)`` → short text after one real call.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

# -- plain views the widgets show ----------------------------------------------------------------


@dataclass(frozen=True)
class Discussion:
    """One discussion of a summary (current or past)."""

    topic: str
    description: str = ""
    direction: str = ""
    perspectives: str = ""
    last_discussed: str = ""


@dataclass(frozen=True)
class SummaryView:
    """A session's summary as the summary panel shows it."""

    key_decisions: list[str] = field(default_factory=list)
    current: Discussion | None = None
    past: list[Discussion] = field(default_factory=list)
    cursor_ns: int = 0


@dataclass(frozen=True)
class ErrorRecordView:
    """One error-memory record as the table shows it."""

    id: str
    tool: str
    symptom: str
    action: str
    outcome: str
    cause: str = ""
    keywords: tuple[str, ...] = ()
    expire_at: int = 0  # Unix seconds; 0 = unknown

    def expires_in_days(self, now: float | None = None) -> int | None:
        if not self.expire_at:
            return None
        return max(0, int((self.expire_at - (now if now is not None else time.time())) // 86400))


# -- protocols the widgets use -----------------------------------------------------------------


class SummarySource(Protocol):
    """Summaries, as the summary panel and the tray need them. Every call runs on a worker."""

    def load(self, session: str) -> SummaryView | None: ...
    def generate(self, session: str) -> object: ...
    def pending(self) -> list[str]: ...
    def last_run(self) -> int | None: ...
    def tick(self) -> None: ...


class ErrorSource(Protocol):
    """The error memory, as its tab needs it. Every call runs on a worker."""

    def list(self, limit: int = 500) -> builtins.list[ErrorRecordView]: ...
    def search(self, query: str, limit: int = 50) -> builtins.list[ErrorRecordView]: ...
    def forget(self, record_id: str) -> None: ...


class KeyStore(Protocol):
    """The Gemini key, as the settings window needs it. Every call runs on a worker."""

    def status(self) -> str: ...
    def set_key(self, value: str) -> None: ...
    def delete_key(self) -> None: ...
    def test_key(self, settings: object) -> str: ...


# -- adapters over the engine ------------------------------------------------------------------


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _discussion(raw: Any) -> Discussion | None:
    if not raw:
        return None
    topic = str(_get(raw, "topic", "") or "")
    found = Discussion(
        topic=topic,
        description=str(_get(raw, "description", "") or ""),
        direction=str(_get(raw, "direction", "") or ""),
        perspectives=str(_get(raw, "perspectives", "") or ""),
        last_discussed=str(_get(raw, "last_discussed", "") or ""),
    )
    return found if any((found.topic, found.description, found.direction, found.perspectives)) else None


def _ns(value: Any) -> int:
    if value is None or value == "":
        return 0
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, datetime):
        return int(value.timestamp() * 1e9)
    text = str(value).strip()
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"):
        try:
            return int(datetime.strptime(text, fmt).astimezone().timestamp()) * 1_000_000_000
        except ValueError:
            continue
    return 0


def summary_view(raw: Any, cursor: Any = None) -> SummaryView | None:
    """A :class:`SummaryView` from the engine's summary (a dict of summary.json or an object)."""
    if raw is None:
        return None
    past = [d for d in (_discussion(p) for p in _get(raw, "past_discussions", []) or []) if d]
    return SummaryView(
        key_decisions=[str(k) for k in _get(raw, "key_decisions", []) or []],
        current=_discussion(_get(raw, "current_discussion")),
        past=past,
        cursor_ns=_ns(cursor),
    )


class EngineSummaries:
    """:class:`SummarySource` over ``mem.summaries``."""

    def __init__(self, part: Any) -> None:
        self._part = part

    def load(self, session: str) -> SummaryView | None:
        cursor = self._part.cursor(session) if hasattr(self._part, "cursor") else None
        return summary_view(self._part.load(session), cursor)

    def generate(self, session: str) -> object:
        return self._part.generate(session)

    def pending(self) -> list[str]:
        return list(self._part.pending())

    def last_run(self) -> int | None:
        status = self._part.status() if hasattr(self._part, "status") else None
        value = _ns(_get(status, "last_run")) if status is not None else 0
        return value or None

    def tick(self) -> None:
        self._part.tick()


def error_view(raw: Any) -> ErrorRecordView:
    keywords: Sequence[Any] = _get(raw, "keywords", ()) or ()
    return ErrorRecordView(
        id=str(_get(raw, "id", "")),
        tool=str(_get(raw, "tool_name", "") or _get(raw, "tool", "") or ""),
        symptom=str(_get(raw, "symptom", "") or ""),
        action=str(_get(raw, "action", "") or ""),
        outcome=str(_get(raw, "outcome", "") or ""),
        cause=str(_get(raw, "cause", "") or ""),
        keywords=tuple(str(k) for k in keywords),
        expire_at=int(_get(raw, "expire_at", 0) or 0),
    )


class EngineErrors:
    """:class:`ErrorSource` over ``mem.errors``."""

    def __init__(self, part: Any) -> None:
        self._part = part

    def list(self, limit: int = 500) -> builtins.list[ErrorRecordView]:
        return [error_view(r) for r in self._part.list(limit=limit)]

    def search(self, query: str, limit: int = 50) -> builtins.list[ErrorRecordView]:
        return [error_view(r) for r in self._part.search(query, limit=limit)]

    def forget(self, record_id: str) -> None:
        self._part.forget(record_id)


class EngineKeys:
    """:class:`KeyStore` over the ``engine.keys`` module."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def status(self) -> str:
        return str(self._module.status())

    def set_key(self, value: str) -> None:
        self._module.set_key(value)

    def delete_key(self) -> None:
        self._module.delete_key()

    def test_key(self, settings: object) -> str:
        return str(self._module.test_key(settings))


def has_semantic(mem: object) -> bool:
    """True when the memory can search by meaning (``match="semantic"|"hybrid"``)."""
    return getattr(mem, "semantic", None) is not None


def summaries_of(mem: object) -> SummarySource | None:
    part = getattr(mem, "summaries", None)
    return EngineSummaries(part) if part is not None else None


def errors_of(mem: object) -> ErrorSource | None:
    part = getattr(mem, "errors", None)
    return EngineErrors(part) if part is not None else None


def key_store() -> KeyStore | None:
    """The engine's key module, when this build has it."""
    if importlib.util.find_spec("engine.keys") is None:
        return None
    return EngineKeys(importlib.import_module("engine.keys"))

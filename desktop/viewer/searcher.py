"""Searching as you type, for any search box: the viewer's search pane and the quick search window.

Each change of the box waits :data:`TYPING_MS` for the next keystroke, then one search runs on the store
worker (:func:`desktop.viewer.hits.run_search`); while it runs, only the newest query is searched next,
and an answer to an older query is never shown. :meth:`Searcher.more` reads the context of the next page
of hits (:data:`desktop.viewer.hits.PAGE`). :func:`count_text` says how many results there are.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from desktop.tasks import TaskRunner
from desktop.viewer.hits import PAGE, Found, Query, Result, run_search, with_context
from engine import Memory, Message

log = logging.getLogger("memtray.desktop.viewer.search")

translate = QCoreApplication.translate

TYPING_MS = 300
"""How long a box waits for the next keystroke before it searches."""
QUICK_TYPING_MS = 150
"""The same for the quick search, which also searches its first keystroke at once."""


def count_text(shown: int, total: int, capped: bool) -> str:
    """``3 results``, ``50 of 76 results``, ``50 of 200+ results``, ``The first 200 results``."""
    if capped:
        if shown < total:
            return translate("Search", "{shown} of %n+ results", "", total).format(shown=shown)
        return translate("Search", "The first %n results (more words narrow the search)", "", total)
    if shown < total:
        return translate("Search", "{shown} of %n result(s)", "", total).format(shown=shown)
    return translate("Search", "%n result(s)", "", total)


def found_text(found: Found | None, shown: int) -> str:
    """What a box's status line says of its answer: how many results, and, when meaning search saw only
    the messages embedded so far, how many that was (``12 results · meaning search covers 8,992 of 55,759
    messages so far``)."""
    total = len(found.hits) if found is not None else 0
    text = (
        count_text(shown, total, found.capped)
        if found is not None and total
        else translate("Search", "No results.")
    )
    if found is not None and found.partial and found.coverage is not None:
        covered = translate("Search", "meaning search covers {embedded} of {total} messages so far").format(
            embedded=f"{min(found.coverage.embedded, found.coverage.total):,}",
            total=f"{found.coverage.total:,}",
        )
        text = translate("Search", "{count} · {coverage}").format(count=text, coverage=covered)
    return text


class Searcher(QObject):
    """Runs the searches of one box; ``query()`` gives what the box asks for now (None: nothing).

    Signals:
        search_did_start(): a search went to the store worker.
        search_did_finish(object): the :class:`~desktop.viewer.hits.Found` of the box's current query.
        page_did_load(object): every :class:`~desktop.viewer.hits.Result` shown, after :meth:`more`.
        search_did_fail(object): the exception of a failed search (of the current query).
    """

    search_did_start = Signal()
    search_did_finish = Signal(object)
    page_did_load = Signal(object)
    search_did_fail = Signal(object)

    def __init__(
        self,
        runner: TaskRunner,
        query: Callable[[], Query | None],
        parent: QObject | None = None,
        *,
        typing_ms: int = TYPING_MS,
        leading: bool = False,
    ):
        """``typing_ms``: the pause that ends typing; ``leading``: the first change after a pause is
        searched at once (the quick search: its first keystroke answers without waiting for the next)."""
        super().__init__(parent)
        self._leading = leading
        self.runner = runner
        self.query = query
        self.memory: Memory | None = None
        self.found: Found | None = None
        self.results: list[Result] = []
        self._running: Query | None = None  # the search on the worker now
        self._again = False  # the query changed while it ran: search again when it ends
        self._paging = False
        self._typing = QTimer(self)
        self._typing.setSingleShot(True)
        self._typing.setInterval(typing_ms)
        self._typing.timeout.connect(self._on_typing_paused)
        self._changed = False  # the box changed since the leading search

    @property
    def running(self) -> bool:
        return self._running is not None

    @property
    def pending(self) -> bool:
        """A search waits for the typing pause to end, or runs."""
        return self._typing.isActive() or self._running is not None

    def typed(self) -> None:
        """The box changed: search after the typing pause (nothing while it is empty); with ``leading``,
        at once when nothing was typed or searched just before."""
        if self.query() is None:
            self._typing.stop()
        elif self._leading and not self._typing.isActive() and self._running is None:
            self.search()
            self._changed = False
            self._typing.start()  # the changes that follow wait for the pause (then one search more)
        else:
            self._changed = True
            self._typing.start()

    def _on_typing_paused(self) -> None:
        if self._changed or not self._leading:
            self.search()

    def search(self) -> None:
        """Search for the current query now (after the running search, if one runs)."""
        self._typing.stop()
        mem, query = self.memory, self.query()
        if mem is None or query is None:
            return
        if self._running is not None:
            self._again = True
            return
        self._running = query
        self._again = False
        self.search_did_start.emit()
        self.runner.run_query(
            lambda: run_search(mem, query),
            lambda found: self._on_found(query, found),
            lambda exc: self._on_failure(query, exc),
            owner=self,
        )

    @property
    def has_more(self) -> bool:
        return self.found is not None and len(self.results) < len(self.found.hits)

    def more(self) -> None:
        """Read the context of the next page of the last search's hits (then :attr:`page_did_load`)."""
        mem, found = self.memory, self.found
        if mem is None or found is None or not self.has_more or self._paging:
            return
        hits = found.hits[len(self.results) : len(self.results) + PAGE]
        self._paging = True
        self.runner.run_query(
            lambda: with_context(mem, hits),
            lambda page: self._on_page(found, page),
            lambda exc: self._on_page_failure(found, exc),
            owner=self,
        )

    def drop(self, session: str, message_ids: Collection[int] | None = None) -> None:
        """Take deleted messages out of the answer shown: every message of ``session`` (``message_ids``
        None: its text is gone, or some of it and which is not known), else those messages, as hits and
        as context lines. The answer without them is :attr:`search_did_finish` again; with ``None`` the
        search also runs again (what of the session remains comes back)."""
        found = self.found
        if found is None:
            return

        def gone(m: Message) -> bool:
            return m.session == session and (message_ids is None or m.id in message_ids)

        if not any(gone(m) for r in self.results for m in r.context) and not any(
            gone(h.message) for h in found.hits
        ):
            return
        hits = [h for h in found.hits if not gone(h.message)]
        results = [
            Result(r.hit, [m for m in r.context if not gone(m)])
            for r in self.results
            if not gone(r.hit.message)
        ]
        self.found = Found(found.query, hits, results)
        self.results = results
        self.search_did_finish.emit(self.found)
        if message_ids is None:
            self.search()

    def _finished(self, query: Query) -> bool:
        """The search of ``query`` ended; True if its answer is still the one to show."""
        self._running = None
        if self._again or query != self.query():
            self.search()  # the box changed meanwhile: that answer is out of date
            return False
        return True

    def _on_found(self, query: Query, found: Found) -> None:
        if not self._finished(query):
            return
        self.found = found
        self.results = list(found.results)
        self.search_did_finish.emit(found)

    def _on_failure(self, query: Query, exc: BaseException) -> None:
        if not self._finished(query):
            return
        self.found = None
        self.results = []
        self.search_did_fail.emit(exc)

    def _on_page(self, found: Found, page: list[Result]) -> None:
        self._paging = False
        if found is not self.found:
            return
        self.results += page
        self.page_did_load.emit(self.results)

    def _on_page_failure(self, found: Found, exc: BaseException) -> None:
        self._paging = False
        if found is self.found:
            self.search_did_fail.emit(exc)

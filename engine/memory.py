"""The memory engine's facade and composition root: :class:`Memory`.

:meth:`Memory.open` builds the parts of one home folder and wires them together:

- the SQLite store and the settings kept in it (:class:`engine.settings.StoredSettings`);
- the session log (:class:`engine.sessions.log.SessionLog`): each session's history.json (tier 1) and
  its archive rows with the FTS indexes (tier 3), written together under the session's lock by the
  append/replay protocol (``docs/architecture.md``, *The session log: append, replay, compaction*);
- the semantic tier (``mem.semantic``, the vectors) and the search (:class:`engine.search.conductor.Search`,
  with its context index), which follow the archive as listeners of the log;
- the error memory (``mem.errors``), the Gemini key store (``mem.keys``), the token usage
  (``mem.usage``) and the summarizer (``mem.summaries``, built on first use).

Each public method hands the call to one of them.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import database
from engine.clock import TIME_RANGES, Clock, system_clock
from engine.errormemory import ErrorMemory
from engine.errors import MemoryInUse
from engine.llm.keys import Keys
from engine.llm.usage import Usage
from engine.messages import EVERY_MESSAGE, Message, MessageFilter
from engine.paths import Paths
from engine.repair import journal as repairjournal
from engine.search.conductor import Search
from engine.search.hits import Hit, SearchResult, check_arguments
from engine.semantic.tier import SemanticStatus, SemanticTier
from engine.sessions import folders as session_files
from engine.sessions import titles
from engine.sessions.compaction import CompactResult
from engine.sessions.folders import SessionInfo
from engine.sessions.listeners import ResetResult
from engine.sessions.log import SessionLog
from engine.sessions.tombkeys import TombKeys
from engine.settings import Settings, StoredSettings, from_stored
from engine.storage import integrity
from engine.storage.diskerrors import file_errors
from engine.storage.holders import Hold, Holders
from engine.storage.sql import Connection
from engine.storage.store import Store

if TYPE_CHECKING:  # the summarizer (pydantic, Gemini) and repair are loaded when first used
    from engine.embedders import Embedder
    from engine.imported import ImportedSession, ImportReport
    from engine.llm.gemini import ClientFactory
    from engine.repair.rebuild import RepairReport
    from engine.summary import Summaries, TurnContext
    from engine.sync.service import Sync

log = logging.getLogger("memtray.memory")

EMBEDDER_ENV = "MEMTRAY_EMBEDDER"
"""Overrides the ``embedder`` setting for one run (``hash`` in the test suite, ``use`` on a slow machine)."""


def _hold(paths: Paths, clock: Clock) -> Hold:
    """This program's hold on the memory of ``paths`` (:mod:`engine.storage.holders`), taken after
    finishing a repair that was interrupted (its journal is there): under the gate no repair runs, and
    no program holds the memory while a repair's journal is there, since every opener finishes it first.

    Raises:
        MemoryInUse: a repair is running in another program (past the wait), or an interrupted one
            cannot be finished because another program holds the memory.
    """
    holders = Holders(paths.store_dir)
    with holders.gate() as writable:
        if writable and (paths.store_dir / repairjournal.NAME).exists():
            if holders.others():
                raise MemoryInUse(
                    "an interrupted repair of the memory must be finished, but another program has the "
                    "memory open; close it and try again"
                )
            from engine.repair.rebuild import finish_interrupted

            finish_interrupted(paths, clock=clock)
        return holders.register()


class Memory:
    """The memory of one home folder. Open it with :meth:`open`; close it with :meth:`close`.

    Attributes:
        paths: the home's folders and files.
        clock: the wall clock (Unix nanoseconds).
        keys: the Gemini key store, shared by the summarizer, the chat and the Gemini embedder.
        usage: the Gemini tokens used, per session and purpose (``mem.usage.totals(session)``).
        semantic: the vectors: semantic and hybrid search, the background embedder.
        errors: the global error memory; its ``purge_expired()`` runs hourly.
    """

    def __init__(
        self,
        paths: Paths,
        store: Store,
        *,
        clock: Clock,
        keys: Keys,
        embedder: Embedder | None,
        background: bool,
        client_factory: ClientFactory | None,
    ) -> None:
        self.paths = paths
        self.clock = clock
        self.keys = keys
        self._store = store
        self._closed = False
        self._hold = Hold(None)  # Memory.open's hold on the memory (engine.storage.holders)
        self._settings = StoredSettings(database.SettingsTable(store))
        self._client_factory = client_factory
        self.usage = Usage(store, clock)
        self._log = SessionLog(paths, store, clock, self._settings.get)
        self._log.tomb_keys.shared = self._shared_tomb_key  # the sync folder's key, while sync is on
        self._log.remove_stale_locks()
        self.semantic = SemanticTier(
            paths,
            store,
            clock,
            setting=os.environ.get(EMBEDDER_ENV) or self.settings.embedder,
            embedder=embedder,
            gemini_key=keys.get,
            gemini_base_url=self.settings.gemini_base_url,
            background=background,
        )
        self.semantic.set_paused(self.settings.embedding_paused)
        self._log.listeners.append(self.semantic)
        self._search = Search(store, self.semantic)
        self._log.listeners.append(self._search)  # it keeps the context index in step with the archive
        self._log.finish_forgets()  # a forget a kill interrupted is finished before anything reads
        self._log.settle_imports()  # so is the history.json of an import killed after its commit
        self._log.restore_emptied()  # a missing or emptied database: history.json is archived again
        # The error memory embeds with the semantic tier's embedder (loaded lazily, off the caller's path).
        self.errors = ErrorMemory.open(store, clock=clock, embedder=self.semantic.loaded_embedder)
        self.errors.tomb_keys = self._log.tomb_keys

    @classmethod
    def open(
        cls,
        home: Path | str | None = None,
        *,
        keys: Keys | None = None,
        clock: Clock | None = None,
        embedder: Embedder | None = None,
        background: bool = True,
        client_factory: ClientFactory | None = None,
    ) -> Memory:
        """Open (creating if needed) the memory in ``home`` (None: ``MEMTRAY_HOME`` or the default).

        Args:
            keys: where the Gemini key comes from (default: ``GEMINI_API_KEY``, then the OS keyring). Every
                part that calls Gemini (the summarizer, the chat, the Gemini embedder) uses this one, so a
                key given for this run only (``--key-stdin``, the app's "this session only") reaches all.
            clock: the wall clock (tests pass a fake one).
            embedder: overrides the ``embedder`` setting (tests pass ``HashEmbedder()``).
            background: run the background embedder in this process (the app, the daemon, the MCP
                server). A short-lived command passes False: its appends are queued durably and embedded
                by the next process that runs it; a semantic search still loads the model when asked.
            client_factory: ``(api_key, base_url) -> genai.Client`` for the summarizer (tests: fast retries).
        """
        with file_errors("its home folder"):
            paths = Paths.resolve(home)
        hold = _hold(paths, clock or system_clock)
        try:
            store = database.open_store(paths.database)
            log.info(
                "memory opened at %s (SQLite %s, FTS: %s)",
                paths.home,
                store.features.sqlite_version,
                ", ".join(sorted(store.fts_tables)) or "none",
            )
            try:
                memory = cls(
                    paths,
                    store,
                    clock=clock or system_clock,
                    keys=keys if keys is not None else Keys(),
                    embedder=embedder,
                    background=background,
                    client_factory=client_factory,
                )
            except BaseException:
                store.close()
                raise
        except BaseException:
            hold.release()
            raise
        memory._hold = hold
        return memory

    # -- settings ---------------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The settings in use."""
        return self._settings.get()

    def update_settings(self, **changes: Any) -> Settings:
        """Validate and store setting changes; return the new settings.

        Raises:
            InvalidSetting: an unknown name or a bad value (nothing is stored).
        """
        updated = self._settings.update(**changes)
        if "embedder" in changes:
            self.semantic.switch_embedder(updated.embedder)  # re-embeds everything in the background
        self.semantic.set_paused(updated.embedding_paused)
        return updated

    def reload_settings(self) -> Settings:
        """Re-read the settings (another process may have changed them)."""
        reloaded = self._settings.reload()
        self.semantic.set_paused(reloaded.embedding_paused)
        return reloaded

    @staticmethod
    def peek_settings(home: Path | str | None = None) -> Settings:
        """The settings of ``home`` read quickly and read-only, without opening the memory (a program's
        start); the defaults where the database is missing or cannot be read."""
        return from_stored(database.peek_setting_rows(Paths.resolve(home).database))

    # -- changes made by other programs -----------------------------------------------------------

    def change_mark(self) -> tuple[int, int]:
        """A cheap mark that differs whenever the memory may have changed since the last call.

        ``(data version, sessions folder mtime)``: the database's version moves with every commit (by
        any program, this one included) and the folder's time with a session added or removed. A few
        microseconds; poll it every few seconds to follow the CLI, the MCP server or the scheduler.
        """
        try:
            folder = self.paths.sessions_dir.stat().st_mtime_ns
        except OSError:
            folder = 0
        return self._store.data_version(), folder

    def check_integrity(self, *, daily: bool = False) -> bool:
        """SQLite's full check of the database: every page and index (seconds on a large archive, so never
        part of an open). The long-running programs run it daily in the background (:mod:`engine.jobs`).

        Args:
            daily: only if the last full check ran a day ago or more (its time is kept in
                ``.store/integrity-checked``).

        Returns:
            Whether the check ran.

        Raises:
            CorruptStore: the database is damaged (``memtray repair`` rebuilds it).
        """
        stamp, now = self.paths.integrity_stamp, self.clock()
        if daily and not integrity.due(stamp, now):
            return False
        started = time.monotonic()
        self._store.check()  # a damaged database is checked again next time: no record
        integrity.record(stamp, now)
        log.info("integrity check of the database: ok (%.1f s)", time.monotonic() - started)
        return True

    @staticmethod
    def repair(home: Path | str | None = None) -> RepairReport:
        """``memtray repair``: rebuild a damaged database of ``home`` (nothing to do for a healthy one).

        Every program holding the memory open must be closed first: while one holds it, the repair
        refuses (MemoryInUse) and changes nothing. A repair interrupted before is finished first (the
        report's ``resumed``). Raises StorageError when the files cannot be moved or written.
        """
        from engine.repair.rebuild import repair

        return repair(Paths.resolve(home))

    # -- sessions ---------------------------------------------------------------------------------

    def exists(self, session: str) -> bool:
        return self._log.exists(session)

    def _require(self, session: str) -> None:
        self._log.require(session)

    def sessions(
        self, *, include_temp: bool = True, limit: int | None = None, with_files: bool = True
    ) -> list[SessionInfo]:
        """Every session (or the ``limit`` most recent) with its title and message times, the one with the
        latest message first; ``with_files=False`` leaves out the size and time of its files (0)."""
        return self._log.sessions(include_temp=include_temp, limit=limit, with_files=with_files)

    def session_info(self, session: str) -> SessionInfo:
        """What the session list shows of one session, without listing the others.

        Raises:
            SessionNotFound: no such session.
        """
        return self._log.session_info(session)

    def set_title(self, session: str, title: str, *, source: str = titles.USER, told: bool = False) -> str:
        """Give a session the user's title ("" goes back to its first user message); return it as stored.
        ``told``: a title of another device's (``source`` its kind) that a sync applies, not sent back."""
        return self._log.set_title(session, title, source=source, told=told)

    # -- writing ----------------------------------------------------------------------------------

    def append(self, session: str, messages: Sequence[Message], *, create: bool = True) -> list[Message]:
        """Append messages to a session: history.json and the archive, in one call.

        Args:
            session: the session id.
            messages: the new messages, oldest first (ids are ignored).
            create: create the session if it does not exist (else raise SessionNotFound).

        Returns:
            The messages as stored, exactly as given (a message without text too), each with its archive
            id (``None`` in a ``priv-`` session, which is never archived) and session.

        Raises:
            InvalidSessionId, InvalidMessage, InvalidInput: bad input (more than 100,000 messages);
                nothing is written.
            SessionNotFound: no such session and ``create`` is False.
            StorageError: the disk or the database failed; the call may be retried (a retry of the same
                messages is stored once).
        """
        return self._log.append(session, messages, create=create)

    def import_sessions(
        self, imported: Sequence[ImportedSession], progress: Callable[[int, int], None] | None = None
    ) -> ImportReport:
        """Append imported conversations, skipping messages the session already holds.

        A message counts as present when the archive has one with the same role, text and time, so
        importing the same file twice adds nothing. An imported summary is installed when the session has
        none. The conversations are stored a batch at a time (up to 5,000 messages in one write
        transaction; :mod:`engine.sessions.importing`), and ``progress(done, total)`` is called after each
        batch. What is imported is keyword-searchable as soon as this returns.
        """
        return self._log.import_sessions(imported, progress)

    # -- reading ----------------------------------------------------------------------------------

    def history(self, session: str) -> list[Message]:
        """Every message in history.json, oldest first, with archive ids where known.

        Raises:
            SessionNotFound: no such session.
        """
        return self._log.history(session)

    def window(self, session: str) -> list[Message]:
        """The last ``max_history_messages`` messages (by count), oldest first."""
        return self._log.window(session)

    def archive_page(self, session: str, before_id: int | None = None, limit: int = 200) -> list[Message]:
        """Archived messages of a session older than ``before_id``, newest first (for lazy scrolling)."""
        return self._log.archive_page(session, before_id, limit)

    def archive_count(self, session: str) -> int:
        """How many messages of a session are archived (every message with text; none in a ``priv-``)."""
        return self._log.archive_count(session)

    def archive_position(self, session: str, message_id: int) -> int:
        """How many archived messages of a session are older than ``message_id``: its position, oldest
        first (0 for the oldest), as :meth:`archive_slice` counts."""
        return self._log.archive_position(session, message_id)

    def archive_slice(self, session: str, offset: int, limit: int = 200) -> list[Message]:
        """A session's archived messages by position: ``limit`` (at most 5,000) from ``offset`` (0: the
        oldest), oldest first (for a view that jumps anywhere in a long session)."""
        return self._log.archive_slice(session, offset, limit)

    def around(self, session: str, message_id: int, before: int = 2, after: int = 1) -> list[Message]:
        """A message with ``before`` archived messages before it and ``after`` after it, oldest first.

        The context a search result is shown with.
        """
        return self._log.around(session, message_id, before, after)

    def archived(self, session: str, scope: str = "all") -> list[Message]:
        """The session's archived messages, oldest first: all of them, or (``scope="recent"``) those
        still in history.json. An unknown session has none."""
        return self._log.archived(session, recent=scope == "recent")

    def compaction_cut(self, session: str) -> int:
        """The id of the first message still in history.json (0 if never compacted)."""
        return self._log.compaction_cut(session)

    def search(
        self,
        query: str,
        session: str | None = None,
        match: str = "hybrid",
        scope: str = "all",
        time_range: str | None = None,
        limit: int = 10,
        *,
        where: MessageFilter | None = None,
    ) -> list[Hit]:
        """Search the memory; the hits of :meth:`search_with_coverage`, best first.

        Args:
            query: natural-language text; ``"quoted phrases"`` stay phrases.
            session: one session, or None for all of them.
            match: ``keyword``, ``semantic`` or ``hybrid``.
            scope: ``recent`` (still in history.json) or ``all`` (everything archived).
            time_range: ``1d``, ``7d``, ``1m``, ``1y`` or None for no bound.
            limit: at most this many hits (1-200).
            where: only the messages it admits (role, sender, times), chosen before the ranking takes its
                best, so a page of a filtered search is as full as its matches allow; with ``time_range``,
                the later lower bound counts.

        Raises:
            InvalidInput: an unknown match, scope or range, or a bad limit.
            SessionNotFound: the session does not exist.
        """
        return list(self._find(query, session, match, scope, time_range, limit, where, coverage=False).hits)

    def search_with_coverage(
        self,
        query: str,
        session: str | None = None,
        match: str = "hybrid",
        scope: str = "all",
        time_range: str | None = None,
        limit: int = 10,
        *,
        where: MessageFilter | None = None,
    ) -> SearchResult:
        """:meth:`search`, with what its meaning search covered.

        A search never waits for the embedding backlog: semantic and hybrid search rank the messages
        embedded so far (the newest are embedded first) and keyword search finds the rest.
        ``result.coverage`` says how many messages of the session (or of all) that was
        (``coverage.describe()``: "meaning search covers 3,200 of 50,000 messages"); it is ``None`` for
        keyword search. Arguments and errors as :meth:`search`.
        """
        return self._find(query, session, match, scope, time_range, limit, where, coverage=True)

    def _find(
        self,
        query: str,
        session: str | None,
        match: str,
        scope: str,
        time_range: str | None,
        limit: int,
        where: MessageFilter | None,
        *,
        coverage: bool,
    ) -> SearchResult:
        check_arguments(match, scope, time_range, limit)
        if session is not None:
            self._require(session)
        after = self.clock() - TIME_RANGES[time_range] if time_range else 0
        admitted = (where or EVERY_MESSAGE).at_least_since(after)
        return self._search.search(
            query, session=session, match=match, scope=scope, where=admitted, limit=limit, coverage=coverage
        )

    def seed_keyword_search(
        self, session: str, keyword_text: str, time_range: str = "1d", limit: int = 8
    ) -> tuple[list[Hit], list[Hit]]:
        """The ``chat_history`` tool's keyword mode: (archive hits, recent hits), newest first."""
        self._require(session)
        after = self.clock() - TIME_RANGES.get(time_range, TIME_RANGES["1d"])
        return self._search.seed_keyword_search(session, keyword_text, after_ns=after, limit=limit)

    def iter_archive(self, session: str, batch: int = 2000) -> Iterator[Message]:
        """Every archived message of a session, oldest first (export, re-embedding)."""
        return self._log.iter_archive(session, batch)

    # -- compaction, forgetting, reset, removal -----------------------------------------------------

    def compact(self, session: str) -> CompactResult:
        """Compact history.json now if it is over ``max_history_bytes``; report what was done.

        The oldest messages are trimmed to about 80 % of the limit, cut after an assistant message
        (:mod:`engine.sessions.compaction`); the archive keeps them.
        """
        return self._log.compact(session)

    def summary_lock(self, session: str) -> AbstractContextManager[None]:
        """The summary lock of a session (a summary run and a synced summary's install never overlap)."""
        from engine.summary.service import lock_name

        return self._log.locks.hold(lock_name(session))

    @property
    def tomb_keys(self) -> TombKeys:
        """The keys tombstones are made and checked with (:mod:`engine.sessions.tombstones`)."""
        return self._log.tomb_keys

    def _shared_tomb_key(self, conn: Connection) -> tuple[str, bytes] | None:
        """The sync folder's tombstone key while sync is on (:mod:`engine.sync.tombkey`)."""
        from engine.sync import tombkey

        return tombkey.shared(conn, lambda folder_id: self.sync.keys.get(folder_id))

    def order_by_time(self, session: str) -> bool:
        """Put a session's recent messages in time order, ties by global id (sync does it after messages
        of another device arrived); whether anything moved."""
        return self._log.order_by_time(session)

    def forget_message(self, message_id: int) -> Message:
        """Forget one archived message everywhere: history.json, the archive, FTS and the vectors.

        The intent is recorded (synced to disk) before anything is scrubbed, so a forget interrupted by a
        crash is finished when the memory next opens. The deleted rows are overwritten
        (``secure_delete``), the FTS indexes are merged so no old segment keeps the words, and the
        write-ahead log is truncated. The session's summary.json and cursor are deleted so the next
        summary run rebuilds the summary from what remains. A tombstone (session, role, time and a keyed
        hash of the text, never the text) keeps an import, a transcript read again or a repair from
        bringing the message back (:mod:`engine.sessions.forgetting`).

        Returns:
            The forgotten message.

        Raises:
            AlreadyForgotten: the message was forgotten before (a retry: nothing left to do).
            NotFound: no archived message has this id.
        """
        return self._log.forget(message_id)

    def forget_session(self, session: str) -> ResetResult:
        """Forget a whole session: every message as :meth:`forget_message` does (tombstones included), then
        the session itself as :meth:`remove` does; finished at the next open if interrupted.

        Raises:
            AlreadyForgotten: the session was forgotten before.
            SessionNotFound: no such session.
        """
        return self._log.forget_session(session)

    def reset(self, session: str, *, include_summary: bool = False) -> ResetResult:
        """Clear a session's history and archive; keep summary.json and the cursor unless asked.

        Error memory is global and never touched.
        """
        return self._log.reset(session, include_summary=include_summary)

    def remove(self, session: str) -> ResetResult:
        """Delete a session entirely: its folder, archive rows and vectors. Error memory is kept."""
        return self._log.remove(session)

    def cleanup_temp_sessions(self, idle_ns: int = session_files.TEMP_IDLE_NS) -> list[str]:
        """Remove ``temp-`` sessions idle for longer than ``idle_ns`` (files, archive rows, vectors)."""
        return self._log.cleanup_temp_sessions(idle_ns)

    # -- the rolling summary (engine.summary) -------------------------------------------------------

    @cached_property
    def summaries(self) -> Summaries:
        """The summarizer: ``generate``, ``run_pending``, ``pending``, ``status``, ``load``, ``cursor``."""
        from engine.summary import Summaries

        return Summaries(
            self._log,
            settings=self._settings,
            usage=self.usage,
            paths=self.paths,
            clock=self.clock,
            keys=self.keys,
            client_factory=self._client_factory,
        )

    @cached_property
    def sync(self) -> Sync:
        """Sync through a shared folder (:mod:`engine.sync`): ``enable``, ``now``, ``status``, ``disable``."""
        from engine.sync.service import Sync

        return Sync(self._store, self, self.clock, self.keys, self.paths.locks_dir / "sync.lock")

    def turn_context(self, session: str, request: str = "") -> TurnContext:
        """What an LLM call gets this turn: the window with prefixes, then the turn-context message."""
        return self.summaries.turn_context(session, request)

    # -- the background embedder ------------------------------------------------------------------

    def embedding_status(self) -> SemanticStatus:
        """The backlog (messages waiting to be embedded), how many are embedded of how many, the rate over
        the last minute and the time left at that rate, and whether embedding is paused."""
        return self.semantic.status()

    def pause_embedding(self) -> None:
        """Pause the background embedder (the ``embedding_paused`` setting, kept across restarts): queued
        messages wait, searches rank what is embedded and find the rest by keyword."""
        self.update_settings(embedding_paused=True)

    def resume_embedding(self) -> None:
        """Resume the background embedder."""
        self.update_settings(embedding_paused=False)

    @property
    def embedding_paused(self) -> bool:
        """Whether the background embedder is paused (the ``embedding_paused`` setting)."""
        return self.settings.embedding_paused

    # -- lifecycle --------------------------------------------------------------------------------

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until background embedding and index work is done (while embedding is paused, the queue
        counts as done); False if ``timeout`` passed first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for listener in self._log.listeners:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not listener.wait_idle(remaining):
                return False
        return True

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran (its background threads were joined, its connections closed)."""
        return self._closed

    def close(self) -> None:
        sync = self.__dict__.get("sync")  # made by the first use of ``self.sync``
        if sync is not None:
            sync.stop_watching()
        for listener in self._log.listeners:
            listener.close()
        self._store.close()
        self._closed = True
        self._hold.release()  # last: a repair waiting for this program may start now

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""``mem.summaries``: the summarizer's small API for the desktop app, the CLI and the daemon.

It owns the Gemini caller (built from the memory's key store, the settings and the injected client
factory), the per-session summary lock (a manual run and a scheduled one never overlap), the mtime gate
that picks sessions to summarize, the reset-with-summary helper, and the turn context. It is built from
the memory's parts (the session log, the settings, the usage table), not from the memory itself.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.clock import parse_local
from engine.errors import EngineError, NoApiKey
from engine.llm.gemini import ClientFactory, Gemini, UsageEvent
from engine.llm.keys import NO_KEY, Keys
from engine.llm.redact import redact
from engine.sessions.folders import TEMP_PREFIX, is_private, mtime, session_ids
from engine.storage.locks import job_name
from engine.summary import decide, files
from engine.summary.context import TurnContext, assemble
from engine.summary.generate import GenerateResult, generate
from engine.summary.prompts import PRIOR_CONTEXT_GUIDANCE
from engine.summary.scheduler import EVERY_MINUTES
from engine.summary.schema import Summary

if TYPE_CHECKING:
    from engine.clock import Clock
    from engine.llm.usage import Usage
    from engine.paths import Paths
    from engine.sessions.listeners import ResetResult
    from engine.sessions.log import SessionLog
    from engine.settings import StoredSettings

log = logging.getLogger("memtray.summary")


@dataclass(frozen=True)
class SummaryStatus:
    """The summarizer's state, for the tray and ``memtray summarize``.

    Attributes:
        enabled: the ``summaries_enabled`` setting (False: paused).
        has_key: whether a Gemini key is available.
        active: enabled and has a key: scheduled runs happen.
        message: one line for the user.
        running: sessions being summarized right now.
        last_errors: ``(session, message)`` of the latest failed run of each session still failing.
    """

    enabled: bool
    has_key: bool
    active: bool
    message: str
    running: tuple[str, ...]
    last_errors: tuple[tuple[str, str], ...]


def lock_name(session: str) -> str:
    """The summary lock of a session (a job's lock: removed with the session)."""
    return job_name("summary", session)


class Summaries:
    """The summarizer of one memory (``mem.summaries``).

    Args:
        log: the sessions (their history, window and reset; its locks hold the summary locks).
        settings: the memory's settings (re-read before a run: another process may have changed them).
        usage: where the tokens of every answered Gemini call are recorded.
        paths: the home's folders (summary.json and the cursor of each session).
        clock: the wall clock of the turn context.
        keys: where the Gemini key comes from (the memory's key store).
        client_factory: ``(api_key, base_url) -> genai.Client``; it owns retries and the default
            timeout (tests point it at a fake server, with fast retries).
        monotonic: the clock of deadlines and cool-downs (seconds).
    """

    def __init__(
        self,
        log: SessionLog,
        *,
        settings: StoredSettings,
        usage: Usage,
        paths: Paths,
        clock: Clock,
        keys: Keys,
        client_factory: ClientFactory | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log = log
        self._settings = settings
        self._usage = usage
        self._paths = paths
        self._clock = clock
        self.relevance_timeout_s = decide.RELEVANCE_TIMEOUT_S
        self.keys = keys
        self._client_factory = client_factory
        self._monotonic = monotonic
        self._gemini: tuple[tuple[int, str], Gemini] | None = None
        self._guard = threading.Lock()
        self._running: set[str] = set()
        self._errors: dict[str, str] = {}

    # -- Gemini -----------------------------------------------------------------------------------

    def gemini(self) -> Gemini | None:
        """The Gemini caller for the current key and base URL, or None without a key."""
        key = self.keys.get()
        if not key:
            return None
        base_url = self._settings.get().gemini_base_url
        ident = (hash(key), base_url)
        with self._guard:
            if self._gemini is None or self._gemini[0] != ident:
                caller = Gemini(
                    key,
                    base_url=base_url,
                    client_factory=self._client_factory,
                    on_usage=self._record_usage,
                    monotonic=self._monotonic,
                )
                self._gemini = (ident, caller)
            return self._gemini[1]

    def _record_usage(self, event: UsageEvent) -> None:
        try:
            self._usage.record(event)
        except EngineError as exc:
            log.warning("could not record Gemini usage: %s", exc)

    # -- reading ----------------------------------------------------------------------------------

    def load(self, session: str) -> Summary:
        """The session's summary (empty when there is none)."""
        return files.load(self._paths, session)

    def cursor(self, session: str) -> str:
        """The session's cursor (``YYYY-MM-DD HH:MM:SS``), ``""`` when there is none."""
        return files.read_cursor(self._paths, session)

    def cursor_ns(self, session: str) -> int:
        """The session's cursor as Unix ns (the last summarized message's time); 0 when there is none or
        it is not a time (the next run moves it aside)."""
        try:
            return parse_local(self.cursor(session))
        except ValueError:
            return 0

    def pending(self) -> list[str]:
        """Sessions to summarize: not ``temp-`` nor a private chat, with a history.json newer than summary.json (or no
        summary.json), least recently summarized first."""
        paths = self._paths
        found = []
        for sid in session_ids(paths):
            if sid.startswith(TEMP_PREFIX) or is_private(sid):
                continue
            history = mtime(paths.history_file(sid))
            summary = mtime(paths.summary_file(sid))
            if history and history > summary:
                found.append((summary, sid))
        return [sid for _, sid in sorted(found)]

    def enabled(self) -> bool:
        """The ``summaries_enabled`` setting, as stored now (another process may have changed it)."""
        return self._settings.reload().summaries_enabled

    def status(self) -> SummaryStatus:
        enabled = self.enabled()
        has_key = bool(self.keys.get())
        if not has_key:
            message = NO_KEY
        elif not enabled:
            message = "the summarizer is paused (summaries_enabled = false)"
        else:
            message = f"the summarizer is on: every {EVERY_MINUTES} minutes, on the quarter hour"
        with self._guard:
            running = tuple(sorted(self._running))
            errors = tuple(sorted(self._errors.items()))
        return SummaryStatus(enabled, has_key, enabled and has_key, message, running, errors)

    # -- running ----------------------------------------------------------------------------------

    def generate(self, session: str) -> GenerateResult:
        """Summarize a session now (all of history.json past the cursor), under its summary lock.

        Raises:
            SessionNotFound: no such session.
            NoApiKey: there is something to summarize and no key.
            GeminiError: a Gemini call failed or answered unusably (earlier chunks are saved).
            StoreLocked: another run of this session kept its lock too long.
        """
        messages = self._log.history(session)
        settings = self._settings.reload()
        # The client first: making it (the SDK's first import) takes seconds on a slow machine, which are
        # not the service's and must not use up the run's time before its first call.
        gemini = self.gemini()
        deadline = self._monotonic() + settings.agent_send_timeout_seconds
        with self._log.locks.hold(lock_name(session)):
            with self._guard:
                self._running.add(session)
            try:
                result = generate(
                    self._paths,
                    session,
                    messages,
                    gemini=gemini,
                    settings=settings,
                    deadline=deadline,
                    now=self._clock(),
                )
            except EngineError as exc:
                with self._guard:
                    self._errors[session] = str(exc)
                raise
            finally:
                with self._guard:
                    self._running.discard(session)
        with self._guard:
            self._errors.pop(session, None)
        return result

    def run_pending(self) -> list[GenerateResult]:
        """Summarize every pending session, one at a time; errors are logged and the next one runs."""
        if not self.keys.get():
            log.info("scheduled summaries skipped: %s", NO_KEY)
            return []
        results = []
        for session in self.pending():
            try:
                results.append(self.generate(session))
            except NoApiKey:
                log.info("scheduled summaries stopped: %s", NO_KEY)
                break
            except EngineError as exc:
                log.warning("summary of session %s failed: %s", session, exc)
        return results

    def reset_with_summary(self, session: str) -> ResetResult:
        """Summarize the session, then reset it (keeping the summary); a failed summary aborts the reset.

        Raises:
            GeminiError: the summary failed; nothing was reset.
        """
        with self._log.locks.hold(lock_name(session)):
            self.generate(session)
            return self._log.reset(session)

    # -- the turn context -------------------------------------------------------------------------

    def turn_context(self, session: str, request: str = "") -> TurnContext:
        """What an LLM call gets from the memory this turn (see :mod:`engine.summary.context`)."""
        window = self._log.window(session)
        summary = self.load(session)
        settings = self._settings.get()
        relevance = decide.relevant(
            self.gemini() if not summary.is_empty else None,
            settings.decision_model,
            session,
            redact(request) if settings.redact_secrets else request,
            summary,
            self.relevance_timeout_s,
        )
        return assemble(
            session,
            request,
            window,
            relevance.summary,
            relevance.filtered,
            self._clock(),
            PRIOR_CONTEXT_GUIDANCE,
        )

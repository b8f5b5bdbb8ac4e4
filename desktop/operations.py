"""The tray's actions on the memory: compact, reset, summarize, pause and resume. Each runs on a worker.

Every operation reports its outcome in words through :attr:`Operations.operation_did_finish` (the tray
shows it as a message; without a tray the viewer's status bar does). A reset asks first, in a non-modal
dialog that says what is deleted and what is kept.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.confirm import ask_destructive
from desktop.errors import describe
from desktop.state import AppState
from desktop.titles import name_of
from engine import CompactResult, ResetResult
from engine.errors import EngineError, NoApiKey
from engine.sessions import target_bytes
from engine.summary import GenerateResult

log = logging.getLogger("memtray.desktop.operations")

translate = QCoreApplication.translate


@dataclass(frozen=True)
class Outcome:
    """What an operation did, in words."""

    title: str
    text: str
    ok: bool = True

    def line(self) -> str:
        """Title and text on one line (a status bar)."""
        return translate("Operations", "{title}: {text}").format(title=self.title, text=self.text)


def seconds_text(seconds: float) -> str:
    """``2.5 s``: how long something took."""
    return translate("Operations", "{seconds} s").format(seconds=f"{seconds:.1f}")


@dataclass(frozen=True)
class Compaction:
    """What a compaction's words need besides its results: the limit it ran with (bytes), each session's
    name (:func:`desktop.titles.name_of`) and the private chats among them (trimmed, never archived)."""

    limit: int
    names: dict[str, str]
    private: frozenset[str] = frozenset()

    def name(self, session: str) -> str:
        return self.names.get(session, session)


def compact_words(results: list[CompactResult], seconds: float, context: Compaction) -> Outcome:
    """Say what one or more compactions did; "Compacted" only when something moved."""
    trimmed = sum(r.trimmed for r in results)
    took = seconds_text(seconds)
    target = size_text(target_bytes(context.limit))
    if len(results) == 1:
        r = results[0]
        name = context.name(r.session)
        if not r.trimmed:
            title = translate("Operations", "Nothing to compact in “{session}”").format(session=name)
            if r.bytes_before <= target_bytes(context.limit):
                text = translate(
                    "Operations",
                    "Its recent history is {size}, not more than {target} (the limit is {limit}): nothing "
                    "was moved ({took}).",
                )
            else:
                text = translate(
                    "Operations",
                    "Its recent history is {size}, but its newest exchange always stays and is most of it: "
                    "nothing was moved ({took}).",
                )
            return Outcome(
                title,
                text.format(
                    size=size_text(r.bytes_before), target=target, limit=size_text(context.limit), took=took
                ),
            )
        if r.session in context.private:
            text = translate(
                "Operations",
                "%Ln message(s) deleted (a private chat is not archived), {kept} kept; recent history "
                "{before} → {after} in {took}.",
                "",
                r.trimmed,
            )
        else:
            text = translate(
                "Operations",
                "%Ln message(s) moved to the archive, {kept} kept; recent history {before} → {after} in {took}.",
                "",
                r.trimmed,
            )
        return Outcome(
            translate("Operations", "Compacted “{session}”").format(session=name),
            text.format(
                kept=f"{r.kept:,}",
                before=size_text(r.bytes_before),
                after=size_text(r.bytes_after),
                took=took,
            ),
        )
    touched = sum(1 for r in results if r.trimmed)
    if not trimmed:
        return Outcome(
            translate("Operations", "Nothing to compact"),
            translate(
                "Operations",
                "The recent history of all %n session(s) is not more than {target} (the limit is {limit}) "
                "({took}).",
                "",
                len(results),
            ).format(target=target, limit=size_text(context.limit), took=took),
        )
    title = translate("Operations", "Compacted %n session(s)", "", touched)
    if touched == len(results):
        text = translate(
            "Operations", "%Ln message(s) trimmed from the recent history in {took}.", "", trimmed
        )
        return Outcome(title, text.format(took=took))
    return Outcome(
        title,
        translate(
            "Operations",
            "%Ln message(s) trimmed from the recent history in {took}; {others} left as they were.",
            "",
            trimmed,
        ).format(
            took=took, others=translate("Operations", "%n other session(s)", "", len(results) - touched)
        ),
    )


def reset_words(result: ResetResult, seconds: float, name: str = "") -> Outcome:
    """Say what a reset did (``name``: the session as messages name it)."""
    took = seconds_text(seconds)
    if result.summary_kept:
        text = translate(
            "Operations",
            "%Ln message(s) deleted; summary and error memory kept ({took}).",
            "",
            result.messages_deleted,
        )
    else:
        text = translate(
            "Operations", "%Ln message(s) deleted; error memory kept ({took}).", "", result.messages_deleted
        )
    return Outcome(
        translate("Operations", "Reset “{session}”").format(session=name or result.session),
        text.format(took=took),
    )


def _one_summary(result: object) -> str:
    if not isinstance(result, GenerateResult):
        return translate("Operations", "Summarized")
    if result.bootstrapped:
        return translate(
            "Operations", "Its existing summary was kept; messages after it are summarized from now on"
        )
    if not result.considered:
        return translate("Operations", "Nothing new to summarize")
    if not result.chunks:
        return translate(
            "Operations",
            "%Ln new message(s) were small talk; the summary is unchanged",
            "",
            result.considered,
        )
    return translate(
        "Operations", "%Ln new message(s) merged into the summary ({parts})", "", result.considered
    ).format(parts=translate("Operations", "%n part(s)", "", result.chunks))


def summary_words(
    session: str | None,
    results: list[object],
    failed: list[tuple[str, BaseException]],
    seconds: float,
    names: dict[str, str] | None = None,
) -> Outcome:
    """Say what "Summarize now" did (one session, or every pending session); ``names``: the sessions as
    messages name them."""
    names = names or {}
    took = seconds_text(seconds)
    if session:
        return Outcome(
            translate("Operations", "Summarized “{session}”").format(session=names.get(session, session)),
            translate("Operations", "{what} ({took}).").format(what=_one_summary(results[0]), took=took),
        )
    count = len(results)
    if count:
        text = translate("Operations", "%n session(s) summarized in {took}.", "", count).format(took=took)
    elif failed:
        text = translate("Operations", "No session was summarized.")
    else:
        text = translate("Operations", "Every summary is up to date.")
    title = translate("Operations", "Summaries")
    if not failed:
        return Outcome(title, text)
    failures = ", ".join(f"“{names.get(sid, sid)}”" for sid, _ in failed)
    why = describe(failed[0][1]).text
    return Outcome(
        title,
        translate("Operations", "{done} Failed: {sessions}. {why}").format(
            done=text, sessions=failures, why=why
        ),
        ok=False,
    )


def size_text(n: int) -> str:
    """A file size in words a person reads: ``4.0 MiB``, ``12 KiB``, ``300 bytes``."""
    if n >= 1024 * 1024:
        return translate("Operations", "{n} MiB").format(n=f"{n / 1024 / 1024:.1f}")
    if n >= 1024:
        return translate("Operations", "{n} KiB").format(n=f"{n / 1024:.0f}")
    return translate("Operations", "%Ln byte(s)", "", n)


class Operations(QObject):
    """Runs the tray's actions in the background and reports their outcome.

    Signals:
        operation_did_finish(object): an :class:`Outcome` (success or failure, in words).
        memory_did_change(): sessions changed (compaction, reset, summary); the state should refresh.
    """

    operation_did_finish = Signal(object)
    memory_did_change = Signal()

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = state.runner
        self.confirmation: QMessageBox | None = None

    # -- compaction -------------------------------------------------------------------------------

    def name(self, session: str) -> str:
        """``session`` as messages and labels name it: its title, elided in the middle (no I/O)."""
        return name_of(self.state.session(session), session)

    def compact(self, session: str | None) -> None:
        """Compact one session, or every session when ``session`` is None."""
        mem = self.state.memory
        if mem is None:
            return
        sessions = self.state.snapshot.sessions
        targets = [session] if session else [s.id for s in sessions]
        context = Compaction(
            self.state.snapshot.settings.max_history_bytes,
            {sid: self.name(sid) for sid in targets},
            frozenset(s.id for s in sessions if s.private),
        )
        if session:
            doing = translate("Operations", "compacting “{session}”").format(session=self.name(session))
            label = translate("Operations", "Compacting “{session}”").format(session=self.name(session))
        else:
            doing = translate("Operations", "compacting all sessions")
            label = translate("Operations", "Compacting all sessions")

        def op() -> tuple[list[CompactResult], float, Compaction]:
            started = time.perf_counter()
            results = [mem.compact(sid) for sid in targets]
            limit = mem.settings.max_history_bytes  # the limit the compaction ran with
            return results, time.perf_counter() - started, dataclasses.replace(context, limit=limit)

        self.runner.run_query(
            op,
            lambda res: self._done(compact_words(*res)),
            lambda exc: self._failed(exc, doing),
            label=label,
        )

    # -- reset ------------------------------------------------------------------------------------

    def ask_reset(self, session: str, parent: QWidget | None = None) -> QMessageBox:
        """Ask before resetting ``session``; the reset runs only if the user confirms."""
        info = next((s for s in self.state.snapshot.sessions if s.id == session), None)
        if info is not None:
            what = translate(
                "Operations",
                "This deletes its %Ln message(s): the recent history and the archive, with their search index.",
                "",
                info.total_messages,
            )
        else:
            what = translate(
                "Operations",
                "This deletes its messages: the recent history and the archive, with their search index.",
            )
        kept = translate(
            "Operations", "Kept: the session's summary, and the error memory (it is shared by all sessions)."
        )

        def closed() -> None:
            self.confirmation = None

        self.confirmation = ask_destructive(
            parent,
            name="reset-confirmation",
            title=translate("Operations", "memtray: reset session"),
            text=translate("Operations", "Reset the session “{session}”?").format(
                session=name_of(info, session)
            ),
            informative=f"{what}\n\n{kept}",
            verb=translate("Operations", "Reset"),
            on_confirmed=lambda: self.reset(session),
            on_closed=closed,
        )
        return self.confirmation

    def reset(self, session: str) -> None:
        """Reset ``session`` now (keeps the summary and the error memory)."""
        mem = self.state.memory
        if mem is None:
            return

        def op() -> tuple[ResetResult, float]:
            started = time.perf_counter()
            return mem.reset(session, include_summary=False), time.perf_counter() - started

        name = self.name(session)
        self.runner.run_query(
            op,
            lambda res: self._reset_done(session, res, name),
            lambda exc: self._failed(
                exc, translate("Operations", "resetting “{session}”").format(session=name)
            ),
            label=translate("Operations", "Resetting “{session}”").format(session=name),
        )

    def _reset_done(self, session: str, result: tuple[ResetResult, float], name: str) -> None:
        self.state.tell_session_gone(session)
        self._done(reset_words(result[0], result[1], name))

    # -- summaries --------------------------------------------------------------------------------

    def summarize_now(self, session: str | None = None) -> None:
        """Summarize ``session``, or every session with new messages, on the network pool.

        One session: its failure is the outcome. Every pending session: one failing session does not stop
        the others (the outcome names it), but a missing key stops the run at once.
        """
        summaries = self.state.summaries
        if summaries is None:
            self.operation_did_finish.emit(
                Outcome(
                    translate("Operations", "Summaries"),
                    translate("Operations", "The summarizer is not part of this build."),
                    ok=False,
                )
            )
            return

        def op() -> tuple[list[object], list[tuple[str, BaseException]], float]:
            started = time.perf_counter()
            if session:
                return [summaries.generate(session)], [], time.perf_counter() - started
            done: list[object] = []
            failed: list[tuple[str, BaseException]] = []
            for sid in summaries.pending():
                try:
                    done.append(summaries.generate(sid))
                except NoApiKey:
                    raise
                except EngineError as exc:
                    log.warning("summary of session %s failed: %s", sid, exc)
                    failed.append((sid, exc))
            return done, failed, time.perf_counter() - started

        names = {s.id: self.name(s.id) for s in self.state.snapshot.sessions}
        if session:
            doing = translate("Operations", "summarizing “{session}”").format(session=self.name(session))
            label = translate("Operations", "Summarizing “{session}”").format(session=self.name(session))
        else:
            doing, label = translate("Operations", "summarizing"), translate("Operations", "Summarizing")
        self.runner.run_query(
            op,
            lambda res: self._done(summary_words(session, res[0], res[1], res[2], names)),
            lambda exc: self._failed(exc, doing),
            pool="network",
            label=label,
        )

    def set_summaries_paused(self, paused: bool) -> None:
        mem = self.state.memory
        if mem is None:
            return
        self.runner.run_query(
            lambda: mem.update_settings(summaries_enabled=not paused),
            self.state.set_settings,
            lambda exc: self._failed(
                exc,
                translate("Operations", "pausing summaries")
                if paused
                else translate("Operations", "resuming summaries"),
            ),
        )

    def set_embedding_paused(self, paused: bool) -> None:
        """Pause or resume the background embedding (the ``embedding_paused`` setting: it lasts)."""
        mem = self.state.memory
        if mem is None:
            return

        def op() -> bool:
            if paused:
                mem.pause_embedding()
            else:
                mem.resume_embedding()
            return mem.embedding_paused

        self.runner.run_query(
            op,
            self._on_embedding_paused,
            lambda exc: self._failed(
                exc,
                translate("Operations", "pausing the embedding")
                if paused
                else translate("Operations", "resuming the embedding"),
            ),
        )

    def _on_embedding_paused(self, paused: bool) -> None:
        self.state.set_embedding_paused(paused)
        self.state.refresh()

    # -- reporting --------------------------------------------------------------------------------

    def _done(self, outcome: Outcome) -> None:
        log.info("%s: %s", outcome.title, outcome.text)
        self.operation_did_finish.emit(outcome)
        self.memory_did_change.emit()

    def _failed(self, exc: BaseException, doing: str) -> None:
        message = describe(exc, doing)
        if message.bug:
            log.error("%s failed", doing, exc_info=exc)
        else:
            log.warning("%s failed: %s", doing, exc)
        self.operation_did_finish.emit(Outcome(message.title, message.text, ok=False))

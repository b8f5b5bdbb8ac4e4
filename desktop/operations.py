"""The tray's actions on the memory: compact, reset, summarize, pause. Each runs on a worker.

Every operation reports its outcome in words through :attr:`Operations.operation_did_finish` (the tray
shows it as a message; without a tray the viewer's status bar does). A reset asks first, in a non-modal
dialog that says what is deleted and what is kept.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.errors import describe
from desktop.state import AppState
from engine import CompactResult, ResetResult
from engine.errors import EngineError, NoApiKey
from engine.summary import GenerateResult

log = logging.getLogger("memtray.desktop.operations")


@dataclass(frozen=True)
class Outcome:
    """What an operation did, in words."""

    title: str
    text: str
    ok: bool = True


def compact_words(results: list[CompactResult], seconds: float) -> Outcome:
    """Say what one or more compactions did."""
    trimmed = sum(r.trimmed for r in results)
    took = f"{seconds:.1f} s"
    if len(results) == 1:
        r = results[0]
        if not r.trimmed:
            return Outcome(
                f"Compacted {r.session}",
                f"Nothing to trim: history.json is {_size(r.bytes_before)}, under the limit ({took}).",
            )
        return Outcome(
            f"Compacted {r.session}",
            f"{r.trimmed:,} messages trimmed into the archive, {r.kept:,} kept; "
            f"{_size(r.bytes_before)} → {_size(r.bytes_after)} in {took}.",
        )
    touched = sum(1 for r in results if r.trimmed)
    return Outcome(
        "Compacted all sessions",
        f"{trimmed:,} messages trimmed in {touched} of {len(results)} sessions in {took}."
        if trimmed
        else f"Nothing to trim in {len(results)} sessions ({took}).",
    )


def reset_words(result: ResetResult, seconds: float) -> Outcome:
    kept = "summary and error memory kept" if result.summary_kept else "error memory kept"
    return Outcome(
        f"Reset {result.session}",
        f"{result.messages_deleted:,} messages deleted; {kept} ({seconds:.1f} s).",
    )


def _one_summary(result: object) -> str:
    if not isinstance(result, GenerateResult):
        return "summarized"
    if result.bootstrapped:
        return "its existing summary was kept; messages after it are summarized from now on"
    if not result.considered:
        return "nothing new to summarize"
    if not result.chunks:
        return f"{result.considered:,} new messages were small talk; the summary is unchanged"
    parts = "1 part" if result.chunks == 1 else f"{result.chunks} parts"
    return f"{result.considered:,} new messages merged into the summary ({parts})"


def summary_words(
    session: str | None, results: list[object], failed: list[tuple[str, BaseException]], seconds: float
) -> Outcome:
    """Say what "Summarize now" did (one session, or every pending one)."""
    took = f"{seconds:.1f} s"
    if session:
        return Outcome(f"Summarized {session}", f"{_one_summary(results[0]).capitalize()} ({took}).")
    count = len(results)
    if count:
        text = f"{count} session{'s' if count != 1 else ''} summarized in {took}."
    else:
        text = "No session was summarized." if failed else "Every summary is up to date."
    if not failed:
        return Outcome("Summaries", text)
    names = ", ".join(sid for sid, _ in failed)
    why = describe(failed[0][1]).text
    return Outcome("Summaries", f"{text} Failed: {names}. {why}", ok=False)


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.1f} MiB"
    if n >= 1024:
        return f"{n / 1024:.0f} KiB"
    return f"{n} bytes"


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

    def compact(self, session: str | None) -> None:
        """Compact one session, or every session when ``session`` is None."""
        mem = self.state.memory
        if mem is None:
            return
        targets = [session] if session else [s.id for s in self.state.snapshot.sessions]
        doing = f"compacting {session}" if session else "compacting all sessions"

        def op() -> tuple[list[CompactResult], float]:
            started = time.perf_counter()
            return [mem.compact(sid) for sid in targets], time.perf_counter() - started

        self.runner.run_query(
            op,
            lambda res: self._done(compact_words(*res)),
            lambda exc: self._failed(exc, doing),
            label=doing.capitalize(),
        )

    # -- reset ------------------------------------------------------------------------------------

    def ask_reset(self, session: str, parent: QWidget | None = None) -> QMessageBox:
        """Ask before resetting ``session``; the reset runs only if the user confirms."""
        info = next((s for s in self.state.snapshot.sessions if s.id == session), None)
        count = f"its {info.total_messages:,} messages" if info else "its messages"
        box = QMessageBox(parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("memtray: reset session")
        box.setText(f"Reset the session “{session}”?")
        box.setInformativeText(
            f"This deletes {count}: the recent history and the archive, with their search index.\n\n"
            "Kept: the session's summary, and the error memory (it is shared by all sessions)."
        )
        reset = box.addButton("Reset", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setObjectName("reset-confirmation")

        def on_finished(_result: int) -> None:
            confirmed = box.clickedButton() is reset
            self.confirmation = None
            box.deleteLater()
            if confirmed:
                self.reset(session)
            else:
                log.info("reset of %s cancelled by the user", session)

        box.finished.connect(on_finished)
        self.confirmation = box
        box.open()
        return box

    def reset(self, session: str) -> None:
        """Reset ``session`` now (keeps the summary and the error memory)."""
        mem = self.state.memory
        if mem is None:
            return

        def op() -> tuple[ResetResult, float]:
            started = time.perf_counter()
            return mem.reset(session, include_summary=False), time.perf_counter() - started

        self.runner.run_query(
            op,
            lambda res: self._done(reset_words(*res)),
            lambda exc: self._failed(exc, f"resetting {session}"),
            label=f"Resetting {session}",
        )

    # -- summaries --------------------------------------------------------------------------------

    def summarize_now(self, session: str | None = None) -> None:
        """Summarize ``session``, or every session with new messages, on the network pool.

        One session: its failure is the outcome. Every pending session: one failing session does not stop
        the others (the outcome names it), but a missing key stops the run at once.
        """
        summaries = self.state.summaries
        if summaries is None:
            self.operation_did_finish.emit(
                Outcome("Summaries", "The summarizer is not part of this build.", ok=False)
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

        self.runner.run_query(
            op,
            lambda res: self._done(summary_words(session, *res)),
            lambda exc: self._failed(exc, f"summarizing {session}" if session else "summarizing"),
            pool="network",
            label=f"Summarizing {session}" if session else "Summarizing",
        )

    def set_summaries_paused(self, paused: bool) -> None:
        mem = self.state.memory
        if mem is None:
            return
        self.runner.run_query(
            lambda: mem.update_settings(summaries_enabled=not paused),
            self.state.set_settings,
            lambda exc: self._failed(exc, "pausing summaries" if paused else "resuming summaries"),
        )

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

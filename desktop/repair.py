"""Repair… for a damaged database: ask, run ``memtray repair``'s rebuild on the store worker, open the memory.

The engine refuses to open a damaged database (``CorruptStore``); the app then shows the attention state
and offers Repair…. After the user confirms, :meth:`engine.Memory.repair` moves the damaged file aside
(never deleting it), salvages what can be read and restores each session's recent messages from its
history.json; then the memory is opened as at boot. The outcome is told in words.

The daily integrity check can find the damage while the memory is open. Repair needs the database
closed (the file is moved aside), so the flow first asks the app to let go of the memory (``release``:
timers and scheduler stopped, the state's views detached; :meth:`desktop.app.Memtray.release_memory`)
and closes what it hands back on the store worker, in the same task as the repair, so no other store
work runs between the close and the rebuild. Closing joins the memory's embedder thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.confirm import ask_destructive
from desktop.errors import describe
from desktop.operations import Outcome
from desktop.tasks import TaskRunner
from engine import Memory, RepairReport

log = logging.getLogger("memtray.desktop.repair")

translate = QCoreApplication.translate


def repair_words(report: RepairReport) -> Outcome:
    """Say what the repair did."""
    title = translate("Repair", "Database repaired")
    if not report.damaged:
        return Outcome(title, translate("Repair", "The database is fine; nothing was changed."))
    kept = translate("Repair", "The damaged file was kept as {file}.").format(
        file=report.moved_to.name if report.moved_to else ""
    )
    salvaged = translate("Repair", "%Ln message(s) were read back from it.", "", report.salvaged)
    restored = translate(
        "Repair", "%Ln more were restored from the sessions' history files.", "", report.restored
    )
    rebuilt = translate("Repair", "Search by meaning is rebuilt in the background.")
    text = " ".join((kept, salvaged, restored, rebuilt))
    if report.unreadable:
        text += translate(
            "Repair", " Not restored (their history files are damaged too): {sessions}."
        ).format(sessions=", ".join(report.unreadable))
    return Outcome(title, text)


class RepairFlow(QObject):
    """Asks before repairing, repairs on the store worker, then opens the memory.

    Signals:
        repair_did_finish(object): an :class:`~desktop.operations.Outcome`.
    """

    repair_did_finish = Signal(object)

    def __init__(
        self,
        runner: TaskRunner,
        home: Path,
        on_opened: Callable[[Memory], None],
        open_memory: Callable[[Path], Memory] = Memory.open,
        parent: QObject | None = None,
        release: Callable[[], Memory | None] = lambda: None,
    ) -> None:
        """``release`` is called on the GUI thread before the repair: it stops what uses the open memory
        and returns it to be closed (None when no memory is open)."""
        super().__init__(parent)
        self.runner = runner
        self.home = home
        self.on_opened = on_opened
        self.open_memory = open_memory
        self.release = release
        self.confirmation: QMessageBox | None = None
        self.running = False

    def ask(self, parent: QWidget | None = None) -> QMessageBox:
        """Ask before repairing (Cancel is the default)."""

        def closed() -> None:
            self.confirmation = None

        self.confirmation = ask_destructive(
            parent,
            name="repair-confirmation",
            title=translate("Repair", "memtray: repair the database"),
            text=translate("Repair", "The memory's database is damaged. Repair it now?"),
            informative=translate(
                "Repair",
                "memtray moves the damaged file aside (it is not deleted), reads back every message it "
                "still can, and restores each session's recent messages from its history file. Archived "
                "messages on damaged parts of the file cannot be recovered.\n\nClose other memtray "
                "programs first (the MCP server, memtray daemon).",
            ),
            verb=translate("Repair", "Repair"),
            on_confirmed=self.repair,
            on_closed=closed,
        )
        return self.confirmation

    def repair(self) -> None:
        """Close the open memory (if any), repair and open the memory again, all on the store worker."""
        if self.running:
            return
        self.running = True
        home, open_memory = self.home, self.open_memory
        old = self.release()

        def op() -> tuple[RepairReport, Memory]:
            if old is not None:
                log.info("closing the memory before the repair")
                old.close()
            report = Memory.repair(home)
            return report, open_memory(home)

        self.runner.run_query(
            op, self._on_repaired, self._on_failed, label=translate("Repair", "Repairing the database")
        )

    def _on_repaired(self, result: tuple[RepairReport, Memory]) -> None:
        self.running = False
        report, mem = result
        outcome = repair_words(report)
        log.info("%s: %s", outcome.title, outcome.text)
        self.on_opened(mem)
        self.repair_did_finish.emit(outcome)

    def _on_failed(self, exc: BaseException) -> None:
        self.running = False
        message = describe(exc, translate("Repair", "repairing the database"))
        log.error("repair failed: %s", exc, exc_info=exc if message.bug else None)
        self.repair_did_finish.emit(Outcome(message.title, message.text, ok=False))

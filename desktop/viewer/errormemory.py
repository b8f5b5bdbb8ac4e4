"""The error memory tab: a table (tool, symptom, action, outcome, expires in), a search box, and forget.

Built against :class:`desktop.seams.ErrorSource`; the window adds it only when the engine has an error
memory. Every call runs on the store worker. Listing shows the newest records (it does not refresh their
expiry); a search shows the best matches, and, as for the agent's own searches, each hit's time to live
(``engine.errormemory.TTL_NS``) starts again.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.a11y import accessible
from desktop.errors import describe
from desktop.i18n import QT_TRANSLATE_NOOP
from desktop.seams import ErrorSource
from desktop.tasks import TaskRunner
from engine.errormemory import TTL_NS, ErrorRecord

COLUMNS = (
    QT_TRANSLATE_NOOP("ErrorMemory", "Tool"),
    QT_TRANSLATE_NOOP("ErrorMemory", "Symptom"),
    QT_TRANSLATE_NOOP("ErrorMemory", "Action"),
    QT_TRANSLATE_NOOP("ErrorMemory", "Outcome"),
    QT_TRANSLATE_NOOP("ErrorMemory", "Expires in"),
)
OUTCOME_WORDS = {
    "resolved": QT_TRANSLATE_NOOP("ErrorMemory", "resolved"),
    "failed": QT_TRANSLATE_NOOP("ErrorMemory", "failed"),
    "abandoned": QT_TRANSLATE_NOOP("ErrorMemory", "abandoned"),
}
"""The words for each of the engine's outcomes (``engine.errormemory.OUTCOMES``)."""
DAY_NS = 86_400 * 1_000_000_000
translate = QCoreApplication.translate
Index = QModelIndex | QPersistentModelIndex


def days_left(record: ErrorRecord, now_ns: int | None = None) -> int | None:
    """Whole days until ``record`` expires (0 on its last day); None when its expiry is not known."""
    if not record.expires_at:
        return None
    now = now_ns if now_ns is not None else time.time_ns()
    return max(0, (record.expires_at - now) // DAY_NS)


class ErrorTableModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.records: list[ErrorRecord] = []

    def set_records(self, records: list[ErrorRecord]) -> None:
        self.beginResetModel()
        self.records = list(records)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return translate("ErrorMemory", COLUMNS[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r = self.records[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            days = days_left(r)
            if days is None:
                expires = translate("ErrorMemory", "unknown")
            else:
                expires = translate("ErrorMemory", "%n day(s)", "", days)
            outcome = (
                translate("ErrorMemory", OUTCOME_WORDS[r.outcome])
                if r.outcome in OUTCOME_WORDS
                else r.outcome
            )
            return (r.tool_name, r.symptom, r.action, outcome, expires)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [translate("ErrorMemory", "id {id}").format(id=r.id)]
            if r.cause:
                lines.append(translate("ErrorMemory", "cause: {cause}").format(cause=r.cause))
            lines.append(
                translate("ErrorMemory", "keywords: {keywords}").format(keywords=", ".join(r.keywords))
            )
            return "\n".join(lines)
        return None


class ErrorMemoryPanel(QWidget):
    """Lists, searches and forgets error-memory records.

    Signals:
        records_did_load(object): the records now shown.
        record_did_forget(str): a record was forgotten (its id).
    """

    records_did_load = Signal(object)
    record_did_forget = Signal(str)

    def __init__(self, runner: TaskRunner, source: ErrorSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.source = source
        self.model = ErrorTableModel(self)
        self.box = QLineEdit()
        self.box.setObjectName("errors-search")
        self.box.setPlaceholderText(
            translate("ErrorMemory", "Search the error memory (tool, symptom, cause)")
        )
        self.box.setToolTip(
            translate(
                "ErrorMemory",
                "Tool errors and their fixes, shared by every session; a record is kept %n day(s) after its "
                "last use",
                "",
                TTL_NS // DAY_NS,
            )
        )
        self.box.setClearButtonEnabled(True)
        self.box.setAccessibleName(translate("ErrorMemory", "Search the error memory"))
        self.forget_button = QPushButton(translate("ErrorMemory", "Forget"))
        self.forget_button.setToolTip(translate("ErrorMemory", "Delete the selected records"))
        self.status = QLabel("")
        self.table = QTableView()
        self.table.setObjectName("errors-table")
        accessible(
            self.table,
            translate("ErrorMemory", "Error memory"),
            translate("ErrorMemory", "Tool errors and their fixes; Forget deletes the selected ones"),
        )
        self.table.setTabKeyNavigation(False)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        for col in (1, 2):
            self.table.horizontalHeader().setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
        top = QHBoxLayout()
        top.addWidget(self.box, 1)
        top.addWidget(self.forget_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        self.box.returnPressed.connect(self.refresh)
        self.forget_button.clicked.connect(self.forget_selected)

    def refresh(self) -> None:
        """List every record, or search when the box has text."""
        query = self.box.text().strip()
        source = self.source

        def op() -> tuple[list[ErrorRecord], int | None]:
            if query:
                return source.search(query), None
            return source.list(), source.count()

        self.runner.run_query(op, lambda res: self._on_loaded(*res), self._on_failed, owner=self)

    def refresh_listing(self) -> None:
        """List again, unless a search is shown (searching renews its hits' expiry: it is not re-run)."""
        if not self.box.text().strip():
            self.refresh()

    def forget_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        ids = [self.model.records[r].id for r in rows]
        source = self.source
        for record_id in ids:

            def op(rid: str = record_id) -> str:
                source.forget(rid)
                return rid

            self.runner.run_query(op, self._on_forgotten, self._on_failed)

    def _on_loaded(self, records: list[ErrorRecord], total: int | None = None) -> None:
        self.model.set_records(records)
        count = len(records)
        if total is None and self.box.text().strip():
            text = translate("ErrorMemory", "%n record(s) found", "", count)
        elif total is not None and total > count:
            text = translate("ErrorMemory", "The newest %n record(s) of {total}", "", count).format(
                total=f"{total:,}"
            )
        else:
            text = translate("ErrorMemory", "%n record(s)", "", count)
        self.status.setText(text)
        self.records_did_load.emit(records)

    def _on_forgotten(self, record_id: str) -> None:
        self.status.setText(translate("ErrorMemory", "Forgot {id}").format(id=record_id[:12]))
        self.record_did_forget.emit(record_id)
        self.refresh()

    def _on_failed(self, exc: BaseException) -> None:
        self.status.setText(describe(exc, translate("ErrorMemory", "using the error memory")).text)

"""The sessions list: title, last message, recent/archived message counts, summary age, size; a filter box.

Fed from :class:`desktop.state.AppState`'s snapshot (already read on the worker), so it never does I/O.
Each session shows its title (imported, the user's, or its first message; the id when it has none) and
is sorted by its last message, newest first; the filter matches titles and ids. Temporary (``temp-``)
sessions are hidden unless asked for. A right click offers Rename… and Remove… (the window does them), as
do F2 and Delete on the current row. Tab leaves the table (to the next control) instead of moving between
its cells. The header's sort arrow points down when the column sorts from the largest (the newest) down,
whatever the style's own convention (:class:`SortArrowStyle`).
The session chooser of Compact… and Reset… (:mod:`desktop.chooser`) is this panel with other columns.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHeaderView,
    QLineEdit,
    QMenu,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionHeader,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.a11y import accessible
from desktop.i18n import QT_TRANSLATE_NOOP
from desktop.operations import size_text
from desktop.titles import title_of, tooltip_of
from desktop.tray import ago
from desktop.viewer.timefmt import local_time
from engine import SessionInfo

COLUMNS = (
    QT_TRANSLATE_NOOP("Sessions", "Session"),
    QT_TRANSLATE_NOOP("Sessions", "Last message"),
    QT_TRANSLATE_NOOP("Sessions", "Recent"),
    QT_TRANSLATE_NOOP("Sessions", "Archived"),
    QT_TRANSLATE_NOOP("Sessions", "Summary"),
    QT_TRANSLATE_NOOP("Sessions", "Size"),
)
TOOLTIPS = (
    "",
    "",
    QT_TRANSLATE_NOOP("Sessions", "Messages in the recent history, the part sent to the model each turn"),
    QT_TRANSLATE_NOOP("Sessions", "Messages kept only in the archive (still searchable)"),
    QT_TRANSLATE_NOOP("Sessions", "When the session's summary was last written"),
    QT_TRANSLATE_NOOP(
        "Sessions", "The size of the recent history; compaction keeps it under the limit set in Settings"
    ),
)
TITLE, LAST, RECENT, ARCHIVED, SUMMARY, SIZE = range(len(COLUMNS))
TITLE_CHARS = 30
"""The title column is never narrower than this many average characters: when the pane is narrower than
the title and the other columns, the table scrolls sideways instead of cutting titles to a few letters."""
translate = QCoreApplication.translate
SortRole = Qt.ItemDataRole.UserRole + 1
Index = QModelIndex | QPersistentModelIndex


class SortArrowStyle(QProxyStyle):
    """Draws a header's sort arrow down for a descending sort (largest, newest first) and up for an
    ascending one. Qt's header asks for the opposite (``SortUp`` for descending), which reads as "oldest
    first" beside a list that starts with the newest message."""

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element == QStyle.PrimitiveElement.PE_IndicatorHeaderArrow and isinstance(
            option, QStyleOptionHeader
        ):
            flipped = QStyleOptionHeader(option)
            up, down = QStyleOptionHeader.SortIndicator.SortUp, QStyleOptionHeader.SortIndicator.SortDown
            flipped.sortIndicator = down if option.sortIndicator == up else up
            super().drawPrimitive(element, flipped, painter, widget)
            return
        super().drawPrimitive(element, option, painter, widget)


class SessionsModel(QAbstractTableModel):
    """A table of :class:`engine.SessionInfo` rows."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.sessions: list[SessionInfo] = []

    def set_sessions(self, sessions: list[SessionInfo]) -> bool:
        """Replace the rows; False (nothing done) when they are the same as before."""
        if sessions == self.sessions:
            return False
        self.beginResetModel()
        self.sessions = list(sessions)
        self.endResetModel()
        return True

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.sessions)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return translate("Sessions", COLUMNS[section])
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return translate("Sessions", TOOLTIPS[section]) if TOOLTIPS[section] else None
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        info = self.sessions[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            title = title_of(info)
            return (
                translate("Sessions", "{session} (temporary)").format(session=title)
                if info.temporary
                else title,
                ago(info.last_message_at),
                f"{info.hot_messages:,}",
                f"{info.archived_messages:,}",
                ago(info.summary_updated) if info.summary_updated else translate("Sessions", "none"),
                size_text(info.history_bytes),
            )[col]
        if role == SortRole:
            return (
                title_of(info).casefold(),
                info.last_message_at,
                info.hot_messages,
                info.archived_messages,
                info.summary_updated,
                info.history_bytes,
            )[col]
        if role == Qt.ItemDataRole.ToolTipRole and col == TITLE:
            return tooltip_of(info)
        if role == Qt.ItemDataRole.ToolTipRole and col in (LAST, SUMMARY):
            ns = info.last_message_at if col == LAST else info.summary_updated
            return local_time(ns) if ns else None
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (RECENT, ARCHIVED, SIZE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return info.id
        return None


class SessionsFilter(QSortFilterProxyModel):
    """Filters by a case-insensitive substring of the title or the id; hides temporary sessions unless asked."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.show_temporary = False
        self.setSortRole(SortRole)

    def set_text(self, text: str) -> None:
        self.beginFilterChange()
        self.text = text.strip().casefold()
        self.endFilterChange()

    def set_show_temporary(self, show: bool) -> None:
        self.beginFilterChange()
        self.show_temporary = show
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, SessionsModel)
        info = model.sessions[source_row]
        if info.temporary and not self.show_temporary:
            return False
        return not self.text or self.text in info.id.casefold() or self.text in info.title.casefold()


class SessionsPanel(QWidget):
    """The sessions list with its filter.

    Signals:
        session_did_select(str): the user chose a session.
        rename_requested(str): "Rename…" in a row's context menu (the session id).
        remove_requested(str): "Remove…" in a row's context menu (the session id).
    """

    session_did_select = Signal(str)
    rename_requested = Signal(str)
    remove_requested = Signal(str)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        hidden: tuple[int, ...] = (SIZE,),
        context_menu: bool = True,
    ) -> None:
        """``hidden``: the columns not shown; ``context_menu``: offer Rename… and Remove… on a right click."""
        super().__init__(parent)
        self.model = SessionsModel(self)
        self.proxy = SessionsFilter(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QLineEdit()
        self.filter.setObjectName("sessions-filter")
        self.filter.setPlaceholderText(translate("Sessions", "Filter sessions"))
        self.filter.setClearButtonEnabled(True)
        accessible(
            self.filter,
            translate("Sessions", "Filter sessions"),
            translate("Sessions", "Shows only the sessions whose title or id holds these letters"),
        )
        self.temporary = QCheckBox(translate("Sessions", "Show temporary sessions"))
        self.temporary.setToolTip(
            translate("Sessions", "Sessions whose name starts with temp- (scratch work of other tools)")
        )
        self.table = QTableView()
        self.table.setObjectName("sessions-table")
        self.table.setModel(self.proxy)
        accessible(
            self.table,
            translate("Sessions", "Sessions"),
            translate(
                "Sessions", "Every session, newest first; Enter opens one, F2 renames it, Delete removes it"
            ),
        )
        self.table.setTabKeyNavigation(False)  # Tab moves on to the next control, as everywhere else
        self.sort_arrows = SortArrowStyle(self.table.horizontalHeader().style().name())  # its own base
        self.sort_arrows.setParent(self)
        self.table.horizontalHeader().setStyle(self.sort_arrows)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(LAST, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(TITLE, QHeaderView.ResizeMode.Interactive)  # sized by _fit_title
        for col in range(1, len(COLUMNS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setResizeContentsPrecision(0)  # fit the rows in view, not all (a big import adds hundreds)
        for col in hidden:
            self.table.setColumnHidden(col, True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # titles that share a start stay apart
        if context_menu:
            self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            self.table.customContextMenuRequested.connect(self._on_context_menu_requested)
            for key, signal in (
                (Qt.Key.Key_F2, self.rename_requested),
                (Qt.Key.Key_Delete, self.remove_requested),
            ):
                shortcut = QShortcut(QKeySequence(key), self.table)
                shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
                shortcut.activated.connect(lambda signal=signal: self._on_row_key(signal))
        self.context_menu: QMenu | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.temporary)
        self.filter.textChanged.connect(self.proxy.set_text)
        self.temporary.toggled.connect(self.proxy.set_show_temporary)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row_changed)
        header.sectionResized.connect(self._on_section_resized)
        self.table.viewport().installEventFilter(self)

    def fit_title(self) -> None:
        """Give the title column the room the other columns leave, and at least :data:`TITLE_CHARS`."""
        header = self.table.horizontalHeader()
        others = sum(
            header.sectionSize(col)
            for col in range(len(COLUMNS))
            if col != TITLE and not header.isSectionHidden(col)
        )
        least = self.table.fontMetrics().averageCharWidth() * TITLE_CHARS
        width = max(self.table.viewport().width() - others, least)
        if header.sectionSize(TITLE) != width:
            header.resizeSection(TITLE, width)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_title()
        return False

    def _on_section_resized(self, column: int, _old: int, _new: int) -> None:
        if column != TITLE:
            self.fit_title()

    def set_sessions(self, sessions: list[SessionInfo]) -> None:
        """Replace the rows, keeping the selected session selected (nothing happens if they are the same)."""
        current = self.current_session()
        self.table.selectionModel().blockSignals(True)
        if self.model.set_sessions(sessions) and current is not None:
            self.select(current)
        self.table.selectionModel().blockSignals(False)

    def current_session(self) -> str | None:
        index = self.table.currentIndex()
        return index.data(Qt.ItemDataRole.UserRole) if index.isValid() else None

    def visible_sessions(self) -> list[str]:
        return [self.proxy.index(r, 0).data(Qt.ItemDataRole.UserRole) for r in range(self.proxy.rowCount())]

    def select(self, session: str) -> bool:
        """Make ``session`` the current row (emits ``session_did_select`` if it changed)."""
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if index.data(Qt.ItemDataRole.UserRole) == session:
                self.table.selectionModel().setCurrentIndex(index, flags)
                return True
        return False

    def menu_for(self, session: str) -> QMenu:
        """The context menu of ``session``'s row: Rename…, Remove…."""
        menu = QMenu(self)
        menu.setObjectName("sessions-menu")
        rename = menu.addAction(translate("Sessions", "Rename…"))
        rename.setObjectName("rename-session")
        rename.triggered.connect(lambda: self.rename_requested.emit(session))
        remove = menu.addAction(translate("Sessions", "Remove…"))
        remove.setObjectName("remove-session")
        remove.triggered.connect(lambda: self.remove_requested.emit(session))
        return menu

    def _on_row_key(self, signal: Any) -> None:
        session = self.current_session()
        if session is not None:
            signal.emit(session)

    def _on_context_menu_requested(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        if not index.isValid():
            return
        if self.context_menu is not None:
            self.context_menu.deleteLater()
        self.context_menu = self.menu_for(index.data(Qt.ItemDataRole.UserRole))
        self.context_menu.popup(self.table.viewport().mapToGlobal(pos))

    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.session_did_select.emit(current.data(Qt.ItemDataRole.UserRole))

"""The session chooser of Compact… and Reset…: every session (title, last message, messages, size), a filter.

It is :class:`desktop.viewer.sessions.SessionsPanel` (fed from the state the app holds, no I/O) with the
size column shown, and buttons: Compact (and Compact all) or Reset…. Before anything runs it says what it
will do: the compaction limit and the size compaction trims to, and for the selected session whether
compacting changes anything (the engine's own rule, ``engine.sessions.may_trim``) or how many messages a
reset deletes. Choosing emits the session; the app runs the compaction, or asks before the reset
(:class:`desktop.operations.Operations`).

Each time it is opened (:meth:`SessionChooser.open_for`) it starts fresh: no filter, no selection, the
default button the mode's own (Enter never runs *Compact all*; with nothing selected it does nothing).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktop.icons import app_icon
from desktop.operations import size_text
from desktop.placement import fit_to_screen
from desktop.state import AppState
from desktop.titles import name_of
from desktop.viewer.sessions import SUMMARY, SessionsPanel
from engine import SessionInfo
from engine.sessions import may_trim, target_bytes

translate = QCoreApplication.translate

MODES = ("compact", "reset")
MINIMUM = QSize(520, 360)


class SessionChooser(QDialog):
    """Choose one session to compact or reset (or, to compact, all of them).

    Signals:
        session_did_choose(str, str): the mode (``compact`` or ``reset``) and the session id.
        all_did_choose(str): "Compact all" (the mode).
    """

    session_did_choose = Signal(str, str)
    all_did_choose = Signal(str)

    def __init__(self, state: AppState, mode: str = "compact", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.mode = ""
        self.setObjectName("session-chooser")
        self.setWindowIcon(app_icon())
        self.intro = QLabel("")
        self.intro.setObjectName("chooser-intro")
        self.intro.setWordWrap(True)
        self.sessions = SessionsPanel(hidden=(SUMMARY,), context_menu=False)
        self.plan = QLabel("")
        self.plan.setObjectName("chooser-plan")
        self.plan.setWordWrap(True)
        self.plan.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)  # never clipped
        self.intro.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.buttons = QDialogButtonBox()
        self.choose_button = QPushButton("")
        self.choose_button.setObjectName("chooser-choose")
        self.all_button = QPushButton("")
        self.all_button.setObjectName("chooser-all")
        self.all_button.setAutoDefault(False)  # focused or not, Enter never compacts every session
        self.buttons.addButton(self.choose_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.all_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.sessions, 1)
        layout.addWidget(self.plan)
        layout.addWidget(self.buttons)
        self.choose_button.clicked.connect(self._on_choose_clicked)
        self.all_button.clicked.connect(self._on_all_clicked)
        self.buttons.rejected.connect(self.reject)
        self.sessions.table.doubleClicked.connect(self._on_double_clicked)
        self.sessions.table.selectionModel().currentRowChanged.connect(self._update_buttons)
        self.sessions.proxy.modelReset.connect(self._update_buttons)
        self.sessions.proxy.layoutChanged.connect(self._update_buttons)
        self.sessions.proxy.rowsInserted.connect(self._update_buttons)
        self.sessions.proxy.rowsRemoved.connect(self._update_buttons)
        state.state_did_change.connect(self._on_state_did_change)
        self._on_state_did_change()
        self.set_mode(mode)
        fit_to_screen(self, 0.5, 0.6, MINIMUM)

    # -- public -----------------------------------------------------------------------------------

    def open_for(self, mode: str) -> None:
        """Start over for ``mode``: no filter, no selection, temporary sessions hidden, the list at its top."""
        self.sessions.filter.clear()
        self.sessions.temporary.setChecked(False)
        self.sessions.table.clearSelection()
        self.sessions.table.setCurrentIndex(QModelIndex())
        self.sessions.table.scrollToTop()
        self.set_mode(mode)
        self.sessions.filter.setFocus()

    def set_mode(self, mode: str) -> None:
        """Show the chooser for ``compact`` or ``reset``."""
        assert mode in MODES, mode
        self.mode = mode
        if mode == "compact":
            self.setWindowTitle(translate("Chooser", "memtray: compact a session"))
            self.choose_button.setText(translate("Chooser", "Compact"))
        else:
            self.setWindowTitle(translate("Chooser", "memtray: reset a session"))
            self.intro.setText(
                translate(
                    "Chooser",
                    "Resetting deletes a session's messages; its summary and the error memory are kept. "
                    "You will be asked to confirm.",
                )
            )
            self.choose_button.setText(translate("Chooser", "Reset…"))
        self.choose_button.setDefault(True)  # Enter: the mode's own action on the selected session
        self.all_button.setVisible(mode == "compact")
        self._update_buttons()

    def choose(self, session: str) -> None:
        """Choose ``session`` (what the button does for the selected row)."""
        self.session_did_choose.emit(self.mode, session)
        self.accept()

    @property
    def limit(self) -> int:
        """The compaction limit in the settings the app holds (bytes of recent history)."""
        return self.state.snapshot.settings.max_history_bytes

    def would_compact(self, info: SessionInfo) -> bool:
        """Whether compacting ``info`` now changes anything (the engine's rule, on the sizes the app holds)."""
        return may_trim(info.history_bytes, info.hot_messages, self.limit)

    # -- what it will do --------------------------------------------------------------------------

    def _compact_intro(self) -> str:
        return translate(
            "Chooser",
            "Compacting moves a session's oldest messages out of the recent history the model sees with "
            "each message; they stay in the archive and can still be searched. The limit is {limit}: a "
            "session larger than {target} is trimmed to about {target}, a smaller one is left as it is.",
        ).format(limit=size_text(self.limit), target=size_text(target_bytes(self.limit)))

    def _plan_text(self, info: SessionInfo | None) -> str:
        if info is None:
            return translate("Chooser", "Choose a session to see what happens to it.")
        name = name_of(info)
        size, target = size_text(info.history_bytes), size_text(target_bytes(self.limit))
        if self.mode == "reset":
            return translate(
                "Chooser",
                "Reset deletes the %Ln message(s) of “{session}”, after you confirm.",
                "",
                info.total_messages,
            ).format(session=name)
        if not self.would_compact(info):
            return translate(
                "Chooser",
                "“{session}” has {size} of recent history, not more than {target}: compacting changes nothing.",
            ).format(session=name, size=size, target=target)
        if info.private:
            return translate(
                "Chooser",
                "“{session}” has {size} of recent history: compacting deletes its oldest messages until about "
                "{target} remain (a private chat is not archived).",
            ).format(session=name, size=size, target=target)
        return translate(
            "Chooser",
            "“{session}” has {size} of recent history: compacting moves its oldest messages to the archive "
            "until about {target} remain.",
        ).format(session=name, size=size, target=target)

    # -- reacting ---------------------------------------------------------------------------------

    def _on_state_did_change(self) -> None:
        self.sessions.set_sessions(self.state.snapshot.sessions)
        self._update_buttons()

    def _update_buttons(self, *_args: object) -> None:
        if not self.mode:
            return
        current = self.sessions.current_session()
        info = self.state.session(current) if current is not None else None
        if self.mode == "compact":
            self.intro.setText(self._compact_intro())
            over = [s.id for s in self.state.snapshot.sessions if self.would_compact(s)]  # what "all" runs on
            self.all_button.setText(translate("Chooser", "Compact all (%n)", "", len(over)))
            self.all_button.setToolTip(
                translate("Chooser", "Compact the %n session(s) larger than {target}", "", len(over)).format(
                    target=size_text(target_bytes(self.limit))
                )
            )
            self.all_button.setEnabled(bool(over))
            self.choose_button.setEnabled(info is not None and self.would_compact(info))
        else:
            self.choose_button.setEnabled(info is not None)
        self.plan.setText(self._plan_text(info))

    def _on_choose_clicked(self) -> None:
        session = self.sessions.current_session()
        if session is not None and self.choose_button.isEnabled():
            self.choose(session)

    def _on_all_clicked(self) -> None:
        self.all_did_choose.emit(self.mode)
        self.accept()

    def _on_double_clicked(self, index: QModelIndex) -> None:
        session = index.data(Qt.ItemDataRole.UserRole)
        if session and self.choose_button.isEnabled():
            self.choose(session)

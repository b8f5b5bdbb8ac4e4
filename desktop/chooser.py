"""The session chooser of Compact… and Reset…: every session (title, last message, messages, size), a filter.

It is :class:`desktop.viewer.sessions.SessionsPanel` (fed from the state the app holds, no I/O) with the
size column shown, and buttons: Compact (and Compact all) or Reset…. Choosing emits the session; the
app runs the compaction, or asks before the reset (:class:`desktop.operations.Operations`).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.icons import app_icon
from desktop.placement import fit_to_screen
from desktop.state import AppState
from desktop.viewer.sessions import SUMMARY, SessionsPanel

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
        self.intro.setWordWrap(True)
        self.sessions = SessionsPanel(hidden=(SUMMARY,), context_menu=False)
        self.buttons = QDialogButtonBox()
        self.choose_button = QPushButton("")
        self.choose_button.setObjectName("chooser-choose")
        self.choose_button.setDefault(True)
        self.all_button = QPushButton(translate("Chooser", "Compact all"))
        self.all_button.setObjectName("chooser-all")
        self.buttons.addButton(self.choose_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.all_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.sessions, 1)
        layout.addWidget(self.buttons)
        self.choose_button.clicked.connect(self._on_choose_clicked)
        self.all_button.clicked.connect(self._on_all_clicked)
        self.buttons.rejected.connect(self.reject)
        self.sessions.table.doubleClicked.connect(self._on_double_clicked)
        self.sessions.table.selectionModel().currentRowChanged.connect(self._update_buttons)
        self.sessions.proxy.modelReset.connect(self._update_buttons)
        state.state_did_change.connect(self._on_state_did_change)
        self._on_state_did_change()
        self.set_mode(mode)
        fit_to_screen(self, 0.5, 0.6, MINIMUM)

    def set_mode(self, mode: str) -> None:
        """Show the chooser for ``compact`` or ``reset``."""
        assert mode in MODES, mode
        self.mode = mode
        if mode == "compact":
            self.setWindowTitle(translate("Chooser", "memtray: compact a session"))
            self.intro.setText(
                translate(
                    "Chooser",
                    "Compacting moves a session's older messages out of the recent history sent to the "
                    "model (history.json); they stay in the archive and can still be searched.",
                )
            )
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
        self.all_button.setVisible(mode == "compact")
        self._update_buttons()

    def choose(self, session: str) -> None:
        """Choose ``session`` (what the button does for the selected row)."""
        self.session_did_choose.emit(self.mode, session)
        self.accept()

    def _on_state_did_change(self) -> None:
        self.sessions.set_sessions(self.state.snapshot.sessions)
        self._update_buttons()

    def _update_buttons(self, *_args: object) -> None:
        self.choose_button.setEnabled(self.sessions.current_session() is not None)
        self.all_button.setEnabled(bool(self.sessions.visible_sessions()))

    def _on_choose_clicked(self) -> None:
        session = self.sessions.current_session()
        if session is not None:
            self.choose(session)

    def _on_all_clicked(self) -> None:
        self.all_did_choose.emit(self.mode)
        self.accept()

    def _on_double_clicked(self, index: QModelIndex) -> None:
        session = index.data(Qt.ItemDataRole.UserRole)
        if session:
            self.choose(session)

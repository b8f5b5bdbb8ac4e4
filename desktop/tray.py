"""The tray icon, its tooltip and its menu.

The icon shows what memtray is doing (:func:`desktop.status.status_of`): the bubble alone when idle, a
dot while it works, a paused dot, or a red ``!`` when it needs attention (a damaged database), drawn for
the panel's lightness (:mod:`desktop.trayicon`). The tooltip and the disabled lines at the top of the
menu say the same in words. The menu is rebuilt each time it opens, from :class:`desktop.state.AppState`
only: opening it never reads the database or a file. Its commands are :class:`desktop.actions.AppActions` (the same list the
main window's menu bar shows); :mod:`desktop.app` connects their requests to the viewer, the chat and
settings windows and :class:`desktop.operations.Operations`.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from desktop.actions import AppActions, all_actions, find_action
from desktop.state import AppState
from desktop.status import ago, status_of
from desktop.trayicon import panel_is_dark, state_icon

log = logging.getLogger("memtray.desktop.tray")

translate = QCoreApplication.translate


def tooltip_text(state: AppState) -> str:
    """The tooltip: sessions, what memtray is doing, the last summary run."""
    status = status_of(state)
    if state.memory is None:
        if state.open_error:
            return translate("Tray", "memtray — cannot open the memory: {error}").format(
                error=state.open_error
            )
        return translate("Tray", "memtray — starting…")
    sessions = [s for s in state.snapshot.sessions if not s.temporary]
    lines = [translate("Tray", "memtray — %Ln session(s)", "", len(sessions)), *status.lines]
    if state.summaries is not None:
        when = ago(state.snapshot.last_summary_run)
        if state.summaries_paused:
            line = translate("Tray", "Last summary run: {when} (paused)")
        elif state.snapshot.summarizer_note:  # the engine says why summaries are off: only a missing key
            line = translate("Tray", "Last summary run: {when} (off: no Gemini key; add one in Settings)")
        else:
            line = translate("Tray", "Last summary run: {when}")
        lines.append(line.format(when=when))
    return "\n".join(lines)


class Tray(QObject):
    """The system tray icon, its tooltip and its menu (the commands of :class:`AppActions`)."""

    def __init__(
        self,
        state: AppState,
        parent: QObject | None = None,
        actions: AppActions | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.actions = actions or AppActions(state, self)
        self.level = ""
        self.dark = panel_is_dark()
        self.icon = QSystemTrayIcon(self)
        self.menu = QMenu()
        self.menu.setObjectName("tray-menu")
        self.menu.aboutToShow.connect(self._on_about_to_show)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        state.state_did_change.connect(self._on_state_did_change)
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.paletteChanged.connect(self._on_theme_did_change)
            app.styleHints().colorSchemeChanged.connect(self._on_theme_did_change)
        self.rebuild()
        self._on_state_did_change()

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def show_message(self, title: str, text: str, ok: bool = True) -> None:
        kind = QSystemTrayIcon.MessageIcon.Information if ok else QSystemTrayIcon.MessageIcon.Warning
        self.icon.showMessage(title, text, kind, 8000)

    # -- menu -------------------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Fill the menu from the state the app holds (no I/O)."""
        self.actions.fill_menu(self.menu)

    def action(self, name: str) -> QAction:
        """The menu action with object name ``name`` (tests and the tray check use it)."""
        return find_action(self.menu, name)

    def _all_actions(self, menu: QMenu) -> list[QAction]:
        return all_actions(menu)

    # -- slots ------------------------------------------------------------------------------------

    def _on_about_to_show(self) -> None:
        self.rebuild()

    def _on_state_did_change(self) -> None:
        self.icon.setToolTip(tooltip_text(self.state))
        self.show_level(status_of(self.state).level)

    def show_level(self, level: str, dark: bool | None = None) -> None:
        """Show the icon of ``level`` for the panel (set only when the level or the panel changed)."""
        dark = self.dark if dark is None else dark
        if (level, dark) != (self.level, self.dark) or self.icon.icon().isNull():
            self.level, self.dark = level, dark
            self.icon.setIcon(state_icon(level, dark))

    def _on_theme_did_change(self, *_args: object) -> None:
        self.show_level(self.level, panel_is_dark())

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.actions.open_sessions_requested.emit()

"""The tray icon and its menu.

The menu is rebuilt each time it opens, from :class:`desktop.state.AppState` only: opening it never
reads the database or a file. "New chat" and "Continue ▸ <recent session>" open the chat window. Every item emits a request signal; :mod:`desktop.app` connects them to the
viewer, the settings window and :class:`desktop.operations.Operations`.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import cast

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from desktop.state import AppState

log = logging.getLogger("memtray.desktop.tray")


def ago(ns: int | None, now: float | None = None) -> str:
    """``3 min ago``, ``2 h ago``, ``5 days ago``, or ``never``."""
    if not ns:
        return "never"
    seconds = (now if now is not None else datetime.now().timestamp()) - ns / 1e9
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"


def tooltip_text(state: AppState) -> str:
    """The tooltip: sessions, last summary run, work in progress."""
    if state.memory is None:
        return "memtray — " + (
            f"cannot open the memory: {state.open_error}" if state.open_error else "starting…"
        )
    sessions = [s for s in state.snapshot.sessions if not s.temporary]
    lines = [f"memtray — {len(sessions)} session{'s' if len(sessions) != 1 else ''}"]
    if state.summaries is not None:
        if state.summaries_paused:
            why = " (paused)"
        elif state.snapshot.summarizer_note:  # the engine says why summaries are off: only a missing key
            why = " (off: no Gemini key; add one in Settings)"
        else:
            why = ""
        lines.append(f"Last summary run: {ago(state.snapshot.last_summary_run)}{why}")
    work = [t.label for t in state.work]
    lines.append("Working: " + ", ".join(work) if work else "Idle")
    return "\n".join(lines)


class Tray(QObject):
    """The system tray icon, its tooltip and its menu.

    Signals:
        open_sessions_requested(): "Open sessions…".
        search_requested(): "Search…".
        chat_requested(object): "New chat" (None) or "Continue ▸ <session>" (the session id).
        summarize_requested(): "Summarize now".
        compact_requested(object): a session id, or None for every session.
        reset_requested(str): a session id (the confirmation comes next).
        pause_requested(bool): True to pause scheduled summaries, False to resume.
        settings_requested(): "Settings…".
        quit_requested(): "Quit".
    """

    open_sessions_requested = Signal()
    search_requested = Signal()
    chat_requested = Signal(object)
    summarize_requested = Signal()
    compact_requested = Signal(object)
    reset_requested = Signal(str)
    pause_requested = Signal(bool)
    settings_requested = Signal()
    quit_requested = Signal()

    def __init__(self, state: AppState, icon: QIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.icon = QSystemTrayIcon(icon, self)
        self.menu = QMenu()
        self.menu.setObjectName("tray-menu")
        self.menu.aboutToShow.connect(self._on_about_to_show)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        state.state_did_change.connect(self._on_state_did_change)
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
        menu = self.menu
        menu.clear()
        ready = self.state.memory is not None
        self._add(menu, "Open sessions…", self.open_sessions_requested.emit, "open-sessions", ready)
        self._add(menu, "Search…", self.search_requested.emit, "search", ready)
        recent = self.state.recent_sessions()
        self._add(menu, "New chat", lambda: self.chat_requested.emit(None), "new-chat", ready)
        chat = menu.addMenu("Continue")
        chat.setObjectName("continue-menu")
        chat.setEnabled(ready and bool(recent))
        for info in recent:
            self._add(chat, info.id, lambda sid=info.id: self.chat_requested.emit(sid), f"continue:{info.id}")
        menu.addSeparator()
        summarize = self._add(
            menu,
            "Summarize now",
            self.summarize_requested.emit,
            "summarize",
            ready and self.state.summaries is not None,
        )
        if self.state.summaries is None:
            summarize.setToolTip("The summarizer is not part of this build")
        compact = menu.addMenu("Compact")
        compact.setObjectName("compact-menu")
        compact.setEnabled(ready and bool(recent))
        for info in recent:
            self._add(
                compact, info.id, lambda sid=info.id: self.compact_requested.emit(sid), f"compact:{info.id}"
            )
        if recent:
            compact.addSeparator()
        self._add(compact, "All sessions", lambda: self.compact_requested.emit(None), "compact:*")
        reset = menu.addMenu("Reset")
        reset.setObjectName("reset-menu")
        reset.setEnabled(ready and bool(recent))
        for info in recent:
            self._add(
                reset, f"{info.id}…", lambda sid=info.id: self.reset_requested.emit(sid), f"reset:{info.id}"
            )
        menu.addSeparator()
        paused = self.state.summaries_paused
        self._add(
            menu,
            "Resume summaries" if paused else "Pause summaries",
            lambda: self.pause_requested.emit(not paused),
            "pause",
            ready,
        )
        self._add(menu, "Settings…", self.settings_requested.emit, "settings", ready)
        menu.addSeparator()
        self._add(menu, "Quit", self.quit_requested.emit, "quit")

    def action(self, name: str) -> QAction:
        """The menu action with object name ``name`` (tests and the tray check use it)."""
        for act in self._all_actions(self.menu):
            if act.objectName() == name:
                return act
        raise KeyError(name)

    def _all_actions(self, menu: QMenu) -> list[QAction]:
        found = []
        for act in menu.actions():
            found.append(act)
            if act.menu() is not None:
                found.extend(self._all_actions(cast(QMenu, act.menu())))
        return found

    @staticmethod
    def _add(menu: QMenu, text: str, slot: object, name: str, enabled: bool = True) -> QAction:
        act = menu.addAction(text)
        act.setObjectName(name)
        act.triggered.connect(lambda _checked=False: slot())  # type: ignore[operator]
        act.setEnabled(enabled)
        return act

    # -- slots ------------------------------------------------------------------------------------

    def _on_about_to_show(self) -> None:
        self.rebuild()

    def _on_state_did_change(self) -> None:
        self.icon.setToolTip(tooltip_text(self.state))

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.open_sessions_requested.emit()

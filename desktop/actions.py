"""The app's commands, listed once, shown twice: as the tray menu and as the main window's menu bar.

:meth:`AppActions.entries` builds the list from :class:`desktop.state.AppState` only (no I/O), so menus
can be rebuilt each time they open. The tray menu starts with the status lines (disabled; the main window
shows them in its status bar instead) and, when the database is damaged, Repair…. Compact… and Reset…
open a chooser of every session; Continue ▸ lists the latest sessions by title. :meth:`AppActions.fill_menu` lays the list out as one menu (the
tray's), :meth:`AppActions.fill_menu_bar` as the File, Memory and Help menus of a window; both make
the same actions (same object names, texts and requests), so the two cannot drift apart. Each text has a
mnemonic (``&Open sessions…``: Alt+O in the menu bar, O in an open menu). Every action
emits a request signal; :mod:`desktop.app` connects them to the windows and
:class:`desktop.operations.Operations`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import cast

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar

from desktop.state import AppState
from desktop.status import status_of
from desktop.titles import short_title, title_of

translate = QCoreApplication.translate

BAR_MENUS = ("file", "memory", "help")


def bar_title(menu: str) -> str:
    return {
        "file": translate("Actions", "&File"),
        "memory": translate("Actions", "&Memory"),
        "help": translate("Actions", "&Help"),
    }[menu]


@dataclass(frozen=True)
class Entry:
    """One command: an action, or a submenu when it has ``children``.

    Attributes:
        name: the action's object name (tests and the tray check find actions by it).
        text: the translated text.
        run: what triggering it does (emit a request).
        bar: the menu-bar menu it goes into (``file``, ``memory`` or ``help``; ``""``: the tray menu only).
        enabled: whether it can be used now.
        tooltip: why it is disabled, or more about it.
        shortcut: the platform's standard key, and the keys to use where the platform has none (the
            menu bar only: a tray menu has no keyboard focus).
        children: the entries of a submenu.
    """

    name: str
    text: str
    run: Callable[[], None] | None = None
    bar: str = "file"
    enabled: bool = True
    tooltip: str = ""
    shortcut: tuple[QKeySequence.StandardKey, str] | None = None
    children: tuple[Entry, ...] = field(default=())


SEPARATOR = None
"""A separator between groups of the list (each menu-bar menu keeps the ones between its entries)."""
SEPARATOR_ENTRY = Entry("-", "")
"""A separator inside a submenu."""
Item = Entry | None


class AppActions(QObject):
    """The commands of the tray menu and the main window's menu bar.

    Signals:
        open_sessions_requested(): "Open sessions…".
        search_requested(): "Search…" (the viewer's search tab).
        quick_search_requested(): "Search memory…" (the quick search window).
        import_requested(): "Import…" (another tool's export).
        chat_requested(object): "New chat" (None) or "Continue ▸ <session>" (the session id).
        summarize_requested(): "Summarize now".
        compact_requested(object): a session id, or None for every session.
        reset_requested(str): a session id (the confirmation comes next).
        choose_requested(str): "Compact…" (``compact``) or "Reset…" (``reset``): choose the session first.
        pause_requested(bool): True to pause scheduled summaries, False to resume.
        embedding_pause_requested(bool): True to pause the background embedding, False to resume.
        repair_requested(): "Repair the database…" (the confirmation comes next).
        settings_requested(): "Settings…".
        about_requested(): "About memtray".
        quit_requested(): "Quit".
    """

    open_sessions_requested = Signal()
    search_requested = Signal()
    quick_search_requested = Signal()
    import_requested = Signal()
    chat_requested = Signal(object)
    summarize_requested = Signal()
    compact_requested = Signal(object)
    reset_requested = Signal(str)
    choose_requested = Signal(str)
    pause_requested = Signal(bool)
    embedding_pause_requested = Signal(bool)
    repair_requested = Signal()
    settings_requested = Signal()
    about_requested = Signal()
    quit_requested = Signal()

    def __init__(self, state: AppState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.quick_search_keys = ""
        """The global shortcut that opens the quick search, when it works (shown beside its entry)."""

    # -- the one list -----------------------------------------------------------------------------

    def entries(self) -> list[Item]:
        """Every command, in the tray menu's order (``SEPARATOR`` between groups), from the state only."""
        state = self.state
        ready = state.memory is not None
        recent = state.recent_sessions()
        has_sessions = any(not s.temporary for s in state.snapshot.sessions)
        has_summaries = state.summaries is not None
        paused = state.summaries_paused
        embedding_paused = state.embedding_paused
        key = QKeySequence.StandardKey
        status = status_of(state)
        lines: list[Item] = [
            Entry("status" if i == 0 else f"status:{i}", line, bar="", enabled=False)
            for i, line in enumerate(status.lines)
        ]
        if state.damaged:
            lines.append(self._repair_entry())
        return [
            *lines,
            SEPARATOR,
            Entry(
                "open-sessions",
                translate("Actions", "&Open sessions…"),
                self.open_sessions_requested.emit,
                enabled=ready,
            ),
            Entry(
                "search",
                translate("Actions", "&Search…"),
                self.search_requested.emit,
                enabled=ready,
                shortcut=(key.Find, "Ctrl+F"),
            ),
            Entry(
                "quick-search",
                translate("Actions", "Search &memory…")
                + (f"\t{self.quick_search_keys}" if self.quick_search_keys else ""),
                self.quick_search_requested.emit,
                enabled=ready,
                tooltip=translate(
                    "Actions", "One box over every conversation; Enter opens the one you choose"
                ),
            ),
            Entry(
                "import",
                translate("Actions", "&Import…"),
                self.import_requested.emit,
                enabled=ready,
                shortcut=(key.Open, "Ctrl+O"),
            ),
            SEPARATOR,
            Entry(
                "new-chat",
                translate("Actions", "&New chat"),
                lambda: self.chat_requested.emit(None),
                enabled=ready,
                shortcut=(key.New, "Ctrl+N"),
            ),
            Entry(
                "continue-menu",
                translate("Actions", "&Continue"),
                enabled=ready and bool(recent),
                children=tuple(
                    Entry(
                        f"continue:{s.id}",
                        short_title(s),
                        partial(self.chat_requested.emit, s.id),
                        tooltip=s.id if title_of(s) == s.id else f"{title_of(s)}\n{s.id}",
                    )
                    for s in recent
                ),
            ),
            SEPARATOR,
            Entry(
                "summarize",
                translate("Actions", "Summari&ze now"),
                self.summarize_requested.emit,
                bar="memory",
                enabled=ready and has_summaries,
                tooltip=""
                if has_summaries
                else translate("Actions", "The summarizer is not part of this build"),
            ),
            Entry(
                "compact",
                translate("Actions", "Com&pact…"),
                partial(self.choose_requested.emit, "compact"),
                bar="memory",
                enabled=ready and has_sessions,
                tooltip=translate(
                    "Actions",
                    "Moves older messages out of the recent history sent to the model; they stay in the "
                    "archive and can still be searched",
                ),
            ),
            Entry(
                "reset",
                translate("Actions", "&Reset…"),
                partial(self.choose_requested.emit, "reset"),
                bar="memory",
                enabled=ready and has_sessions,
                tooltip=translate("Actions", "Deletes a session's messages; its summary is kept"),
            ),
            SEPARATOR,
            Entry(
                "pause",
                translate("Actions", "Res&ume summaries")
                if paused
                else translate("Actions", "Pa&use summaries"),
                lambda: self.pause_requested.emit(not paused),
                bar="memory",
                enabled=ready,
            ),
            Entry(
                "pause-embedding",
                translate("Actions", "Resume &embedding")
                if embedding_paused
                else translate("Actions", "Pause &embedding"),
                lambda: self.embedding_pause_requested.emit(not embedding_paused),
                bar="memory",
                enabled=ready,
                tooltip=translate(
                    "Actions",
                    "Search by meaning learns new messages in the background; paused, they wait until you "
                    "resume, after a restart too",
                ),
            ),
            Entry(
                "settings",
                translate("Actions", "Se&ttings…"),
                self.settings_requested.emit,
                bar="memory",
                enabled=ready,
                shortcut=(key.Preferences, "Ctrl+,"),
            ),
            Entry("about", translate("Actions", "&About memtray"), self.about_requested.emit, bar="help"),
            SEPARATOR,
            Entry(
                "quit", translate("Actions", "&Quit"), self.quit_requested.emit, shortcut=(key.Quit, "Ctrl+Q")
            ),
        ]

    def _repair_entry(self) -> Entry:
        return Entry(
            "repair",
            translate("Actions", "Repair the data&base…"),
            self.repair_requested.emit,
            bar="memory",
            tooltip=translate(
                "Actions", "Moves the damaged database aside and rebuilds it from what can still be read"
            ),
        )

    # -- two presentations ------------------------------------------------------------------------

    def fill_menu(self, menu: QMenu) -> None:
        """Lay every command out in ``menu`` (the tray's), replacing what it held."""
        menu.clear()
        _add_items(menu, self.entries(), shortcuts=False)

    def fill_menu_bar(self, bar: QMenuBar, menus: dict[str, QMenu] | None = None) -> dict[str, QMenu]:
        """Lay every command out as the File, Memory and Help menus of ``bar``; return them by name.

        Pass the menus a previous call returned to refill them in place (an open menu bar keeps its
        menus). Separators between groups are kept within each menu.
        """
        if menus is None:
            menus = {}
            for name in BAR_MENUS:
                menus[name] = bar.addMenu(bar_title(name))
                menus[name].setObjectName(f"menu-{name}")
        for menu in menus.values():
            menu.clear()
        pending: set[str] = set()
        for item in self.entries():
            if item is None:
                pending = {name for name, menu in menus.items() if menu.actions()}
                continue
            if not item.bar:
                continue  # the tray's status lines: the window has its status bar
            menu = menus[item.bar]
            if item.bar in pending:
                menu.addSeparator()
                pending.discard(item.bar)
            _add_items(menu, [item], shortcuts=True)
        return menus


def all_actions(menu: QMenu | QMenuBar) -> list[QAction]:
    """Every action of ``menu`` and of its submenus, depth first."""
    found = []
    for act in menu.actions():
        found.append(act)
        if act.menu() is not None:
            found.extend(all_actions(cast(QMenu, act.menu())))
    return found


def find_action(menu: QMenu | QMenuBar, name: str) -> QAction:
    """The action with object name ``name`` in ``menu`` or its submenus."""
    for act in all_actions(menu):
        if act.objectName() == name:
            return act
    raise KeyError(name)


def _add_items(menu: QMenu, items: list[Item] | tuple[Entry, ...], *, shortcuts: bool) -> None:
    for item in items:
        if item is None or item is SEPARATOR_ENTRY:
            menu.addSeparator()
            continue
        if item.children or item.run is None:
            sub = menu.addMenu(item.text)
            sub.setObjectName(item.name)
            sub.setEnabled(item.enabled)
            sub.setToolTipsVisible(True)
            sub.menuAction().setObjectName(item.name)
            sub.menuAction().setToolTip(item.tooltip)
            _add_items(sub, item.children, shortcuts=shortcuts)
            continue
        act = menu.addAction(item.text)
        act.setObjectName(item.name)
        act.setEnabled(item.enabled)
        if item.tooltip:
            act.setToolTip(item.tooltip)
        if shortcuts and item.shortcut is not None:
            standard, fallback = item.shortcut
            act.setShortcuts(QKeySequence.keyBindings(standard) or [QKeySequence(fallback)])
        run = item.run
        act.triggered.connect(lambda _checked=False, run=run: run())
    menu.setToolTipsVisible(True)

"""The keys every memtray window answers: Esc hides it, Ctrl+W (the platform's Close) closes it.

As KeePassXC and CopyQ do: a window that is not the app's main window hides on Esc, and the platform's
Close key (Ctrl+W, Ctrl+F4, ⌘W) closes it like its title bar's button (the viewer and the quick search
hide then; closing the main window without a tray quits, as its close button does). Dialogs answer Esc
themselves (reject); they get Close only.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget


def add_close_keys(
    window: QWidget, *, escape: Callable[[], bool] | None = None, escape_hides: bool = True
) -> list[QShortcut]:
    """Give ``window`` Ctrl+W (and the platform's Close keys) to close it, and Esc to hide it unless
    ``escape()`` says no (the main window ignores Esc: hiding it would leave no way back) or
    ``escape_hides`` is False (a dialog, which rejects on Esc itself; a chat, where Esc must not lose the
    conversation)."""
    shortcuts = []
    keys: dict[str, QKeySequence] = {}
    for sequence in (QKeySequence("Ctrl+W"), *QKeySequence.keyBindings(QKeySequence.StandardKey.Close)):
        keys.setdefault(sequence.toString(), sequence)
    for sequence in keys.values():
        close = QShortcut(sequence, window, window.close)
        close.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcuts.append(close)

    def on_escape() -> None:
        if escape is None or escape():
            window.hide()

    if not escape_hides:
        return shortcuts
    hide = QShortcut(QKeySequence(Qt.Key.Key_Escape), window, on_escape)
    hide.setContext(Qt.ShortcutContext.WindowShortcut)
    shortcuts.append(hide)
    return shortcuts

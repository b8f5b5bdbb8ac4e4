"""Asking before something that cannot be undone: a non-modal warning whose default button is Cancel.

Reset, remove, forget and repair all ask this way: the question says what is deleted and what is kept,
the destructive button names the action, Enter and Esc cancel, and the window stays usable meanwhile
(``open()``, never ``exec()``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QWidget

log = logging.getLogger("memtray.desktop.confirm")


def ask_destructive(
    parent: QWidget | None,
    *,
    name: str,
    title: str,
    text: str,
    informative: str,
    verb: str,
    on_confirmed: Callable[[], None],
    on_closed: Callable[[], None],
) -> QMessageBox:
    """Open the question (object name ``name``); when it closes, ``on_closed()`` runs, then
    ``on_confirmed()`` if the user chose ``verb``. The box is returned open."""
    box = QMessageBox(parent)
    box.setObjectName(name)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(text)
    box.setInformativeText(informative)
    confirm = box.addButton(verb, QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)

    def on_finished(_result: int) -> None:
        confirmed = box.clickedButton() is confirm
        on_closed()
        box.deleteLater()
        if confirmed:
            on_confirmed()
        else:
            log.info("%s: cancelled by the user", name)

    box.finished.connect(on_finished)
    box.open()
    return box

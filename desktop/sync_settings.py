"""Settings ▸ Sync: the shared folder, this device's name, the passphrase, on and off, and where sync stands.

Choosing a folder asks the engine (network pool: files only) whether it already holds memtray's sync: then
the passphrase joins it; otherwise enabling creates it and the passphrase is asked twice. Enabling derives
the key from the passphrase (Argon2id, about a second) and writes the sync's state, so it runs on the store
worker, as do "Sync now", "Disable" and the status read: the GUI thread never waits. The status block
follows the app's state too (:attr:`desktop.state.Snapshot.sync`, re-read every minute), so it shows what
the background sync of :mod:`engine.jobs` did. Failures are told by
:func:`desktop.errors.describe` ("the passphrase does not open this folder").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from desktop.a11y import accessible
from desktop.errors import describe
from desktop.state import AppState
from desktop.status import ago

if TYPE_CHECKING:
    from engine.sync import SyncStatus

translate = QCoreApplication.translate


def status_text(status: SyncStatus) -> str:
    """The status block: this device, the last sync, what waits, the last error, the folder watch, every
    other device and when it was last applied here."""
    if not status.enabled:
        return translate("Sync", "Sync is off.")
    lines = [
        translate("Sync", "This device: {name} ({device})").format(
            name=status.name, device=status.device[:12]
        ),
        translate("Sync", "Last sync: {when}").format(when=ago(status.last_sync)),
        translate("Sync", "Waiting to be sent: %Ln message(s)", "", status.unsent),
    ]
    if status.key != "present":
        lines.append(
            translate("Sync", "The key is not on this device: enter the passphrase and enable again.")
        )
    if status.last_error:
        lines.append(translate("Sync", "Last error: {error}").format(error=status.last_error))
    lines.append(watch_text(status))
    if not status.devices:
        lines.append(translate("Sync", "No other device has written to the folder yet."))
    for device in status.devices:
        lines.append(
            translate(
                "Sync", "{name}: applied {applied} of {written} ({pending} pending), last applied {when}"
            ).format(
                name=device.name or device.device[:12],
                applied=device.applied,
                written=device.written,
                pending=device.pending,
                when=ago(device.applied_at),
            )
        )
    return "\n".join(lines)


def watch_text(status: SyncStatus) -> str:
    """Whether the folder is watched (what another device writes arrives within seconds) or only the
    one-minute timer syncs, and why."""
    if status.watching:
        return translate("Sync", "Watching the folder: changes arrive within seconds.")
    if status.watch_error:
        return translate("Sync", "Not watching the folder ({error}): syncing every minute.").format(
            error=status.watch_error
        )
    return translate("Sync", "Not watching the folder: syncing every minute.")


class SyncBox(QGroupBox):
    """The Sync group of the settings window.

    Signals:
        sync_did_change(): sync was enabled, disabled or run (the app's state is being re-read).
    """

    sync_did_change = Signal()

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(translate("Sync", "Sync between your devices"), parent)
        self.state = state
        self.runner = state.runner
        self.joining: bool | None = None  # whether the folder holds memtray's sync; None: not known
        self.folder = QLineEdit()
        self.folder.setObjectName("sync-folder")
        self.folder.setPlaceholderText(
            translate("Sync", "a folder Syncthing, Dropbox or a share keeps in step")
        )
        accessible(self.folder, translate("Sync", "Sync folder"))
        self.choose = QPushButton(translate("Sync", "Choose…"))
        self.choose.setObjectName("sync-choose")
        accessible(self.choose, translate("Sync", "Choose the sync folder"))
        self.device_name = QLineEdit()
        self.device_name.setObjectName("sync-device-name")
        self.device_name.setMaxLength(80)
        self.device_name.setPlaceholderText(translate("Sync", "this computer's name"))
        accessible(self.device_name, translate("Sync", "This device's name"))
        self.passphrase = QLineEdit()
        self.passphrase.setObjectName("sync-passphrase")
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        accessible(
            self.passphrase,
            translate("Sync", "Sync passphrase"),
            translate(
                "Sync", "Every device of this folder uses the same passphrase; it encrypts what is synced"
            ),
        )
        self.confirm = QLineEdit()
        self.confirm.setObjectName("sync-confirm")
        self.confirm.setEchoMode(QLineEdit.EchoMode.Password)
        accessible(self.confirm, translate("Sync", "Passphrase again"))
        self.confirm_label = QLabel(translate("Sync", "Passphrase again"))
        self.mode = QLabel("")
        self.mode.setObjectName("sync-mode")
        self.mode.setWordWrap(True)
        self.enable = QPushButton(translate("Sync", "Enable sync"))
        self.enable.setObjectName("sync-enable")
        self.sync_now = QPushButton(translate("Sync", "Sync now"))
        self.sync_now.setObjectName("sync-now")
        self.disable = QPushButton(translate("Sync", "Disable sync"))
        self.disable.setObjectName("sync-disable")
        self.message = QLabel("")
        self.message.setObjectName("sync-message")
        self.message.setWordWrap(True)
        self.status = QLabel("")
        self.status.setObjectName("sync-status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout(self)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(self.choose)
        form.addRow(translate("Sync", "Folder"), folder_row)
        form.addRow("", self.mode)
        form.addRow(translate("Sync", "Device name"), self.device_name)
        form.addRow(translate("Sync", "Passphrase"), self.passphrase)
        form.addRow(self.confirm_label, self.confirm)
        buttons = QHBoxLayout()
        buttons.addWidget(self.enable)
        buttons.addWidget(self.sync_now)
        buttons.addWidget(self.disable)
        buttons.addStretch(1)
        form.addRow("", buttons)
        form.addRow("", self.message)
        form.addRow(translate("Sync", "Status"), self.status)

        self.choose.clicked.connect(self._on_choose_clicked)
        self.folder.editingFinished.connect(self.check_folder)
        self.enable.clicked.connect(self.enable_sync)
        self.sync_now.clicked.connect(self.run_sync)
        self.disable.clicked.connect(self.disable_sync)
        state.state_did_change.connect(self._on_state_did_change)
        self._show_enabled(False)
        self.load()

    # -- reading ----------------------------------------------------------------------------------

    def load(self) -> None:
        """Read the sync's status on the store worker (it reads the database and the folder)."""
        mem = self.state.memory
        if mem is None:
            self.status.setText(translate("Sync", "The memory is not open yet."))
            return
        self.runner.run_query(mem.sync.status, self._on_status, self._on_failed, owner=self)

    def check_folder(self) -> None:
        """Find out (network pool: files only) whether the chosen folder already holds memtray's sync."""
        mem, folder = self.state.memory, self.folder.text().strip()
        self.joining = None
        if mem is None or not folder:
            self.mode.setText("")
            return
        self.runner.run_query(
            lambda: mem.sync.is_set_up(folder),
            lambda joining: self._on_folder_checked(folder, joining),
            lambda exc: self._on_folder_failed(folder, exc),
            pool="network",
            owner=self,
        )

    def _on_folder_checked(self, folder: str, joining: bool) -> None:
        if folder != self.folder.text().strip():
            return  # another folder was chosen meanwhile
        self.joining = joining
        self.confirm.setVisible(not joining)
        self.confirm_label.setVisible(not joining)
        self.mode.setText(
            translate("Sync", "This folder already holds memtray's sync: enter its passphrase to join it.")
            if joining
            else translate(
                "Sync",
                "memtray will set up sync in this folder: choose a passphrase (every device needs it).",
            )
        )

    def _on_folder_failed(self, folder: str, exc: BaseException) -> None:
        if folder == self.folder.text().strip():
            self.mode.setText(describe(exc, translate("Sync", "setting up sync")).text)

    def _on_status(self, status: SyncStatus) -> None:
        self.status.setText(status_text(status))
        self._show_enabled(status.enabled)
        if status.enabled:
            self.folder.setText(status.folder)
            self.device_name.setText(status.name)
            self.check_folder()

    def _on_state_did_change(self) -> None:
        """The app re-read the engine (every minute, and after each change): the status block follows; the
        fields being edited stay as they are."""
        status = self.state.snapshot.sync
        if status is not None:
            self.status.setText(status_text(status))
            self._show_enabled(status.enabled)

    def _show_enabled(self, enabled: bool) -> None:
        self.sync_now.setEnabled(enabled)
        self.disable.setEnabled(enabled)
        self.enable.setText(
            translate("Sync", "Enable again") if enabled else translate("Sync", "Enable sync")
        )

    # -- acting -----------------------------------------------------------------------------------

    def _on_choose_clicked(self) -> None:
        chosen = QFileDialog.getExistingDirectory(
            self, translate("Sync", "Choose the folder your sync program keeps in step"), self.folder.text()
        )
        if chosen:
            self.folder.setText(chosen)
            self.check_folder()

    def enable_sync(self) -> None:
        """Create or join the folder with the passphrase (store worker: key derivation and the database)."""
        mem, folder = self.state.memory, self.folder.text().strip()
        passphrase, name = self.passphrase.text(), self.device_name.text().strip() or None
        if mem is None:
            return
        if not folder:
            self.message.setText(translate("Sync", "Choose the sync folder first."))
            return
        if not passphrase:
            self.message.setText(translate("Sync", "Enter the passphrase."))
            return
        if self.joining is False and self.confirm.text() != passphrase:
            self.message.setText(translate("Sync", "The two passphrases differ: type them again."))
            return
        joining = self.joining
        self.enable.setEnabled(False)
        self.message.setText(translate("Sync", "Opening the folder with the passphrase…"))
        self.runner.run_query(
            lambda: mem.sync.enable(folder, passphrase, name),
            lambda status: self._on_enabled(status, joining),
            self._on_enable_failed,
            owner=self,
        )

    def _on_enabled(self, status: SyncStatus, joining: bool | None) -> None:
        self.enable.setEnabled(True)
        self.passphrase.clear()
        self.confirm.clear()
        self.message.setText(
            translate("Sync", "Sync is on: this device joined the folder.")
            if joining
            else translate("Sync", "Sync is on.")
        )
        self._on_status(status)
        self._changed()

    def _on_enable_failed(self, exc: BaseException) -> None:
        self.enable.setEnabled(True)
        self.passphrase.clear()
        self.confirm.clear()
        self._on_failed(exc)

    def run_sync(self) -> None:
        """Write what is new here and apply what the others wrote (store worker), then show the status."""
        mem = self.state.memory
        if mem is None:
            return
        self.sync_now.setEnabled(False)
        self.message.setText(translate("Sync", "Syncing…"))

        def op() -> SyncStatus:
            mem.sync.now()
            return mem.sync.status()

        self.runner.run_query(op, self._on_synced, self._on_sync_failed, owner=self)

    def _on_synced(self, status: SyncStatus) -> None:
        self.message.setText(translate("Sync", "Synced."))
        self._on_status(status)
        self._changed()

    def _on_sync_failed(self, exc: BaseException) -> None:
        self.sync_now.setEnabled(True)
        self._on_failed(exc)
        self.load()  # the engine noted the error: the status says it
        self._changed()

    def disable_sync(self) -> None:
        """Stop syncing (store worker); the folder's files stay."""
        mem = self.state.memory
        if mem is None:
            return

        def op() -> SyncStatus:
            mem.sync.disable()
            return mem.sync.status()

        self.runner.run_query(op, self._on_disabled, self._on_failed, owner=self)

    def _on_disabled(self, status: SyncStatus) -> None:
        self.message.setText(translate("Sync", "Sync is off; the folder's files were left as they are."))
        self._on_status(status)
        self._changed()

    def _on_failed(self, exc: BaseException) -> None:
        self.message.setText(describe(exc, translate("Sync", "setting up sync")).text)

    def _changed(self) -> None:
        self.state.refresh()
        self.sync_did_change.emit()

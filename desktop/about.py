"""The About dialog: memtray's version, where its data and its log live, and buttons to open both folders.

The version comes from the installed package's metadata (``importlib.metadata``), which reads files:
it is looked up on the store worker, and the dialog shows "…" until it arrives.
"""

from __future__ import annotations

import logging
from importlib import metadata

from PySide6.QtCore import QCoreApplication, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.icons import app_icon
from desktop.tasks import TaskRunner
from desktop.windowkeys import add_close_keys
from engine import Paths

log = logging.getLogger("memtray.desktop.about")

translate = QCoreApplication.translate

DISTRIBUTION = "memtray"


def installed_version() -> str:
    """memtray's version from its package metadata, or ``""`` when it is not installed as a package."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return ""


class AboutDialog(QDialog):
    """Version, data folder, log folder.

    Signals:
        version_did_load(str): the version was read (``""`` when unknown).
    """

    version_did_load = Signal(str)

    def __init__(self, runner: TaskRunner, paths: Paths, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.paths = paths
        self.setObjectName("about")
        self.setWindowTitle(translate("About", "About memtray"))
        add_close_keys(self, escape_hides=False)  # Esc rejects the dialog
        self.setWindowIcon(app_icon())
        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(64, 64))
        self.title = QLabel("<h2>memtray</h2>")
        self.version = QLabel("…")
        self.version.setObjectName("about-version")
        self.blurb = QLabel(
            translate(
                "About",
                "A memory for your conversations with AI assistants, kept on this computer: every message, "
                "rolling summaries written by Gemini, and search by keyword or by meaning.",
            )
        )
        self.blurb.setWordWrap(True)
        self.data_folder = self._path_label(str(paths.home))
        self.log_folder = self._path_label(str(paths.logs_dir))
        self.open_data = QPushButton(translate("About", "Open data folder"))
        self.open_data.setObjectName("about-open-data")
        self.open_logs = QPushButton(translate("About", "Open log folder"))
        self.open_logs.setObjectName("about-open-logs")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        head = QHBoxLayout()
        head.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        titles = QVBoxLayout()
        titles.addWidget(self.title)
        titles.addWidget(self.version)
        head.addLayout(titles, 1)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)  # each path gets the whole width
        data_row = QVBoxLayout()
        data_row.addWidget(self.data_folder)
        data_row.addWidget(self.open_data, 0, Qt.AlignmentFlag.AlignLeft)
        log_row = QVBoxLayout()
        log_row.addWidget(self.log_folder)
        log_row.addWidget(self.open_logs, 0, Qt.AlignmentFlag.AlignLeft)
        form.addRow(translate("About", "Data folder"), data_row)
        form.addRow(translate("About", "Log folder"), log_row)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.blurb)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.open_data.clicked.connect(lambda: self.open_folder(str(paths.home)))
        self.open_logs.clicked.connect(lambda: self.open_folder(str(paths.logs_dir)))
        buttons.rejected.connect(self.close)
        runner.run_query(installed_version, self._on_version, self._on_version_failed, owner=self)

    @staticmethod
    def _path_label(text: str) -> QLabel:
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setWordWrap(False)  # a path has no spaces to wrap at: the dialog is made wide enough for it
        label.setToolTip(text)
        return label

    def open_folder(self, folder: str) -> bool:
        """Show ``folder`` in the file manager; False if the desktop could not."""
        opened = QDesktopServices.openUrl(QUrl.fromLocalFile(folder))
        if not opened:
            log.info("the desktop could not open %s", folder)
        return opened

    def _on_version(self, version: str) -> None:
        if version:
            self.version.setText(translate("About", "Version {version}").format(version=version))
        else:
            self.version.setText(translate("About", "Version unknown (not installed as a package)"))
        self.version_did_load.emit(version)

    def _on_version_failed(self, exc: BaseException) -> None:
        log.info("could not read memtray's version: %s", exc)
        self._on_version("")

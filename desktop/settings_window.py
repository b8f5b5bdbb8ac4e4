"""The settings window: Gemini key, models, reply language, history limits, embedder, schedule, autostart.

Values come from the state the app holds; Save sends only what changed to ``Memory.update_settings`` on the
store worker (and applies autostart there too, since it writes a file or the registry). The key goes to
the OS keyring through :class:`desktop.seams.KeyStore` (``engine.llm.keys.Keys``), never into the settings
table; every keyring call runs on the store worker, and the window only ever shows a masked hint of the
key. Without a secure keyring the window says so and offers "Use for this session only" (the key stays in
memory until memtray quits). "Test" makes one real Gemini call on the network pool, with the key in the
field if there is one, else the configured key.

Next to the embedder setting the window shows the embedder in use and why (the semantic tier's choice,
read on the store worker by the state refresh; "loading…" until the model is loaded), and says that
changing it re-embeds every message in the background, with the progress in the viewer's status bar.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop import autostart
from desktop.errors import describe, describe_key_test
from desktop.icons import app_icon
from desktop.seams import KeyInfo
from desktop.state import AppState
from engine import Settings

log = logging.getLogger("memtray.desktop.settings")

EMBEDDERS = (
    ("auto", "Automatic (best local model that loads)"),
    ("e5", "Local: multilingual E5 (better quality)"),
    ("use", "Local: Universal Sentence Encoder (faster)"),
    ("gemini", "Gemini embeddings (online)"),
    ("hash", "Character n-grams (no model; weakest)"),
)
LANGUAGES = (
    ("auto", "Same as the conversation (Chinese as Traditional)"),
    ("zh-TW", "繁體中文"),
    ("en", "English"),
    ("ja", "日本語"),
)
MODELS = ("gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-pro")


def _combo(items: tuple[tuple[str, str], ...], editable: bool = False) -> QComboBox:
    box = QComboBox()
    box.setEditable(editable)
    for value, label in items:
        box.addItem(label, value)
    return box


def _set_combo(box: QComboBox, value: str) -> None:
    index = box.findData(value)
    if index < 0:
        box.addItem(value, value)
        index = box.count() - 1
    box.setCurrentIndex(index)


class SettingsWindow(QWidget):
    """Edits the user settings.

    Signals:
        settings_did_save(object): the :class:`engine.Settings` now stored.
        key_did_change(str): the key field's new status text (after loading, save, delete or test).
    """

    settings_did_save = Signal(object)
    key_did_change = Signal(str)

    def __init__(
        self,
        state: AppState,
        autostart_impl: autostart.Autostart | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.runner = state.runner
        self.autostart_impl = autostart_impl
        self._embedder_before = ""
        self.setWindowTitle("memtray — settings")
        self.setMinimumWidth(680)
        self.setWindowIcon(app_icon())
        self.key = QLineEdit()
        self.key.setObjectName("gemini-key")
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("paste a new key to replace the stored one")
        self.key_status = QLabel("")
        self.key_status.setObjectName("key-status")
        self.key_status.setWordWrap(True)
        self.key_save = QPushButton("Save key")
        self.key_session = QPushButton("Use for this session only")
        self.key_session.setObjectName("key-session")
        self.key_session.hide()
        self.key_delete = QPushButton("Delete key")
        self.key_test = QPushButton("Test")
        self.summary_model = QComboBox()
        self.summary_model.setEditable(True)
        self.summary_model.addItems(MODELS)
        self.chat_model = QComboBox()
        self.chat_model.setEditable(True)
        self.chat_model.addItems(MODELS)
        self.decision_model = QComboBox()
        self.decision_model.setEditable(True)
        self.decision_model.addItems(("", *MODELS))
        self.reply_lang = _combo(LANGUAGES)
        self.window_messages = QSpinBox()
        self.window_messages.setRange(1, 10_000)
        self.history_kib = QSpinBox()
        self.history_kib.setRange(4, 1024 * 1024)
        self.history_kib.setSuffix(" KiB")
        self.embedder = _combo(EMBEDDERS)
        self.embedder_note = QLabel("")
        self.embedder_note.setObjectName("embedder-note")
        self.embedder_note.setWordWrap(True)
        self.embedder_in_use = QLabel("")
        self.embedder_in_use.setObjectName("embedder-in-use")
        self.embedder_in_use.setWordWrap(True)
        self.summaries_enabled = QCheckBox("Summarize conversations on a schedule (every 15 minutes)")
        self.autostart = QCheckBox("Start memtray when I log in")
        self.data_folder = QLineEdit()
        self.data_folder.setReadOnly(True)
        self.open_folder = QPushButton("Open folder")
        self.status = QLabel("")
        self.status.setObjectName("settings-status")
        self.status.setWordWrap(True)
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.close_button = QPushButton("Close")

        gemini = QGroupBox("Gemini")
        form = QFormLayout(gemini)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.key_save)
        key_row.addWidget(self.key_session)
        key_row.addWidget(self.key_delete)
        key_row.addWidget(self.key_test)
        form.addRow("API key", key_row)
        form.addRow("", self.key_status)
        form.addRow("Summary model", self.summary_model)
        form.addRow("Decision model", self.decision_model)
        form.addRow("Chat model", self.chat_model)
        form.addRow("Reply language", self.reply_lang)
        memory = QGroupBox("Memory")
        form2 = QFormLayout(memory)
        form2.addRow("Messages sent each turn", self.window_messages)
        form2.addRow("Compact history.json above", self.history_kib)
        form2.addRow("Search by meaning with", self.embedder)
        form2.addRow("In use", self.embedder_in_use)
        form2.addRow("", self.embedder_note)
        form2.addRow("", self.summaries_enabled)
        app_box = QGroupBox("App")
        form3 = QFormLayout(app_box)
        form3.addRow("", self.autostart)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.data_folder, 1)
        folder_row.addWidget(self.open_folder)
        form3.addRow("Data folder", folder_row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(gemini)
        layout.addWidget(memory)
        layout.addWidget(app_box)
        layout.addLayout(buttons)

        self.save_button.clicked.connect(self.save)
        self.close_button.clicked.connect(self.close)
        self.open_folder.clicked.connect(self._on_open_folder_clicked)
        self.key_save.clicked.connect(self._on_key_save_clicked)
        self.key_session.clicked.connect(self._on_key_session_clicked)
        self.key_delete.clicked.connect(self._on_key_delete_clicked)
        self.key_test.clicked.connect(self._on_key_test_clicked)
        self.embedder.currentIndexChanged.connect(self._on_embedder_changed)
        state.state_did_change.connect(self._show_embedder_in_use)
        self.load()

    # -- values -----------------------------------------------------------------------------------

    def load(self) -> None:
        """Fill the fields from the settings the app holds (no I/O)."""
        s = self.state.snapshot.settings
        self.summary_model.setCurrentText(s.summary_model)
        self.decision_model.setCurrentText(s.decision_model)
        self.chat_model.setCurrentText(s.chat_model)
        _set_combo(self.reply_lang, s.reply_lang)
        self.window_messages.setValue(s.max_history_messages)
        self.history_kib.setValue(max(4, s.max_history_bytes // 1024))
        _set_combo(self.embedder, s.embedder)
        self.summaries_enabled.setChecked(s.summaries_enabled)
        self.autostart.setChecked(s.autostart)
        mem = self.state.memory
        self.data_folder.setText(str(mem.paths.home) if mem is not None else "")
        self._on_embedder_changed()
        self._show_embedder_in_use()
        self._load_key_status()

    def values(self) -> dict[str, Any]:
        return {
            "summary_model": self.summary_model.currentText().strip(),
            "decision_model": self.decision_model.currentText().strip(),
            "chat_model": self.chat_model.currentText().strip() or Settings().chat_model,
            "reply_lang": self.reply_lang.currentData(),
            "max_history_messages": self.window_messages.value(),
            "max_history_bytes": self.history_kib.value() * 1024,
            "embedder": self.embedder.currentData(),
            "summaries_enabled": self.summaries_enabled.isChecked(),
            "autostart": self.autostart.isChecked(),
        }

    def changes(self) -> dict[str, Any]:
        current = self.state.snapshot.settings.as_dict()
        return {k: v for k, v in self.values().items() if current.get(k) != v}

    def save(self) -> None:
        mem = self.state.memory
        changes = self.changes()
        if mem is None:
            return
        if not changes:
            self.status.setText("Nothing changed.")
            return
        impl = self.autostart_impl

        def op() -> Settings:
            updated = mem.update_settings(**changes)
            if "autostart" in changes:
                autostart.apply(bool(changes["autostart"]), impl)
            return updated

        self.status.setText("Saving…")
        self.runner.run_query(op, self._on_saved, self._on_save_failed)

    def _on_saved(self, settings: Settings) -> None:
        self.state.set_settings(settings)
        note = (
            " The embedder changed: every message is re-embedded in the background."
            if settings.embedder != self._embedder_before
            else ""
        )
        self.status.setText("Saved." + note)
        self._embedder_before = settings.embedder
        self.settings_did_save.emit(settings)

    def _on_save_failed(self, exc: BaseException) -> None:
        self.status.setText(describe(exc, "saving the settings").text)

    def _on_embedder_changed(self) -> None:
        current = self.state.snapshot.settings.embedder
        self._embedder_before = current
        chosen = self.embedder.currentData()
        self.embedder_note.setText(
            "Saving re-embeds every message with the new embedder, in the background (progress in the viewer)."
            if chosen != current
            else "Changing it re-embeds every message in the background; the viewer's status bar shows "
            "the progress."
        )
        self.adjustSize()

    def _show_embedder_in_use(self) -> None:
        """The embedder in use and why, from the state the app holds (no I/O)."""
        embedding = self.state.snapshot.embedding
        if self.state.memory is None:
            text = "The memory is not open yet."
        elif embedding is None:
            text = "Not known yet."
        elif embedding.choice is None:
            text = "loading…"
        else:
            text = f"{embedding.choice.name}: {embedding.choice.reason}"
        if embedding is not None and embedding.queued > 0:
            text += f" ({embedding.queued:,} messages waiting to be embedded)"
        self.embedder_in_use.setText(text)

    def _on_open_folder_clicked(self) -> None:
        if self.data_folder.text():
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(self.data_folder.text()))))

    # -- key --------------------------------------------------------------------------------------

    def _load_key_status(self) -> None:
        keys = self.state.keys
        available = keys is not None
        for widget in (self.key, self.key_save, self.key_delete, self.key_test):
            widget.setEnabled(available)
        if keys is None:
            self.key_status.setText("The memory is not open yet.")
            return
        self.key_status.setText("Looking for the key…")
        self.runner.run_query(keys.status, self._on_key_info, self._on_key_failed, owner=self)

    def _on_key_save_clicked(self) -> None:
        keys, value = self.state.keys, self.key.text().strip()
        if keys is None or not value:
            return
        self.runner.run_query(
            lambda: keys.set_key(value), self._on_key_stored, self._on_key_failed, owner=self
        )

    def _on_key_session_clicked(self) -> None:
        keys, value = self.state.keys, self.key.text().strip()
        if keys is None or not value:
            return
        self.runner.run_query(
            lambda: keys.use_for_session(value), self._on_key_stored, self._on_key_failed, owner=self
        )

    def _on_key_delete_clicked(self) -> None:
        keys = self.state.keys
        if keys is not None:
            self.runner.run_query(keys.delete_key, self._on_key_info, self._on_key_failed, owner=self)

    def _on_key_test_clicked(self) -> None:
        keys, settings, candidate = self.state.keys, self.state.snapshot.settings, self.key.text().strip()
        if keys is None:
            return
        self.key_test.setEnabled(False)
        self.key_status.setText(f"Testing the key with one call to {settings.summary_model}…")
        self.runner.run_query(
            lambda: keys.test_key(settings, candidate),
            self._on_key_tested,
            self._on_key_test_failed,
            pool="network",
            label="Testing the Gemini key",
            owner=self,
        )

    def _on_key_stored(self, info: KeyInfo) -> None:
        self.key.clear()
        self._on_key_info(info)

    def _on_key_info(self, info: KeyInfo) -> None:
        self.key_save.setVisible(info.secure_store)
        self.key_session.setVisible(not info.secure_store)
        self.key.setPlaceholderText(
            f"paste a key to replace {info.masked}" if info.masked else "paste your key"
        )
        self._set_key_status(info.text)

    def _on_key_tested(self, text: str) -> None:
        self.key_test.setEnabled(True)
        self._set_key_status(text)

    def _on_key_test_failed(self, exc: BaseException) -> None:
        self.key_test.setEnabled(True)
        message = describe_key_test(exc)
        log.info("key test failed: %s", type(exc).__name__)
        self._set_key_status(message.text)

    def _on_key_failed(self, exc: BaseException) -> None:
        from engine.errors import KeyringUnavailable

        if isinstance(exc, KeyringUnavailable):
            self.key_save.hide()
            self.key_session.show()
        self._set_key_status(describe(exc, "using the key").text)

    def _set_key_status(self, text: str) -> None:
        self.key_status.setText(text)
        width = self.key_status.width()
        if self.key_status.isVisible() and width > 100:  # QFormLayout under-sizes wrapped labels
            self.key_status.setMinimumHeight(self.key_status.heightForWidth(width))
        self._fit_height()
        self.key_did_change.emit(text)

    def _fit_height(self) -> None:
        """Grow (never shrink) to fit a longer status: word-wrapped labels need the height."""
        layout = self.layout()
        if layout is None:
            return
        layout.invalidate()
        layout.activate()
        needed = max(layout.totalHeightForWidth(self.width()), layout.totalMinimumSize().height())
        if needed > self.height():
            self.resize(self.width(), needed)

"""The settings window: Gemini key, models, reply language, history limits, embedder, schedule, autostart,
the app's language, and sync between devices (its own group, :mod:`desktop.sync_settings`, which acts at
once rather than on Save).

Values come from the state the app holds; Save sends only what changed to ``Memory.update_settings`` on the
store worker. "Start memtray when I log in" is not a setting of the data folder: it is read from the login
entry itself (it exists and starts this data folder, :mod:`desktop.autostart`) on the store worker when
the window loads, and Save writes or removes the entry there. The app's language (``ui_language``) is
read when memtray starts, so the window says that a change applies at the next start. The key goes to
the OS keyring through :class:`desktop.seams.KeyStore` (``engine.llm.keys.Keys``), never into the settings
table; every keyring call runs on the store worker, and the window only ever shows a masked hint of the
key. Without a secure keyring the window says so and offers "Use for this session only" (the key stays in
memory until memtray quits). "Test" makes one real Gemini call on the network pool, with the key in the
field if there is one, else the configured key.

"Import new turns from coding agents" is the ``watch_agent_folders`` setting (:mod:`desktop.agentwatch`);
below it, the folders it watches (resolved on the store worker).

Next to the embedder setting the window shows the embedder in use and why (the semantic tier's choice,
read on the store worker by the state refresh; "loading…" until the model is loaded), and says that
changing it re-embeds every message in the background, with the progress in the viewer's status bar.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop import autostart, contrast
from desktop.a11y import accessible
from desktop.errors import describe, describe_key_test
from desktop.hotkeys import ShortcutStatus
from desktop.i18n import QT_TRANSLATE_NOOP
from desktop.icons import app_icon
from desktop.placement import fit_to_screen, screen_of
from desktop.seams import KeyInfo
from desktop.state import AppState
from desktop.sync_settings import SyncBox
from desktop.windowkeys import add_close_keys
from engine import Settings, agent_folders
from engine import settings as engine_settings
from engine.summary import EVERY_MINUTES

log = logging.getLogger("memtray.desktop.settings")

translate = QCoreApplication.translate

EMBEDDERS = {
    "auto": QT_TRANSLATE_NOOP("Settings", "Automatic (best local model that loads)"),
    "e5": QT_TRANSLATE_NOOP("Settings", "Local: multilingual E5 (better quality)"),
    "use": QT_TRANSLATE_NOOP("Settings", "Local: Universal Sentence Encoder (faster)"),
    "gemini": QT_TRANSLATE_NOOP("Settings", "Gemini embeddings (online)"),
    "hash": QT_TRANSLATE_NOOP("Settings", "Character n-grams (no model; weakest)"),
}
"""The label of each of the engine's embedder choices (``engine.settings.EMBEDDERS``)."""
LANGUAGES = (
    ("auto", QT_TRANSLATE_NOOP("Settings", "Same as the conversation (Chinese as Traditional)")),
    ("zh-TW", "繁體中文"),  # each language by its own name: not translated
    ("en", "English"),
    ("ja", "日本語"),
)
UI_LANGUAGES = {
    "auto": QT_TRANSLATE_NOOP("Settings", "Same as the system"),
    "zh_TW": "繁體中文",  # each language by its own name: not translated
    "en": "English",
}
"""The label of each of the engine's UI language choices (``engine.settings.UI_LANGUAGES``)."""
MINIMUM = QSize(640, 400)


@dataclass(frozen=True)
class _Caption:
    """What names a setting in the window, with its text and tooltip as built."""

    widget: QLabel | QCheckBox
    text: str
    tip: str


def _combo(items: tuple[tuple[str, str], ...]) -> QComboBox:
    box = QComboBox()
    for value, label in items:
        box.addItem(translate("Settings", label), value)  # a label without a translation stays as it is
    return box


def _choices(values: tuple[str, ...], labels: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The engine's ``values`` of a setting, each with its label (the value itself when it has none)."""
    return tuple((value, labels.get(value, value)) for value in values)


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
        self.autostart_loaded: bool | None = None  # as read from the login entry; None until read
        self._embedder_before = ""
        self.setWindowTitle(translate("Settings", "memtray — settings"))
        add_close_keys(self)
        self.setWindowIcon(app_icon())
        self.key = QLineEdit()
        self.key.setObjectName("gemini-key")
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText(translate("Settings", "paste a new key to replace the stored one"))
        self.key_status = QLabel("")
        self.key_status.setObjectName("key-status")
        self.key_status.setWordWrap(True)
        self.key_status.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.key_save = QPushButton(translate("Settings", "Save key"))
        self.key_session = QPushButton(translate("Settings", "Use for this session only"))
        self.key_session.setObjectName("key-session")
        self.key_session.hide()
        self.key_delete = QPushButton(translate("Settings", "Delete key"))
        self.key_test = QPushButton(translate("Settings", "Test"))
        self.key_test.setToolTip(translate("Settings", "Make one call to Gemini with this key"))
        self.summary_model = QComboBox()
        self.summary_model.setEditable(True)
        self.summary_model.addItems(engine_settings.GEMINI_MODELS)
        self.chat_model = QComboBox()
        self.chat_model.setEditable(True)
        self.chat_model.addItems(engine_settings.GEMINI_MODELS)
        self.decision_model = QComboBox()
        self.decision_model.setEditable(True)
        self.decision_model.addItems(("", *engine_settings.GEMINI_MODELS))
        self.reply_lang = _combo(LANGUAGES)
        self.reply_lang.setToolTip(translate("Settings", "The language of chat replies and summaries"))
        self.window_messages = QSpinBox()
        self.window_messages.setRange(1, 10_000)
        self.window_messages.setToolTip(
            translate(
                "Settings", "How many recent messages of a session the model sees with each new message"
            )
        )
        self.history_kib = QSpinBox()
        self.history_kib.setRange(4, 1024 * 1024)
        self.history_kib.setSuffix(translate("Settings", " KiB"))
        self.history_kib.setToolTip(
            translate(
                "Settings",
                "When a session's recent history (the messages sent to the model each turn, kept in "
                "history.json) grows past this size, its older messages move to the archive. They can "
                "still be searched.",
            )
        )
        self.embedder = _combo(_choices(engine_settings.EMBEDDERS, EMBEDDERS))
        self.embedder_note = QLabel("")
        self.embedder_note.setObjectName("embedder-note")
        self.embedder_note.setWordWrap(True)
        self.embedder_in_use = QLabel("")
        self.embedder_in_use.setObjectName("embedder-in-use")
        self.embedder_in_use.setWordWrap(True)
        self.summaries_enabled = QCheckBox(
            translate(
                "Settings", "Summarize conversations on a schedule (every %n minute(s))", "", EVERY_MINUTES
            )
        )
        self.autostart = QCheckBox(translate("Settings", "Start memtray when I log in"))
        self.autostart.setToolTip(
            translate("Settings", "For your user account: it starts memtray with this data folder")
        )
        self.autostart.setEnabled(False)  # until the login entry was read
        self.ui_language = _combo(_choices(engine_settings.UI_LANGUAGES, UI_LANGUAGES))
        self.ui_language.setObjectName("ui-language")
        self.ui_language_note = QLabel(
            translate("Settings", "A new language applies when memtray starts again.")
        )
        self.ui_language_note.setObjectName("ui-language-note")
        self.ui_language_note.setWordWrap(True)
        self.search_keys = QKeySequenceEdit()
        self.search_keys.setObjectName("search-shortcut")
        self.search_keys.setMaximumSequenceLength(1)
        self.search_keys.setClearButtonEnabled(True)
        accessible(
            self.search_keys,
            translate("Settings", "Shortcut to search memory"),
            translate(
                "Settings",
                "Press the keys that open memtray's search from any app (with Ctrl, Alt or Meta); empty for none",
            ),
        )
        self.shortcut_status = QLabel("")
        self.shortcut_status.setObjectName("shortcut-status")
        self.shortcut_status.setWordWrap(True)
        self.watch_agents = QCheckBox(
            translate(
                "Settings", "Import new turns from coding agents (Claude Code, Codex) as they write them"
            )
        )
        self.watch_agents.setObjectName("watch-agents")
        self.watched_folders = QLabel("")
        self.watched_folders.setObjectName("watched-folders")
        self.watched_folders.setWordWrap(True)
        self.watched_folders.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.watched_folders.setToolTip(
            translate("Settings", "Other folders: memtray config agent_folders FOLDER[:FOLDER…]")
        )
        self.data_folder = QLineEdit()
        self.data_folder.setReadOnly(True)
        self.open_folder = QPushButton(translate("Settings", "Open folder"))
        self.status = QLabel("")
        self.status.setObjectName("settings-status")
        self.status.setWordWrap(True)
        self.save_button = QPushButton(translate("Settings", "Save"))
        self.save_button.setDefault(True)
        self.close_button = QPushButton(translate("Settings", "Close"))

        gemini = QGroupBox(translate("Settings", "Gemini"))
        form = QFormLayout(gemini)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key, 1)
        key_row.addWidget(self.key_save)
        key_row.addWidget(self.key_session)
        key_row.addWidget(self.key_delete)
        key_row.addWidget(self.key_test)
        form.addRow(translate("Settings", "API key"), key_row)
        form.addRow(self.key_status)
        form.addRow(translate("Settings", "Summary model"), self.summary_model)
        form.addRow(translate("Settings", "Decision model"), self.decision_model)
        form.addRow(translate("Settings", "Chat model"), self.chat_model)
        form.addRow(translate("Settings", "Reply language"), self.reply_lang)
        memory = QGroupBox(translate("Settings", "Memory"))
        form2 = QFormLayout(memory)
        form2.addRow(translate("Settings", "Messages sent each turn"), self.window_messages)
        form2.addRow(translate("Settings", "Compact history.json above"), self.history_kib)
        form2.addRow(translate("Settings", "Search by meaning with"), self.embedder)
        form2.addRow(translate("Settings", "In use"), self.embedder_in_use)
        form2.addRow("", self.embedder_note)
        form2.addRow("", self.summaries_enabled)
        app_box = QGroupBox(translate("Settings", "App"))
        form3 = QFormLayout(app_box)
        form3.addRow(translate("Settings", "Language"), self.ui_language)
        form3.addRow("", self.ui_language_note)
        form3.addRow(translate("Settings", "Search memory shortcut"), self.search_keys)
        form3.addRow("", self.shortcut_status)
        form3.addRow("", self.autostart)
        form3.addRow("", self.watch_agents)
        form3.addRow(translate("Settings", "Watched folders"), self.watched_folders)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.data_folder, 1)
        folder_row.addWidget(self.open_folder)
        form3.addRow(translate("Settings", "Data folder"), folder_row)
        self._named = self._captions((form, form2, form3))
        self.sync = SyncBox(state)
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.close_button)
        self.content = QWidget()
        inner = QVBoxLayout(self.content)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addWidget(gemini)
        inner.addWidget(memory)
        inner.addWidget(app_box)
        inner.addWidget(self.sync)
        inner.addStretch(1)
        self.scroll_area = QScrollArea()  # on a small screen the groups scroll; the buttons stay in view
        accessible(self.scroll_area, translate("Settings", "Settings"))
        self.scroll_area.setObjectName("settings-scroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setWidget(self.content)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll_area, 1)
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
        state.state_did_change.connect(self._mark_shared)
        self._mark_shared()
        self.load()
        fit_to_screen(self, 0.6, 0.9, MINIMUM, preferred=self._preferred_size())

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
        _set_combo(self.ui_language, s.ui_language)
        self.search_keys.setKeySequence(QKeySequence(s.search_shortcut))
        self.watch_agents.setChecked(s.watch_agent_folders)
        self._show_watched_folders(s)
        mem = self.state.memory
        self.data_folder.setText(str(mem.paths.home) if mem is not None else "")
        self._load_autostart()
        self._on_embedder_changed()
        self._show_embedder_in_use()
        self._load_key_status()

    def fields(self) -> dict[str, QWidget]:
        """The field that edits each setting of :meth:`values`."""
        return {
            "summary_model": self.summary_model,
            "decision_model": self.decision_model,
            "chat_model": self.chat_model,
            "reply_lang": self.reply_lang,
            "max_history_messages": self.window_messages,
            "max_history_bytes": self.history_kib,
            "embedder": self.embedder,
            "summaries_enabled": self.summaries_enabled,
            "ui_language": self.ui_language,
            "search_shortcut": self.search_keys,
            "watch_agent_folders": self.watch_agents,
        }

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
            "ui_language": self.ui_language.currentData(),
            "search_shortcut": self.search_keys.keySequence().toString(
                QKeySequence.SequenceFormat.PortableText
            ),
            "watch_agent_folders": self.watch_agents.isChecked(),
        }

    def set_shortcut_status(self, status: ShortcutStatus) -> None:
        """Say what became of the global shortcut (the app calls this whenever it registers one)."""
        self.shortcut_status.setText(status.text if status.keys or status.state != "unavailable" else "")
        warn = status.state in ("taken", "failed")
        self.shortcut_status.setStyleSheet(
            f"color:{contrast.warning(self.palette()).name()};" if warn else ""
        )

    def changes(self) -> dict[str, Any]:
        """The settings that differ from those in use (the login entry is not one of them)."""
        current = self.state.snapshot.settings.as_dict()
        return {k: v for k, v in self.values().items() if current.get(k) != v}

    def autostart_change(self) -> bool | None:
        """The login entry to write (True) or remove (False), or None when the box is as it was read."""
        wanted = self.autostart.isChecked()
        if self.autostart_loaded is None or wanted == self.autostart_loaded:
            return None
        return wanted

    def save(self) -> None:
        mem = self.state.memory
        changes, login = self.changes(), self.autostart_change()
        if mem is None:
            return
        if not changes and login is None:
            self.status.setText(translate("Settings", "Nothing changed."))
            return
        impl = self._autostart()

        def op() -> tuple[Settings, bool | None]:
            updated = mem.update_settings(**changes) if changes else mem.settings
            return updated, autostart.apply(login, impl) if login is not None else None

        self.status.setText(translate("Settings", "Saving…"))
        self.runner.run_query(op, lambda res: self._on_saved(*res), self._on_save_failed, owner=self)

    def _autostart(self) -> autostart.Autostart:
        if self.autostart_impl is None:
            mem = self.state.memory
            self.autostart_impl = autostart.for_platform(home=mem.paths.home if mem is not None else None)
        return self.autostart_impl

    def _load_autostart(self) -> None:
        """Read the login entry on the store worker; the box follows it."""
        if self.state.memory is None:
            return
        impl = self._autostart()
        self.runner.run_query(impl.is_enabled, self._on_autostart_read, self._on_autostart_failed, owner=self)

    def _on_autostart_read(self, enabled: bool) -> None:
        self.autostart_loaded = enabled
        self.autostart.setChecked(enabled)
        self.autostart.setEnabled(True)

    def _on_autostart_failed(self, exc: BaseException) -> None:
        log.warning("could not read the login entry: %s", exc)
        self.autostart.setEnabled(False)
        self.autostart.setToolTip(describe(exc, translate("Settings", "reading the login entry")).text)

    def _on_saved(self, settings: Settings, login: bool | None = None) -> None:
        if login is not None:
            self._on_autostart_read(login)
        self.state.set_settings(settings)
        note = (
            translate("Settings", " The embedder changed: every message is re-embedded in the background.")
            if settings.embedder != self._embedder_before
            else ""
        )
        self.status.setText(translate("Settings", "Saved.") + note)
        self._embedder_before = settings.embedder
        self.settings_did_save.emit(settings)

    def _on_save_failed(self, exc: BaseException) -> None:
        self.status.setText(describe(exc, translate("Settings", "saving the settings")).text)

    def _on_embedder_changed(self) -> None:
        current = self.state.snapshot.settings.embedder
        self._embedder_before = current
        chosen = self.embedder.currentData()
        self.embedder_note.setText(
            translate(
                "Settings",
                "Saving re-embeds every message with the new embedder, in the background (progress in the viewer).",
            )
            if chosen != current
            else translate(
                "Settings",
                "Changing it re-embeds every message in the background; the viewer's status bar shows the progress.",
            )
        )
        self._fit_height()

    def _show_embedder_in_use(self) -> None:
        """The embedder in use and why, from the state the app holds (no I/O)."""
        embedding = self.state.snapshot.embedding
        if self.state.memory is None:
            text = translate("Settings", "The memory is not open yet.")
        elif embedding is None:
            text = translate("Settings", "Not known yet.")
        elif embedding.choice is None:
            text = translate("Settings", "loading…")
        else:
            text = translate("Settings", "{name}: {reason}").format(
                name=embedding.choice.name, reason=embedding.choice.reason
            )
        if embedding is not None and embedding.queued > 0:
            text += translate("Settings", " (%Ln message(s) waiting to be embedded)", "", embedding.queued)
        self.embedder_in_use.setText(text)

    def _captions(self, forms: tuple[QFormLayout, ...]) -> dict[str, _Caption]:
        """Each setting's caption: its row's label, or a check box's own text."""
        found: dict[str, _Caption] = {}
        for name, edit in self.fields().items():
            labels = [form.labelForField(edit) for form in forms]
            caption: QLabel | QCheckBox | None = next(
                (w for w in labels if isinstance(w, QLabel) and w.text()), None
            )
            if caption is None and isinstance(edit, QCheckBox):
                caption = edit
            if caption is not None:
                found[name] = _Caption(caption, caption.text(), caption.toolTip())
        return found

    def _mark_shared(self) -> None:
        """While sync is on, the settings every device of the sync folder shares say so in their caption
        (``engine.settings.SHARED``): a change to them applies on the other devices too."""
        sync = self.state.snapshot.sync
        on = sync is not None and sync.enabled
        for name, named in self._named.items():
            shared = on and name in engine_settings.SHARED
            named.widget.setText(
                translate("Settings", "{caption} (all devices)").format(caption=named.text)
                if shared
                else named.text
            )
            named.widget.setToolTip(
                translate(
                    "Settings",
                    "Shared by every device of your sync folder: a change here applies on all of them.",
                )
                if shared
                else named.tip
            )

    def _show_watched_folders(self, settings: Settings) -> None:
        """List the folders the agents' watch reads (which of them exist is looked up on the store worker)."""
        self.runner.run_query(
            lambda: agent_folders(settings), self._on_watched_folders, lambda _exc: None, owner=self
        )

    def _on_watched_folders(self, folders: list[Path]) -> None:
        self.watched_folders.setText(
            "\n".join(str(f) for f in folders)
            or translate("Settings", "none yet (no ~/.claude/projects or ~/.codex/sessions here)")
        )
        self._fit_height()

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
            self.key_status.setText(translate("Settings", "The memory is not open yet."))
            return
        self.key_status.setText(translate("Settings", "Looking for the key…"))
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
        self.key_status.setText(
            translate("Settings", "Testing the key with one call to {model}…").format(
                model=settings.summary_model
            )
        )
        self.runner.run_query(
            lambda: keys.test_key(settings, candidate),
            self._on_key_tested,
            self._on_key_test_failed,
            pool="network",
            label=translate("Settings", "Testing the Gemini key"),
            owner=self,
        )

    def _on_key_stored(self, info: KeyInfo) -> None:
        self.key.clear()
        self._on_key_info(info)

    def _on_key_info(self, info: KeyInfo) -> None:
        self.key_save.setVisible(info.secure_store)
        self.key_session.setVisible(not info.secure_store)
        self.key.setPlaceholderText(
            translate("Settings", "paste a key to replace {masked}").format(masked=info.masked)
            if info.masked
            else translate("Settings", "paste your key")
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
        self._set_key_status(describe(exc, translate("Settings", "using the key")).text)

    def _set_key_status(self, text: str) -> None:
        self.key_status.setText(text)
        self._fit_height()
        self.key_did_change.emit(text)

    def _preferred_size(self) -> QSize:
        """Wide enough for the rows, tall enough to show every group without scrolling."""
        hint = self.content.sizeHint()
        width = max(hint.width(), MINIMUM.width())
        return QSize(width + 32, self._needed_height(width))

    def _needed_height(self, content_width: int) -> int:
        """The window height that shows the whole content at ``content_width`` (wrapped labels included)."""
        inner, layout = self.content.layout(), self.layout()
        assert inner is not None and layout is not None
        inner.invalidate()
        inner.activate()
        content = self.content.heightForWidth(content_width)
        if content < 0:
            content = self.content.sizeHint().height()
        margins = layout.contentsMargins()
        buttons = self.save_button.sizeHint().height()
        return content + buttons + layout.spacing() + margins.top() + margins.bottom() + 4

    def _fit_height(self) -> None:
        """Grow (never shrink, never past the screen) to fit a longer status: wrapped labels need the height.

        Runs once the layouts took in the new text (their requests are posted events)."""
        QTimer.singleShot(0, self, self._grow_to_fit)

    def _grow_to_fit(self) -> None:
        if self.content.layout() is None or self.layout() is None:
            return
        needed = self._needed_height(max(1, self.scroll_area.viewport().width()))
        limit = int(screen_of(self).availableGeometry().height() * 0.9)
        target = min(needed, max(limit, self.minimumHeight()))
        if target > self.height():
            self.resize(self.width(), target)

"""The viewer's first-run page: what memtray is for and how to begin, when the home holds no sessions yet.

Each way to begin has its button: import another tool's conversations, start a chat, add a Gemini key
in Settings, and open the folder where the data lives. The panel only emits requests; the window and the
app act on them.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

translate = QCoreApplication.translate


class WelcomePanel(QWidget):
    """How to begin, with a button for each way.

    Signals:
        import_requested(): "Import…".
        chat_requested(): "New chat".
        settings_requested(): "Open Settings".
        open_folder_requested(): "Open the data folder".
    """

    import_requested = Signal()
    chat_requested = Signal()
    settings_requested = Signal()
    open_folder_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.heading = QLabel("<h2>{}</h2>".format(html.escape(translate("Welcome", "Welcome to memtray"))))
        self.intro = QLabel(
            translate(
                "Welcome",
                "memtray keeps your conversations with AI assistants on this computer and finds anything in "
                "them again, by keyword or by meaning. There are no conversations here yet; here is how to "
                "begin.",
            )
        )
        self.intro.setWordWrap(True)
        self.import_button = QPushButton(translate("Welcome", "Import…"))
        self.import_button.setObjectName("welcome-import")
        self.chat_button = QPushButton(translate("Welcome", "New chat"))
        self.chat_button.setObjectName("welcome-chat")
        self.settings_button = QPushButton(translate("Welcome", "Open Settings"))
        self.settings_button.setObjectName("welcome-settings")
        self.folder_button = QPushButton(translate("Welcome", "Open the data folder"))
        self.folder_button.setObjectName("welcome-folder")
        self.folder_text = QLabel("")
        self.folder_text.setObjectName("welcome-folder-text")
        self.folder_text.setWordWrap(True)
        self.folder_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        steps = (
            (
                self.import_button,
                translate(
                    "Welcome",
                    "Bring in the conversations you already have: a ChatGPT or Claude data export, an "
                    "Agenvoy sessions folder, or a JSON Lines file. Importing the same file twice adds "
                    "nothing.",
                ),
            ),
            (
                self.chat_button,
                translate(
                    "Welcome",
                    "Talk with Gemini here; memtray remembers the conversation and looks into its memory "
                    "when it helps.",
                ),
            ),
            (
                self.settings_button,
                translate(
                    "Welcome",
                    "Add a Gemini API key in Settings: chats and the automatic summaries need one. "
                    "Importing and searching work without it.",
                ),
            ),
            (self.folder_button, self.folder_text),
        )
        grid = QGridLayout()
        grid.setColumnStretch(1, 1)
        grid.setHorizontalSpacing(16)
        grid.setVerticalSpacing(12)
        for row, (button, words) in enumerate(steps):
            label = words if isinstance(words, QLabel) else QLabel(str(words))
            label.setWordWrap(True)
            grid.addWidget(button, row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(label, row, 1)
        box = QWidget()
        box.setMaximumWidth(760)
        inner = QVBoxLayout(box)
        inner.addWidget(self.heading)
        inner.addWidget(self.intro)
        inner.addSpacing(8)
        inner.addLayout(grid)
        centred = QHBoxLayout()
        centred.addStretch(1)
        centred.addWidget(box, 8)
        centred.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addLayout(centred)
        layout.addStretch(2)
        self.import_button.clicked.connect(self.import_requested)
        self.chat_button.clicked.connect(self.chat_requested)
        self.settings_button.clicked.connect(self.settings_requested)
        self.folder_button.clicked.connect(self.open_folder_requested)
        self.set_home(None)

    def set_home(self, home: Path | None) -> None:
        """Say where the data lives (``home``: the memtray home, None while it is not known)."""
        self.folder_button.setEnabled(home is not None)
        if home is None:
            self.folder_text.setText(
                translate("Welcome", "Everything memtray keeps stays in its data folder.")
            )
        else:
            self.folder_text.setText(
                translate(
                    "Welcome",
                    "Everything memtray keeps stays on this computer, in {folder}: the conversations, their "
                    "summaries, the search index and the log.",
                ).format(folder=home)
            )

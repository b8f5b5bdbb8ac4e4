"""Traditional Chinese and English UI: every string translated (checked with lupdate), the language
chosen from the system or MEMTRAY_LANG, and every window, menu and message box really in zh_TW."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QModelIndex, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QDialogButtonBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QTableView,
    QTabWidget,
    QWidget,
)

from desktop import crash, errors, i18n
from desktop.actions import all_actions
from desktop.app import Memtray
from desktop.tray import Tray
from engine import Memory
from engine import errors as engine_errors
from engine.paths import Paths
from tests.desktop.conftest import EN, ZH

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "desktop" / "translations"
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
PLACEHOLDER = re.compile(r"\{\w*\}|%L?n")
TAG = re.compile(r"<[^>]+>")
SESSIONS = ("proj-zh", "english-notes", "long-chat", "temp-subagent")
# What stays as it is in every language: names, file names, numbers and symbols.
UNTRANSLATED = re.compile(
    r"memtray|Gemini|MCP|English|gemini-[\w.-]+|[\w.-]*/[\w./-]*|\d[\d,.:\-]*|[^\w\s]|"
    + "|".join(re.escape(s) for s in SESSIONS),
)


REASONS_SOURCE = "engine/importers/reasons.py"
"""The engine's import reasons, translated by the desktop (desktop/viewer/importreasons.py)."""
REASON_ALIAS = "QT_TR_NOOP+=reason"
"""How lupdate finds them: each is written ``reason("…")``."""


def lupdate() -> str:
    found = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent))
    assert found, f"pyside6-lupdate is missing next to {sys.executable}"
    return found


def messages(ts: Path) -> dict[tuple[str, str, str], ET.Element]:
    """The messages of a .ts file by (context, source, disambiguation)."""
    found = {}
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            key = (name, message.findtext("source") or "", message.findtext("comment") or "")
            found[key] = message
    return found


def translations_of(message: ET.Element) -> list[str]:
    """The translation texts of a message ([] when unfinished or empty)."""
    translation = message.find("translation")
    if translation is None or translation.get("type") in ("unfinished", "obsolete", "vanished"):
        return []
    forms = [f.text or "" for f in translation.iter("numerusform")] or [translation.text or ""]
    return forms if all(f.strip() for f in forms) else []


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], ET.Element]:
    """Every translatable string in desktop/, found by lupdate in the code as it is now."""
    out = tmp_path_factory.mktemp("lupdate") / "fresh.ts"
    files = [*sorted(str(p) for p in (ROOT / "desktop").rglob("*.py")), str(ROOT / REASONS_SOURCE)]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert REASONS_SOURCE in makefile and REASON_ALIAS in makefile  # make i18n-update reads them too
    options = [
        "-silent",
        "-tr-function-alias",
        REASON_ALIAS,
        "-target-language",
        "zh_TW",
        "-locations",
        "none",
    ]
    subprocess.run([lupdate(), *options, *files, "-ts", str(out)], check=True)
    found = messages(out)
    assert len(found) > 300  # lupdate really read the sources
    return found


def test_every_string_in_the_code_has_a_finished_zh_tw_translation(
    extracted: dict[tuple[str, str, str], ET.Element],
) -> None:
    committed = messages(SOURCES / "memtray_zh_TW.ts")
    missing = [key for key in extracted if key not in committed or not translations_of(committed[key])]
    assert not missing, (
        f"translate these in desktop/translations/memtray_zh_TW.ts (make i18n-update): {missing}"
    )
    stale = [key for key in committed if key not in extracted]
    assert not stale, f"no longer in the code (make i18n-update drops them): {stale}"


def test_translations_keep_the_placeholders(extracted: dict[tuple[str, str, str], ET.Element]) -> None:
    committed = messages(SOURCES / "memtray_zh_TW.ts")
    for key in extracted:
        wanted = sorted(PLACEHOLDER.findall(key[1]))
        for text in translations_of(committed[key]):
            assert sorted(PLACEHOLDER.findall(text)) == wanted, (key, text)


def test_every_count_has_its_english_plural_forms(extracted: dict[tuple[str, str, str], ET.Element]) -> None:
    plurals = [key for key, message in extracted.items() if message.get("numerus") == "yes"]
    assert plurals
    english = messages(SOURCES / "memtray_en.ts")
    for key in plurals:
        forms = translations_of(english[key]) if key in english else []
        assert len(forms) == 2, f"{key}: memtray_en.ts needs its one/many forms (make i18n-update)"
        assert "(s)" not in "".join(forms), (key, forms)


# -- choosing the language ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("system", "language"),
    [
        ("zh_TW", "zh_TW"),
        ("zh_HK", "zh_TW"),
        ("zh_Hant_MO", "zh_TW"),
        ("zh_CN", "en"),
        ("en_GB", "en"),
        ("de_DE", "en"),
        ("C", "en"),
    ],
)
def test_the_system_locale_chooses_the_language(system: str, language: str) -> None:
    assert i18n.choose("auto", QLocale(system)) == language


def test_memtray_lang_overrides_the_system(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTRAY_LANG", "zh_TW")
    assert i18n.choose(system=QLocale("en_US")) == "zh_TW"
    monkeypatch.setenv("MEMTRAY_LANG", "en")
    assert i18n.choose(system=QLocale("zh_TW")) == "en"
    monkeypatch.setenv("MEMTRAY_LANG", "auto")
    assert i18n.choose(system=QLocale("zh_TW")) == "zh_TW"


def test_the_ui_language_setting_is_read_at_boot_and_memtray_lang_wins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    with Memory.open(home, background=False) as mem:
        mem.update_settings(ui_language="zh_TW")
    setting = Memory.peek_settings(home).ui_language  # what run() reads before the first window
    monkeypatch.delenv("MEMTRAY_LANG", raising=False)
    assert i18n.choose(i18n.configured_language(setting), QLocale("en_US")) == "zh_TW"
    assert i18n.choose(i18n.configured_language("auto"), QLocale("zh_TW")) == "zh_TW"
    assert i18n.choose(i18n.configured_language("en"), QLocale("zh_TW")) == "en"
    monkeypatch.setenv("MEMTRAY_LANG", "en")
    assert i18n.choose(i18n.configured_language(setting), QLocale("en_US")) == "en"


@pytest.mark.allow_warnings
def test_an_unknown_memtray_lang_follows_the_system(monkeypatch: pytest.MonkeyPatch, caplog: Any) -> None:
    monkeypatch.setenv("MEMTRAY_LANG", "klingon")
    assert i18n.choose(system=QLocale("zh_TW")) == "zh_TW"
    assert "MEMTRAY_LANG" in caplog.text


@pytest.fixture
def zh_tw(qapp: QApplication, translations_dir: Path) -> Iterator[None]:
    """The UI in Traditional Chinese for one test (English again afterwards)."""
    assert i18n.install(qapp, "zh_TW", translations_dir) == "zh_TW"
    yield
    i18n.install(qapp, "en", translations_dir)


def test_zh_tw_translates_memtray_and_qt_s_own_buttons(zh_tw: None) -> None:
    assert QCoreApplication.translate("Actions", "&Quit") == "結束(&Q)"
    assert QCoreApplication.translate("Search", "%n result(s)", "", 3) == "3 筆結果"
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    texts = {b.text() for b in box.buttons()}
    assert texts == {"確定", "取消"}, texts


def test_english_plurals_and_digit_grouping() -> None:
    translate = QCoreApplication.translate
    assert translate("Search", "%n result(s)", "", 1) == "1 result"
    assert translate("Search", "%n result(s)", "", 2) == "2 results"
    assert translate("Tray", "memtray — %Ln session(s)", "", 1234) == "memtray — 1,234 sessions"


def test_without_the_qm_files_the_ui_is_english(qapp: QApplication, tmp_path: Path, caplog: Any) -> None:
    caplog.set_level("INFO", logger="memtray.desktop.i18n")
    try:
        assert i18n.install(qapp, "zh_TW", tmp_path) == "zh_TW"
        assert QCoreApplication.translate("Actions", "&Quit") == "&Quit"
        assert "memtray_zh_TW.qm" in caplog.text
    finally:
        i18n.install(qapp, "en", Path(__file__).parent)  # no .qm here either: the English source text
    assert QCoreApplication.translate("Actions", "&Quit") == "&Quit"


# -- every window, in each language --------------------------------------------------------------


def visible_texts(widget: QWidget) -> list[tuple[str, str]]:
    """``(where, text)`` of every string a person can see in ``widget`` and its children."""
    found: list[tuple[str, str]] = []

    def add(where: Any, text: object) -> None:
        if isinstance(text, str) and text.strip():
            found.append(
                (f"{type(where).__name__} {where.objectName() if hasattr(where, 'objectName') else ''}", text)
            )

    for w in [widget, *widget.findChildren(QWidget)]:
        if w.isWindow():
            add(w, w.windowTitle())
        add(w, w.toolTip())
        if isinstance(w, (QLabel, QAbstractButton)):
            add(w, w.text())
        elif isinstance(w, QGroupBox):
            add(w, w.title())
        elif isinstance(w, (QLineEdit, QPlainTextEdit)):
            add(w, w.placeholderText())
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                add(w, w.itemText(i))
                add(w, w.itemData(i, Qt.ItemDataRole.ToolTipRole))
        elif isinstance(w, QTabWidget):
            for i in range(w.count()):
                add(w, w.tabText(i))
        elif isinstance(w, QTableView) and w.model() is not None:
            model = w.model()
            for col in range(model.columnCount(QModelIndex())):
                for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                    add(w, model.headerData(col, Qt.Orientation.Horizontal, role))
        elif isinstance(w, QMessageBox):
            add(w, w.informativeText())
        if isinstance(w, QMenu):
            add(w, w.title())
        for act in w.actions():
            if isinstance(act, QAction) and not act.isSeparator():
                add(act, act.text())
                add(act, act.toolTip() if act.toolTip() != act.text().replace("&", "") else "")
    return found


def menu_texts(menu: QMenu) -> list[tuple[str, str]]:
    found = [("QMenu", menu.title())] if menu.title() else []
    for act in all_actions(menu):
        if not act.isSeparator():
            found.append((act.objectName(), act.text()))
            if act.toolTip() and act.toolTip() != act.text().replace("&", ""):
                found.append((act.objectName(), act.toolTip()))
    return found


TITLES = [text[:40] for role, text, _sender in (*ZH, *EN) if role == "user"] + ["long chat message 0"]
"""The start of the seeded sessions' titles: menus and lists show them as they are (data, not UI)."""


def data(text: str) -> bool:
    """Text that holds a session's title."""
    return any(title in text for title in TITLES)


def untranslated(text: str) -> bool:
    """True for text with no Chinese in it that is more than names, numbers and symbols."""
    plain = TAG.sub(" ", text)
    return not CJK.search(plain) and bool(re.search(r"[A-Za-z]", UNTRANSLATED.sub(" ", plain)))


def every_window(memtray: Memtray, qtbot: Any, home: Path) -> list[tuple[str, str]]:
    """Open everything the app can show; return what it says."""
    viewer = memtray.viewer
    assert viewer is not None
    memtray.show_settings()
    chat = memtray.show_chat(None)
    assert chat is not None
    about = memtray.show_about()
    qtbot.waitUntil(lambda: about.version.text() != "…", timeout=5000)
    dialog = viewer.show_import()
    box = memtray.operations.ask_reset("proj-zh", viewer)
    tray = Tray(memtray.state, actions=memtray.actions)
    texts = []
    for window in (viewer, memtray.settings_window, chat, about, dialog, box):
        assert window is not None
        texts += visible_texts(window)
    texts += every_question(memtray, viewer)
    texts += menu_texts(tray.menu)
    for menu in viewer.menus.values():
        texts += menu_texts(menu)
    texts += describe_every_error(home)
    box.reject()
    dialog.close()
    return texts


def every_question(memtray: Memtray, viewer: Any) -> list[tuple[str, str]]:
    """What the chooser, Rename…, Remove…, Forget…, Repair… and the context menus say."""
    from engine import Message

    texts: list[tuple[str, str]] = []
    for mode in ("compact", "reset"):
        texts += visible_texts(memtray.show_chooser(mode))
    assert memtray.chooser is not None
    memtray.chooser.close()
    message = Message("user", "x", 1, id=1)
    for ask in (
        lambda: viewer.editor.ask_rename("proj-zh", viewer),
        lambda: viewer.editor.ask_remove("proj-zh", viewer),
        lambda: viewer.editor.ask_forget(message, viewer),
        lambda: memtray.repair.ask(viewer),
    ):
        question = ask()
        texts += visible_texts(question)
        question.reject()
    texts += menu_texts(viewer.sessions.menu_for("proj-zh"))
    texts += menu_texts(viewer.menu_for_message(message))
    return texts


def describe_every_error(home: Path) -> list[tuple[str, str]]:
    """What errors.py says for each kind of failure, and the crash dialog."""
    e = engine_errors
    failures: list[BaseException] = [
        e.SessionNotFound("proj-zh"),
        e.InvalidSetting("embedder"),
        e.InvalidInput("line 7"),
        e.InvalidKey("the key must be one word of text"),
        e.AmbiguousId("ab12 matches 2 records", ["ab12aa", "ab12bb"]),
        e.NotFound("ab12"),
        e.StoreLocked("busy"),
        e.CorruptStore("history.db"),
        e.StorageError("io"),
        e.VectorIndexError("annoy"),
        e.TurnCancelled(),
        e.EmptyReply(),
        e.NoApiKey(),
        e.AuthError("401"),
        e.QuotaExceeded("429"),
        e.GeminiTimeout("30 s"),
        e.GeminiUnavailable("503"),
        e.GeminiError("bad json"),
        e.KeyringUnavailable("none"),
        OSError(28, "No space left on device", str(home)),
        OSError(13, "Permission denied", str(home)),
        KeyError("boom"),
    ]
    found = []
    for exc in failures:
        for message in (errors.describe(exc, "x"), errors.describe(exc), errors.describe_key_test(exc)):
            found += [(type(exc).__name__, message.title), (type(exc).__name__, message.text)]
    box = crash._show(KeyError("boom"), "Traceback …")
    assert box is not None
    found += [*visible_texts(box), ("crash", box.text())]
    box.close()
    return found


@pytest.fixture
def main_window(qapp: QApplication, seeded_home: Path, qtbot: Any) -> Iterator[Memtray]:
    memtray = Memtray(qapp, Paths.resolve(seeded_home), tray_available=False)
    with qtbot.waitSignal(memtray.memory_did_open, timeout=10_000):
        memtray.start()
    qtbot.waitUntil(lambda: bool(memtray.state.snapshot.sessions), timeout=5000)
    yield memtray
    memtray.stop()


@pytest.mark.allow_warnings  # "no system tray" is a warning
def test_every_window_menu_and_message_is_in_traditional_chinese(
    zh_tw: None, main_window: Memtray, seeded_home: Path, qtbot: Any, screenshot: Any
) -> None:
    texts = every_window(main_window, qtbot, seeded_home)
    assert len(texts) > 150
    left = sorted({(where, text) for where, text in texts if untranslated(text) and not data(text)})
    assert not left, "\n".join(f"{where}: {text!r}" for where, text in left)
    assert main_window.viewer is not None
    assert main_window.viewer.action("quit").text() == "結束(&Q)"
    screenshot(main_window.viewer, "viewer-zh-tw")
    assert main_window.settings_window is not None
    screenshot(main_window.settings_window, "settings-zh-tw")


@pytest.mark.allow_warnings
def test_in_english_nothing_is_chinese_but_the_data(
    main_window: Memtray, seeded_home: Path, qtbot: Any
) -> None:
    texts = every_window(main_window, qtbot, seeded_home)
    own_names = ("繁體中文", "日本語")  # the reply languages, each by its own name
    chinese = sorted({(w, t) for w, t in texts if CJK.search(t) and t not in own_names and not data(t)})
    assert not chinese, chinese
    assert main_window.viewer is not None
    assert main_window.viewer.action("quit").text() == "&Quit"


def test_the_check_flags_english_and_lets_names_through() -> None:
    assert untranslated("Quit") and untranslated("<b>proj-zh</b> — 4 recent messages")
    assert untranslated("Import…") and untranslated("JSON Lines (*.jsonl)")
    for text in ("結束", "memtray — 設定", "Gemini", "gemini-2.5-flash", "proj-zh…", "12 KiB 以上", "…"):
        assert not untranslated(text), text


def test_every_import_reason_the_engine_lists_is_translated(
    zh_tw: None, extracted: dict[tuple[str, str, str], ET.Element]
) -> None:
    from desktop.viewer.importreasons import CONTEXT, reason_words
    from engine import import_reasons

    assert len(import_reasons.REASONS) > 40 and "thinking" in import_reasons.REASONS
    assert len(import_reasons.TEMPLATES) >= 5
    committed = messages(SOURCES / "memtray_zh_TW.ts")
    for reason in (*import_reasons.REASONS, *import_reasons.TEMPLATES):
        assert (CONTEXT, reason, "") in extracted, f"lupdate does not see {reason!r}: write it reason(...)"
        assert translations_of(committed[(CONTEXT, reason, "")]), reason
    for reason in import_reasons.REASONS:
        words = reason_words(reason)
        assert words != reason and CJK.search(words), reason
    for template in import_reasons.TEMPLATES:
        reason = import_reasons.fill(template, "VALUE")
        words = reason_words(reason)
        assert words != reason and CJK.search(words) and "VALUE" in words, (reason, words)
    assert reason_words("something new") == "something new"  # unknown: as the engine wrote it
    assert reason_words("message longer than 1,000,000 characters") == "超過 1,000,000 個字元的訊息"
    assert reason_words("user message") == "user 訊息"


def test_the_import_report_says_its_reasons_in_the_ui_language(zh_tw: None) -> None:
    from desktop.viewer.importing import import_words
    from engine.imported import ImportReport

    words = import_words(ImportReport(2, 10, 0, {"thinking": 3, "user message": 1, "new reason": 1}), 1.5)
    assert "略過：思考過程 3 則、new reason 1 則、user 訊息 1 則。" in words, words

"""The UI language (Traditional Chinese for Taiwan, or English), with Qt's own translation tools.

How strings are written in ``desktop/``:

- every user-visible string goes through ``QCoreApplication.translate(context, text)`` (each module
  binds it as ``translate``), with a fixed context per window or module (``"Tray"``, ``"Settings"``…),
  so renaming a class never loses a translation;
- values are filled in after translating: ``translate(ctx, "Reset {session}?").format(session=sid)``
  (never an f-string inside ``translate``: lupdate would record the braces' contents literally);
- counts use ``%n`` (or ``%Ln``, with the locale's digit grouping) and pass the count as ``n``:
  ``translate(ctx, "%Ln message(s)", "", count)``; Qt picks the plural form;
- text defined at import time is marked with ``QT_TRANSLATE_NOOP(ctx, text)`` and translated where it
  is shown;
- the only engine text the UI translates, the importers' skip reasons, stays in the engine
  (``engine/importers/reasons.py``, each written ``reason("…")``): ``make i18n-update`` extracts it with the
  desktop's sources, and :mod:`desktop.viewer.importreasons` translates it.

The sources are ``desktop/translations/memtray_<language>.ts``: ``memtray_zh_TW.ts`` translates every
string; ``memtray_en.ts`` holds only the English plural forms ("1 message", "2 messages").
``make translations`` compiles them to ``.qm`` files beside them with ``pyside6-lrelease``, and ``make
i18n-update`` refreshes the ``.ts`` files from the code with ``pyside6-lupdate``; the frozen build
compiles them itself (``installer/memtray.spec``). Where no ``.qm`` was built (a checkout, ``pip install
.``), the first start compiles the shipped ``.ts`` with PySide6's ``lrelease`` into the user's cache
folder (``<cache>/memtray/translations/<digest of the .ts>/``, so an updated ``.ts`` is compiled again)
and loads it from there (:func:`compiled_dir`). Only when that fails too does the app run in English
(counts then read "1 message(s)").

The language: :func:`configured_language` (``auto``, ``en`` or ``zh_TW``): the ``MEMTRAY_LANG``
environment variable if set, else the ``ui_language`` setting, read when the app starts (a change applies
at the next start); ``auto`` follows the system (``QLocale.system().uiLanguages()``, which honours ``LANG`` and ``LANGUAGE``): any Traditional
Chinese locale (Taiwan, Hong Kong, Macao) gets ``zh_TW``, every other locale English. Qt's own strings
(standard buttons, file dialogs, a line edit's context menu) come from ``qtbase_<language>.qm`` in
PySide6's translations folder.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import platformdirs
import PySide6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from engine import settings

log = logging.getLogger("memtray.desktop.i18n")

LANGUAGES = tuple(language for language in settings.UI_LANGUAGES if language != "auto")
"""The UI languages memtray has: English (the source text) and Traditional Chinese (Taiwan)."""

ENV = "MEMTRAY_LANG"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark ``text`` for translation in ``context`` without translating it now (lupdate extracts it)."""
    return text


_installed: list[QTranslator] = []
"""The translators in use. Qt does not own them: one that Python drops is forgotten (English again)."""


def translations_dir() -> Path:
    """The folder of memtray's ``.qm`` files: beside this module, or in the bundle when frozen."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / "desktop" / "translations"
    return Path(__file__).resolve().parent / "translations"


LRELEASE_TIMEOUT_S = 60


def lrelease_program() -> str | None:
    """PySide6's ``lrelease`` (beside the package, or the ``pyside6-lrelease`` of this interpreter)."""
    package = Path(PySide6.__file__).resolve().parent
    exe = ".exe" if sys.platform == "win32" else ""
    for candidate in (package / f"lrelease{exe}", package / "Qt" / "libexec" / f"lrelease{exe}"):
        if candidate.is_file():
            return str(candidate)
    return shutil.which("pyside6-lrelease", path=str(Path(sys.executable).parent)) or shutil.which("lrelease")


def compiled_dir(language: str, sources: Path | None = None, cache: Path | None = None) -> Path:
    """The folder holding ``memtray_<language>.qm``: ``sources`` (default :func:`translations_dir`) when
    it was built there; else the ``.ts`` of ``sources`` compiled now into ``cache`` (default: the user's
    cache folder), once per version of the ``.ts``. Returns ``sources`` when nothing could be compiled
    (the caller then logs the missing file)."""
    sources = sources or translations_dir()
    name = f"memtray_{language}"
    ts = sources / f"{name}.ts"
    if (sources / f"{name}.qm").is_file() or not ts.is_file():
        return sources
    try:
        digest = hashlib.sha256(ts.read_bytes()).hexdigest()[:16]
        folder = (cache or platformdirs.user_cache_path("memtray", appauthor=False)) / "translations" / digest
        if (folder / f"{name}.qm").is_file():
            return folder
        program = lrelease_program()
        if program is None:
            log.warning("no lrelease to compile %s: the UI stays in English", ts)
            return sources
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".qm", dir=folder)
        os.close(fd)
        try:
            subprocess.run(
                [program, "-silent", str(ts), "-qm", tmp],
                check=True,
                capture_output=True,
                timeout=LRELEASE_TIMEOUT_S,
            )
            os.replace(tmp, folder / f"{name}.qm")
        finally:
            Path(tmp).unlink(missing_ok=True)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("could not compile %s: %s; the UI stays in English", ts, exc)
        return sources
    log.info("translations: compiled %s into %s", ts.name, folder)
    return folder


def configured_language(setting: str | None = None) -> str:
    """The user's choice of UI language: ``auto``, ``en`` or ``zh_TW``.

    ``MEMTRAY_LANG`` wins; else ``setting`` (the ``ui_language`` setting, which the app reads at boot,
    before the first window is built); else ``auto``.
    """
    value = os.environ.get(ENV, "").strip()
    source = ENV
    if not value:
        value, source = (setting or "auto").strip() or "auto", "ui_language"
    if value != "auto" and value not in LANGUAGES:
        log.warning("%s=%r is not one of auto, %s; following the system", source, value, ", ".join(LANGUAGES))
        return "auto"
    return value


def language_of(locale: QLocale) -> str | None:
    """``zh_TW`` for a Traditional Chinese locale, ``en`` for an English one, None for any other."""
    if locale.language() == QLocale.Language.Chinese:
        if locale.script() == QLocale.Script.TraditionalHanScript:
            return "zh_TW"
        return None
    if locale.language() == QLocale.Language.English:
        return "en"
    return None


def system_language(system: QLocale | None = None) -> str:
    """The UI language for the system's preferred languages, in order (English if none is known)."""
    system = system or QLocale.system()
    for tag in system.uiLanguages():
        found = language_of(QLocale(tag))
        if found is not None:
            return found
    return "en"


def choose(choice: str | None = None, system: QLocale | None = None) -> str:
    """The UI language for ``choice`` (default :func:`configured_language`): ``en`` or ``zh_TW``."""
    choice = choice or configured_language()
    return choice if choice in LANGUAGES else system_language(system)


def install(app: QCoreApplication, language: str | None = None, directory: Path | None = None) -> str:
    """Translate the app into ``language`` (default: :func:`choose`); return the language in use.

    Replaces the translators a previous call installed. Without ``directory``, memtray's own ``.qm``
    files are found or compiled by :func:`compiled_dir`. A missing ``.qm`` file is logged; the app then
    shows the English source text.
    """
    language = choose(language)
    uninstall(app)
    folder = directory or compiled_dir(language)
    QLocale.setDefault(QLocale("zh_TW" if language == "zh_TW" else "en_US"))
    wanted = [(f"memtray_{language}", str(folder))]
    if language != "en":
        qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        wanted.append((f"qtbase_{language}", qt_folder))
    for name, where in wanted:
        translator = QTranslator(app)
        if translator.load(name, where):
            app.installTranslator(translator)
            _installed.append(translator)
        else:
            log.info("no %s.qm in %s: those strings stay in English", name, where)
    log.info("UI language: %s", language)
    return language


def uninstall(app: QCoreApplication) -> None:
    """Remove the translators :func:`install` put in (back to the English source text)."""
    while _installed:
        translator = _installed.pop()
        app.removeTranslator(translator)
        translator.deleteLater()

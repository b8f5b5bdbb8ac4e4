"""The import report's reasons for leaving records out, in the UI language.

The importers count what they leave out by a short English reason ("thinking", "image (not imported)",
"user message"), each a constant of :mod:`engine.importers.reasons`; the CLI prints them as they are. The
translation tools extract them from that module (``make i18n-update`` passes it to lupdate), in the
unnamed context :data:`CONTEXT`. A reason built around a value (a role, a part's type, a size, a file kind)
is translated as its template, with the value put back. A reason the engine does not list is shown as it
was written. ``tests/desktop/test_i18n.py`` checks that every reason the engine lists has a translation.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from engine import import_reasons

CONTEXT = ""
"""The translation context of the reasons: lupdate gives the engine's marked texts no class to name."""


def reason_words(reason: str) -> str:
    """``reason`` (an importer's count key) in the UI language, or as it is when it is not known."""
    if reason in import_reasons.REASONS:
        return QCoreApplication.translate(CONTEXT, reason)
    found = import_reasons.template_of(reason)
    if found is None:
        return reason
    template, value = found
    return import_reasons.fill(QCoreApplication.translate(CONTEXT, template), value)

"""The import report's reasons for leaving records out, in the UI language.

The importers count what they leave out by a short English reason ("thinking", "image (not imported)",
"user message"); the CLI prints them as they are. Here each reason the importers use is marked for
translation, and the reasons built from a value (a role, a part's type, a size, a file kind) are matched
by their pattern and translated around that value. A reason this table does not know is shown as the
engine wrote it. ``tests/desktop/test_i18n.py`` reads the importers' source and fails when a reason
given there as a literal is missing here (one passed in a variable has to be added by hand).
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

from desktop.i18n import QT_TRANSLATE_NOOP

CONTEXT = "ImportReason"

KNOWN = frozenset(
    {
        QT_TRANSLATE_NOOP("ImportReason", "API error or synthetic message"),
        QT_TRANSLATE_NOOP("ImportReason", "assistant call to a tool"),
        QT_TRANSLATE_NOOP("ImportReason", "attachment (file not imported)"),
        QT_TRANSLATE_NOOP("ImportReason", "broken conversation"),
        QT_TRANSLATE_NOOP("ImportReason", "broken message"),
        QT_TRANSLATE_NOOP("ImportReason", "compaction summary"),
        QT_TRANSLATE_NOOP("ImportReason", "conversation found twice (the copy updated last is imported)"),
        QT_TRANSLATE_NOOP("ImportReason", "conversation without messages"),
        QT_TRANSLATE_NOOP("ImportReason", "developer or system message"),
        QT_TRANSLATE_NOOP("ImportReason", "empty message"),
        QT_TRANSLATE_NOOP("ImportReason", "file (not imported)"),
        QT_TRANSLATE_NOOP("ImportReason", "folder name is not a session id"),
        QT_TRANSLATE_NOOP("ImportReason", "hidden message"),
        QT_TRANSLATE_NOOP("ImportReason", "image (not imported)"),
        QT_TRANSLATE_NOOP("ImportReason", "image or document (not imported)"),
        QT_TRANSLATE_NOOP("ImportReason", "image or file part"),
        QT_TRANSLATE_NOOP("ImportReason", "injected context"),
        QT_TRANSLATE_NOOP("ImportReason", "interruption marker"),
        QT_TRANSLATE_NOOP("ImportReason", "line that is not JSON"),
        QT_TRANSLATE_NOOP("ImportReason", "line that is not an object"),
        QT_TRANSLATE_NOOP("ImportReason", "message in both history.db and history.json (imported once)"),
        QT_TRANSLATE_NOOP("ImportReason", "message with a negative time"),
        QT_TRANSLATE_NOOP("ImportReason", "message with a time after 2200"),
        QT_TRANSLATE_NOOP("ImportReason", "message with a time before 1990"),
        QT_TRANSLATE_NOOP("ImportReason", "message with a time that is not a number"),
        QT_TRANSLATE_NOOP("ImportReason", "message with an unknown author"),
        QT_TRANSLATE_NOOP("ImportReason", "message with an unknown sender"),
        QT_TRANSLATE_NOOP("ImportReason", "meta or injected context"),
        QT_TRANSLATE_NOOP("ImportReason", "non-text content part (image, file)"),
        QT_TRANSLATE_NOOP("ImportReason", "other content block"),
        QT_TRANSLATE_NOOP("ImportReason", "session with an unreadable history.json"),
        QT_TRANSLATE_NOOP("ImportReason", "session without messages"),
        QT_TRANSLATE_NOOP("ImportReason", "slash command or its output"),
        QT_TRANSLATE_NOOP("ImportReason", "subagent line"),
        QT_TRANSLATE_NOOP("ImportReason", "subagent transcript"),
        QT_TRANSLATE_NOOP("ImportReason", "summary.json of a session without messages"),
        QT_TRANSLATE_NOOP("ImportReason", "summary.json without summary keys"),
        QT_TRANSLATE_NOOP("ImportReason", "temp- session (throwaway)"),
        QT_TRANSLATE_NOOP("ImportReason", "the same turn as an event (one stream is imported)"),
        QT_TRANSLATE_NOOP("ImportReason", "thinking"),
        QT_TRANSLATE_NOOP("ImportReason", "tool call or result"),
        QT_TRANSLATE_NOOP("ImportReason", "transcript without a usable session id"),
        QT_TRANSLATE_NOOP("ImportReason", "transcript without messages"),
        QT_TRANSLATE_NOOP("ImportReason", "unreadable history.db (only history.json was read)"),
        QT_TRANSLATE_NOOP("ImportReason", "unreadable summary.json"),
        QT_TRANSLATE_NOOP("ImportReason", "unreadable transcript"),
    }
)

PATTERNS = (
    (
        re.compile(r"non-text part \((?P<value>.*)\)"),
        QT_TRANSLATE_NOOP("ImportReason", "non-text part ({value})"),
    ),
    (
        re.compile(r"non-text message \((?P<value>.*)\)"),
        QT_TRANSLATE_NOOP("ImportReason", "non-text message ({value})"),
    ),
    (
        re.compile(r"message longer than (?P<value>[\d,]+) characters"),
        QT_TRANSLATE_NOOP("ImportReason", "message longer than {value} characters"),
    ),
    (
        re.compile(r"file that is not (?P<value>.+)"),
        QT_TRANSLATE_NOOP("ImportReason", "file that is not {value}"),
    ),
    (re.compile(r"(?P<value>\S+) message"), QT_TRANSLATE_NOOP("ImportReason", "{value} message")),
)
"""Reasons built around a value, tried in order (the last, "<role> message", is the loosest)."""


def reason_words(reason: str) -> str:
    """``reason`` (an importer's count key) in the UI language, or as it is when it is not known."""
    if reason in KNOWN:
        return QCoreApplication.translate(CONTEXT, reason)
    for pattern, source in PATTERNS:
        found = pattern.fullmatch(reason)
        if found is not None:
            return QCoreApplication.translate(CONTEXT, source).format(value=found.group("value"))
    return reason

"""Why an importer leaves a record out: every reason an import report counts by, once.

An importer counts what it skips under one of these texts (``Tally.skip``, ``Tally.broken``,
``BadTime``); the report adds the counts up by reason (``ImportReport.skipped``). A reason that names a
value (a role, a part's type, a size, a file kind) is a template: :func:`fill` puts the value in its
``{value}``. The CLI prints the reasons as they are; the desktop app shows them in the UI language, with a
translation table that reads :data:`REASONS` and :data:`TEMPLATES`, so a reason added here is one the
desktop's translation check knows about. Every text is written through :func:`reason`, the one spelling
the desktop's translation tools (``pyside6-lupdate -tr-function-alias QT_TR_NOOP+=reason``) extract.
"""

from __future__ import annotations

import re


def reason(text: str) -> str:
    """``text``, marked as a reason an import report counts by (see the module docstring)."""
    return text


def fill(template: str, value: object) -> str:
    """``template`` (one of :data:`TEMPLATES`) with ``value`` in its ``{value}``."""
    return template.replace("{value}", str(value))


# -- records that are not conversation text --------------------------------------------------------------
API_ERROR = reason("API error or synthetic message")
TOOL_CALL = reason("assistant call to a tool")
TOOL_CALL_OR_RESULT = reason("tool call or result")
ATTACHMENT = reason("attachment (file not imported)")
FILE = reason("file (not imported)")
IMAGE = reason("image (not imported)")
IMAGE_OR_DOCUMENT = reason("image or document (not imported)")
IMAGE_OR_FILE_PART = reason("image or file part")
NON_TEXT_CONTENT_PART = reason("non-text content part (image, file)")
OTHER_BLOCK = reason("other content block")
THINKING = reason("thinking")
COMPACTION_SUMMARY = reason("compaction summary")
INJECTED_CONTEXT = reason("injected context")
META_OR_INJECTED = reason("meta or injected context")
INTERRUPTION = reason("interruption marker")
SLASH_COMMAND = reason("slash command or its output")
SUBAGENT_LINE = reason("subagent line")
SUBAGENT_TRANSCRIPT = reason("subagent transcript")
DEVELOPER_OR_SYSTEM = reason("developer or system message")
HIDDEN = reason("hidden message")
EMPTY_MESSAGE = reason("empty message")
CLAUDE_CODE_STRUCTURAL = reason("structural line (system, summary, progress, snapshot …)")
CODEX_STRUCTURAL = reason("structural line (session meta, turn context, token count …)")
SAME_TURN_AS_EVENT = reason("the same turn as an event (one stream is imported)")

# -- duplicates ------------------------------------------------------------------------------------------
CONVERSATION_TWICE = reason("conversation found twice (the copy updated last is imported)")
MESSAGE_IN_BOTH = reason("message in both history.db and history.json (imported once)")

# -- sessions, conversations and files -------------------------------------------------------------------
TEMPORARY_SESSION = reason("temp- session (throwaway)")
NOT_A_SESSION_ID = reason("folder name is not a session id")
UNREADABLE_HISTORY = reason("session with an unreadable history.json")
UNREADABLE_DATABASE = reason("unreadable history.db (only history.json was read)")
SESSION_WITHOUT_MESSAGES = reason("session without messages")
SUMMARY_WITHOUT_MESSAGES = reason("summary.json of a session without messages")
UNREADABLE_SUMMARY = reason("unreadable summary.json")
SUMMARY_WITHOUT_KEYS = reason("summary.json without summary keys")
BROKEN_CONVERSATION = reason("broken conversation")
CONVERSATION_WITHOUT_MESSAGES = reason("conversation without messages")
TRANSCRIPT_WITHOUT_ID = reason("transcript without a usable session id")
TRANSCRIPT_WITHOUT_MESSAGES = reason("transcript without messages")
UNREADABLE_TRANSCRIPT = reason("unreadable transcript")
NOT_JSON = reason("line that is not JSON")
NOT_AN_OBJECT = reason("line that is not an object")
WATCHED_FOLDER_MISSING = reason("watched folder that does not exist")
WATCHED_FOLDER_EMPTY = reason("watched folder without agent transcripts")

# -- broken messages -------------------------------------------------------------------------------------
BROKEN_MESSAGE = reason("broken message")
UNKNOWN_AUTHOR = reason("message with an unknown author")
UNKNOWN_SENDER = reason("message with an unknown sender")
TIME_NOT_A_NUMBER = reason("message with a time that is not a number")
NEGATIVE_TIME = reason("message with a negative time")
TIME_BEFORE_1990 = reason("message with a time before 1990")
TIME_AFTER_2200 = reason("message with a time after 2200")

# -- templates: a value goes in {value} (fill) ------------------------------------------------------------
ROLE_MESSAGE = reason("{value} message")
NON_TEXT_MESSAGE = reason("non-text message ({value})")
NON_TEXT_PART = reason("non-text part ({value})")
TOO_LONG = reason("message longer than {value} characters")
OTHER_KIND = reason("file that is not {value}")

_ALL = tuple(text for name, text in globals().items() if name.isupper() and isinstance(text, str))
REASONS: tuple[str, ...] = tuple(text for text in _ALL if "{value}" not in text)
"""Every reason without a value."""
TEMPLATES: tuple[str, ...] = tuple(text for text in _ALL if "{value}" in text)
"""Every reason with a ``{value}``."""

_SHAPES = sorted(
    (
        (template, re.compile(re.escape(template).replace(re.escape("{value}"), "(.+)")))
        for template in TEMPLATES
    ),
    key=lambda pair: -len(pair[0]),
)
"""The templates as patterns, the most specific (longest) first: "{value} message" is tried last."""


def template_of(text: str) -> tuple[str, str] | None:
    """The template ``text`` was filled from and the value in it; None for a reason without a value or an
    unknown text."""
    if text in REASONS:
        return None
    for template, shape in _SHAPES:
        found = shape.fullmatch(text)
        if found is not None:
            return template, found.group(1)
    return None

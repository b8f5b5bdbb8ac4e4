"""Error records: the :class:`ErrorRecord` dataclass, input limits, keyword normalisation, the classifier.

A record remembers one tool error and what was done about it. Its id is the
sha256 hex of ``tool_name + decimal(unix_ns)``. Keywords are trimmed, lower-cased, de-duplicated (first
seen wins) and tagged ``error_type:<class>`` by :func:`classify` of ``symptom + "\\n" + cause``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from engine.clock import DAY_NS
from engine.errors import InvalidInput

OUTCOMES = ("resolved", "failed", "abandoned")
TTL_NS = 90 * DAY_NS
"""Records expire 90 days after their last write or hit."""

MAX_TEXT_BYTES = 8 * 1024
"""Largest symptom, cause or action, in UTF-8 bytes."""
MAX_TOOL_CHARS = 128
MAX_KEYWORDS = 32
MAX_KEYWORD_CHARS = 200

# (class, triggers): the first class whose trigger appears in the lower-cased text wins (as in the original).
_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("tool_not_exist", ("not exist:", "tool not found", "unsupported tool")),
    ("required_param", ("required",)),
    ("invalid_param", ("invalid",)),
    ("timeout", ("timeout", "deadline exceeded")),
    ("permission", ("unauthorized", "forbidden", "permission denied", "access denied")),
    ("no_result", ("no result", "no data", "not found", "empty result")),
)
ERROR_TYPE_PREFIX = "error_type:"
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class ErrorRecord:
    """One remembered tool error.

    Attributes:
        id: 64 lower-case hex characters.
        tool_name: the tool that failed.
        keywords: normalised keywords, including ``error_type:<class>`` unless the class is unknown.
        symptom: what went wrong, as seen.
        cause: why, if known ("" otherwise).
        action: what was done about it.
        outcome: ``resolved``, ``failed`` or ``abandoned``.
        created_at: Unix nanoseconds of the first write.
        expires_at: Unix nanoseconds after which the record is gone (refreshed on every write and hit).
    """

    id: str
    tool_name: str
    keywords: tuple[str, ...]
    symptom: str
    cause: str
    action: str
    outcome: str
    created_at: int
    expires_at: int

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (keywords as a list)."""
        value = asdict(self)
        value["keywords"] = list(self.keywords)
        return value

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)


def classify(text: str) -> str:
    """The error class of a text: ``unknown`` when empty, else the first matching rule, else ``other``."""
    lowered = text.lower()
    if not lowered.strip():
        return "unknown"
    for name, triggers in _RULES:
        if any(trigger in lowered for trigger in triggers):
            return name
    return "other"


def normalise_keywords(keywords: list[str] | tuple[str, ...]) -> list[str]:
    """Trimmed, lower-cased, non-empty, de-duplicated keywords, first seen first."""
    seen: dict[str, None] = {}
    for keyword in keywords:
        cleaned = keyword.strip().lower()
        if cleaned:
            seen.setdefault(cleaned, None)
    return list(seen)


def tagged_keywords(keywords: list[str] | tuple[str, ...], symptom: str, cause: str) -> list[str]:
    """Normalised keywords plus ``error_type:<class>`` of ``symptom + "\\n" + cause`` (unless unknown)."""
    result = normalise_keywords(keywords)
    kind = classify(symptom + "\n" + cause)
    if kind != "unknown":
        result = normalise_keywords([*result, ERROR_TYPE_PREFIX + kind])
    return result


def record_id(tool_name: str, ns: int) -> str:
    """sha256 hex of ``tool_name + decimal(ns)`` (the original's key ``<tool_name>:<unix_ns>``, hashed)."""
    return hashlib.sha256(f"{tool_name}{ns}".encode()).hexdigest()


def squash(text: str) -> str:
    """Text compared for duplicates: whitespace runs collapsed, trimmed, lower-cased."""
    return _SPACES.sub(" ", text).strip().lower()


def dedupe_key(tool_name: str, symptom: str, action: str) -> str:
    """Equal for writes of the same tool with the same normalised symptom and action."""
    joined = "\x00".join((tool_name, squash(symptom), squash(action)))
    return hashlib.sha256(joined.encode()).hexdigest()


def _text(name: str, value: object, *, required: bool) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be text")
    value = value.strip()
    if required and not value:
        raise InvalidInput(f"{name} must not be empty")
    if "\x00" in value:
        raise InvalidInput(f"{name} must not contain NUL characters")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput(f"{name} is not valid Unicode text") from None
    if size > MAX_TEXT_BYTES:
        raise InvalidInput(f"{name} is too long ({size:,} bytes; at most {MAX_TEXT_BYTES:,})")
    return value


@dataclass(frozen=True)
class Draft:
    """Checked input of a write, before it gets an id and times."""

    tool_name: str
    keywords: tuple[str, ...]
    symptom: str
    cause: str
    action: str
    outcome: str


def check(
    tool_name: object,
    symptom: object,
    action: object,
    outcome: object,
    cause: object = "",
    keywords: object = (),
) -> Draft:
    """Validate and normalise a write.

    Raises:
        InvalidInput: an empty tool, symptom or action; an unknown outcome; a field over its limit;
            text that is not valid Unicode.
    """
    tool = _text("tool_name", tool_name, required=True)
    if len(tool) > MAX_TOOL_CHARS:
        raise InvalidInput(f"tool_name is too long (at most {MAX_TOOL_CHARS} characters)")
    if any(ch.isspace() or not ch.isprintable() for ch in tool):
        raise InvalidInput("tool_name must not contain spaces or control characters")
    if not isinstance(outcome, str) or outcome.strip().lower() not in OUTCOMES:
        raise InvalidInput(f"outcome must be one of {', '.join(OUTCOMES)}, not {outcome!r}")
    if isinstance(keywords, str) or not isinstance(keywords, list | tuple):
        raise InvalidInput("keywords must be a list of texts")
    if len(keywords) > MAX_KEYWORDS:
        raise InvalidInput(f"too many keywords ({len(keywords)}; at most {MAX_KEYWORDS})")
    words = [_text("keyword", k, required=False) for k in keywords]
    if any(len(k) > MAX_KEYWORD_CHARS for k in words):
        raise InvalidInput(f"a keyword is too long (at most {MAX_KEYWORD_CHARS} characters)")
    symptom_text = _text("symptom", symptom, required=True)
    cause_text = _text("cause", cause, required=False)
    tagged = tagged_keywords(words, symptom_text, cause_text)
    return Draft(
        tool_name=tool,
        keywords=tuple(tagged[: MAX_KEYWORDS + 1]),
        symptom=symptom_text,
        cause=cause_text,
        action=_text("action", action, required=True),
        outcome=outcome.strip().lower(),
    )

"""An Agenvoy ``summary.json`` in today's shape, whatever its age.

Today's keys are ``key_decisions``, ``past_discussions`` and ``current_discussion``. Older files carry
``core_discussion`` (the topic), ``confirmed_needs`` (agreed requirements), ``excluded_options`` (rejected
ones), ``current_conclusion`` (conclusions, oldest first) and ``discussion_log`` (``{topic, time,
conclusion}``). They map as:

- ``key_decisions`` <- ``confirmed_needs`` as ``Do: …`` and ``excluded_options`` as ``Don't: …`` (the 8
  newest); a legacy marker ``要：`` / ``不要：`` (or ``する：`` / ``しない：``) becomes ``Do: `` / ``Don't: ``,
  in the new key too;
- ``past_discussions`` <- ``discussion_log``: topic, conclusion as the description, ``time`` as
  ``last_discussed`` (one entry per topic, the 8 newest);
- ``current_discussion`` <- ``core_discussion`` as the topic and the last ``current_conclusion`` as the
  direction.

A key in today's shape wins over the legacy ones. A file is a summary when it has at least 2 of today's
keys or 2 of the four legacy keys (as Agenvoy's own check); anything else is not imported.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("memtray.import")

KEYS = ("key_decisions", "past_discussions", "current_discussion")
LEGACY_KEYS = ("core_discussion", "discussion_log", "confirmed_needs", "current_conclusion")
MAX_ENTRIES = 8
MAX_FIELD = 4000
DO, DONT = "Do: ", "Don't: "
_MARKERS = (
    ("不要：", DONT),
    ("不要:", DONT),
    ("しない：", DONT),
    ("しない:", DONT),
    ("要：", DO),
    ("要:", DO),
    ("する：", DO),
    ("する:", DO),
)
PAST_FIELDS = ("topic", "description", "direction", "last_discussed")
CURRENT_FIELDS = ("topic", "description", "perspectives", "direction")


def convert(data: Any) -> dict[str, object] | None:
    """``data`` as a summary in today's shape, or None if it is not a summary."""
    if not isinstance(data, dict):
        return None
    if sum(k in data for k in KEYS) < 2 and sum(k in data for k in LEGACY_KEYS) < 2:
        return None
    decisions = (
        [decision(entry) for entry in _strings(data["key_decisions"])][:MAX_ENTRIES]
        if "key_decisions" in data
        else _legacy_decisions(data)
    )
    past = (
        [_fields(item, PAST_FIELDS) for item in _list(data["past_discussions"]) if isinstance(item, dict)]
        if "past_discussions" in data
        else _legacy_past(data.get("discussion_log"))
    )
    current = (
        _fields(data["current_discussion"], CURRENT_FIELDS)
        if isinstance(data.get("current_discussion"), dict)
        else _legacy_current(data)
    )
    return {"key_decisions": decisions, "past_discussions": _newest(past), "current_discussion": current}


def decision(entry: str, default: str = "") -> str:
    """A key decision starting with ``Do: `` / ``Don't: ``: a legacy marker converted, else ``default``."""
    text = entry.strip()
    if text.startswith((DO, DONT)):
        return text
    for marker, prefix in _MARKERS:
        if text.startswith(marker):
            return prefix + text[len(marker) :].strip()
    if default:
        return default + text
    log.info("a key decision without a Do:/Don't: marker was kept as it is")
    return text


def _legacy_decisions(data: dict[str, Any]) -> list[str]:
    wanted = [decision(e, DO) for e in _strings(data.get("confirmed_needs"))]
    wanted += [decision(e, DONT) for e in _strings(data.get("excluded_options"))]
    return wanted[-MAX_ENTRIES:]


def _legacy_past(log_items: Any) -> list[dict[str, str]]:
    by_topic: dict[str, dict[str, str]] = {}
    for item in _list(log_items):
        if isinstance(item, str):
            item = {"topic": item}
        if not isinstance(item, dict):
            continue
        topic = _text(item.get("topic"))
        if not topic:
            continue
        by_topic.pop(topic, None)  # a later entry of the same topic replaces the earlier one
        by_topic[topic] = {
            "topic": topic,
            "description": _text(item.get("conclusion")),
            "direction": "",
            "last_discussed": _text(item.get("time")),
        }
    return list(by_topic.values())


def _legacy_current(data: dict[str, Any]) -> dict[str, str]:
    conclusions = data.get("current_conclusion")
    last = _strings(conclusions)[-1:] if isinstance(conclusions, list) else [_text(conclusions)]
    return {
        "topic": _text(data.get("core_discussion")),
        "description": "",
        "perspectives": "",
        "direction": last[0] if last else "",
    }


def _newest(past: list[dict[str, str]]) -> list[dict[str, str]]:
    """At most 8 entries: the oldest by ``last_discussed`` are dropped, the order is kept."""
    if len(past) <= MAX_ENTRIES:
        return past
    keep = sorted(range(len(past)), key=lambda i: (past[i]["last_discussed"], i))[-MAX_ENTRIES:]
    return [past[i] for i in sorted(keep)]


def _fields(value: Any, names: tuple[str, ...]) -> dict[str, str]:
    source = value if isinstance(value, dict) else {}
    return {name: _text(source.get(name)) for name in names}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _strings(value: Any) -> list[str]:
    return [t for t in (_text(v) for v in _list(value)) if t]


def _text(value: Any) -> str:
    """A field as text: strings trimmed and capped; numbers as text; anything else empty."""
    if isinstance(value, str):
        return value.strip()[:MAX_FIELD]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""

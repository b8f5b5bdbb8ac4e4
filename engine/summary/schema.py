"""The shape of ``summary.json``: the dataclass, validation and coercion.

A summary is ``{"key_decisions": [...], "past_discussions": [...], "current_discussion": {...}}``. A parsed
object counts as a summary when it has at least two of those keys, or at least two of the legacy keys
(``core_discussion``, ``discussion_log``, ``confirmed_needs``, ``current_conclusion``); then the types are
coerced, both lists are trimmed to 8 (the oldest discussions go first), and every decision is made to start
with ``Do: `` or ``Don't: `` (legacy markers such as ``要：``/``不要：`` and ``する：``/``しない：`` are rewritten).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("memtray.summary")

KEYS = ("key_decisions", "past_discussions", "current_discussion")
LEGACY_KEYS = ("core_discussion", "discussion_log", "confirmed_needs", "current_conclusion")
MAX_DECISIONS = 8
MAX_PAST = 8
DO, DONT = "Do: ", "Don't: "

# Legacy markers (with a full-width or ASCII colon) and what they become.
_LEGACY_MARKERS = [
    (re.compile(r"^\s*(不要|しない)\s*[:：]\s*"), DONT),
    (re.compile(r"^\s*(要|する)\s*[:：]\s*"), DO),
    (re.compile(r"^\s*(don'?t|do not)\s*[:：]\s*", re.I), DONT),
    (re.compile(r"^\s*do\s*[:：]\s*", re.I), DO),
]


@dataclass(frozen=True)
class PastDiscussion:
    """A finished topic: what it was, what was said, where it went, when it last came up."""

    topic: str = ""
    description: str = ""
    direction: str = ""
    last_discussed: str = ""  # YYYY-MM-DD HH:mm, local


@dataclass(frozen=True)
class CurrentDiscussion:
    """The topic under way."""

    topic: str = ""
    description: str = ""
    perspectives: str = ""
    direction: str = ""


@dataclass(frozen=True)
class Summary:
    """A rolling summary.

    Attributes:
        key_decisions: standing rules, each starting ``Do: `` or ``Don't: `` (at most 8).
        past_discussions: earlier topics (at most 8).
        current_discussion: the topic under way.
        legacy: legacy keys found in an old file, kept as they were (shown to the model at the next merge).
    """

    key_decisions: tuple[str, ...] = ()
    past_discussions: tuple[PastDiscussion, ...] = ()
    current_discussion: CurrentDiscussion = CurrentDiscussion()
    legacy: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def is_empty(self) -> bool:
        """No decision, no past topic, no current topic and no legacy content."""
        return (
            not self.key_decisions
            and not self.past_discussions
            and not any(vars(self.current_discussion).values())
            and not self.legacy
        )

    def entry_count(self) -> int:
        """Decisions + past topics + the current topic (if it has one)."""
        return (
            len(self.key_decisions) + len(self.past_discussions) + (1 if self.current_discussion.topic else 0)
        )

    def to_json(self) -> dict[str, Any]:
        """The ``summary.json`` object (all three keys always present; legacy keys after them)."""
        data: dict[str, Any] = {
            "key_decisions": list(self.key_decisions),
            "past_discussions": [vars(p).copy() for p in self.past_discussions],
            "current_discussion": vars(self.current_discussion).copy(),
        }
        for key, value in self.legacy.items():
            data.setdefault(key, value)
        return data


EMPTY = Summary()


def is_valid(obj: Any) -> bool:
    """A summary: at least 2 of the three keys, or at least 2 of the legacy keys (types unchecked)."""
    if not isinstance(obj, Mapping):
        return False
    return sum(k in obj for k in KEYS) >= 2 or sum(k in obj for k in LEGACY_KEYS) >= 2


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return " ".join(_text(v) for v in value if _text(v))
    return str(value).strip()


def normalize_decision(entry: str) -> str:
    """Give a decision the ``Do: ``/``Don't: `` prefix (legacy markers rewritten); others are left alone."""
    entry = entry.strip()
    if entry.startswith((DO, DONT)):
        return entry
    for pattern, prefix in _LEGACY_MARKERS:
        if pattern.match(entry):
            return prefix + pattern.sub("", entry, count=1).strip()
    log.info("a key decision has no Do:/Don't: prefix; kept as it is")
    return entry


def _past(item: Any) -> PastDiscussion | None:
    if isinstance(item, str):
        return PastDiscussion(topic=item.strip()) if item.strip() else None
    if not isinstance(item, Mapping):
        return None
    past = PastDiscussion(
        topic=_text(item.get("topic")),
        description=_text(item.get("description")),
        direction=_text(item.get("direction")),
        last_discussed=_text(item.get("last_discussed") or item.get("time")),
    )
    return past if any(vars(past).values()) else None


def coerce(obj: Mapping[str, Any]) -> Summary:
    """A :class:`Summary` from a parsed object (validated or not): types coerced, limits applied."""
    raw_decisions = obj.get("key_decisions")
    if isinstance(raw_decisions, str):
        raw_decisions = [raw_decisions]
    decisions = [normalize_decision(_text(d)) for d in raw_decisions or [] if _text(d)]
    decisions = list(dict.fromkeys(decisions))
    raw_past = obj.get("past_discussions")
    past = [p for p in (_past(i) for i in (raw_past if isinstance(raw_past, list) else [])) if p]
    if len(past) > MAX_PAST:
        # Drop the oldest by last_discussed (unknown times count as oldest); keep the original order.
        keep = sorted(range(len(past)), key=lambda i: (past[i].last_discussed, i))[-MAX_PAST:]
        past = [past[i] for i in sorted(keep)]
    current_raw = obj.get("current_discussion")
    if isinstance(current_raw, Mapping):
        current = CurrentDiscussion(
            topic=_text(current_raw.get("topic")),
            description=_text(current_raw.get("description")),
            perspectives=_text(current_raw.get("perspectives")),
            direction=_text(current_raw.get("direction")),
        )
    elif isinstance(current_raw, str) and current_raw.strip():
        current = CurrentDiscussion(topic=current_raw.strip())
    else:
        current = CurrentDiscussion()
    legacy = {k: obj[k] for k in LEGACY_KEYS if k in obj}
    return Summary(tuple(decisions[:MAX_DECISIONS]), tuple(past), current, legacy)

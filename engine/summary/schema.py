"""The shape of ``summary.json``: the dataclass, validation and coercion.

A summary is ``{"key_decisions": [...], "past_discussions": [...], "current_discussion": {...}}``. A parsed
object counts as a summary when it has at least two of those keys, or at least two of the legacy keys
(``core_discussion``, ``discussion_log``, ``confirmed_needs``, ``current_conclusion``). :func:`coerce`
converts the legacy shape into today's (as an imported Agenvoy summary is converted: nothing is kept in
the legacy shape), coerces the types, keeps at most 8 entries in each list (the oldest discussions go
first), cleans and bounds every text (:mod:`engine.summary.untrusted`), and makes every decision start
with ``Do: `` or ``Don't: `` (legacy markers such as ``要：``/``不要：`` and ``する：``/``しない：`` are rewritten).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.importers.agenvoy_summary import convert
from engine.summary.untrusted import MAX_DECISION_CHARS, MAX_ENTRIES, MAX_FIELD_CHARS, clean

log = logging.getLogger("memtray.summary")

KEYS = ("key_decisions", "past_discussions", "current_discussion")
LEGACY_KEYS = ("core_discussion", "discussion_log", "confirmed_needs", "current_conclusion")
MAX_DECISIONS = MAX_ENTRIES
MAX_PAST = MAX_ENTRIES
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
    """

    key_decisions: tuple[str, ...] = ()
    past_discussions: tuple[PastDiscussion, ...] = ()
    current_discussion: CurrentDiscussion = CurrentDiscussion()

    @property
    def is_empty(self) -> bool:
        """No decision, no past topic and no current topic."""
        return (
            not self.key_decisions
            and not self.past_discussions
            and not any(vars(self.current_discussion).values())
        )

    def entry_count(self) -> int:
        """Decisions + past topics + the current topic (if it has one)."""
        return (
            len(self.key_decisions) + len(self.past_discussions) + (1 if self.current_discussion.topic else 0)
        )

    def to_json(self) -> dict[str, Any]:
        """The ``summary.json`` object (all three keys always present)."""
        return {
            "key_decisions": list(self.key_decisions),
            "past_discussions": [vars(p).copy() for p in self.past_discussions],
            "current_discussion": vars(self.current_discussion).copy(),
        }


EMPTY = Summary()


def is_valid(obj: Any) -> bool:
    """A summary: at least 2 of the three keys, or at least 2 of the legacy keys (types unchecked)."""
    if not isinstance(obj, Mapping):
        return False
    return sum(k in obj for k in KEYS) >= 2 or sum(k in obj for k in LEGACY_KEYS) >= 2


def _text(value: Any, limit: int = MAX_FIELD_CHARS) -> str:
    """A text field of a reply, cleaned and bounded; a list of scalars is joined (one level, no recursion)."""
    if value is None or isinstance(value, Mapping):
        return ""
    if isinstance(value, list):
        parts = [
            v if isinstance(v, str) else str(v)
            for v in value[: MAX_ENTRIES * 4]
            if isinstance(v, str | int | float)
        ]
        value = " ".join(p.strip() for p in parts if p.strip())
    return clean(value if isinstance(value, str) else str(value), limit)


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
        topic = _text(item)
        return PastDiscussion(topic=topic) if topic else None
    if not isinstance(item, Mapping):
        return None
    past = PastDiscussion(
        topic=_text(item.get("topic")),
        description=_text(item.get("description")),
        direction=_text(item.get("direction")),
        last_discussed=_text(item.get("last_discussed") or item.get("time"), 64),
    )
    return past if any(vars(past).values()) else None


def _is_legacy(obj: Mapping[str, Any]) -> bool:
    return sum(k in obj for k in KEYS) < 2 and sum(k in obj for k in LEGACY_KEYS) >= 2


def coerce(obj: Mapping[str, Any]) -> Summary:
    """A :class:`Summary` from a parsed object (validated or not, in today's or the legacy shape): types
    coerced, texts cleaned, limits applied."""
    if _is_legacy(obj):
        obj = convert(dict(obj)) or {}
    raw_decisions = obj.get("key_decisions")
    if isinstance(raw_decisions, str):
        raw_decisions = [raw_decisions]
    elif not isinstance(raw_decisions, list):  # a model's answer of the wrong shape
        raw_decisions = []
    texts = (_text(d, MAX_DECISION_CHARS) for d in raw_decisions[: MAX_DECISIONS * 4])
    decisions = list(dict.fromkeys(normalize_decision(t) for t in texts if t))
    raw_past = obj.get("past_discussions")
    items = raw_past[: MAX_PAST * 4] if isinstance(raw_past, list) else []
    past = [p for p in (_past(i) for i in items) if p]
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
    elif isinstance(current_raw, str):
        current = CurrentDiscussion(topic=_text(current_raw))
    else:
        current = CurrentDiscussion()
    return Summary(tuple(decisions[:MAX_DECISIONS]), tuple(past), current)

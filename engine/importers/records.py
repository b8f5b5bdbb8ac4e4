"""The checks every importer applies to one record: a validated message or a counted reason to skip it.

Also the session ids of imported conversations (``gpt-<id>``, ``claude-<uuid>``): a foreign id is made
safe (letters, digits, ``.``, ``_``, ``-``; at most 128 characters) and stays the same on every import,
which is what makes importing a file twice add nothing. And times: an epoch number in whatever unit the
source used (seconds, ms, µs or ns, told apart by magnitude), and ISO 8601 text, both as Unix ns.
"""

from __future__ import annotations

import calendar
import hashlib
import logging
import math
import re
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import engine.importers.reasons as reasons
from engine.errors import InvalidInput
from engine.imported import ImportedSession
from engine.messages import MAX_CONTENT_CHARS, MAX_SEND_AT, Message, validate
from engine.paths import validate_session_id

log = logging.getLogger("memtray.import")

MAX_MESSAGE_CHARS = MAX_CONTENT_CHARS
"""A longer message is skipped and counted (the one bound of every way in: :data:`engine.messages.MAX_CONTENT_CHARS`)."""
MAX_SESSION_ID = 128
WARN_EXAMPLES = 5
"""Broken records named in a warning, per reason; the rest are logged at INFO."""


class BrokenRecord(Exception):
    """A record that is not in the expected shape: the reader skips it and counts why."""


class Tally:
    """Counts of skipped records by reason, with the first few broken ones named in the log."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def skip(self, reason: str, count: int = 1) -> None:
        """Count ``count`` records left out on purpose (a system message, an image, ...)."""
        if count > 0:
            self.counts[reason] += count

    def broken(self, reason: str, where: str, why: str) -> None:
        """Count a broken record and name it (``where``: which record; ``why``: what is wrong)."""
        self.counts[reason] += 1
        level = logging.WARNING if self.counts[reason] <= WARN_EXAMPLES else logging.INFO
        log.log(level, "skipped %s: %s", where, why)

    def as_dict(self) -> dict[str, int]:
        return dict(self.counts)


class BadTime(ValueError):
    """A time that cannot be a message's: the text is the reason, fit to count skipped messages by."""


NS = 1_000_000_000
MIN_SEND_AT = 631_152_000 * NS
"""1990-01-01 UTC: an earlier time is a unit mistake or a placeholder, not when a message was written."""
# Which unit an epoch number is in, by its size: now is ~1.7e9 s, 1.7e12 ms, 1.7e15 µs, 1.7e18 ns.
_UNITS = ((10**11, NS), (10**14, 1_000_000), (10**17, 1_000), (None, 1))


def epoch_ns(value: object) -> int:
    """An epoch time in seconds, milliseconds, microseconds or nanoseconds (by magnitude) as Unix ns.

    ``None`` and ``0`` mean unknown and give 0. A float may carry a fraction (``1736600000.12`` seconds).

    Raises:
        BadTime: not a number, negative, before 1990 or after 2200 (the reason says which).
    """
    if value is None or value == 0:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadTime(reasons.TIME_NOT_A_NUMBER)
    if isinstance(value, float) and not math.isfinite(value):
        raise BadTime(reasons.TIME_NOT_A_NUMBER)
    if value < 0:
        raise BadTime(reasons.NEGATIVE_TIME)
    exact = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    factor = next(f for limit, f in _UNITS if limit is None or exact < limit)
    ns = int(exact * factor)
    if ns < MIN_SEND_AT:
        raise BadTime(reasons.TIME_BEFORE_1990)
    if ns > MAX_SEND_AT:
        raise BadTime(reasons.TIME_AFTER_2200)
    return ns


def iso_to_ns(value: object) -> int | None:
    """An ISO 8601 time (``2024-05-01T12:34:56.789Z``; naive means UTC) as Unix ns; 0 when absent.

    Returns None for a value that is not such a time.
    """
    if value is None or value == "":
        return 0
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    ns = calendar.timegm(moment.utctimetuple()) * NS + moment.microsecond * 1000
    return ns if 0 <= ns <= MAX_SEND_AT else None


def message(role: str, content: str, send_at: int, sender: str, tally: Tally, where: str) -> Message | None:
    """A validated message, or None (counted in ``tally``) for an empty, oversized or invalid one."""
    if not content.strip():
        tally.skip(reasons.EMPTY_MESSAGE)
        return None
    if len(content) > MAX_MESSAGE_CHARS:
        tally.broken(reasons.fill(reasons.TOO_LONG, f"{MAX_MESSAGE_CHARS:,}"), where, "too long")
        return None
    try:
        return validate(Message(role=role, content=content, send_at=send_at, sender=sender))
    except InvalidInput as exc:
        tally.broken(reasons.BROKEN_MESSAGE, where, str(exc))
        return None


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def derived_session_id(prefix: str, raw: str) -> str:
    """A valid, stable session id ``<prefix><raw>`` with ``raw`` made safe (and shortened if needed).

    Raises:
        InvalidInput: ``raw`` has nothing usable in it.
    """
    safe = re.sub(r"\.{2,}", ".", _UNSAFE.sub("-", raw)).strip("-._")
    if not safe:
        raise InvalidInput(f"no usable id in {raw[:40]!r}")
    budget = MAX_SESSION_ID - len(prefix)
    if len(safe) > budget:
        digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        safe = safe[: budget - len(digest) - 1].rstrip("-._") + "-" + digest
    return validate_session_id(prefix + safe)


def conversation_name(index: int, conversation: object, key: str) -> str:
    """``conversation 3 ('6630a1b2-…')``: its position in the file, and its id when it has one."""
    raw = conversation.get(key) if isinstance(conversation, dict) else None
    return f"conversation {index} ({short(raw, 50)})" if isinstance(raw, str) else f"conversation {index}"


def short(value: object, limit: int = 60) -> str:
    """A value shown in a message: its repr, cut to ``limit`` characters."""
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def retarget(sessions: list[ImportedSession], session: str | None) -> list[ImportedSession]:
    """``--session``: the one conversation read, moved into ``session`` (None: unchanged).

    Raises:
        InvalidInput: an invalid id, or not exactly one conversation to import.
    """
    if session is None:
        return sessions
    validate_session_id(session)
    if len(sessions) != 1:
        raise InvalidInput(
            f"--session needs exactly one conversation to import; this has {len(sessions)} "
            "(leave --session out to import one session per conversation)"
        )
    return [replace(sessions[0], session=session)]

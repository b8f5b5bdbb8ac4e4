"""Opaque cursors and the size bound of a result page.

A cursor is URL-safe base64 of ``{"k": kind, "f": fingerprint, "p": position}``: the kind of listing,
a fingerprint of the arguments it was made for (so a cursor cannot continue a different query), and
where the next page starts. Clients must treat it as opaque; the server may change its content.

A position read back from a cursor is checked before use (:func:`offset_position`,
:func:`kept_position`, :func:`keyset_position`): a cursor is the client's input, and a damaged or forged
one (a page number of 2**70, a string where a number was) is an invalid argument in one sentence, never a
crash. A listing's later pages slice what its first page found, kept by the server
(:mod:`engine.mcpserver.kept`): the position holds an offset and the token it is kept under.

Every tool result is kept under :data:`PAGE_CHARS` characters of JSON text: a page takes items while
they fit and says where to go on (``nextCursor``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from engine.errors import InvalidInput

PAGE_CHARS = 16_000
"""The most characters a tool's JSON text may have (hosts warn from about 10k tokens)."""

MAX_CURSOR_CHARS = 512

MAX_POSITION = 2**63 - 1
"""The largest number a cursor may hold: SQLite's largest integer (a row id, a time in ns)."""

DAMAGED = "cursor is damaged: start again without one"


def dumps(value: Any) -> str:
    """Compact JSON, non-ASCII kept as is (what the agent reads, and what is measured)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_NOT_DEFINING: dict[str, frozenset[str]] = {"read": frozenset({"around"})}
"""Arguments besides cursor and limit that a listing's later pages may keep or drop (read's start)."""


def fingerprint(kind: str, args: Mapping[str, Any]) -> str:
    """A short hash of the arguments that define a listing (not where it is, nor the page size)."""
    ignore = {"cursor", "limit"} | _NOT_DEFINING.get(kind, frozenset())
    kept = {k: v for k, v in sorted(args.items()) if k not in ignore}
    return hashlib.sha256(dumps(kept).encode("utf-8")).hexdigest()[:12]


def encode(kind: str, args: Mapping[str, Any], position: Any) -> str:
    raw = dumps({"k": kind, "f": fingerprint(kind, args), "p": position}).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode(kind: str, args: Mapping[str, Any], cursor: str) -> Any:
    """The position a cursor holds.

    Raises:
        InvalidInput: not a cursor of this kind, or made for different arguments.
    """
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):
        value = None
    if not isinstance(value, dict) or value.get("k") != kind or "p" not in value:
        raise InvalidInput("cursor is not a cursor of this listing: start again without one")
    if value.get("f") != fingerprint(kind, args):
        raise InvalidInput(
            "cursor was made for other arguments: repeat the call that returned it, changing only cursor"
        )
    return value["p"]


def fits(result: Mapping[str, Any], limit: int = PAGE_CHARS) -> bool:
    """Whether ``result`` as JSON text is at most ``limit`` characters."""
    return len(dumps(result)) <= limit


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def offset_position(value: Any, most: int = MAX_POSITION) -> int:
    """A cursor's position that must be a whole number from 0 to ``most``.

    Raises:
        InvalidInput: anything else.
    """
    if not _is_int(value) or not 0 <= value <= most:
        raise InvalidInput(DAMAGED)
    return int(value)


def kept_position(value: Any, most: int) -> tuple[int, str | None]:
    """A listing cursor's position: ``{"o": offset, "r": token}`` (an offset into the listing kept under
    ``token``, :mod:`engine.mcpserver.kept`) or a bare offset (as search cursors of earlier versions hold).

    Raises:
        InvalidInput: anything else.
    """
    if isinstance(value, dict) and value.keys() == {"o", "r"}:
        token = value["r"]
        if not isinstance(token, str) or not 0 < len(token) <= MAX_CURSOR_CHARS:
            raise InvalidInput(DAMAGED)
        return offset_position(value["o"], most), token
    return offset_position(value, most), None


def keyset_position(value: Any) -> tuple[int, str]:
    """A cursor's ``[time, id]`` position (the last item shown of a newest-first listing).

    Raises:
        InvalidInput: anything else.
    """
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not _is_int(value[0])
        or not -MAX_POSITION <= value[0] <= MAX_POSITION
        or not isinstance(value[1], str)
        or len(value[1]) > MAX_CURSOR_CHARS
    ):
        raise InvalidInput(DAMAGED)
    return int(value[0]), value[1]

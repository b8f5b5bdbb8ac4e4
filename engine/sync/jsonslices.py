"""A segment's JSON written and read in slices, so the app's GUI thread runs in between.

``json.dumps`` and ``json.loads`` hold the interpreter's lock for the whole text: about 1 ms per thousand
messages, so a snapshot of 100,000 messages stalled the tray app's GUI thread for 100 to 150 ms while its
store worker read it. Here the long ``"messages"`` array is written a thousand rows at a time and read
row by row (the C scanner of :mod:`json` for each row), and the rest of the object in one call; between
two calls other threads run. The bytes written are exactly those of one ``json.dumps`` with the same
options, and anything that does not look as expected is read by one plain ``json.loads``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

KEY = "messages"
ROWS_PER_SLICE = 1000
_OPENING = f'"{KEY}":['
_PLACEHOLDER = f'"{KEY}":[]'
_scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def dumps(data: dict[str, Any]) -> str:
    """``json.dumps(data, ensure_ascii=False, separators=(",", ":"))``, the messages a slice at a time."""
    rows = data.get(KEY)
    if not isinstance(rows, list) or len(rows) <= ROWS_PER_SLICE:
        return _dumps(data)
    head = _dumps({**data, KEY: []})
    at = head.index(_PLACEHOLDER) + len(_OPENING)
    slices = [_dumps(rows[i : i + ROWS_PER_SLICE])[1:-1] for i in range(0, len(rows), ROWS_PER_SLICE)]
    return head[:at] + ",".join(slices) + head[at:]


def loads(text: str) -> Any:
    """``json.loads(text)``, a long messages array of an object row by row (see the module).

    Raises:
        ValueError: the text is not JSON.
    """
    start = text.find(_OPENING)
    if start < 0 or len(text) < 64 * 1024:
        return json.loads(text)
    try:
        rows, end = _rows(text, start + len(_OPENING))
        data = json.loads(text[: start + len(_OPENING)] + text[end:])
    except (ValueError, StopIteration, IndexError):
        return json.loads(text)  # not the layout written here: the plain way decides
    if not isinstance(data, dict) or data.get(KEY) != []:
        return json.loads(text)  # the opening was inside a string, or the key is nested
    data[KEY] = rows
    return data


def _rows(text: str, pos: int) -> tuple[list[Any], int]:
    """The rows of an array whose first row starts at ``pos``; and where its closing bracket is."""
    rows: list[Any] = []
    if text[pos] == "]":
        return rows, pos
    while True:
        row, pos = _scan(text, pos)
        rows.append(row)
        if text[pos] == ",":
            pos += 1
        elif text[pos] == "]":
            return rows, pos
        else:
            raise ValueError("not a compact array")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

"""How the MCP tools show text and time to an agent: UTC ISO times, date bounds, snippets, titles.

Times go out as ISO 8601 in UTC (``2025-01-31T18:04:05Z``). Date bounds come in as ``YYYY-MM-DD`` (the
whole day, in UTC) or an ISO date-time (UTC unless it carries an offset). A snippet is at most
:data:`SNIPPET_CHARS` characters of a message around the first word of the query it contains.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from engine.cjk import has_cjk
from engine.clock import NS_PER_SECOND
from engine.errors import InvalidInput
from engine.search.terms import STOP_WORDS

SNIPPET_CHARS = 300
_SNIPPET_SCAN = 200_000  # a snippet comes from a message's first 200k characters (a 10 MB message stays fast)

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$"
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_PHRASE = re.compile(r'"([^"]+)"')


def iso(ns: int) -> str | None:
    """Unix nanoseconds as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC); None for 0 (unknown)."""
    if not ns:
        return None
    moment = datetime.fromtimestamp(ns // NS_PER_SECOND, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_bound(name: str, value: str, *, end: bool) -> int:
    """A date bound as Unix nanoseconds; a bare date is its first (or, for an ``end``, last) instant.

    Raises:
        InvalidInput: the text is not a real date or date-time.
    """
    try:
        if _DATE_ONLY.match(value):
            day = datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=UTC)
            moment = day + timedelta(days=1) if end else day
            ns = int(moment.timestamp()) * NS_PER_SECOND
            return ns - 1 if end else ns
        moment = datetime.fromisoformat(value.replace(" ", "T", 1))
    except (ValueError, OverflowError):
        raise InvalidInput(
            f"{name} {value[:40]!r} is not a date: use YYYY-MM-DD or an ISO date-time such as "
            "2025-01-31T18:00:00Z"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000) * 1000


def squash(text: str) -> str:
    """Whitespace runs (newlines included) as one space, trimmed."""
    return _SPACES.sub(" ", text).strip()


def shorten(text: str, limit: int) -> str:
    """``text`` squashed and cut to ``limit`` characters at a word boundary, with ``…`` when cut."""
    flat = squash(text)
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def query_terms(query: str) -> list[str]:
    """What of a query to look for in a hit, lower-cased, longest first: its quoted phrases, its words
    (stop words dropped), and each 2-character piece of a CJK run."""
    lowered = query.lower()
    terms = {p.strip() for p in _PHRASE.findall(lowered) if p.strip()}
    for word in _WORD.findall(lowered):
        if has_cjk(word):
            terms.add(word)
            terms.update(word[i : i + 2] for i in range(len(word) - 1))
        elif len(word) > 1 and word not in STOP_WORDS:
            terms.add(word)
    return sorted(terms, key=lambda t: (-len(t), t))


def _stem(term: str) -> str:
    """A word's start, for finding its other forms (``painting`` in ``paints``)."""
    return term[: max(4, len(term) - 3)] if len(term) > 5 and not has_cjk(term) else term


def snippet(content: str, terms: list[str], limit: int = SNIPPET_CHARS) -> tuple[str, list[str]]:
    """At most ``limit`` characters of ``content`` around the matched terms, and the terms found.

    Without a match (a semantic hit) the snippet is the message's start.
    """
    flat = squash(content[:_SNIPPET_SCAN])
    lowered = flat.lower()
    found = [t for t in terms if _stem(t) in lowered]
    matched = [t for t in found if not any(t != other and t in other for other in found)]
    if len(flat) <= limit:
        return flat, matched
    positions = sorted(lowered.find(_stem(t)) for t in matched)
    # The window holding the most of the matched terms, starting a third of it before the first of them.
    first = max(positions, key=lambda p: sum(p <= q < p + limit * 2 // 3 for q in positions), default=0)
    start = max(0, min(first - limit // 3, len(flat) - limit))
    if start > 0:
        space = flat.find(" ", start, first) if first > start else -1
        start = space + 1 if space != -1 else start
    body = flat[start : start + limit - 2].strip()
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + limit - 2 < len(flat) else ""
    return (prefix + body + suffix)[:limit], matched

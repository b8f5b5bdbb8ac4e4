"""The calendar dates a search query names ("on 3 June, 2023", "in May", "2023-06-03", "2023年6月3日").

People ask about what was said on a day: "what did Maria share on 16 June, 2023?", "what did we decide in
March?". The words of such a question rarely say the date (a message holds "I just started volunteering",
not its day), but each message has its time. Hybrid search therefore prefers the messages sent on a date
the query names (:attr:`engine.search.fusion.Weights.dated`); measured on the English evaluation set
(``bench/README.md``).

:func:`named_dates` reads explicit dates only, in English and in CJK notation: a day with its month (and
year, when given), a month with its year, or a month after "in"/"during" ("in May" capitalized: "in may
break" is no date); never a weekday, a relative time ("last week") or a bare year. A :class:`NamedDate` with no year holds in any year. Messages are placed on
the calendar in the local time zone (the user's), as the user counts days.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, tzinfo

_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_FULL_MONTH = "(" + "|".join(name.lower() for name in calendar.month_name if name) + ")"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"

_I = re.IGNORECASE
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"(?<!\d){_YEAR}-(\d{{1,2}})-(\d{{1,2}})(?!\d)", _I), "ymd"),
    (re.compile(rf"(?<!\d){_YEAR}\s*年\s*(\d{{1,2}})\s*月\s*(\d{{1,2}})\s*[日號号]", _I), "ymd"),
    (re.compile(rf"(?<![\w]){_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}(?!\d)", _I), "dmy"),
    (re.compile(rf"(?<![\w]){_MONTH}\s+{_DAY},?\s+{_YEAR}(?!\d)", _I), "mdy"),
    (re.compile(rf"(?<!\d){_YEAR}\s*年\s*(\d{{1,2}})\s*月", _I), "ym"),
    (re.compile(rf"(?<![\w]){_MONTH},?\s+{_YEAR}(?!\d)", _I), "my"),
    (re.compile(rf"(?<![\w])(?:on|since|by|before|after)\s+{_DAY}\s+(?:of\s+)?{_MONTH}(?![\w])", _I), "dm"),
    (re.compile(rf"(?<![\w])(?:on|since|by|before|after)\s+{_MONTH}\s+{_DAY}(?![\w])", _I), "md"),
    (re.compile(r"(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*[日號号]", _I), "md"),
    (re.compile(rf"(?<![\w])(?:in|during)\s+(?:early\s+|mid\s+|late\s+)?{_FULL_MONTH}(?![\w])", _I), "m"),
)


@dataclass(frozen=True)
class NamedDate:
    """A date a query names: a month, or a day of it; ``year`` None for any year.

    Attributes:
        month: 1-12.
        day: the day of the month; None for the whole month.
        year: None when the query named no year (the date then holds in every year).
    """

    month: int
    day: int | None = None
    year: int | None = None

    def holds(self, send_at: int, zone: tzinfo | None = None) -> bool:
        """Whether a message sent at ``send_at`` (Unix ns; 0 unknown) falls on this date in ``zone`` (None:
        the local time zone)."""
        if send_at <= 0:
            return False
        try:
            when = datetime.fromtimestamp(send_at // 1_000_000_000, zone).date()
        except (OverflowError, OSError, ValueError):  # beyond what the platform's clock functions take
            return False
        return (
            when.month == self.month
            and (self.day is None or when.day == self.day)
            and (self.year is None or when.year == self.year)
        )


def _named(kind: str, groups: tuple[str, ...]) -> NamedDate | None:
    values = dict(zip(kind, groups, strict=True))
    month_text = values["m"]
    month = int(month_text) if month_text.isdigit() else _MONTHS.get(month_text.lower().rstrip("."), 0)
    day = int(values["d"]) if "d" in values else None
    year = int(values["y"]) if "y" in values else None
    try:  # a real date (an impossible day such as 31 June is no date)
        date(year or 2000, month, day or 1)
    except ValueError:
        return None
    return NamedDate(month, day, year)


WORDLIKE_MONTHS = frozenset({"may", "march"})
"""Months that are also common words: named alone ("in May") only when capitalized ("walked in march
formation", "what we put in may break" name no month)."""


def named_dates(text: str) -> tuple[NamedDate, ...]:
    """The explicit dates ``text`` names (see the module docstring), each once, in the order found. The
    text is read in NFKC form (full-width digits are digits) and in any case, but a month that is also a word
    (:data:`WORDLIKE_MONTHS`) counts alone only when capitalized; a stretch read as one date is not read
    again as a shorter one."""
    normalized = unicodedata.normalize("NFKC", text)
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, NamedDate]] = []
    for pattern, kind in _PATTERNS:
        for match in pattern.finditer(normalized):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            if kind == "m" and match.group(1).lower() in WORDLIKE_MONTHS and not match.group(1)[0].isupper():
                continue
            named = _named(kind, match.groups())
            if named is not None:
                taken.append((start, end))
                found.append((start, named))
    return tuple(dict.fromkeys(named for _, named in sorted(found, key=lambda pair: pair[0])))

"""Date bounds of searches and listings (MCP ``since``/``until``, the CLI's ``--since``/``--until``) as
Unix nanoseconds: ``YYYY-MM-DD`` (the whole day, in UTC), an ISO date-time (UTC unless it carries an
offset), or a time in words ("last week", "3 days ago", "上個月", "三天前", "vorige week") in the user's
time zone.

The words are read by ``dateparser`` (English, Chinese and Dutch, the languages of the histories memtray
keeps), relative to a given now and preferring the past. Words name a period or a moment: "yesterday",
"3 days ago" and "2025年6月3日" a day, "last week" and "本週" a week (from Monday), "上個月" and "June 2025"
a month, "2024" and "去年" a year, "2 hours ago" a moment. A ``since`` bound is the period's first instant
and an ``until`` bound its last, so "since yesterday" holds all of yesterday and "until June 2025" all of
June. Chinese numerals and the everyday words ``dateparser`` does not know are rewritten first
(:func:`plain_chinese`: "三天前" → "3天前", "上星期" → "上週", "去年六月" → "2025年6月").

``dateparser`` costs 0.1-0.3 s to import and up to 0.5 s for its first phrase, so it is imported only when a
time in words is given: a command with an ISO date, or none, never loads it (``bench.cli_start``).
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

from engine.clock import NS_PER_SECOND
from engine.errors import InvalidInput

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$"
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

LANGUAGES = ["en", "zh-Hant", "zh", "nl"]
MAX_CHARS = 40

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "兩": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
           "八": 8, "九": 9}  # fmt: skip
_UNITS = r"(?:天|日|號|号|週|周|星期|禮拜|礼拜|月|年|小時|小时|鐘頭|钟头|分鐘|分钟|秒)"
_NUMBER = re.compile(rf"[零〇一二兩两三四五六七八九十百]+(?=\s*(?:個|个)?\s*{_UNITS})")
_WEEK = re.compile(r"(個|个)?(星期|禮拜|礼拜)(?![一二三四五六日天])")
_THIS = re.compile(r"(?:這|这)(?:個|个)?(月|週|周)")
_YEARS = {"今年": 0, "去年": 1, "前年": 2}
_NAMED_YEAR = re.compile(r"^(今年|去年|前年)")
_MONTH_DAY = re.compile(r"^(\d{1,2})月(\d{1,2})[日號号]?$")
_YEAR_ONLY = re.compile(r"^(\d{4})年$")  # dateparser reads "2025年" as the year 1
_WEEKDAY = re.compile(r"^(上|這|这|本)?(?:個|个)?(?:週|周|星期|禮拜|礼拜)([一二三四五六日天])$")
_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


def chinese_number(text: str) -> int:
    """The value of a Chinese numeral: positional digits ("二〇二五" is 2025) or with 十 and 百 ("二十五")."""
    if not any(ch in "十百" for ch in text):
        return int("".join(str(_DIGITS[ch]) for ch in text))
    total = digit = 0
    for ch in text:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
        else:
            total += (digit or 1) * (100 if ch == "百" else 10)
            digit = 0
    return total + digit


def plain_chinese(text: str, now: datetime) -> str:
    """``text`` with what ``dateparser`` misses in Chinese rewritten as what it reads: numerals before a
    unit of time as digits ("三天前", "兩個月前", "十二月"), 星期/禮拜 as a unit for 週 ("上星期", "兩個禮拜前"),
    這個月/這週 as 本月/本週, 去年/今年/前年 as that year ("去年6月"), a year alone ("2025年"),
    a month and day without a year ("6月3日": the latest such day not after ``now``), and a weekday ("上週五":
    the Friday of last week, where dateparser's "last friday" is the latest Friday; "星期一": the latest
    Monday)."""
    weekday = _WEEKDAY.match(text)
    if weekday:
        wanted = _WEEKDAYS[weekday.group(2)]
        if weekday.group(1) is None:  # 星期一 alone: the latest Monday, today included
            day = now - timedelta(days=(now.weekday() - wanted) % 7)
        else:
            day = now - timedelta(days=now.weekday() + (7 if weekday.group(1) == "上" else 0) - wanted)
        return f"{day.year}年{day.month}月{day.day}日"
    text = _NUMBER.sub(lambda m: str(chinese_number(m.group(0))), text)
    text = _WEEK.sub("週", text)
    text = _THIS.sub(lambda m: "本" + m.group(1), text)
    text = _NAMED_YEAR.sub(lambda m: f"{now.year - _YEARS[m.group(1)]}年", text)
    text = _YEAR_ONLY.sub(r"\1", text)
    month_day = _MONTH_DAY.match(text)
    if month_day:
        month, number = int(month_day.group(1)), int(month_day.group(2))
        year = now.year if (month, number) <= (now.month, now.day) else now.year - 1
        text = f"{year}年{month}月{number}日"
    return text


def _period(moment: datetime, period: str) -> tuple[datetime, datetime | None]:
    """The first instant of the day, week (from Monday), month or year ``period`` that holds ``moment``,
    and the first instant after it; ``(moment, None)`` for any other period (a moment)."""
    if period not in ("day", "week", "month", "year"):
        return moment, None
    start = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "week":
        start -= timedelta(days=start.weekday())
        return start, start + timedelta(days=7)
    if period == "month":
        start = start.replace(day=1)
        return start, start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
    if period == "year":
        start = start.replace(month=1, day=1)
        return start, start.replace(year=start.year + 1)
    return start, start + timedelta(days=1)


def _ns(moment: datetime) -> int:
    """``moment`` as Unix nanoseconds; a naive one is a local time, with the offset it had then."""
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return int(moment.timestamp() * 1_000_000) * 1000


def parse_words(name: str, value: str, *, end: bool, now_ns: int) -> int:
    """The first (or, for an ``end``, last) instant of the period ``value`` names in words, as Unix
    nanoseconds, read in the local time zone relative to ``now_ns``.

    Raises:
        InvalidInput: the text names no time (or is longer than :data:`MAX_CHARS`).
    """
    text = value.strip()
    data = None
    if text and len(text) <= MAX_CHARS:
        from dateparser.date import DateDataParser  # only when a time in words is given (its import is slow)

        now = datetime.fromtimestamp(now_ns / NS_PER_SECOND)
        settings = {"RELATIVE_BASE": now, "PREFER_DATES_FROM": "past", "RETURN_TIME_AS_PERIOD": True}
        data = DateDataParser(languages=LANGUAGES, settings=settings).get_date_data(plain_chinese(text, now))
    if data is None or data.date_obj is None:
        raise InvalidInput(
            f"{name} {value[:MAX_CHARS]!r} is not a date: use YYYY-MM-DD, an ISO date-time such as "
            "2025-01-31T18:00:00Z, or words such as 'last week', '3 days ago' or '上個月'"
        )
    try:
        start, after = _period(data.date_obj, data.period or "time")
        if after is None:
            return _ns(start)
        return _ns(after) - 1 if end else _ns(start)
    except (ValueError, OverflowError, OSError):  # past year 9999, or before 1970 on Windows
        raise InvalidInput(f"{name} {value[:MAX_CHARS]!r} is out of the range of dates") from None


def parse_bound(name: str, value: str, *, end: bool, now_ns: int | None = None, local: bool = False) -> int:
    """A date bound as Unix nanoseconds; a bare date is its first (or, for an ``end``, last) instant. Any
    other text is read as a time in words relative to ``now_ns`` (default: now), in the user's time zone
    (:func:`parse_words`: "last week", "3 days ago", "上個月").

    A bare date and a date-time without an offset are UTC (MCP, whose results give times in UTC), or with
    ``local`` in the user's time zone (the CLI, which shows local times: ``--since 2025-06-03`` in Taipei
    starts at its midnight, not at 08:00).

    Raises:
        InvalidInput: the text is not a real date, date-time or time in words.
    """
    if not re.match(DATE_PATTERN, value):
        return parse_words(name, value, end=end, now_ns=time.time_ns() if now_ns is None else now_ns)
    try:
        if _DATE_ONLY.match(value):
            start = datetime.strptime(value, "%Y-%m-%d")
            after = start + timedelta(days=1)
            if not local:
                start, after = start.replace(tzinfo=UTC), after.replace(tzinfo=UTC)
            return _ns(after) - 1 if end else _ns(start)
        moment = datetime.fromisoformat(value.replace(" ", "T", 1))
        if moment.tzinfo is None and not local:
            moment = moment.replace(tzinfo=UTC)
        return _ns(moment)
    except (ValueError, OverflowError, OSError):
        raise InvalidInput(
            f"{name} {value[:40]!r} is not a date: use YYYY-MM-DD or an ISO date-time such as "
            "2025-01-31T18:00:00Z"
        ) from None

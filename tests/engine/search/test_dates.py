"""Dates named in a query (``engine.search.dates``) and hybrid search's preference for the messages sent
on them (``fusion.Weights.dated``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.search import fusion
from engine.search.dates import NamedDate, named_dates
from engine.search.query import parse

NS = 1_000_000_000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What did Maria share on 16 June, 2023?", [NamedDate(6, 16, 2023)]),
        ("the painting she showed on October 13, 2023", [NamedDate(10, 13, 2023)]),
        ("on the 3rd of June 2023", [NamedDate(6, 3, 2023)]),
        ("Sept. 5, 2021 and Mar 3 2023", [NamedDate(9, 5, 2021), NamedDate(3, 3, 2023)]),
        ("a workout class in December 2023", [NamedDate(12, None, 2023)]),
        ("When did Melanie go camping in June?", [NamedDate(6)]),
        ("what happened on 4 july", [NamedDate(7, 4)]),
        ("the deploy of 2023-06-03", [NamedDate(6, 3, 2023)]),
        ("full-width ２０２３－０６－０３", [NamedDate(6, 3, 2023)]),  # read in NFKC form
        ("what did we plan in june", [NamedDate(6)]),  # any case ...
        ("When did Joanna visit in May?", [NamedDate(5)]),
        ("what we put in may break; they walked in march formation", []),  # ... but not these words
        ("in may 2023 and on march 3", [NamedDate(5, None, 2023), NamedDate(3, 3)]),  # with a day or year
        ("2023年6月3日我們討論了什麼", [NamedDate(6, 3, 2023)]),
        ("去年3月5號的會議", [NamedDate(3, 5)]),
        ("2024年1月的預算", [NamedDate(1, None, 2024)]),
        ("May I ask what we decided?", []),  # "May" alone is no date
        ("I may go in 2023, last week or on Friday", []),  # no bare years, relative times or weekdays
        ("on 31 June 2023", [NamedDate(6, None, 2023)]),  # no such day: the month still holds
        ("in June 2023 and again in June 2023", [NamedDate(6, None, 2023)]),  # each date once
    ],
)
def test_the_dates_a_query_names(text: str, expected: list[NamedDate]) -> None:
    assert list(named_dates(text)) == expected


def test_a_parsed_query_reads_its_dates() -> None:
    assert parse("what did we say on ２０２３－０６－０３?").dates == (NamedDate(6, 3, 2023),)
    assert parse("kubernetes ramen").dates == ()


def test_a_date_holds_for_the_messages_sent_on_it_in_the_time_zone() -> None:
    late = int(datetime(2023, 6, 3, 23, 30, tzinfo=UTC).timestamp()) * NS  # 4 June 07:30 in Taipei
    taipei = timezone(timedelta(hours=8))
    assert NamedDate(6, 3, 2023).holds(late, UTC)
    assert not NamedDate(6, 3, 2023).holds(late, taipei)
    assert NamedDate(6, 4, 2023).holds(late, taipei)
    assert NamedDate(6).holds(late, UTC) and NamedDate(6, None, 2023).holds(late, UTC)  # any day, any year
    assert not NamedDate(6, None, 2022).holds(late, UTC)
    assert not NamedDate(1, 1, 1970).holds(0, UTC)  # an unknown time is on no date
    assert NamedDate(4, 11, 2262).holds(2**63 - 1, UTC)  # the latest time a message can hold


def _local(year: int, month: int, day: int, hour: int) -> int:
    return int(datetime(year, month, day, hour).timestamp()) * NS  # local time, as the engine counts days


NOTES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf")


def test_hybrid_search_prefers_the_messages_sent_on_the_date_the_query_names(tmp_path: Path) -> None:
    days = [
        (2023, 5, 1),
        (2023, 5, 20),
        (2023, 6, 3),
        (2021, 6, 3),
        (2023, 6, 20),
        (2023, 7, 9),
        (2023, 8, 1),
    ]
    with Memory.open(tmp_path / "home", embedder=HashEmbedder()) as mem:
        for n, (year, month, day) in enumerate(days):
            text = f"tomatoes in the garden, note {NOTES[n]}"  # no digits: the query's "3" matches none
            mem.append("s1", [Message("user", text, _local(year, month, day, 10), "Ann")])
        assert mem.wait_idle(30)
        ids = {m.content: m.id for m in mem.archive_page("s1")}

        def ranked(query: str) -> list[str]:
            return [h.message.content for h in mem.search(query, session="s1", match="hybrid", limit=10)]

        plain = ranked("tomatoes garden")
        assert plain[0] != "tomatoes in the garden, note charlie"  # without a date another message leads
        assert ranked("tomatoes garden on 3 June, 2023")[0] == "tomatoes in the garden, note charlie"
        assert ranked("tomatoes garden 2023年6月3日")[0] == "tomatoes in the garden, note charlie"  # CJK too
        assert ranked("tomatoes garden on 3 June, 2021")[0] == "tomatoes in the garden, note delta"
        june = ranked("tomatoes garden in June")
        assert set(june[:3]) == {
            f"tomatoes in the garden, note {NOTES[n]}" for n in (2, 3, 4)
        }  # any year's June
        assert sorted(june) == sorted(plain) and len(plain) == len(ids)  # a preference, not a filter
    assert fusion.WORDS.dated == fusion.CJK.dated == fusion.DATE_BOOST > 0
    assert (
        fusion.weights(parse("garden on 3 June, 2023"), None).dated == fusion.DATE_BOOST
    )  # keywords only too

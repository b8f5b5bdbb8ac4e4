"""Agenvoy's archive (.store/history.db) merged with history.json, and every header layout it wrote."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine import Memory
from engine.clock import parse_local
from engine.errors import ImportFormatError
from engine.importers import agenvoy, agenvoy_headers
from tests import rawdb
from tests.engine.agenvoydata import write_db, write_history
from tests.timezone import set_time_zone

NS = 1_000_000_000
DISCORD = "dc-000000000000000001"


def local(text: str) -> int:
    return parse_local(text)


def discord_header(when: str, sender: str | None = None) -> str:
    who = f"傳送者: {sender}\n當前頻道 ID: 000000000000000002\n" if sender else ""
    return f"---\n當前時間: {when}\n{who}---\n"


def old_home(home: Path) -> Path:
    """An Agenvoy home of about v0.25: headers in the text, no sender column, part compacted away."""
    rows: list[tuple[object, ...]] = [
        (DISCORD, local("2026-04-04 19:10:00"), "user",
         discord_header("2026-04-04 19:10:00", "alice") + "What did we decide about the release?"),
        (DISCORD, local("2026-04-04 19:10:12"), "assistant",
         discord_header("2026-04-04 19:10:12") + "We agreed to ship on Friday."),
        (DISCORD, local("2026-04-04 19:11:00"), "user", discord_header("2026-04-04 19:11:00", "bob") + "And the changelog?"),
        (DISCORD, local("2026-04-04 19:11:06"), "assistant", discord_header("2026-04-04 19:11:06") + "Bob writes it."),
        # the ts: era: no 當前時間 header, so Agenvoy made the time up (0, then the previous one + 1 ns)
        ("cli-era-b", 0, "user", "ts:1772200000\nlist my tasks"),
        ("cli-era-b", 1, "assistant", "ts:1772200004\nYou have two open tasks."),
        # the first layout, compacted away long ago: only in the database, no session folder any more
        ("cli-era-a", 0, "user", "當前時間：2026-02-24T21:15:03 CST (UTC+08:00)\n早安"),
        ("cli-era-a", 1, "assistant", "當前時間：2026-02-24T21:15:09 CST (UTC+08:00)\n早安！今天要做什麼？"),
        ("temp-0001", local("2026-04-04 19:00:00"), "user", "throwaway"),
    ]  # fmt: skip
    write_db(home / ".store" / "history.db", rows, sender=False)
    # history.json keeps only what follows the compaction cut, with the same headers, plus one newer message
    write_history(
        home,
        DISCORD,
        [
            {"role": "user", "content": discord_header("2026-04-04 19:11:00", "bob") + "And the changelog?"},
            {"role": "assistant", "content": discord_header("2026-04-04 19:11:06") + "Bob writes it."},
            {"role": "user", "content": discord_header("2026-04-04 19:12:00", "alice") + "Thanks"},
        ],
    )
    write_history(
        home,
        "cli-era-b",
        [
            {"role": "user", "content": "ts:1772200000\nlist my tasks"},
            {"role": "assistant", "content": "ts:1772200004\nYou have two open tasks."},
        ],
    )
    return home


def test_history_db_and_history_json_are_merged_without_duplicates(tmp_path: Path, taipei: None) -> None:
    result = agenvoy.read(old_home(tmp_path / "agenvoy"), None)

    by_id = {s.session: s for s in result.sessions}
    assert sorted(by_id) == ["cli-era-a", "cli-era-b", DISCORD]
    assert [(m.role, m.content, m.send_at, m.sender) for m in by_id[DISCORD].messages] == [
        ("user", "What did we decide about the release?", local("2026-04-04 19:10:00"), "alice"),
        ("assistant", "We agreed to ship on Friday.", local("2026-04-04 19:10:12"), ""),
        ("user", "And the changelog?", local("2026-04-04 19:11:00"), "bob"),
        ("assistant", "Bob writes it.", local("2026-04-04 19:11:06"), ""),
        ("user", "Thanks", local("2026-04-04 19:12:00"), "alice"),
    ]
    assert by_id[DISCORD].skipped == {"message in both history.db and history.json (imported once)": 2}
    assert [(m.content, m.send_at) for m in by_id["cli-era-b"].messages] == [
        ("list my tasks", 1_772_200_000 * NS),
        ("You have two open tasks.", 1_772_200_004 * NS),
    ]
    # the offset in the header wins over the local zone; 2026-02-24T21:15:03+08:00 is 13:15:03 UTC
    assert [(m.content, m.send_at) for m in by_id["cli-era-a"].messages] == [
        ("早安", 1_771_938_903 * NS),
        ("早安！今天要做什麼？", 1_771_938_909 * NS),
    ]
    assert result.skipped == {"temp- session (throwaway)": 1}


def test_a_time_zone_apart_is_still_the_same_message(
    tmp_path: Path, taipei: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = old_home(tmp_path / "agenvoy")
    set_time_zone(monkeypatch, "UTC")  # imported on another machine than the one Agenvoy ran on

    result = agenvoy.read(home, None)

    [discord] = [s for s in result.sessions if s.session == DISCORD]
    assert len(discord.messages) == 5
    taipei_1911 = 1_775_301_060 * NS  # 2026-04-04 19:11:00 in Taipei: the database's time wins
    assert discord.messages[2].send_at == taipei_1911


def test_importing_it_twice_adds_nothing(tmp_path: Path, memory: Memory, taipei: None) -> None:
    home = old_home(tmp_path / "agenvoy")

    first = memory.import_sessions(agenvoy.read(home, None).sessions)
    again = memory.import_sessions(agenvoy.read(home, None).sessions)

    assert (first.messages_added, again.messages_added, again.messages_already_present) == (9, 0, 9)
    assert [m.content for m in memory.iter_archive("cli-era-a")] == ["早安", "早安！今天要做什麼？"]


def snapshot(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_the_database_is_never_written(tmp_path: Path, taipei: None) -> None:
    home = old_home(tmp_path / "agenvoy")
    store = home / ".store"
    before = snapshot(store)
    mtime = (store / "history.db").stat().st_mtime_ns

    agenvoy.read(home, None)

    assert snapshot(store) == before  # no -wal or -shm left beside it either
    assert (store / "history.db").stat().st_mtime_ns == mtime


def test_a_database_in_use_is_read_with_what_its_writer_committed(tmp_path: Path, taipei: None) -> None:
    home = old_home(tmp_path / "agenvoy")
    writer = rawdb.connect(home / ".store" / "history.db")  # Agenvoy running: its WAL file exists
    try:
        writer.execute(
            "INSERT INTO messages(session_id, send_at, role, content) VALUES (?, ?, ?, ?)",
            ("cli-era-a", 1_775_400_000 * NS, "user", "still running"),
        )
        writer.commit()
        assert (home / ".store" / "history.db-wal").exists()

        result = agenvoy.read(home, None)
    finally:
        writer.close()

    [era_a] = [s for s in result.sessions if s.session == "cli-era-a"]
    assert era_a.messages[-1].content == "still running"


def test_newer_database_with_a_sender_column_and_structured_history(tmp_path: Path) -> None:
    home = tmp_path / "agenvoy"
    t = 1_786_500_000 * NS
    write_db(
        home / ".store" / "history.db",
        [
            ("tg-42", t, "user", "summarise today", "alice"),
            ("tg-42", t + 3 * NS, "assistant", "Today you merged two PRs.", ""),
            ("tg-42", t - 60 * NS, "user", "good morning", "alice"),  # compacted away from history.json
        ],
        sender=True,
    )
    write_history(
        home,
        "tg-42",
        [
            {"role": "user", "content": "summarise today", "sendAt": t, "sender": "alice"},
            {"role": "assistant", "content": "Today you merged two PRs.", "sendAt": t + 3 * NS},
        ],
    )

    [session] = agenvoy.read(home, None).sessions

    assert [(m.content, m.send_at, m.sender) for m in session.messages] == [
        ("good morning", t - 60 * NS, "alice"),
        ("summarise today", t, "alice"),
        ("Today you merged two PRs.", t + 3 * NS, ""),
    ]


def test_one_session_folder_reads_only_its_rows_and_the_db_can_be_given_directly(
    tmp_path: Path, taipei: None
) -> None:
    home = old_home(tmp_path / "agenvoy")

    single = agenvoy.read(home / "sessions" / DISCORD, None)
    direct = agenvoy.read(home / ".store" / "history.db", None)
    sessions_folder = agenvoy.read(home / "sessions", None)

    assert [(s.session, len(s.messages)) for s in single.sessions] == [(DISCORD, 5)]
    assert sorted(s.session for s in direct.sessions) == ["cli-era-a", "cli-era-b", DISCORD]
    assert sorted(s.session for s in sessions_folder.sessions) == ["cli-era-a", "cli-era-b", DISCORD]


def test_a_damaged_database_leaves_history_json(tmp_path: Path, taipei: None) -> None:
    home = old_home(tmp_path / "agenvoy")
    (home / ".store" / "history.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)

    result = agenvoy.read(home, None)

    assert sorted(s.session for s in result.sessions) == ["cli-era-b", DISCORD]
    assert result.skipped == {"unreadable history.db (only history.json was read)": 1}


def test_a_database_that_is_not_agenvoys_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "history.db"
    rawdb.connect(other).execute("CREATE TABLE notes (x)").connection.close()

    with pytest.raises(ImportFormatError, match=r"not Agenvoy's history\.db"):
        agenvoy.read(other, None)


ERAS = [
    # (content, text, local time or ns, sender)
    ("當前時間：2026-02-24T21:15:03 CST (UTC+08:00)\nhello", "hello", 1_771_938_903 * NS, ""),
    ("ts:1772200000\nlist my tasks", "list my tasks", 1_772_200_000 * NS, ""),
    ("當前時間: 2026-03-13 10:00:00\n---\nreply", "reply", "2026-03-13 10:00:00", ""),
    ("當前時間: 2026-03-14 10:00:00\n當前頻道 ID: 123\n---\nfrom discord", "from discord", "2026-03-14 10:00:00", ""),
    ("---\n當前時間: 2026-03-14 11:00:00\n---\ncli", "cli", "2026-03-14 11:00:00", ""),
    ("---\n當前時間: 2026-04-04 19:10:00\n傳送者: alice\n---\nhi", "hi", "2026-04-04 19:10:00", "alice"),
    ("---\n當前時間: 2026-04-04 19:10:00\n傳送者: 小明\n當前頻道 ID: 2\n---\n嗨", "嗨", "2026-04-04 19:10:00", "小明"),
    ("---\n當前時間: 2026-05-07 09:00:00\n工作目錄: /home/u/專案\n---\nwd", "wd", "2026-05-07 09:00:00", ""),
    ("---\n當前時間: 2026-05-16 10:00:00\n工作目錄: /home/u\n傳送者: bob\n當前 chat ID: 55\n"
     "備註: 找不到 session \"x\"，改以當前 chat session 處理\n---\ntelegram", "telegram", "2026-05-16 10:00:00", "bob"),
    ("---\n當前時間: 2026-05-19 10:00:00\n工作目錄: /w\n傳送者: dan\n當前 channel: #general\n---\ndc2", "dc2",
     "2026-05-19 10:00:00", "dan"),
    ("---\n當前時間: 2026-05-29 10:00:00\n工作目錄: /w\n傳送者: carol\n來源: LINE U123\n---\nline", "line",
     "2026-05-29 10:00:00", "carol"),
    ("sendAt: 2026-08-12 10:00:00, sender: alice\nimage text", "image text", "2026-08-12 10:00:00", "alice"),
    ("---\r\n當前時間: 2024-05-01 12:34:56\r\n---\r\n\r\n你好", "你好", "2024-05-01 12:34:56", ""),
    ("---\n當前時間: 2026-04-04 19:10:00\n---\n---\n當前時間: 2026-04-04 19:10:00\n---\ntwice", "twice",
     "2026-04-04 19:10:00", ""),
]  # fmt: skip


@pytest.mark.parametrize(("content", "text", "when", "sender"), ERAS)
def test_every_header_layout_is_removed_with_its_time_and_sender(
    taipei: None, content: str, text: str, when: str | int, sender: str
) -> None:
    found = agenvoy_headers.strip(content)

    expected = when if isinstance(when, int) else local(when)
    assert (found.text, found.send_at, found.sender) == (text, expected, sender)


@pytest.mark.parametrize(
    "content",
    [
        "plain text that mentions 當前時間: 2024-05-01 12:34:56 in the middle",
        "---\ntitle: a markdown front matter\n---\nbody",
        "來源: 維基百科\n一段引用",  # "source:" written by the user, no time header
        "---\n來源: 維基百科\n---\nbody",
        "---\n當前時間: 2024-05-01 12:34:56\nno closing dashes\nmore",
        "## 當前時間 is a heading\n",
        "ts: soon\nnot a header",
        "",
    ],
)
def test_text_that_is_not_a_header_is_kept(content: str) -> None:
    found = agenvoy_headers.strip(content)
    assert (found.text, found.send_at, found.found) == (content, 0, False)


def test_history_json_headers_are_stripped_on_import(tmp_path: Path, taipei: None) -> None:
    home = tmp_path / "agenvoy"
    write_history(
        home,
        "cli-old",
        [{"role": "user", "content": ERAS[8][0]}, {"role": "assistant", "content": ERAS[1][0]}],
    )

    [session] = agenvoy.read(home, None).sessions

    assert [(m.content, m.sender) for m in session.messages] == [("telegram", "bob"), ("list my tasks", "")]


def test_sendat_in_seconds_or_milliseconds_and_impossible_times(tmp_path: Path) -> None:
    home = tmp_path / "agenvoy"
    write_history(
        home,
        "cli-units",
        [
            {"role": "user", "content": "seconds", "sendAt": 1_736_600_000},
            {"role": "assistant", "content": "milliseconds", "sendAt": 1_736_600_001_500},
            {"role": "user", "content": "microseconds", "sendAt": 1_736_600_002_000_000},
            {"role": "assistant", "content": "nanoseconds", "sendAt": 1_736_600_003_000_000_000},
            {"role": "user", "content": "negative", "sendAt": -5},
            {"role": "user", "content": "far future", "sendAt": 99_999_999_999_999_999_999},
        ],
    )

    [session] = agenvoy.read(home, None).sessions

    assert [(m.content, m.send_at) for m in session.messages] == [
        ("seconds", 1_736_600_000 * NS),
        ("milliseconds", 1_736_600_001_500_000_000),
        ("microseconds", 1_736_600_002 * NS),
        ("nanoseconds", 1_736_600_003 * NS),
    ]
    assert session.skipped == {"message with a negative time": 1, "message with a time after 2200": 1}

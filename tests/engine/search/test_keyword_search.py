"""Keyword search: routing, CJK, the original's archive/recent split of the keyword mode, hostile input."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.clock import DAY_NS
from engine.search.terms import parse_natural, quote, route_phrase
from tests.engine.conftest import FakeClock

CJK_DOCS = [
    "我的電腦記憶體不足，怎麼辦？",
    "記憶體洩漏 in the tray app",
    "請幫我總結今天的對話",
    "記憶是一種能力",
    "RAM (記憶體) usage is 80%",
    "memory engine 記 憶 體 spaced",
    "a Simplified Chinese line without 记忆体",
]


@pytest.fixture
def cjk(memory: Memory, clock: FakeClock) -> Memory:
    memory.append("cli-zh", [Message("user", doc, clock.advance(1)) for doc in CJK_DOCS])
    return memory


def found(mem: Memory, query: str, **kwargs: object) -> set[str]:
    return {h.message.content for h in mem.search(query, match="keyword", limit=50, **kwargs)}  # type: ignore[arg-type]


def test_three_character_cjk_finds_every_row_containing_it_first(cjk: Memory) -> None:
    hits = [h.message.content for h in cjk.search("記憶體", match="keyword", limit=50)]
    assert set(hits[:3]) == {CJK_DOCS[0], CJK_DOCS[1], CJK_DOCS[4]}  # both of its bigrams
    assert hits[3:] == [CJK_DOCS[3]]  # 記憶 only: a match, ranked below


def test_two_character_cjk_terms_use_substring_matching(cjk: Memory) -> None:
    assert found(cjk, "記憶") == {CJK_DOCS[0], CJK_DOCS[1], CJK_DOCS[3], CJK_DOCS[4]}
    assert found(cjk, "電腦") == {CJK_DOCS[0]}


def test_mixed_terms_rank_rows_matching_more_terms_first(cjk: Memory) -> None:
    hits = cjk.search("電腦 記憶體", match="keyword", limit=10)
    assert hits[0].message.content == CJK_DOCS[0]
    assert {h.message.content for h in hits[:3]} == {CJK_DOCS[0], CJK_DOCS[1], CJK_DOCS[4]}
    assert [h.message.content for h in hits[3:]] == [CJK_DOCS[3]]  # 記憶 only
    mixed = cjk.search("記憶體 tray", match="keyword", limit=10)
    assert mixed[0].message.content == CJK_DOCS[1]


def test_a_long_cjk_query_matches_by_its_trigrams(cjk: Memory) -> None:
    hits = cjk.search("總結今天的對話內容", match="keyword", limit=5)
    assert hits[0].message.content == CJK_DOCS[2]


def test_words_ignore_diacritics_and_stem(memory: Memory) -> None:
    memory.append(
        "cli-en", [Message("user", "café crème brûlée"), Message("assistant", "She paints landscapes")]
    )
    assert found(memory, "cafe") == {"café crème brûlée"}
    assert found(memory, "painting") == {"She paints landscapes"}


def test_stop_words_are_dropped_and_role_names_do_not_match(memory: Memory) -> None:
    memory.append("cli-en", [Message("user", "the quick fox"), Message("assistant", "a lazy dog")])
    assert found(memory, "what is the fox") == {"the quick fox"}
    assert found(memory, "user") == set()
    assert found(memory, "assistant") == set()


def test_quoted_phrases_stay_phrases(memory: Memory) -> None:
    memory.append("cli-en", [Message("user", "vector index rebuilt"), Message("user", "index of the vector")])
    assert found(memory, '"vector index"') == {"vector index rebuilt"}
    assert len(found(memory, "vector index")) == 2


def test_session_filter_and_scope(memory: Memory, clock: FakeClock) -> None:
    memory.append("cli-a", [Message("user", "apple pie", clock.advance(1))])
    memory.append("cli-b", [Message("user", "apple tart", clock.advance(1))])
    assert found(memory, "apple", session="cli-a") == {"apple pie"}
    assert found(memory, "apple") == {"apple pie", "apple tart"}
    hits = memory.search("apple", session="cli-b", match="keyword", scope="recent")
    assert [h.source for h in hits] == ["recent"]


def test_time_range_bounds_hold(memory: Memory, clock: FakeClock) -> None:
    memory.append("cli-a", [Message("user", "old apple", clock.now - 3 * DAY_NS)])
    memory.append("cli-a", [Message("user", "new apple", clock.now - 3600 * 10**9)])
    assert found(memory, "apple", time_range="1d") == {"new apple"}
    assert found(memory, "apple", time_range="7d") == {"old apple", "new apple"}


@pytest.fixture
def compacted(memory: Memory, clock: FakeClock) -> Memory:
    """A session whose first messages were cut out of history.json into the archive."""
    memory.append(
        "cli-a",
        [
            Message("user", f"archived needle {i} " + "x" * 3000, clock.advance(1))
            if i % 2 == 0
            else Message("assistant", f"reply {i} " + "y" * 3000, clock.advance(1))
            for i in range(10)
        ],
    )
    memory.update_settings(max_history_bytes=12_000)
    memory.compact("cli-a")
    memory.update_settings(max_history_bytes=4 * 1024 * 1024)
    memory.append("cli-a", [Message("user", "recent needle", clock.advance(1))])
    return memory


def test_seed_keyword_mode_splits_archive_and_recent(compacted: Memory) -> None:
    archive_hits, recent_hits = compacted.seed_keyword_search("cli-a", "needle", "1d", 8)
    cut = compacted.compaction_cut("cli-a")
    assert archive_hits and all(h.message.id is not None and h.message.id < cut for h in archive_hits)
    assert all(h.source == "archive" for h in archive_hits)
    assert recent_hits[0].message.content == "recent needle"
    assert all(h.message.id is not None and h.message.id >= cut for h in recent_hits)
    times = [h.message.send_at for h in archive_hits]
    assert times == sorted(times, reverse=True)  # newest first
    assert len(compacted.seed_keyword_search("cli-a", "needle", "1d", 1)[0]) == 1  # the limit holds


def test_seed_archive_excludes_rows_at_or_after_the_cut(compacted: Memory) -> None:
    with compacted._store.read() as conn:
        start_at = conn.execute("SELECT start_at FROM message_meta").scalar_one()
    archive_hits, _ = compacted.seed_keyword_search("cli-a", "needle", "1y", 32)
    assert archive_hits and all(h.message.send_at < start_at for h in archive_hits)


def test_seed_phrase_with_a_quote_inside_is_escaped(memory: Memory, clock: FakeClock) -> None:
    memory.append("cli-a", [Message("user", 'she said "hi there" loudly', clock.now)])
    _, recent = memory.seed_keyword_search("cli-a", 'said "hi', "1d", 8)
    assert [h.message.content for h in recent] == ['she said "hi there" loudly']
    assert quote('a"b') == '"a""b"'


def test_routing() -> None:
    assert route_phrase("記憶體").route == "tri"  # type: ignore[union-attr]
    assert route_phrase("記憶").route == "bi"  # type: ignore[union-attr]
    assert route_phrase("記").route == "like"  # type: ignore[union-attr]
    assert route_phrase("hello world").route == "word"  # type: ignore[union-attr]
    terms = parse_natural('電腦 記憶體不足 "exact phrase" the fox')
    routes = {(t.text, t.route) for t in terms}
    assert {("電腦", "bi"), ("記憶", "bi"), ("憶體", "bi"), ("體不", "bi"), ("不足", "bi")} <= routes
    assert ("exact phrase", "word") in routes and ("fox", "word") in routes and ("the", "word") not in routes
    old = {(t.text, t.route) for t in parse_natural("記憶體不足", cjk_route="tri")}  # the error memory's
    assert old == {("記憶體", "tri"), ("憶體不", "tri"), ("體不足", "tri")}


def test_a_cjk_sentence_is_split_at_its_stop_characters_into_bigrams() -> None:
    assert [t.text for t in parse_natural("晚上睡不好怎麼辦")] == ["晚上", "上睡", "睡不", "不好"]
    assert [t.text for t in parse_natural("男的在動物園看到了什麼?")] == [
        "在動",
        "動物",
        "物園",
        "園看",
        "看到",
    ]
    assert [(t.text, t.route) for t in parse_natural("什麼")] == [("什麼", "bi")]  # stop words only: kept
    assert [(t.text, t.route) for t in parse_natural("你 嗎")] == [("你", "like"), ("嗎", "like")]


def test_a_cjk_sentence_finds_a_message_sharing_two_character_words_and_marks_them(memory: Memory) -> None:
    from engine.search.query import query_terms

    memory.append(
        "cli-zh",
        [
            Message("user", "最近晚上總是睡不好，白天很累"),
            Message("assistant", "怎麼辦呢？我也不知道"),
            Message("user", "今天天氣很好"),
        ],
    )
    hits = memory.search("晚上睡不好怎麼辦", match="keyword", limit=10)
    assert hits[0].message.content == "最近晚上總是睡不好，白天很累"
    assert "怎麼辦呢？我也不知道" not in [
        h.message.content for h in hits
    ]  # 怎麼 is a stop word; 辦 alone too short
    marked = query_terms("晚上睡不好怎麼辦")
    assert {"晚上", "睡不好"} <= set(marked)  # what matched, for the viewer's highlighter


HOSTILE = [
    '"',
    '""',
    "*",
    "NEAR(a b)",
    "^start",
    "col:value",
    "content:x",
    "'); DROP TABLE messages; --",
    "a AND OR NOT b",
    "(((",
    ")",
    "\x00",
    "\ud800",
    "x" * 10_000,
    "記" * 5000,
    "%_\\",
    "-",
    "+",
    "{}",
    "?",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(cjk: Memory, query: str) -> None:
    for match_scope in ("all", "recent"):
        cjk.search(query, match="keyword", scope=match_scope)
        cjk.search(query, session="cli-zh", match="keyword", scope=match_scope)
    cjk.seed_keyword_search("cli-zh", query, "1y", 8)
    assert len(found(cjk, '"記憶體"')) == 3  # the trigram table is still there
    assert len(found(cjk, "記憶體")) == 4  # and the bigram table


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=200))
def test_fuzzed_queries_never_raise(cjk: Memory, query: str) -> None:
    cjk.search(query, match="keyword", limit=5)
    cjk.seed_keyword_search("cli-zh", query, "1d", 4)


def test_two_character_words_use_the_bigram_index_and_follow_deletes(cjk: Memory, clock: FakeClock) -> None:
    cjk.append("cli-other", [Message("user", "新電腦到了", clock.advance(1))])
    assert found(cjk, "電腦", session="cli-zh") == {CJK_DOCS[0]}
    assert found(cjk, "電腦") == {CJK_DOCS[0], "新電腦到了"}
    cjk.reset("cli-other")
    assert found(cjk, "電腦") == {CJK_DOCS[0]}
    with cjk._store.write() as conn:
        for table in ("messages_fts", "messages_bi"):
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
        orphans = conn.execute(
            "SELECT COUNT(*) FROM messages_cjk WHERE id NOT IN (SELECT id FROM messages)"
        ).scalar_one()
    assert orphans == 0


def test_common_terms_are_ranked_from_a_bounded_set(memory: Memory, clock: FakeClock) -> None:
    from engine.search import fulltext

    batch = [Message("user", f"memory note {i}", clock.advance(1)) for i in range(fulltext.CANDIDATES + 300)]
    batch.append(Message("user", "memory with the rare word zyzzogeton", clock.advance(1)))
    batch.insert(5, Message("user", "an old zyzzogeton memory far back", clock.advance(1)))
    memory.append("cli-big", batch)
    hits = memory.search("memory zyzzogeton", match="keyword", limit=3)
    assert {h.message.content for h in hits[:2]} == {
        "memory with the rare word zyzzogeton",
        "an old zyzzogeton memory far back",
    }
    assert hits[0].score >= hits[1].score > hits[2].score


def test_cjk_searches_stay_within_their_session(cjk: Memory, clock: FakeClock) -> None:
    cjk.append("cli-zh2", [Message("user", "另一個記憶體問題", clock.advance(1))])
    assert found(cjk, "記憶體", session="cli-zh2") == {"另一個記憶體問題"}
    assert found(cjk, '"記憶體"', session="cli-zh") == {CJK_DOCS[0], CJK_DOCS[1], CJK_DOCS[4]}
    assert found(cjk, "記憶體", session="cli-zh") == {CJK_DOCS[0], CJK_DOCS[1], CJK_DOCS[3], CJK_DOCS[4]}
    _, recent = cjk.seed_keyword_search("cli-zh2", "記憶體問題", "1d", 8)
    assert [h.message.content for h in recent] == ["另一個記憶體問題"]

"""The summary's shape, parsing, chunking, exchanges and output hygiene."""

from __future__ import annotations

import json

from engine import Message
from engine.summary import strip_reply
from engine.summary.chunks import chunk, exchange_numbers, exchanges, retry_candidates
from engine.summary.parse import parse_reply
from engine.summary.schema import coerce, is_valid
from tests.engine.summary.conftest import T0, conversation, summary_json

GOOD = json.dumps(summary_json("t"))


def test_validation_needs_two_keys_or_two_legacy_keys() -> None:
    assert is_valid({"key_decisions": [], "current_discussion": {}})
    assert not is_valid({"key_decisions": []})
    assert is_valid({"core_discussion": "x", "discussion_log": []})
    assert not is_valid([1, 2])


def test_reply_patterns_in_order() -> None:
    assert parse_reply(GOOD) is not None
    assert parse_reply(f"here:\n```json\n{GOOD}\n```") is not None
    assert parse_reply(f"<summary>{GOOD}</summary> trailing") is not None
    assert parse_reply(f"[summary]{GOOD}[/summary]") is not None
    assert parse_reply(f"Sure! {GOOD} Hope that helps.") is not None  # raw_decode from the first {
    assert parse_reply('{"key_decisions": []}') is None  # one key only
    assert parse_reply("not json") is None
    assert parse_reply("") is None


def test_decisions_get_english_prefixes_and_limits_hold() -> None:
    past = [
        {
            "topic": f"t{i}",
            "description": "",
            "direction": "",
            "last_discussed": f"2025-01-{10 + i:02d} 10:00",
        }
        for i in range(10)
    ]
    summary = coerce(
        {
            "key_decisions": ["要：繁體中文", "不要：emoji", "する：テスト", "しない：push", "do: x", "plain"]
            + [f"Do: rule {i}" for i in range(6)],
            "past_discussions": past,
            "current_discussion": "topic only",
        }
    )
    assert summary.key_decisions[:5] == ("Do: 繁體中文", "Don't: emoji", "Do: テスト", "Don't: push", "Do: x")
    assert summary.key_decisions[5] == "plain"  # left as it is (and logged)
    assert len(summary.key_decisions) == 8
    assert [p.topic for p in summary.past_discussions] == [f"t{i}" for i in range(2, 10)]  # oldest dropped
    assert summary.current_discussion.topic == "topic only"
    assert set(summary.to_json()) == {"key_decisions", "past_discussions", "current_discussion"}


def test_empty_summary_has_all_keys() -> None:
    data = coerce({}).to_json()
    assert data == {
        "key_decisions": [],
        "past_discussions": [],
        "current_discussion": {"topic": "", "description": "", "perspectives": "", "direction": ""},
    }


def test_70k_characters_make_three_chunks_none_ending_on_user() -> None:
    parts = chunk(conversation(70, size=1000))
    assert [len(p) for p in parts] == [32, 32, 6]
    assert all(p[-1].role == "assistant" for p in parts)


def test_a_chunk_never_ends_on_a_user_message() -> None:
    messages = [Message("user" if i % 2 else "assistant", "x" * 1000, T0 + i) for i in range(40)]
    parts = chunk(messages, limit=5000)
    assert all(p[-1].role == "assistant" for p in parts[:-1])
    assert sum(len(p) for p in parts) == 40
    assert [len(p) for p in chunk([Message("user", "x" * 50_000, T0)])] == [1]  # one huge message alone


def test_exchanges_keep_headless_replies() -> None:
    msgs = [Message("assistant", "welcome back", T0), *conversation(4)]
    groups = exchanges(msgs)
    assert [g.headless for g in groups] == [True, False, False]
    assert exchange_numbers(groups) == [0, 1, 2]
    retry = [Message("user", "do it", T0), Message("assistant", "failed"), Message("user", "do it", T0 + 1)]
    assert retry_candidates(exchanges(retry)) == {0}


def test_strip_reply() -> None:
    assert strip_reply("Hello <summary>{}</summary>there") == "Hello there"
    assert strip_reply("A [SUMMARY]x[/summary]B") == "A B"
    assert strip_reply("Answer.\n\nPrior summary:\n{...}") == "Answer."
    assert strip_reply('ok\n{"key_decisions": ["Do: x"]}') == "ok"
    assert strip_reply("---\ntitle: x\n---\nBody") == "Body"
    assert strip_reply("Plain reply") == "Plain reply"

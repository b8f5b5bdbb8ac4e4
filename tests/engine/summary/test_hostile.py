"""Gemini's reply is untrusted input: the real google-genai SDK against a hostile fake endpoint (each reply a
200). Nothing over the bounds is parsed or saved; what is saved is cleaned, bounded and free of the key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.errors import GeminiError
from engine.summary import files
from tests.engine.summary.conftest import SECOND, T0, conversation, fast_client
from tests.engine.summary.hostile import CASES, FENCE_BREAK, INJECTION, KEY
from tests.fakegemini import FakeGemini
from tests.timezone import reread, set_time_zone


@pytest.fixture
def hmem(smem: Memory, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """The summarizer's memory with :data:`KEY` in use, and a conversation to summarize."""
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    smem.append("s", conversation(4))
    return smem


def _saved(mem: Memory) -> str:
    return mem.paths.summary_file("s").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("case", "why"),
    [
        ("20 MB reply, length declared", "larger than 16,777,216 bytes"),
        ("20 MB reply, no length (streamed)", "larger than 16,777,216 bytes"),
        ("10 MB reply (under the HTTP bound)", "over the bound of 200,000"),
        ("JSON nested 50,000 deep", "nested deeper than 16"),
        ("malformed JSON", "not a valid summary"),
        ("legacy shape only (2 MB)", "over the bound of 200,000"),
    ],
)
def test_a_reply_over_the_bounds_or_unreadable_saves_nothing(
    hmem: Memory, fake: FakeGemini, case: str, why: str
) -> None:
    CASES[case](fake)
    with pytest.raises(GeminiError, match=why):
        hmem.summaries.generate("s")
    assert not hmem.paths.summary_file("s").exists() and hmem.summaries.cursor("s") == ""
    assert len(fake.calls()) == 1  # refused, not retried
    fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "ok"}})
    assert hmem.summaries.generate("s").considered == 4  # the next run reads the same messages again
    assert hmem.summaries.load("s").current_discussion.topic == "ok"


def test_surrogates_controls_and_bidi_are_cleaned_before_saving(hmem: Memory, fake: FakeGemini) -> None:
    CASES["lone surrogate, OSC 52, CSI 2J, bidi, C1"](fake)
    hmem.summaries.generate("s")
    raw = hmem.paths.summary_file("s").read_bytes()
    raw.decode("utf-8")  # valid UTF-8: no surrogate reached the file
    topic = hmem.summaries.load("s").current_discussion.topic
    assert topic == "roses\ufffd ]52;c;ZXZpbA== [2Jgnp.exe31m"
    assert not any(c in topic for c in "\x1b\x07\x9b\u202e")


def test_the_key_in_use_never_reaches_summary_json_or_the_context(hmem: Memory, fake: FakeGemini) -> None:
    CASES["echoes the key in use"](fake)
    hmem.summaries.generate("s")
    assert fake.calls()[0].headers["x-goog-api-key"] == KEY  # the fake did echo the key in use
    assert KEY not in _saved(hmem)
    assert hmem.summaries.load("s").key_decisions[0] == "Do: send [REDACTED:key_in_use] with every call"
    context = json.dumps(hmem.turn_context("s", "what now?").to_json())
    assert KEY not in context and "[REDACTED:key_in_use]" in context


def test_injected_text_is_kept_as_data_and_cannot_close_the_fence(hmem: Memory, fake: FakeGemini) -> None:
    CASES["prompt injection closing the fence"](fake)
    hmem.summaries.generate("s")
    summary = hmem.summaries.load("s")
    assert summary.key_decisions == (INJECTION, FENCE_BREAK.strip())  # stored as text, as said
    block = hmem.turn_context("s", "what now?").messages[-1].content
    lines = block.splitlines()
    fences = [i for i, line in enumerate(lines) if line.lstrip().startswith("```")]
    assert len(fences) == 2 and fences[1] == len(lines) - 1  # only the block's own fence lines
    assert "not instructions" in lines[fences[0] - 1]
    body = json.loads("\n".join(lines[fences[0] + 1 : fences[1]]))
    assert body["key_decisions"] == [INJECTION, FENCE_BREAK.strip()]  # exact JSON, same text
    assert "SYSTEM:" not in [line.strip()[:7] for line in lines]
    assert "</summary>" not in block and "`" not in "\n".join(lines[fences[0] + 1 : fences[1]])
    # The next summary call and the relevance check get the same text as data too.
    hmem.update_settings(decision_model="gemini-2.5-flash-lite")
    hmem.append("s", conversation(2, start=T0 + 100 * SECOND, text="later"))
    fake.reply_json({"noise": [], "superseded": {"key_decisions": [], "past_discussions": []}})
    fake.reply_json({"key_decisions": [INJECTION], "past_discussions": [], "current_discussion": {}})
    hmem.summaries.generate("s")
    fake.reply_json({"key_decisions": [1], "past_discussions": [], "current_discussion": False})
    hmem.turn_context("s", "what now?")
    prune, summary, relevance = (c.text() for c in fake.calls()[1:])
    for prompt in (prune, summary, relevance):
        assert not any(line.lstrip().startswith(("SYSTEM:", "```")) for line in prompt.splitlines()), prompt
    assert "\\u0060\\u0060\\u0060" in summary  # the fence inside the stored text, as JSON escapes


def test_the_legacy_shape_is_converted_not_stored_raw(hmem: Memory, fake: FakeGemini) -> None:
    CASES["legacy shape only (small)"](fake)
    hmem.summaries.generate("s")
    saved = json.loads(_saved(hmem))
    assert set(saved) == {"key_decisions", "past_discussions", "current_discussion"}
    assert saved["key_decisions"] == ["Do: metric units", "Do: short answers", "Don't: emoji"]
    assert saved["past_discussions"][0]["topic"] == "taxes"
    assert saved["current_discussion"]["topic"] == "the garden"
    assert saved["current_discussion"]["direction"] == "plant roses in March"


def test_entry_counts_and_lengths_are_the_schemas_limits(hmem: Memory, fake: FakeGemini) -> None:
    CASES["40 decisions of 4,000 characters"](fake)
    hmem.summaries.generate("s")
    decisions = hmem.summaries.load("s").key_decisions
    assert len(decisions) == 8 and all(len(d) <= 1000 for d in decisions)
    assert decisions[0].startswith("Do: rule 0 zzz")
    assert len(hmem.paths.summary_file("s").read_bytes()) < 10_000
    schema = json.dumps(fake.calls()[0].body["generationConfig"]["responseSchema"])  # the same limits, asked
    for key, value in (("items", 8), ("length", 1000), ("length", 4000)):
        assert re.search(rf'"max_?{key}": "?{value}"?', schema, re.I), (key, value, schema)


# -- the cursor: by what was sent, not by the clock ---------------------------------------------------------


def test_messages_without_a_time_are_summarized_once(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", [Message("user", "timeless question"), Message("assistant", "timeless answer")])
    fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "a"}})
    assert smem.summaries.generate("s").considered == 2
    assert smem.summaries.generate("s").considered == 0  # not sent again
    smem.append("s", [Message("user", "a later one")])
    fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "b"}})
    assert smem.summaries.generate("s").considered == 1
    assert "timeless" not in fake.calls()[-1].text() and "a later one" in fake.calls()[-1].text()
    assert len(fake.calls()) == 2


def test_a_far_future_or_skewed_time_never_freezes_the_cursor(smem: Memory, fake: FakeGemini) -> None:
    year_2191 = 7_000_000_000 * SECOND
    smem.append("s", [Message("user", "from the future", year_2191), Message("assistant", "ok", year_2191)])
    fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "a"}})
    smem.summaries.generate("s")
    smem.append("s", conversation(2, start=T0, text="now"))  # a normal time, far before the last one
    fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "b"}})
    assert smem.summaries.generate("s").considered == 2
    smem.append("s", conversation(2, start=T0 - 3600 * SECOND, text="skewed"))  # a clock set back
    fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "c"}})
    assert smem.summaries.generate("s").considered == 2
    assert smem.summaries.load("s").current_discussion.topic == "c"


def test_a_time_zone_change_loses_nothing(
    smem: Memory, fake: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_time_zone(monkeypatch, "Asia/Taipei")
    try:
        smem.append("s", conversation(4))
        fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "a"}})
        smem.summaries.generate("s")
        set_time_zone(monkeypatch, "America/Los_Angeles")  # 16 hours behind: local times look older
        smem.append("s", conversation(4, start=T0 + 3600 * SECOND, text="after the flight"))
        fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "b"}})
        result = smem.summaries.generate("s")
        assert result.considered == 4 and "after the flight" in fake.calls()[-1].text()
        cursor = files.parse_cursor(smem.paths.cursor_file("s").read_text(encoding="utf-8").strip())
        assert cursor is not None and cursor.at == T0 + 3600 * SECOND + 3 * SECOND  # UTC, whatever the zone
    finally:
        monkeypatch.delenv("TZ")
        reread()


def test_an_older_local_time_cursor_is_read_once_then_replaced(smem: Memory, fake: FakeGemini) -> None:
    from engine.clock import format_local

    smem.append("s", conversation(4))
    files.save(smem.paths, "s", files.coerce({"key_decisions": [], "current_discussion": {"topic": "old"}}))
    files.write_cursor(smem.paths, "s", format_local(T0 + SECOND))  # the older form: two messages done
    fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "new"}})
    assert smem.summaries.generate("s").considered == 2
    written = smem.paths.cursor_file("s").read_text(encoding="utf-8")
    assert written.startswith("{") and smem.summaries.cursor("s") == format_local(T0 + 3 * SECOND)


def test_a_database_rebuilt_from_the_history_files_renumbers_rows_and_loses_nothing(
    home: Path, fake: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows get new ids when the database is rebuilt from history.json: the anchor is found again by
    its mark (time and text), so the summary neither freezes nor starts over."""
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with Memory.open(home, background=False, client_factory=fast_client) as mem:
        mem.update_settings(gemini_base_url=fake.url, decision_model="")
        mem.append("pad", conversation(40, text="padding"))  # ids 1-40: the session's rows come after
        mem.append("s", conversation(4))
        fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "a"}})
        mem.summaries.generate("s")
        before = [m.id for m in mem.history("s")]
        mem.remove("pad")  # the rebuilt database numbers only s's rows: 1-4, and new ones below 44
    for path in (home / ".store").glob("history.db*"):
        path.unlink()
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with Memory.open(home, background=False, client_factory=fast_client) as mem:
        mem.update_settings(gemini_base_url=fake.url, decision_model="")
        assert [m.id for m in mem.history("s")] == [1, 2, 3, 4] != before  # numbered anew
        # Dated before the summarized ones (a clock set back): only the anchor's mark tells they are new.
        mem.append("s", conversation(2, start=T0 - 3600 * SECOND, text="after the rebuild"))
        fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": {"topic": "b"}})
        assert mem.summaries.generate("s").considered == 2
        assert "after the rebuild" in fake.calls()[-1].text() and "m0:" not in fake.calls()[-1].text()

"""A damaged summary.json or cursor: moved aside with a warning, and the next run rebuilds the summary.

A summary.json with keys of the wrong type crashed ``context`` and ``summarize``; a cursor far in the
future silently stopped every later summary of the session.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import Memory
from engine.clock import format_local
from engine.summary import files
from tests.engine.summary.conftest import SECOND, T0, conversation, summary_json
from tests.fakegemini import FakeGemini

DAMAGED: list[Any] = [
    {"key_decisions": 5, "past_discussions": 7, "current_discussion": 3},
    {"key_decisions": {"Do": "x"}, "past_discussions": [], "current_discussion": {}},
    {"key_decisions": [], "past_discussions": "abc", "current_discussion": {}},
    {"key_decisions": [], "past_discussions": [], "current_discussion": [1]},
    [1, 2, 3],
    "a string",
    {"unrelated": True},
]


@pytest.mark.parametrize("data", DAMAGED)
def test_a_summary_of_the_wrong_shape_is_moved_aside_and_rebuilt(
    smem: Memory, fake: FakeGemini, data: Any, caplog: pytest.LogCaptureFixture
) -> None:
    smem.append("s", conversation(4))
    path = smem.paths.summary_file("s")
    path.write_text(json.dumps(data), encoding="utf-8")
    files.write_cursor(smem.paths, "s", format_local(T0 + 3 * SECOND))  # "up to date", for this summary
    context = smem.turn_context("s", "hello")  # no crash: the session has no summary yet
    assert context.summary is None
    moved = list(path.parent.glob("summary.json.corrupt-*"))
    assert len(moved) == 1 and json.loads(moved[0].read_text()) == data
    assert any(moved[0].name in r.getMessage() and r.levelname == "WARNING" for r in caplog.records)
    assert not path.exists() and smem.summaries.cursor("s") == ""
    fake.reply_json(summary_json("rebuilt"))
    result = smem.summaries.generate("s")  # every message again, not a bootstrap
    assert (result.considered, result.chunks, result.bootstrapped) == (4, 1, False)
    assert smem.summaries.load("s").current_discussion.topic == "rebuilt"


def test_an_unparsable_summary_is_moved_aside_by_a_summary_run(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(4))
    smem.paths.summary_file("s").write_text('{"key_decisions": ["Do: be br', encoding="utf-8")
    fake.reply_json(summary_json("rebuilt"))
    result = smem.summaries.generate("s")
    assert result.considered == 4 and smem.summaries.load("s").current_discussion.topic == "rebuilt"
    assert len(list(smem.paths.session_dir("s").glob("summary.json.corrupt-*"))) == 1


@pytest.mark.parametrize("cursor", ["2999-01-01 00:00:00", "not a time", "\ufffd\ufffd"])
def test_a_cursor_in_the_future_or_garbled_is_moved_aside_and_history_read_again(
    smem: Memory, fake: FakeGemini, cursor: str, caplog: pytest.LogCaptureFixture
) -> None:
    smem.append("s", conversation(4))
    fake.reply_json(summary_json("first"))
    smem.summaries.generate("s")
    smem.append("s", conversation(2, start=T0 + 100 * SECOND, text="later"))
    smem.paths.cursor_file("s").write_text(cursor + "\n", encoding="utf-8")
    fake.reply_json(summary_json("second"))
    result = smem.summaries.generate("s")
    assert result.considered == 6 and result.chunks == 1  # not silently "up to date"
    assert smem.summaries.load("s").current_discussion.topic == "second"
    assert smem.summaries.cursor("s") == format_local(T0 + 101 * SECOND)
    assert len(list(smem.paths.session_dir("s").glob(".summary_cursor.corrupt-*"))) == 1
    assert any("cursor of session s was damaged" in r.getMessage() for r in caplog.records)


def test_a_cursor_ahead_of_the_clock_by_less_than_a_day_is_kept(smem: Memory, fake: FakeGemini) -> None:
    """An older cursor later than now but within a day (a clock set back a little) is no damage: it is read
    (nothing is newer) and replaced by the cursor of today's form."""
    smem.append("s", conversation(4))
    fake.reply_json(summary_json("first"))
    smem.summaries.generate("s")
    ahead = format_local(smem.clock() + 3600 * SECOND)
    files.write_cursor(smem.paths, "s", ahead)
    assert smem.summaries.generate("s").considered == 0
    assert smem.summaries.cursor("s") == format_local(T0 + 3 * SECOND)
    assert not list(smem.paths.session_dir("s").glob(".summary_cursor.corrupt-*"))

"""The turn context (the window, then the relevant part of the summary) and ``memtray context``."""

from __future__ import annotations

import json

import pytest

from engine import Memory, Message
from engine.summary import files
from tests.engine.summary.conftest import SECOND, T0, summary_json
from tests.fakegemini import FakeGemini


def _with_summary(mem: Memory) -> None:
    mem.append("s", [Message("user", "hello", T0, sender="Ann"), Message("assistant", "hi", T0 + SECOND)])
    data = summary_json("garden", ["Do: answer in Traditional Chinese", "Do: use metric units"])
    data["past_discussions"] = [
        {"topic": "taxes", "description": "d", "direction": "x", "last_discussed": "2023-11-01 10:00"},
        {"topic": "roses", "description": "d", "direction": "x", "last_discussed": "2023-11-02 10:00"},
    ]
    files.save(mem.paths, "s", files.coerce(data))


def test_window_with_prefixes_then_the_turn_context(smem: Memory, fake: FakeGemini) -> None:
    _with_summary(smem)
    ctx = smem.turn_context("s", "how do I prune roses?")
    assert [m.role for m in ctx.messages] == ["user", "assistant", "user"]
    assert (
        ctx.messages[0].content.startswith("sendAt: ") and ", sender: Ann\nhello" in ctx.messages[0].content
    )
    assert "Prior summary" in ctx.messages[-1].content
    assert "## Prior Conversation Context" in ctx.system_guidance
    assert ctx.summary is not None and not ctx.summary_filtered  # no decision model: everything kept
    assert len(ctx.summary.past_discussions) == 2
    assert fake.calls() == []


def test_relevance_filter_keeps_only_relevant_entries(smem: Memory, fake: FakeGemini) -> None:
    smem.update_settings(decision_model="gemini-2.5-flash-lite")
    _with_summary(smem)
    fake.reply_json({"key_decisions": [1], "past_discussions": [2], "current_discussion": True})
    ctx = smem.turn_context("s", "how do I prune roses?")
    assert ctx.summary_filtered and ctx.summary is not None
    assert ctx.summary.key_decisions == ("Do: answer in Traditional Chinese",)
    assert [p.topic for p in ctx.summary.past_discussions] == ["roses"]
    block = ctx.messages[-1].content.split("```json\n")[1].split("\n```")[0]
    assert set(json.loads(block)) == {"key_decisions", "past_discussions", "current_discussion"}
    sent = fake.calls()[0].text()
    assert "how do I prune roses?" in sent and "language, format" in sent
    assert smem.usage.totals("s", "relevance").calls == 1


def test_nothing_relevant_leaves_the_block_out(smem: Memory, fake: FakeGemini) -> None:
    smem.update_settings(decision_model="gemini-2.5-flash-lite")
    _with_summary(smem)
    fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": False})
    ctx = smem.turn_context("s", "unrelated")
    assert ctx.summary is None and "Prior summary" not in ctx.messages[-1].content
    assert ctx.messages[-1].content.startswith("Turn context")


@pytest.mark.parametrize("failure", ["error", "garbage", "slow"])
def test_failed_relevance_check_keeps_the_whole_summary(smem: Memory, fake: FakeGemini, failure: str) -> None:
    smem.update_settings(decision_model="gemini-2.5-flash-lite")
    _with_summary(smem)
    if failure == "error":
        fake.reply_error(500, "boom")
    elif failure == "garbage":
        fake.reply_text("maybe?")
    else:
        smem.summaries.relevance_timeout_s = 0.3
        fake.reply_json({"key_decisions": [], "past_discussions": [], "current_discussion": False}, delay=1.0)
    ctx = smem.turn_context("s", "x")
    assert ctx.summary is not None and not ctx.summary_filtered
    assert len(ctx.summary.key_decisions) == 2 and len(ctx.summary.past_discussions) == 2
    assert len(fake.calls()) == 1  # the relevance call is tried once: it is on the turn's critical path


def test_no_summary_means_no_block_and_no_call(smem: Memory, fake: FakeGemini) -> None:
    smem.update_settings(decision_model="gemini-2.5-flash-lite")
    smem.append("s", [Message("user", "hello", T0)])
    ctx = smem.turn_context("s", "x")
    assert ctx.summary is None and fake.calls() == []


def test_cli_context_json(smem: Memory, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli import main

    _with_summary(smem)
    assert (
        main(["--home", str(smem.paths.home), "context", "--session", "s", "--request", "q", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["messages"][-1]["role"] == "user" and "Prior summary" in out["messages"][-1]["content"]
    assert out["summary"]["current_discussion"]["topic"] == "garden"

"""Generate (noise pruning, chunks, the cursor) with the real google-genai SDK against the fake server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import Memory, Message
from engine.clock import format_local
from engine.errors import GeminiError, GeminiTimeout, NoApiKey, QuotaExceeded
from engine.llm.gemini import make_client
from engine.summary import files
from tests.engine.summary.conftest import SECOND, T0, conversation, summary_json
from tests.fakegemini import FakeGemini


def test_bootstrap_sets_cursor_without_a_call(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(4))
    files.save(smem.paths, "s", files.coerce(summary_json()))
    result = smem.summaries.generate("s")
    assert result.bootstrapped
    assert smem.summaries.cursor("s") == format_local(T0 + 3 * SECOND)
    assert smem.summaries.cursor_ns("s") == (T0 + 3 * SECOND) // SECOND * SECOND  # as the desktop shows it
    assert fake.calls() == []
    files.write_cursor(smem.paths, "s", "not a time")
    assert smem.summaries.cursor_ns("s") == 0 and smem.summaries.cursor_ns("none") == 0


def test_one_chunk_saves_summary_cursor_and_usage(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(4))
    fake.reply_json(summary_json("plans", ["要：use tabs", "しない：push on Fridays", "Do: keep it short"]))
    result = smem.summaries.generate("s")
    assert (result.considered, result.chunks) == (4, 1)
    summary = smem.summaries.load("s")
    assert summary.key_decisions == ("Do: use tabs", "Don't: push on Fridays", "Do: keep it short")
    assert summary.current_discussion.topic == "plans"
    assert smem.summaries.cursor("s") == format_local(T0 + 3 * SECOND)
    sent = fake.calls()[0]
    config = sent.body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert "key_decisions" in json.dumps(config["responseSchema"])
    assert sent.model == "gemini-2.5-flash"
    assert f"[user] {format_local(T0)}" in sent.text()  # timestamps on the role lines
    assert "Traditional Chinese" in sent.text()  # reply_lang auto
    assert smem.usage.totals("s").calls == 1
    assert smem.usage.totals("s").total_tokens == 15
    # Nothing new: no call.
    assert smem.summaries.generate("s").considered == 0
    assert len(fake.calls()) == 1


def test_previous_summary_rides_in_the_system_prompt(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(2))
    fake.reply_json(summary_json("first topic"))
    smem.summaries.generate("s")
    smem.append("s", conversation(2, start=T0 + 100 * SECOND, text="later"))
    fake.reply_json(summary_json("second topic"))
    result = smem.summaries.generate("s")
    assert result.considered == 2
    system = fake.calls()[1].body["systemInstruction"]["parts"][0]["text"]
    assert "first topic" in system
    user = fake.calls()[1].body["contents"][0]["parts"][0]["text"]
    assert "later0" in user and "m0:" not in user  # only what is past the cursor


def test_70k_characters_make_three_chunks(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(70, size=1000))
    for i in range(3):
        fake.reply_json(summary_json(f"chunk {i}"))
    result = smem.summaries.generate("s")
    assert result.chunks == 3
    calls = fake.calls()
    assert len(calls) == 3
    for call in calls:  # every chunk ends on an assistant message
        user = call.body["contents"][0]["parts"][0]["text"]
        assert user.split("</conversation>")[0].rsplit("\n[", 1)[1].startswith("assistant")
    # The running summary of chunk 1 is in chunk 2's system prompt.
    assert "chunk 0" in calls[1].body["systemInstruction"]["parts"][0]["text"]
    assert smem.summaries.load("s").current_discussion.topic == "chunk 2"
    assert smem.summaries.cursor("s") == format_local(T0 + 69 * SECOND)


def test_failure_in_chunk_two_keeps_chunk_one_and_stops(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(70, size=1000))
    fake.reply_json(summary_json("chunk 0"))
    fake.reply_text("this is not JSON at all")
    fake.reply_json(summary_json("never"))
    with pytest.raises(GeminiError):
        smem.summaries.generate("s")
    assert len(fake.calls()) == 2  # no third call
    assert smem.summaries.load("s").current_discussion.topic == "chunk 0"
    assert smem.summaries.cursor("s") == format_local(T0 + 31 * SECOND)
    assert smem.summaries.status().last_errors[0][0] == "s"
    # The next run starts from the cursor: chunks 2 and 3 only.
    fake.reply_json(summary_json("chunk 1"))
    fake.reply_json(summary_json("chunk 2"))
    assert smem.summaries.generate("s").chunks == 2
    assert smem.summaries.status().last_errors == ()


class Killed(BaseException):
    """Stands for a SIGKILL: nothing after it runs (tests/e2e/test_crash_rebuild_summary.py kills real processes)."""


def test_a_first_run_killed_between_summary_and_cursor_skips_nothing_next_time(
    smem: Memory, fake: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    smem.append("s", conversation(70, size=1000))  # three chunks
    fake.reply_json(summary_json("chunk 0"))
    real_save = files.save

    def save_then_die(*args: object) -> None:
        real_save(*args)  # type: ignore[arg-type]
        raise Killed

    monkeypatch.setattr(files, "save", save_then_die)
    with pytest.raises(Killed):
        smem.summaries.generate("s")
    monkeypatch.setattr(files, "save", real_save)
    assert smem.summaries.load("s").current_discussion.topic == "chunk 0"
    # The cursor says "nothing summarized yet", so this summary is not taken for one without a cursor
    # (step 1 would set the cursor to the latest message and skip chunks 2 and 3 for good).
    written = smem.paths.cursor_file("s").read_text(encoding="utf-8")
    assert files.parse_cursor(written.strip()) == files.Cursor() and smem.summaries.cursor("s") == ""
    for i in range(3):
        fake.reply_json(summary_json(f"again {i}"))
    result = smem.summaries.generate("s")
    assert not result.bootstrapped and (result.considered, result.chunks) == (70, 3)
    assert smem.summaries.cursor("s") == format_local(T0 + 69 * SECOND)
    assert "m69:" in fake.calls()[-1].text()


def test_server_error_in_chunk_two_tries_the_fallback_once_and_bills_no_chunk_three(
    smem: Memory, fake: FakeGemini
) -> None:
    smem.append("s", conversation(70, size=1000))
    fake.reply_json(summary_json("chunk 0"))
    for _ in range(4):  # 2 tries on the summary model, 2 on the fallback
        fake.reply_error(500, "boom")
    with pytest.raises(GeminiError):
        smem.summaries.generate("s")
    calls = fake.calls()
    assert [c.model for c in calls] == ["gemini-2.5-flash"] * 3 + ["gemini-2.5-flash-lite"] * 2
    assert smem.summaries.load("s").current_discussion.topic == "chunk 0"
    assert not any("m64:" in c.text() for c in calls)  # chunk 3's text was never sent


def test_429_is_retried_with_backoff(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(2))
    fake.reply_error(429, "quota")
    fake.reply_json(summary_json())
    assert smem.summaries.generate("s").chunks == 1
    assert len(fake.calls()) == 2


def test_quota_on_every_try_raises_quota_and_cools_the_model(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(2))
    for _ in range(4):
        fake.reply_error(429, "quota")
    with pytest.raises(QuotaExceeded):
        smem.summaries.generate("s")
    assert not smem.paths.summary_file("s").exists()  # nothing written before a first success
    gemini = smem.summaries.gemini()
    assert gemini is not None and gemini.cooling_down("gemini-2.5-flash")


def one_attempt(key: str, url: str) -> Any:
    return make_client(key, base_url=url, attempts=1)


@pytest.mark.parametrize("client_factory", [one_attempt])
def test_slow_reply_times_out(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(2))
    smem.update_settings(agent_send_timeout_seconds=1)
    for _ in range(2):  # the summary model, then the fallback
        fake.reply_json(summary_json(), delay=1.3)
    with pytest.raises(GeminiTimeout):
        smem.summaries.generate("s")
    assert len(fake.calls()) == 2
    assert not smem.paths.summary_file("s").exists()


def test_no_key_means_no_summary_but_bootstrap_and_search_work(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    import keyring
    from keyring.backends import fail

    monkeypatch.setattr(keyring.core, "_keyring_backend", fail.Keyring())
    memory.append("s", [Message("user", "the quarterly budget spreadsheet", T0)])
    status = memory.summaries.status()
    assert not status.has_key and not status.active and "summarizer is off" in status.message
    with pytest.raises(NoApiKey):
        memory.summaries.generate("s")
    assert memory.summaries.run_pending() == []
    hits = memory.search("budget", match="keyword")
    assert hits and hits[0].message.content.startswith("the quarterly")


def _noisy() -> list[Message]:
    texts = [
        ("user", "hello!"),
        ("assistant", "Hi, how can I help?"),
        ("user", "thanks a lot"),
        ("assistant", "You're welcome."),
    ]
    return [Message(r, t, T0 + i * SECOND) for i, (r, t) in enumerate(texts)]


def test_all_noise_prunes_summary_and_moves_cursor_with_no_generation_call(
    smem: Memory, fake: FakeGemini
) -> None:
    smem.update_settings(decision_model="gemini-2.5-flash-lite")
    smem.append(
        "s", [Message("user", "old", T0 - 100 * SECOND), Message("assistant", "old", T0 - 99 * SECOND)]
    )
    files.save(smem.paths, "s", files.coerce(summary_json("t", ["Do: use tabs", "Do: use spaces"])))
    files.write_cursor(smem.paths, "s", format_local(T0 - 99 * SECOND))
    smem.append("s", _noisy())
    fake.reply_json(
        {
            "noise": [
                {"exchange": 1, "confidence": 0.9, "reason": "greeting"},
                {"exchange": 2, "confidence": 0.7, "reason": "thanks"},
            ],
            "superseded": {"key_decisions": [1, 99], "past_discussions": []},
        }
    )
    result = smem.summaries.generate("s")
    assert (result.dropped_exchanges, result.chunks) == (2, 0)
    assert [c.model for c in fake.calls()] == ["gemini-2.5-flash-lite"]  # the decision call only
    assert smem.summaries.load("s").key_decisions == ("Do: use spaces",)
    assert smem.summaries.cursor("s") == format_local(T0 + 3 * SECOND)
    prompt = fake.calls()[0].text()
    assert "exchange 1" in prompt and "1. Do: use tabs" in prompt


def test_low_confidence_noise_is_kept(smem: Memory, fake: FakeGemini) -> None:
    smem.update_settings(decision_model="gemini-2.5-flash-lite")
    smem.append("s", _noisy())
    fake.reply_json({"noise": [{"exchange": 2, "confidence": 0.69, "reason": "thanks"}], "superseded": {}})
    fake.reply_json(summary_json())
    result = smem.summaries.generate("s")
    assert (result.dropped_exchanges, result.summarized) == (0, 4)


@pytest.mark.parametrize("failure", ["error", "garbage"])
def test_failed_decision_keeps_everything(smem: Memory, fake: FakeGemini, failure: str) -> None:
    smem.update_settings(decision_model="gemini-2.5-flash-lite")
    smem.append("s", _noisy())
    files.save(smem.paths, "s", files.coerce(summary_json("t", ["Do: use tabs"])))
    files.write_cursor(smem.paths, "s", format_local(T0 - SECOND))
    if failure == "error":
        fake.reply_error(400, "bad request")
    else:
        fake.reply_text("no idea")
    fake.reply_json(summary_json("after"))
    result = smem.summaries.generate("s")
    assert (result.dropped_exchanges, result.summarized, result.chunks) == (0, 4, 1)
    summary_call = fake.calls()[-1]
    assert "Do: use tabs" in summary_call.body["systemInstruction"]["parts"][0]["text"]
    assert "thanks a lot" in summary_call.text()


def test_reset_with_summary_aborts_when_the_summary_fails(smem: Memory, fake: FakeGemini) -> None:
    smem.append("s", conversation(2))
    fake.reply_text("garbage")
    with pytest.raises(GeminiError):
        smem.summaries.reset_with_summary("s")
    assert len(smem.history("s")) == 2  # not reset
    fake.reply_json(summary_json("kept"))
    result = smem.summaries.reset_with_summary("s")
    assert result.summary_kept and smem.history("s") == []
    assert smem.summaries.load("s").current_discussion.topic == "kept"


SECRET = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"


def test_secrets_are_redacted_before_they_reach_gemini(smem: Memory, fake: FakeGemini) -> None:
    smem.append(
        "cli-s",
        [Message("user", f"my key is {SECRET}, keep it", T0), Message("assistant", "noted", T0 + SECOND)],
    )
    fake.reply_json(summary_json())
    smem.summaries.generate("cli-s")
    sent = fake.calls()[-1].text()
    assert SECRET not in sent and "[REDACTED:" in sent and "keep it" in sent
    smem.update_settings(redact_secrets=False)
    smem.append("cli-s", [Message("user", f"again {SECRET}", T0 + 5 * SECOND)])
    fake.reply_json(summary_json())
    smem.summaries.generate("cli-s")
    assert SECRET in fake.calls()[-1].text()  # the user turned redaction off


def test_private_chats_are_never_summarized(smem: Memory) -> None:
    smem.append("priv-1", [Message("user", "off the record", T0)])
    smem.append("cli-on", [Message("user", "on the record", T0)])
    assert smem.summaries.pending() == ["cli-on"]

"""The chat loop end to end: the real google-genai SDK against the fake Gemini server, tools run locally."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from engine import Memory, Message
from engine.chat import Chat, ToolCall, new_session_id
from engine.chat.display import visible_reply
from engine.errors import (
    EmptyReply,
    GeminiUnavailable,
    InvalidInput,
    NoApiKey,
    QuotaExceeded,
    StorageError,
    TurnCancelled,
)
from engine.llm.keys import Keys
from engine.tools.registry import ERROR_HISTORY, Tool, memory_tools
from tests.engine.conftest import FakeClock
from tests.fakegemini import FakeGemini, Request, one_try_client

SESSION = "chat-test"


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
def chat(memory: Memory, fake: FakeGemini) -> Chat:
    memory.update_settings(gemini_base_url=fake.url, decision_model="")
    return Chat(memory, keys=Keys(environ={"GEMINI_API_KEY": "test-key"}), client_factory=one_try_client)


def function_responses(request: Request) -> list[dict[str, Any]]:
    return [
        part["functionResponse"]
        for content in request.body["contents"]
        for part in content["parts"]
        if "functionResponse" in part
    ]


def saved(mem: Memory, session: str = SESSION) -> list[Message]:
    return mem.history(session) if mem.exists(session) else []


def test_a_turn_calls_a_tool_streams_the_answer_and_saves_two_messages(
    chat: Chat, memory: Memory, fake: FakeGemini, clock: FakeClock
) -> None:
    memory.errors.remember(
        "fetch_page", "timeout after 30 s", "raised the timeout to 120 s", "resolved", keywords=["timeout"]
    )
    fake.reply_function_call("error_history", {"mode": "search", "keyword": "fetch_page timeout"})
    fake.reply_stream(["Last time ", "the fix was ", "a longer timeout."])
    started = clock.now
    shown: list[str] = []
    tools: list[ToolCall] = []

    def on_text(text: str) -> None:
        shown.append(text)
        clock.advance(1)

    result = chat.send(SESSION, "How did we fix the fetch timeout?", on_text=on_text, on_tool=tools.append)

    assert result.reply.content == "Last time the fix was a longer timeout."
    assert shown[0] == "Last time" and shown[-1] == result.reply.content  # streamed, growing
    assert [t.name for t in tools] == ["error_history"] and not tools[0].failed
    assert "raised the timeout to 120 s" in tools[0].result
    # The tool result went back to the model as a function response, and tools were offered.
    first, second = fake.calls()
    assert [d["name"] for d in first.body["tools"][0]["functionDeclarations"]] == [
        t.name for t in memory_tools()
    ]
    (response,) = function_responses(second)
    assert response["name"] == "error_history"
    assert "raised the timeout to 120 s" in response["response"]["output"]
    # Exactly two records: the user's (sendAt = turn start) and the reply (later); no tool traffic.
    history = saved(memory)
    assert [(m.role, m.content) for m in history] == [
        ("user", "How did we fix the fetch timeout?"),
        ("assistant", "Last time the fix was a longer timeout."),
    ]
    assert history[0].send_at == started < history[1].send_at
    assert result.rounds == 2 and result.usage.total_tokens > 0
    assert memory.usage.totals(SESSION, "chat").calls == 2


def test_the_request_carries_window_turn_context_and_guidance(
    chat: Chat, memory: Memory, fake: FakeGemini, clock: FakeClock
) -> None:
    memory.append(
        SESSION,
        [
            Message("user", "we use tabs", clock.now - 10_000_000_000, "ann"),
            Message("assistant", "noted", clock.now - 9_000_000_000),
        ],
    )
    fake.reply_stream(["ok"])
    chat.send(SESSION, "and now?")
    body = fake.calls()[0].body
    system = body["systemInstruction"]["parts"][0]["text"]
    assert "chat_history" in system and "## Prior Conversation Context" in system
    contents = body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[0]["parts"][0]["text"].startswith("sendAt: ")
    assert "sender: ann" in contents[0]["parts"][0]["text"]
    last = [p["text"] for p in contents[2]["parts"]]
    assert last[0].startswith("Turn context") and last[1] == "and now?"
    assert len(saved(memory)) == 4


def test_output_hygiene_is_applied_before_showing_and_saving(
    chat: Chat, memory: Memory, fake: FakeGemini
) -> None:
    fake.reply_stream(["<summary>old</summary>Sure, ", "done.\n\nPrior summ", 'ary: {"key_decisions": []}'])
    shown: list[str] = []
    result = chat.send(SESSION, "do it", on_text=shown.append)
    assert result.reply.content == "Sure, done."
    assert saved(memory)[1].content == "Sure, done."
    assert not any("summ" in text.lower() or "Prior" in text for text in shown)


def test_visible_reply_hides_what_hygiene_would_remove() -> None:
    assert visible_reply("Hello <summ") == "Hello"
    assert visible_reply("Hello <summary>secret") == "Hello"
    assert visible_reply("---\nheader") == ""
    assert visible_reply("---\nheader\n---\nHi") == "Hi"
    assert visible_reply("Answer. Strict rules: x") == "Answer."
    assert visible_reply("plain text") == "plain text"


@pytest.mark.parametrize(
    ("status", "error"), [(429, QuotaExceeded), (503, GeminiUnavailable), (500, GeminiUnavailable)]
)
def test_a_failed_turn_saves_nothing(
    chat: Chat, memory: Memory, fake: FakeGemini, status: int, error: type[Exception]
) -> None:
    fake.reply_error(status, "nope")
    with pytest.raises(error):
        chat.send(SESSION, "hello")
    assert not memory.exists(SESSION)


def test_a_failure_after_a_tool_round_saves_nothing(chat: Chat, memory: Memory, fake: FakeGemini) -> None:
    memory.append(SESSION, [Message("user", "earlier", 1), Message("assistant", "reply", 2)])
    fake.reply_function_call("error_history", {"keyword": "x"})
    fake.reply_error(429, "quota")
    with pytest.raises(QuotaExceeded):
        chat.send(SESSION, "hello")
    assert [m.content for m in saved(memory)] == ["earlier", "reply"]


def test_no_key_fails_before_any_request(memory: Memory, fake: FakeGemini) -> None:
    memory.update_settings(gemini_base_url=fake.url)
    chat = Chat(memory, keys=Keys(environ={}, backend=_NoKeyring()), client_factory=one_try_client)
    with pytest.raises(NoApiKey):
        chat.send(SESSION, "hello")
    assert fake.calls() == [] and not memory.exists(SESSION)


def test_offline_is_gemini_unavailable(memory: Memory) -> None:
    memory.update_settings(gemini_base_url="http://127.0.0.1:9")  # discard port: connection refused
    chat = Chat(memory, keys=Keys(environ={"GEMINI_API_KEY": "k"}), client_factory=one_try_client)
    with pytest.raises(GeminiUnavailable):
        chat.send(SESSION, "hello")
    assert not memory.exists(SESSION)


def test_a_blocked_answer_is_an_empty_reply_and_saves_nothing(
    chat: Chat, memory: Memory, fake: FakeGemini
) -> None:
    fake.reply_blocked()
    with pytest.raises(EmptyReply):
        chat.send(SESSION, "hello")
    assert not memory.exists(SESSION)


def test_a_turn_cancelled_between_chunks_saves_nothing(chat: Chat, memory: Memory, fake: FakeGemini) -> None:
    fake.reply_stream(["one ", "two ", "three"])
    stop = False

    def on_text(_text: str) -> None:
        nonlocal stop
        stop = True

    with pytest.raises(TurnCancelled):
        chat.send(SESSION, "count", on_text=on_text, cancelled=lambda: stop)
    assert not memory.exists(SESSION)


def test_a_turn_cancelled_after_a_tool_call_makes_no_further_request(
    chat: Chat, memory: Memory, fake: FakeGemini
) -> None:
    fake.reply_function_call("error_history", {"keyword": "x"})
    fake.reply_stream(["never asked"])
    stop = False

    def on_tool(_call: ToolCall) -> None:
        nonlocal stop
        stop = True

    with pytest.raises(TurnCancelled):
        chat.send(SESSION, "hello", on_tool=on_tool, cancelled=lambda: stop)
    assert len(fake.calls()) == 1 and not memory.exists(SESSION)


def test_a_failed_tool_gets_the_error_memory_hint(memory: Memory, fake: FakeGemini) -> None:
    memory.update_settings(gemini_base_url=fake.url, decision_model="")
    memory.errors.remember(
        "fetch_page", "timeout while fetching", "use the mirror", "resolved", keywords=["timeout"]
    )

    def fetch_page(_mem: Memory, _session: str | None, _args: Mapping[str, Any]) -> str:
        raise StorageError("timeout while fetching the page")

    fetch = Tool(
        {"name": "fetch_page", "description": "Fetch a page.", "parameters": {"type": "object"}}, fetch_page
    )
    chat = Chat(
        memory,
        keys=Keys(environ={"GEMINI_API_KEY": "k"}),
        client_factory=one_try_client,
        tools=[fetch, ERROR_HISTORY],
    )
    fake.reply_function_call("fetch_page", {"url": "x"})
    fake.reply_function_call("no_such_tool", {})
    fake.reply_stream(["Used the mirror."])
    result = chat.send(SESSION, "fetch it")
    failed, unknown = result.tool_calls
    assert failed.failed and unknown.failed
    assert failed.result.startswith("[fetch_page] tool=fetch_page failed: timeout while fetching the page")
    assert "related_errors: [" in failed.result and "use the mirror" in failed.result
    assert "tool not found" in unknown.result
    (response,) = function_responses(fake.calls()[1])
    assert "use the mirror" in response["response"]["error"]
    assert [m.content for m in saved(memory)] == ["fetch it", "Used the mirror."]


def test_after_the_round_cap_the_model_must_answer_without_tools(memory: Memory, fake: FakeGemini) -> None:
    memory.update_settings(gemini_base_url=fake.url, decision_model="")
    chat = Chat(
        memory, keys=Keys(environ={"GEMINI_API_KEY": "k"}), client_factory=one_try_client, max_rounds=1
    )
    fake.reply_function_call("error_history", {"keyword": "x"})
    fake.reply_stream(["final"])
    result = chat.send(SESSION, "hi")
    first, second = fake.calls()
    assert first.body["toolConfig"]["functionCallingConfig"]["mode"] == "AUTO"
    assert second.body["toolConfig"]["functionCallingConfig"]["mode"] == "NONE"
    assert result.reply.content == "final"


def test_bad_input_is_refused_without_a_request(chat: Chat, fake: FakeGemini) -> None:
    with pytest.raises(InvalidInput):
        chat.send(SESSION, "   ")
    with pytest.raises(InvalidInput):
        chat.send("../escape", "hi")
    assert fake.calls() == []


def test_new_session_ids_are_valid_and_distinct(memory: Memory) -> None:
    ids = {new_session_id(memory.clock()) for _ in range(20)}
    assert len(ids) > 1
    for sid in ids:
        assert sid.startswith("chat-")
        memory.append(sid, [Message("user", "x", 1)])


def test_tool_declarations_are_json(fake: FakeGemini) -> None:
    for tool in memory_tools():
        assert json.loads(json.dumps(dict(tool.declaration))) == tool.declaration
        assert tool.parameters["type"] == "object"


class _NoKeyring:
    """A keyring backend with no key in it."""

    def get_password(self, _service: str, _user: str) -> None:
        return None


def test_the_model_can_search_the_conversation_with_chat_history(
    chat: Chat, memory: Memory, fake: FakeGemini, clock: FakeClock
) -> None:
    memory.append(
        SESSION,
        [
            Message("user", "our wifi password rotates monthly", clock.now),
            Message("assistant", "noted, monthly rotation", clock.advance(1)),
        ],
    )
    fake.reply_function_call("chat_history", {"mode": "search", "keyword": "wifi", "match": "keyword"})
    fake.reply_text("You said it rotates monthly.")
    tools: list[ToolCall] = []
    result = chat.send(SESSION, "what did I say about the wifi?", on_tool=tools.append)
    assert [t.name for t in tools] == ["chat_history"] and not tools[0].failed
    assert "our wifi password rotates monthly" in tools[0].result and "[recent]" in tools[0].result
    assert result.reply.content == "You said it rotates monthly."
    assert [m.content for m in saved(memory)][-2:] == [
        "what did I say about the wifi?",
        "You said it rotates monthly.",
    ]

"""Importers never crash on wrong types: any JSON is imported, skipped with a reason, or a clear error."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.importers import agenvoy, agenvoy_summary, chatgpt, claude
from engine.importers.records import BrokenRecord, Tally
from engine.messages import Message, normalize_legacy

KEYS = st.sampled_from(
    ["id", "uuid", "mapping", "current_node", "message", "parent", "children", "author", "role", "content",
     "content_type", "parts", "create_time", "created_at", "sender", "text", "type", "chat_messages",
     "attachments", "files", "metadata", "recipient", "sendAt", "tool_calls", "a", "n0"]
)  # fmt: skip
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=5), inner, max_size=5)
    ),
    max_leaves=12,
)
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _conversation(value: Any, reader: Any) -> None:
    try:
        item = reader.conversation_session(value, Tally(), "conversation 1")
    except BrokenRecord:
        return
    if item is not None:
        assert item.messages and all(
            m.role in ("user", "assistant") and m.content.strip() for m in item.messages
        )


@FAST
@given(JSON)
def test_chatgpt_conversation_never_crashes(value: Any) -> None:
    _conversation(value, chatgpt)


@FAST
@given(
    st.dictionaries(KEYS, JSON, max_size=6).map(lambda d: {**d, "mapping": {"a": d, "n0": {"parent": "a"}}})
)
def test_chatgpt_mapping_never_crashes(value: Any) -> None:
    _conversation({**value, "current_node": "n0"}, chatgpt)


@FAST
@given(JSON | st.dictionaries(KEYS, JSON).map(lambda d: {"uuid": "u", "chat_messages": [d]}))
def test_claude_conversation_never_crashes(value: Any) -> None:
    _conversation(value, claude)


@FAST
@given(JSON)
def test_agenvoy_record_and_summary_never_crash(value: Any) -> None:
    found = agenvoy.parse_record(value, Tally(), "record 1")
    assert found is None or found.content.strip()
    summary = agenvoy_summary.convert(value)
    assert summary is None or set(summary) == set(agenvoy_summary.KEYS)


@FAST
@given(st.text())
def test_legacy_normalization_only_strips_a_leading_header(text: str) -> None:
    message = normalize_legacy(Message(role="user", content=text))
    assert message.content in text


@FAST
@given(
    st.text().filter(lambda body: body.strip() and normalize_legacy(Message("user", body)).content == body)
)
def test_legacy_header_is_removed_from_any_body(body: str) -> None:
    message = normalize_legacy(
        Message(role="user", content=f"---\n當前時間: 2024-05-01 12:34:56\n---\n{body}")
    )
    assert message.content == body.strip("\n") or message.content == body.lstrip().strip("\n")
    assert message.send_at > 0

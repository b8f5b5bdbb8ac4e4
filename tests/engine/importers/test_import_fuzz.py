"""Importers never crash on wrong types: any JSON is imported, skipped with a reason, or a clear error."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.importers import (
    agenvoy,
    agenvoy_headers,
    agenvoy_summary,
    chatgpt,
    chatgpt_markers,
    claude,
    claude_code,
    codex,
)
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


TRANSCRIPT_KEYS = st.sampled_from(
    ["type", "message", "role", "content", "text", "sessionId", "uuid", "leafUuid", "cwd", "isMeta", "isSidechain",
     "toolUseResult", "origin", "kind", "promptSource", "aiTitle", "summary", "timestamp", "payload", "id",
     "images", "phase", "model", "user", "assistant", "event_msg", "response_item", "user_message",
     "agent_message", "session_meta", "input_text"]
)  # fmt: skip
LINE = st.recursive(
    SCALARS | TRANSCRIPT_KEYS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRANSCRIPT_KEYS, inner, max_size=6),
    max_leaves=16,
)


@FAST
@given(st.lists(LINE, max_size=6))
def test_transcript_lines_never_crash(lines: list[Any]) -> None:
    numbered = list(enumerate(lines, start=1))
    for reader in (claude_code, codex):
        meta: dict[str, Any] = {}
        found = reader.parse(numbered, meta, Tally())
        assert all(m.role in ("user", "assistant") and m.content.strip() for m in found)
        title = reader.title(meta)
        assert title is None or isinstance(title, str)


@FAST
@given(
    st.text(
        alphabet=st.sampled_from('ab \n[]"{}【】†:turn0search1cite\ue200\ue201\ue202\ue203\ue204\ue205\ue206')
    )
)
def test_marker_cleaning_never_crashes_and_leaves_no_marker(text: str) -> None:
    cleaned = chatgpt_markers.clean(text)
    assert not any("\ue200" <= c <= "\ue206" for c in cleaned)


@FAST
@given(st.text())
def test_agenvoy_header_stripping_never_crashes(text: str) -> None:
    found = agenvoy_headers.strip(text)
    assert text.endswith(found.text) and found.send_at >= 0

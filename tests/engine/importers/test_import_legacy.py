"""The older Agenvoy record format: the time in a header inside the content."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from engine.messages import Message, from_record, normalize_legacy

NS = 1_000_000_000
# 2024-05-01 12:34:56 in Taipei (UTC+8, no daylight saving) is 04:34:56 UTC.
TAIPEI_1234 = 1_714_538_096 * NS


@pytest.fixture
def taipei(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "Asia/Taipei")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def norm(content: str, **kwargs: object) -> Message:
    return normalize_legacy(Message(role="user", content=content, **kwargs))  # type: ignore[arg-type]


def test_user_header_block_gives_time_and_is_removed(taipei: None) -> None:
    message = norm("---\n當前時間: 2024-05-01 12:34:56\n工作目錄: /home/me/專案\n---\n我的電腦記憶體不足")
    assert (message.content, message.send_at, message.sender) == ("我的電腦記憶體不足", TAIPEI_1234, "")


def test_assistant_block_with_only_the_time(taipei: None) -> None:
    message = normalize_legacy(
        Message(role="assistant", content="---\n當前時間: 2024-05-01 12:35:00\n---\n\n關掉分頁即可。")
    )
    assert (message.content, message.send_at) == ("關掉分頁即可。", TAIPEI_1234 + 4 * NS)


def test_chatbot_header_lines_give_the_sender(taipei: None) -> None:
    message = norm(
        "當前 chat ID: 123456\n當前 channel: telegram\n傳送者: 小明\n當前時間：2024-05-01 12:34\n\n明天提醒我開會"
    )
    assert (message.content, message.sender, message.send_at) == (
        "明天提醒我開會",
        "小明",
        TAIPEI_1234 - 56 * NS,
    )


def test_window_prefix_line_is_removed_and_read(taipei: None) -> None:
    message = norm("sendAt: 2024-05-01 12:34:56, sender: Alice\nchannelId: tg\nhello")
    assert (message.content, message.send_at, message.sender) == ("hello", TAIPEI_1234, "Alice")


def test_crlf_line_endings(taipei: None) -> None:
    message = norm("---\r\n當前時間: 2024-05-01 12:34:56\r\n---\r\n你好")
    assert (message.content, message.send_at) == ("你好", TAIPEI_1234)


def test_existing_send_at_and_sender_win(taipei: None) -> None:
    message = norm(
        "---\n當前時間: 2024-05-01 12:34:56\n傳送者: 別人\n---\ntext", send_at=5 * NS, sender="Bob"
    )
    assert (message.content, message.send_at, message.sender) == ("text", 5 * NS, "Bob")


@pytest.mark.parametrize(
    "content",
    [
        "plain text that mentions 當前時間: 2024-05-01 12:34:56 in the middle",
        "---\ntitle: a markdown front matter\n---\nbody",
        "---\n當前時間: 2024-05-01 12:34:56\nno closing dashes",
        "---\n---\nan empty block is text",
        "## 當前時間 is a heading\n",
        "",
    ],
)
def test_content_that_is_not_a_legacy_header_is_unchanged(content: str) -> None:
    message = Message(role="user", content=content)
    assert normalize_legacy(message) is message


def test_unparsable_time_leaves_send_at_unknown() -> None:
    message = norm("---\n當前時間: 2024-13-45 99:99:99\n---\ntext")
    assert (message.content, message.send_at) == ("text", 0)


def test_header_only_message_becomes_empty() -> None:
    assert norm("---\n當前時間: 2024-05-01 12:34:56\n---\n").content == ""


def test_from_record_never_applies_it(taipei: None) -> None:
    """memtray's own records come back as written; legacy headers are converted at import only."""
    content = "---\n當前時間: 2024-05-01 12:34:56\n---\n你好"
    message = from_record({"role": "user", "content": content})
    assert message is not None
    assert (message.content, message.send_at) == (content, 0)
    assert normalize_legacy(message).send_at == TAIPEI_1234

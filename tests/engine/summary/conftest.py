"""Fixtures of the summarizer tests: the fake Gemini server wired into a memory; message builders."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine import Memory, Message
from engine.llm.gemini import ClientFactory, make_client
from tests.fakegemini import FakeGemini

T0 = 1_700_000_000 * 1_000_000_000
SECOND = 1_000_000_000


def fast_client(api_key: str, base_url: str) -> Any:
    """A real client with quick retries (2 tries, ~10 ms backoff, no jitter)."""
    return make_client(
        api_key, base_url=base_url, attempts=2, initial_delay_s=0.01, max_delay_s=0.02, jitter_s=0
    )


def summary_json(topic: str = "topic", decisions: list[str] | None = None) -> dict[str, Any]:
    return {
        "key_decisions": decisions if decisions is not None else ["Do: answer in English"],
        "past_discussions": [],
        "current_discussion": {"topic": topic, "description": "d", "perspectives": "p", "direction": "x"},
    }


def conversation(n: int, size: int = 20, start: int = T0, text: str = "m") -> list[Message]:
    """``n`` messages alternating user/assistant, one second apart, each ``size`` characters long."""
    return [
        Message("user" if i % 2 == 0 else "assistant", f"{text}{i}:".ljust(size, "x"), start + i * SECOND)
        for i in range(n)
    ]


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
def client_factory() -> ClientFactory:
    """The memory's summarizer retries fast (see :func:`fast_client`)."""
    return fast_client


@pytest.fixture
def smem(memory: Memory, fake: FakeGemini, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """A memory whose summarizer talks to the fake server (key from GEMINI_API_KEY; no decision model)."""
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    memory.update_settings(gemini_base_url=fake.url, decision_model="")
    return memory

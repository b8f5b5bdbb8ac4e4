"""Cutting the messages to summarize into chunks and exchanges, and rendering them as a transcript.

- :func:`chunk` (step 4 of ``Generate``): chunks of up to :data:`CHUNK_CHARS` characters of message
  text; a chunk always takes at least one message, and one that would end on a user message takes the next
  message too (only one, so two user messages in a row can still end a chunk, as in the original).
- :func:`exchanges` (for noise pruning): a user message and every following non-user message up to the
  next user message; messages before the first user message form a "headless" exchange, which is never
  dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.messages import Message
from engine.summary.files import time_key

CHUNK_CHARS = 32_000
EXCERPT_CHARS = 512


def chunk(messages: Sequence[Message], limit: int = CHUNK_CHARS) -> list[list[Message]]:
    """Split ``messages`` into chunks (see the module docstring)."""
    chunks: list[list[Message]] = []
    i = 0
    while i < len(messages):
        end, total = i, 0
        while end < len(messages):
            size = len(messages[end].content)
            if end > i and total + size > limit:
                break
            total += size
            end += 1
        if end < len(messages) and messages[end - 1].role == "user":
            end += 1
        chunks.append(list(messages[i:end]))
        i = end
    return chunks


@dataclass(frozen=True)
class Exchange:
    """A user message and the replies after it (``headless``: replies with no user message before)."""

    messages: tuple[Message, ...]
    headless: bool = False

    @property
    def user_text(self) -> str:
        return "" if self.headless else self.messages[0].content.strip()


def exchanges(messages: Sequence[Message]) -> list[Exchange]:
    """Group messages into exchanges (see the module docstring)."""
    groups: list[Exchange] = []
    current: list[Message] = []
    headless = True
    for message in messages:
        if message.role == "user":
            if current:
                groups.append(Exchange(tuple(current), headless))
            current, headless = [message], False
        else:
            current.append(message)
    if current:
        groups.append(Exchange(tuple(current), headless))
    return groups


def exchange_numbers(groups: Sequence[Exchange]) -> list[int]:
    """The numbers the decision model sees: 0 for a headless exchange, then 1, 2, ... for the others."""
    numbers, n = [], 0
    for group in groups:
        if group.headless:
            numbers.append(0)
        else:
            n += 1
            numbers.append(n)
    return numbers


def retry_candidates(groups: Sequence[Exchange]) -> set[int]:
    """Exchanges whose user text is empty or repeated by a later exchange (likely retries)."""
    found = set()
    for i, group in enumerate(groups):
        if group.headless:
            continue
        text = group.user_text
        if not text or any(text == later.user_text for later in groups[i + 1 :]):
            found.add(i)
    return found


def transcript(messages: Sequence[Message], excerpt: int | None = None) -> str:
    """``[role] YYYY-MM-DD HH:MM:SS`` then the text, one block per message, blank lines between."""
    blocks = []
    for message in messages:
        when = time_key(message.send_at)
        who = f"{message.role} ({message.sender})" if message.sender else message.role
        head = f"[{who}] {when}".rstrip()
        text = message.content.strip()
        if excerpt is not None and len(text) > excerpt:
            text = text[:excerpt] + " …"
        blocks.append(f"{head}\n{text}")
    return "\n\n".join(blocks)

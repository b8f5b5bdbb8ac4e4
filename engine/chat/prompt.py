"""What one chat turn sends to Gemini, built from the memory's turn context.

Order: the system prompt (memtray's chat instructions, then the ``Prior Conversation Context`` guidance),
the window (each message with its ``sendAt:`` prefix line), the turn-context ``user`` message (the time
and the ``Prior summary`` block), then the user's input. Consecutive messages of one role are sent as one
Gemini content with several parts (Gemini alternates ``user`` and ``model``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine.summary.context import ContextMessage, TurnContext, assemble
from engine.summary.prompts import PRIOR_CONTEXT_GUIDANCE

if TYPE_CHECKING:
    from engine.memory import Memory

SYSTEM_PROMPT = """\
You are a helpful assistant in memtray, a chat app that keeps a memory of this conversation on the \
user's computer. You see the latest messages of the conversation; each starts with a "sendAt:" line \
giving its local time (and sender), which is metadata, not part of the text: never write such lines \
yourself.
- When the user refers to something said earlier that you cannot see, search it with the chat_history \
tool before answering; say so plainly when nothing is found.
- When a tool fails, look for past fixes with error_history (mode=search); remember a confirmed, \
non-trivial fix with error_history (mode=write).
- Answer in the language the user writes in. Format answers in Markdown when it helps."""


def context_for(mem: Memory, session: str, request: str) -> TurnContext:
    """The memory's turn context; a session that does not exist yet has no window and no summary."""
    if mem.exists(session):
        return mem.turn_context(session, request)
    return assemble(session, request, [], None, False, mem.clock(), PRIOR_CONTEXT_GUIDANCE)


def system_instruction(context: TurnContext, base: str = SYSTEM_PROMPT) -> str:
    """The system prompt of a turn: memtray's chat instructions, then the summary guidance."""
    return f"{base.rstrip()}\n\n{context.system_guidance.strip()}" if context.system_guidance else base


def gemini_role(role: str) -> str:
    return "model" if role == "assistant" else "user"


def contents(context: TurnContext, user_text: str) -> list[Any]:
    """The ``contents`` of the first request: the context's messages, then the user's input."""
    from google.genai import types

    messages: Sequence[ContextMessage] = (*context.messages, ContextMessage("user", user_text))
    built: list[Any] = []
    for message in messages:
        role = gemini_role(message.role)
        part = types.Part(text=message.content)
        if built and built[-1].role == role:
            built[-1].parts.append(part)
        else:
            built.append(types.Content(role=role, parts=[part]))
    return built


def new_session_id(now_ns: int) -> str:
    """A fresh id for a new chat: ``chat-YYYYMMDD-HHMMSS-xxxx`` (local time, 4 random hex digits)."""
    stamp = datetime.fromtimestamp(now_ns / 1e9).strftime("%Y%m%d-%H%M%S")
    return f"chat-{stamp}-{secrets.token_hex(2)}"

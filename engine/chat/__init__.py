"""The chat loop of memtray's own chat window: one turn with Gemini and the memory (no Qt).

::

    from engine.chat import Chat
    chat = Chat(mem)
    result = chat.send("chat-20250101-120000-ab12", "What did we decide?", on_text=show, cancelled=stop.is_set)

See :mod:`engine.chat.turn` for what a turn does and saves.
"""

from __future__ import annotations

from engine.chat.prompt import SYSTEM_PROMPT, new_session_id
from engine.chat.turn import MAX_TOOL_ROUNDS, Chat, ToolCall, TurnResult

__all__ = ["MAX_TOOL_ROUNDS", "SYSTEM_PROMPT", "Chat", "ToolCall", "TurnResult", "new_session_id"]

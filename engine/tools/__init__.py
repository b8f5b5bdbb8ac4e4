"""Tools the LLM can call (Gemini function calling, MCP): a JSON-schema declaration and an executor each.

- :mod:`engine.tools.chat_history`: search the conversation memory (the original's ``chat_history``).
- :mod:`engine.tools.error_history`: the cross-session error memory (``error_history`` and its aliases).
- :mod:`engine.tools.registry`: the tools as one list, shared by the chat loop and the MCP server.
"""

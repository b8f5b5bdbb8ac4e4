"""Tools the LLM can call (Gemini function calling, MCP): a JSON-schema declaration and an executor each.

- :mod:`engine.tools.chat_history`: search the conversation memory (the seed's ``chat_history``).
"""

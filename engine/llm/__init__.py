"""Gemini: the client, the API key's owner, token usage and redaction of secrets in messages.

The names below are the part's public face (the desktop app uses them); google-genai itself is imported
only when a client is made.
"""

from __future__ import annotations

from engine.llm.gemini import make_client, translated_errors
from engine.llm.keys import Keys, KeyStatus

__all__ = ["KeyStatus", "Keys", "make_client", "translated_errors"]

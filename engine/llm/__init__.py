"""Gemini: the client, the API key's owner, token usage and redaction of secrets in messages."""

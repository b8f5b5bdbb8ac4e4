"""The one error tree of the memory engine.

Everything the engine raises on purpose derives from :class:`EngineError`. Callers (the CLI, the desktop
app, the MCP server) catch it and turn it into words; anything else escaping the engine is a bug.

::

    EngineError
    ├── InvalidInput              the caller's mistake: fix the input and try again
    │   ├── InvalidSessionId      an id with '/', '..', NUL or other path tricks
    │   ├── InvalidMessage        a role, content or time the engine cannot store
    │   ├── InvalidSetting        an unknown setting or a value of the wrong type
    │   ├── InvalidKey            a Gemini key that is not one word of text
    │   └── ImportFormatError     a file to import is not in the expected format (names the line)
    ├── NotFound
    │   └── SessionNotFound       no such session
    ├── AmbiguousId               an id prefix that matches more than one record
    ├── StorageError              the environment: disk full, database locked or damaged, permissions
    │   ├── StoreLocked           another process held the store too long
    │   ├── MemoryClosed          the memory was closed (a repair replaced it, or the program quits)
    │   └── CorruptStore          a file or the database is damaged and could not be repaired
    ├── VectorIndexError          an embedder or a vector index could not be used
    ├── GeminiError               a Gemini call failed (summary, chat, decision, key test)
    │   ├── NoApiKey              no Gemini key is configured
    │   ├── AuthError             the key was refused
    │   ├── QuotaExceeded         rate limit or quota (HTTP 429)
    │   ├── GeminiTimeout         no answer in time
    │   ├── GeminiUnavailable     network down or a server error (5xx)
    │   └── EmptyReply            the chat model answered with no text (blocked, or only leaked context)
    ├── TurnCancelled             a chat turn was stopped by the user; nothing was saved
    └── KeyringUnavailable        no secure key store on this machine
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class InvalidInput(EngineError):
    """The caller's input cannot be used; nothing was written."""


class InvalidSessionId(InvalidInput):
    """A session id that is empty, too long, or could escape the sessions folder."""


class InvalidMessage(InvalidInput):
    """A message with an unknown role, content that is not text, or an impossible time."""


class InvalidSetting(InvalidInput):
    """An unknown setting name or a value that does not fit the setting's type."""


class InvalidKey(InvalidInput):
    """A Gemini key that is empty or holds white space (a paste that caught more than the key)."""


class ImportFormatError(InvalidInput):
    """A file to import is not in the expected format.

    Attributes:
        line: the 1-based line (or record) number where the problem was found, if known.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class NotFound(EngineError):
    """Something that was asked for does not exist."""


class SessionNotFound(NotFound):
    """No session with this id exists."""


class AmbiguousId(EngineError):
    """An id prefix that matches more than one record.

    Attributes:
        candidates: the full ids that matched.
    """

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class StorageError(EngineError):
    """A problem of the environment: disk full, permissions, a locked or damaged store."""


class StoreLocked(StorageError):
    """Another process kept the store or a session locked for too long."""


class MemoryClosed(StorageError):
    """The memory was closed while something still used it (a repair took its place, or the program is
    quitting): nothing was read or written."""


class CorruptStore(StorageError):
    """A store file is damaged and could not be repaired automatically."""


class VectorIndexError(EngineError):
    """An embedder or a vector index could not be loaded or used."""


class GeminiError(EngineError):
    """A Gemini call failed (the summarizer's, the chat's, a key test's); nothing was half-saved."""


class NoApiKey(GeminiError):
    """No Gemini API key is configured (keyring or GEMINI_API_KEY)."""


class AuthError(GeminiError):
    """Gemini refused the API key."""


class QuotaExceeded(GeminiError):
    """Gemini answered with a rate limit or quota error."""


class GeminiTimeout(GeminiError):
    """Gemini did not answer in time."""


class GeminiUnavailable(GeminiError):
    """Gemini could not be reached, or answered with a server error."""


class EmptyReply(GeminiError):
    """The chat model's final answer had no text to show (blocked, empty, or only leaked context)."""


class TurnCancelled(EngineError):
    """A chat turn was stopped before it finished; nothing was saved."""


class KeyringUnavailable(EngineError):
    """The OS keyring has no usable backend on this machine."""

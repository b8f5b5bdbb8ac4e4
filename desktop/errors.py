"""The one place that turns engine errors (and a few environment errors) into words for the user.

Every dialog, tray message and status line that reports a failure goes through :func:`describe`. Errors of
the environment (disk full, store locked, network down, quota) are told as what happened and what to do;
anything that is not an :class:`engine.EngineError` or an ``OSError`` is a bug and says so.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

from engine import errors as engine_errors


@dataclass(frozen=True)
class UserMessage:
    """What to tell the user about a failure.

    Attributes:
        title: a short headline ("Could not compact session x").
        text: one or two sentences: what happened, and what to do about it.
        bug: True when the failure is a bug in memtray (show details, ask for a report).
    """

    title: str
    text: str
    bug: bool = False


def describe(exc: BaseException, doing: str = "") -> UserMessage:
    """A :class:`UserMessage` for ``exc``; ``doing`` names the action ("compacting session abc")."""
    title = f"Could not finish {doing}" if doing else "Something went wrong"
    detail = str(exc).strip()
    e = engine_errors
    if isinstance(exc, e.SessionNotFound):
        text = f"The session no longer exists ({detail}). It may have been removed by another program."
    elif isinstance(exc, e.InvalidSetting):
        text = f"That setting was not saved: {detail}."
    elif isinstance(exc, e.InvalidInput):
        text = f"memtray could not use that input: {detail}."
    elif isinstance(exc, e.AmbiguousId):
        text = f"{detail}. Type more of the id."
    elif isinstance(exc, e.NotFound):
        text = f"Not found: {detail}."
    elif isinstance(exc, e.StoreLocked):
        text = "Another memtray program kept the memory busy for too long. Try again in a moment."
    elif isinstance(exc, e.CorruptStore):
        text = (
            f"A memory file is damaged and could not be repaired ({detail}). Your data folder was left as "
            "it is; see the log for the file."
        )
    elif isinstance(exc, e.StorageError):
        text = f"The memory could not be read or written ({detail}). Check free disk space and permissions."
    elif isinstance(exc, e.VectorIndexError):
        text = f"Search by meaning is not available right now ({detail}). Keyword search still works."
    elif isinstance(exc, e.TurnCancelled):
        text = "The reply was stopped. Nothing was saved."
    elif isinstance(exc, e.EmptyReply):
        text = "Gemini gave no answer to show (it may have been blocked). Nothing was saved."
    elif isinstance(exc, e.NoApiKey):
        text = "No Gemini API key is set. Add one in Settings (or set GEMINI_API_KEY)."
    elif isinstance(exc, e.AuthError):
        text = "Gemini refused the API key. Check the key in Settings."
    elif isinstance(exc, e.QuotaExceeded):
        text = "Gemini's rate limit or quota was reached. memtray will try again later."
    elif isinstance(exc, e.GeminiTimeout):
        text = "Gemini did not answer in time. memtray will try again later."
    elif isinstance(exc, e.GeminiUnavailable):
        text = "Gemini could not be reached (network down or a server error). memtray will try again later."
    elif isinstance(exc, e.SummarizerError):
        text = f"The summary could not be written: {detail}."
    elif isinstance(exc, e.KeyringUnavailable):
        text = (
            "This computer has no secure key store (OS keyring), so the key cannot be saved, and memtray "
            "never saves it in plain text. Use it for this session only, or set GEMINI_API_KEY in the "
            "environment."
        )
    elif isinstance(exc, e.EngineError):
        text = detail or type(exc).__name__
    elif isinstance(exc, OSError):
        text = _os_error(exc)
    else:
        return UserMessage(
            title,
            f"This is a bug in memtray ({type(exc).__name__}: {detail}). It was written to the log; "
            "please report it.",
            bug=True,
        )
    return UserMessage(title, text)


def _os_error(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    if exc.errno == errno.ENOSPC:
        return f"The disk is full{where}. Free some space and try again."
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"memtray is not allowed to use a file{where}. Check the folder's permissions."
    return f"A file could not be used{where}: {exc.strerror or exc}."


def describe_key_test(exc: BaseException) -> UserMessage:
    """What the settings window's "Test" button says when its one call to Gemini failed."""
    e = engine_errors
    title = "The key test failed"
    if isinstance(exc, e.NoApiKey):
        return UserMessage(title, "There is no key to test: paste one first, or save one.")
    if isinstance(exc, e.AuthError):
        return UserMessage(
            title,
            "Gemini refused this key (it is wrong, was revoked, or is not enabled for the Gemini API). "
            "Copy the whole key again from Google AI Studio.",
        )
    if isinstance(exc, e.QuotaExceeded):
        return UserMessage(
            title,
            "Gemini accepted the key, but its rate limit or quota is used up right now. Summaries wait "
            "and try again later; check the quota in Google AI Studio if this lasts.",
        )
    if isinstance(exc, e.SummarizerError) and "404" in str(exc):
        return UserMessage(title, f"Gemini does not know the summary model: {exc}. Check the model name.")
    return describe(exc, "testing the key")

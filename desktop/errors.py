"""The one place that turns engine errors (and a few environment errors) into words for the user.

Every dialog, tray message and status line that reports a failure goes through :func:`describe`, in the
UI language (the engine's own detail, quoted inside, stays as the engine wrote it). Errors of
the environment (disk full, store locked, network down, quota) are told as what happened and what to do;
anything that is not an :class:`engine.EngineError` or an ``OSError`` is a bug and says so.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from engine import errors as engine_errors

translate = QCoreApplication.translate


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
    """A :class:`UserMessage` for ``exc``; ``doing`` names the action, translated ("compacting abc")."""
    if doing:
        title = translate("Errors", "Could not finish {doing}").format(doing=doing)
    else:
        title = translate("Errors", "Something went wrong")
    detail = str(exc).strip()
    e = engine_errors
    if isinstance(exc, e.SessionNotFound):
        text = translate(
            "Errors", "The session no longer exists ({detail}). It may have been removed by another program."
        )
    elif isinstance(exc, e.InvalidKey):
        text = translate("Errors", "A Gemini key is one word of text, without spaces: check what was pasted.")
    elif isinstance(exc, e.InvalidSetting):
        text = translate("Errors", "That setting was not saved: {detail}.")
    elif isinstance(exc, e.InvalidInput):
        text = translate("Errors", "memtray could not use that input: {detail}.")
    elif isinstance(exc, e.AmbiguousId):
        text = translate("Errors", "{detail}. Type more of the id.")
    elif isinstance(exc, e.NotFound):
        text = translate("Errors", "Not found: {detail}.")
    elif isinstance(exc, e.StoreLocked):
        text = translate(
            "Errors", "Another memtray program kept the memory busy for too long. Try again in a moment."
        )
    elif isinstance(exc, e.CorruptStore):
        text = translate(
            "Errors",
            "A memory file is damaged ({detail}). Your data folder was left as it is: choose “Repair the "
            "database…” in memtray's menu to rebuild it (the damaged file is kept).",
        )
    elif isinstance(exc, e.MemoryClosed):
        text = translate(
            "Errors",
            "The memory was closed while this was still running (a repair replaced it, or memtray is "
            "quitting). Nothing was changed; try again.",
        )
    elif isinstance(exc, e.StorageError):
        text = translate(
            "Errors",
            "The memory could not be read or written ({detail}). Check free disk space and permissions.",
        )
    elif isinstance(exc, e.VectorIndexError):
        text = translate(
            "Errors", "Search by meaning is not available right now ({detail}). Keyword search still works."
        )
    elif isinstance(exc, e.TurnCancelled):
        text = translate("Errors", "The reply was stopped. Nothing was saved.")
    elif isinstance(exc, e.EmptyReply):
        text = translate(
            "Errors", "Gemini gave no answer to show (it may have been blocked). Nothing was saved."
        )
    elif isinstance(exc, e.NoApiKey):
        text = translate("Errors", "No Gemini API key is set. Add one in Settings (or set GEMINI_API_KEY).")
    elif isinstance(exc, e.AuthError):
        text = translate("Errors", "Gemini refused the API key. Check the key in Settings.")
    elif isinstance(exc, e.QuotaExceeded):
        text = translate("Errors", "Gemini's rate limit or quota was reached. memtray will try again later.")
    elif isinstance(exc, e.GeminiTimeout):
        text = translate("Errors", "Gemini did not answer in time. memtray will try again later.")
    elif isinstance(exc, e.GeminiUnavailable):
        text = translate(
            "Errors",
            "Gemini could not be reached (network down or a server error). memtray will try again later.",
        )
    elif isinstance(exc, e.GeminiError):
        text = translate("Errors", "The Gemini call failed: {detail}.")  # a summary, a chat turn, a key test
    elif isinstance(exc, e.KeyringUnavailable):
        text = translate(
            "Errors",
            "This computer has no secure key store (OS keyring), so the key cannot be saved, and memtray "
            "never saves it in plain text. Use it for this session only, or set GEMINI_API_KEY in the "
            "environment.",
        )
    elif isinstance(exc, e.EngineError):
        return UserMessage(title, detail or type(exc).__name__)
    elif isinstance(exc, OSError):
        return UserMessage(title, _os_error(exc))
    else:
        return UserMessage(
            title,
            translate(
                "Errors",
                "This is a bug in memtray ({kind}: {detail}). It was written to the log; please report it.",
            ).format(kind=type(exc).__name__, detail=detail),
            bug=True,
        )
    return UserMessage(title, text.format(detail=detail))


def _os_error(exc: OSError) -> str:
    where = str(exc.filename) if exc.filename else ""
    if exc.errno == errno.ENOSPC:
        if where:
            return translate("Errors", "The disk is full ({file}). Free some space and try again.").format(
                file=where
            )
        return translate("Errors", "The disk is full. Free some space and try again.")
    if exc.errno in (errno.EACCES, errno.EPERM):
        if where:
            return translate(
                "Errors", "memtray is not allowed to use a file ({file}). Check the folder's permissions."
            ).format(file=where)
        return translate("Errors", "memtray is not allowed to use a file. Check the folder's permissions.")
    reason = exc.strerror or str(exc)
    if where:
        return translate("Errors", "A file could not be used ({file}): {reason}.").format(
            file=where, reason=reason
        )
    return translate("Errors", "A file could not be used: {reason}.").format(reason=reason)


def describe_key_test(exc: BaseException) -> UserMessage:
    """What the settings window's "Test" button says when its one call to Gemini failed."""
    e = engine_errors
    title = translate("Errors", "The key test failed")
    if isinstance(exc, e.NoApiKey):
        return UserMessage(
            title, translate("Errors", "There is no key to test: paste one first, or save one.")
        )
    if isinstance(exc, e.AuthError):
        return UserMessage(
            title,
            translate(
                "Errors",
                "Gemini refused this key (it is wrong, was revoked, or is not enabled for the Gemini API). "
                "Copy the whole key again from Google AI Studio.",
            ),
        )
    if isinstance(exc, e.QuotaExceeded):
        return UserMessage(
            title,
            translate(
                "Errors",
                "Gemini accepted the key, but its rate limit or quota is used up right now. Summaries wait "
                "and try again later; check the quota in Google AI Studio if this lasts.",
            ),
        )
    if isinstance(exc, e.GeminiError) and "404" in str(exc):
        return UserMessage(
            title,
            translate(
                "Errors", "Gemini does not know the summary model: {detail}. Check the model name."
            ).format(detail=exc),
        )
    return describe(exc, translate("Errors", "testing the key"))

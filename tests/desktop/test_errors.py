"""The error translator turns engine errors into words, and calls a bug a bug."""

from __future__ import annotations

import errno

from desktop.errors import describe
from engine import errors


def test_environment_errors_are_words_not_tracebacks() -> None:
    assert "disk space" in describe(errors.StorageError("database or disk is full")).text
    assert "Try again" in describe(errors.StoreLocked("held")).text
    assert "quota" in describe(errors.QuotaExceeded("429")).text
    assert "Settings" in describe(errors.NoApiKey("none")).text
    assert "no longer exists" in describe(errors.SessionNotFound("no session 'x'")).text
    assert describe(OSError(errno.ENOSPC, "No space left", "/x")).text.startswith("The disk is full")


def test_a_bug_is_called_a_bug() -> None:
    message = describe(KeyError("boom"), "compacting x")
    assert message.bug
    assert message.title == "Could not finish compacting x"
    assert "bug" in message.text


def test_every_engine_error_has_words() -> None:
    def subclasses(cls: type) -> list[type]:
        return [cls, *[s for c in cls.__subclasses__() for s in subclasses(c)]]

    for cls in subclasses(errors.EngineError):
        exc = cls("x", []) if cls is errors.AmbiguousId else cls("x")
        message = describe(exc)
        assert message.text and not message.bug, cls

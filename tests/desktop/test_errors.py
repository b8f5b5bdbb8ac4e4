"""The error translator turns engine errors into words, and calls a bug a bug."""

from __future__ import annotations

import errno

import pytest

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


def test_a_pasted_key_that_is_not_one_word_is_refused_by_the_engine_and_told_in_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import keyring
    from keyring.backends import fail

    from desktop.errors import describe
    from desktop.seams import EngineKeys
    from engine.errors import InvalidKey
    from engine.llm import Keys

    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # no keyring here: "use for this session only" is the way
    try:
        store = EngineKeys(Keys())
        with pytest.raises(InvalidKey) as caught:
            store.use_for_session("AIza first\nsecond line")
        assert store.status().source == "none"  # nothing was kept
        assert (
            describe(caught.value).text
            == "A Gemini key is one word of text, without spaces: check what was pasted."
        )
        assert store.use_for_session("  AIza-ok  ").source == "this-run"
    finally:
        keyring.set_keyring(previous)

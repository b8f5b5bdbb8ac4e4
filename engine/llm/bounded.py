"""A bound on how many bytes one answer from Gemini may have, enforced while it is read.

google-genai reads a whole HTTP answer into memory and parses it as JSON before memtray sees any of it.
:func:`client_args` gives the SDK's HTTP client a response hook that refuses an answer whose
``Content-Length`` is over the bound and wraps the body so that reading past the bound stops with
:class:`ReplyTooLarge`: a 20 MB (or endless) answer costs at most the bound in memory, and nothing of it
is parsed. The SDK does not retry this error; :func:`engine.llm.gemini.translated_errors` turns it into
a :class:`~engine.errors.GeminiError` in words.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from functools import cache
from typing import Any

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""The largest answer read from Gemini: a batch of 100 embeddings of 3,072 floats (the embedder's largest
size) is about 7 MB as the service writes it; a summary's answer is bounded far lower once read, by
:data:`engine.summary.untrusted.MAX_REPLY_CHARS`."""


class ReplyTooLarge(Exception):
    """An answer from Gemini was larger than the bound; reading it stopped."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the answer is larger than {limit:,} bytes")
        self.limit = limit


class _BoundedStream:
    """A response body that stops with :class:`ReplyTooLarge` once more than ``limit`` bytes came."""

    def __init__(self, inner: Any, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    def __iter__(self) -> Iterator[bytes]:
        total = 0
        for chunk in self._inner:
            total += len(chunk)
            if total > self._limit:
                raise ReplyTooLarge(self._limit)
            yield chunk

    def close(self) -> None:
        self._inner.close()


@cache
def _bounded_class(package: str) -> type[_BoundedStream]:
    """:class:`_BoundedStream` as a ``SyncByteStream`` of the HTTP package the SDK uses (httpx or its fork
    httpx2): the response checks the type of its stream when it is closed."""
    base = getattr(importlib.import_module(package), "SyncByteStream", object)
    return type("BoundedStream", (_BoundedStream, base), {})


def _declared_length(response: Any) -> int:
    try:
        return int(response.headers.get("content-length") or 0)
    except ValueError:
        return 0


def response_hook(limit: int = MAX_RESPONSE_BYTES) -> Any:
    """An httpx ``response`` event hook bounding the body to ``limit`` bytes (see the module docstring)."""

    def hook(response: Any) -> None:
        if _declared_length(response) > limit:
            response.close()
            raise ReplyTooLarge(limit)
        package = type(response).__module__.partition(".")[0]
        response.stream = _bounded_class(package)(response.stream, limit)

    return hook


def client_args(limit: int = MAX_RESPONSE_BYTES) -> dict[str, Any]:
    """``HttpOptions.client_args`` for a synchronous client whose answers are bounded to ``limit`` bytes."""
    return {"event_hooks": {"response": [response_hook(limit)]}}

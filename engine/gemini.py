"""The one place that talks to Gemini through google-genai: client creation and error translation.

``gemini_base_url`` (a setting) points the SDK elsewhere; tests use a fake server on 127.0.0.1. Errors of
the SDK and of the network become :mod:`engine.errors` (``QuotaExceeded``, ``AuthError``, ...).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.errors import AuthError, GeminiTimeout, GeminiUnavailable, QuotaExceeded, SummarizerError

log = logging.getLogger("memtray.gemini")

DEFAULT_TIMEOUT_S = 60.0


def make_client(
    api_key: str,
    *,
    base_url: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    attempts: int = 3,
    initial_delay_s: float = 1.0,
    max_delay_s: float = 20.0,
) -> Any:
    """A ``google.genai.Client`` with retries (429 and 5xx) and a timeout.

    Imported lazily: google-genai takes most of a second to import.
    """
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=base_url or None,
        timeout=int(timeout_s * 1000),
        retry_options=types.HttpRetryOptions(
            attempts=attempts,
            initial_delay=initial_delay_s,
            max_delay=max_delay_s,
            http_status_codes=[408, 429, 500, 502, 503, 504],
        ),
    )
    return genai.Client(api_key=api_key, http_options=options)


@contextmanager
def translated_errors(what: str = "Gemini") -> Iterator[None]:
    """Turn google-genai and network exceptions into the engine's error tree."""
    from google.genai import errors as genai_errors

    try:
        yield
    except genai_errors.APIError as exc:
        code = getattr(exc, "code", 0) or 0
        if code == 429:
            raise QuotaExceeded(f"{what}: rate limit or quota reached; try again later") from exc
        if code in (401, 403):
            raise AuthError(f"{what}: the API key was refused ({exc.message or code})") from exc
        if code == 408 or code == 504:
            raise GeminiTimeout(f"{what}: no answer in time") from exc
        if code >= 500:
            raise GeminiUnavailable(f"{what}: the service failed (HTTP {code})") from exc
        raise SummarizerError(f"{what}: the request was refused (HTTP {code}: {exc.message})") from exc
    except TimeoutError as exc:
        raise GeminiTimeout(f"{what}: no answer in time") from exc
    except OSError as exc:
        raise GeminiUnavailable(f"{what}: cannot reach the service ({exc})") from exc
    except Exception as exc:
        name = type(exc).__name__
        if "Timeout" in name:
            raise GeminiTimeout(f"{what}: no answer in time") from exc
        if "Connect" in name or "Network" in name or "Transport" in name:
            raise GeminiUnavailable(f"{what}: cannot reach the service") from exc
        raise

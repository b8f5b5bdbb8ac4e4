"""The one place that talks to Gemini through google-genai: clients, calls, retries, usage, errors.

- :func:`make_client` builds a ``google.genai.Client`` with retries (exponential backoff on 408, 429 and
  5xx) and a timeout. ``base_url`` (the ``gemini_base_url`` setting) points the SDK elsewhere; tests use a
  fake server on 127.0.0.1.
- :class:`Gemini` makes the JSON calls of the summarizer: a system prompt, one user text, a response
  schema, a per-call timeout. A model that answered "quota" cools down for a while and the next call
  prefers the fallback model; a call that fails with a service error is tried once with the fallback.
  Every answered call reports its token usage to ``on_usage`` (the summarizer records it per session).
- :func:`translated_errors` turns the SDK's and the network's exceptions into :mod:`engine.errors`
  (``QuotaExceeded``, ``AuthError``, ``GeminiTimeout``, ``GeminiUnavailable``, ``GeminiError``).

google-genai is imported lazily: it takes most of a second to import.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from engine.errors import (
    AuthError,
    EngineError,
    GeminiError,
    GeminiTimeout,
    GeminiUnavailable,
    QuotaExceeded,
)
from engine.llm.bounded import MAX_RESPONSE_BYTES, ReplyTooLarge, client_args
from engine.llm.redact import redact
from engine.settings import FLASH_LITE

log = logging.getLogger("memtray.gemini")

DEFAULT_TIMEOUT_S = 60.0
FALLBACK_MODEL = FLASH_LITE
"""Tried once when the summary model fails with a service error (quota, 5xx, timeout) or is cooling down."""
COOLDOWN_S = 60.0
RETRY_STATUS_CODES = (408, 429, 500, 502, 503, 504)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently one request is retried on 408/429/5xx and network errors.

    Attributes:
        attempts: tries in all, including the first.
        initial_delay_s: the first backoff delay; it doubles each time up to ``max_delay_s``.
        max_delay_s: the longest delay between two tries.
        jitter_s: a random extra delay of up to this many seconds.
    """

    attempts: int = 3
    initial_delay_s: float = 1.0
    max_delay_s: float = 20.0
    jitter_s: float = 1.0


@dataclass(frozen=True)
class Usage:
    """Tokens one call used, as Gemini reported them (0 when it did not say)."""

    prompt_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


@dataclass(frozen=True)
class UsageEvent:
    """One answered call, for the usage record."""

    session: str
    model: str
    purpose: str
    usage: Usage


@dataclass(frozen=True)
class Reply:
    """What one call returned: the text (``None`` when the answer was empty or blocked)."""

    text: str | None
    model: str
    usage: Usage


ClientFactory = Callable[[str, str], Any]
"""``(api_key, base_url) -> google.genai.Client``: the seam tests and the app replace."""


def _retry_options(retry: RetryPolicy) -> Any:
    from google.genai import types

    return types.HttpRetryOptions(
        attempts=max(1, retry.attempts),
        initial_delay=retry.initial_delay_s,
        max_delay=retry.max_delay_s,
        jitter=retry.jitter_s,
        http_status_codes=list(RETRY_STATUS_CODES),
    )


def make_client(
    api_key: str,
    *,
    base_url: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    attempts: int = 3,
    initial_delay_s: float = 1.0,
    max_delay_s: float = 20.0,
    jitter_s: float = 1.0,
    max_response_bytes: int = MAX_RESPONSE_BYTES,
) -> Any:
    """A ``google.genai.Client`` with retries (408, 429 and 5xx, with backoff), a timeout, and answers
    bounded to ``max_response_bytes`` (:mod:`engine.llm.bounded`)."""
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=base_url or None,
        timeout=int(timeout_s * 1000),
        retry_options=_retry_options(RetryPolicy(attempts, initial_delay_s, max_delay_s, jitter_s)),
        client_args=client_args(max_response_bytes),
    )
    return genai.Client(api_key=api_key, http_options=options)


def default_client_factory(api_key: str, base_url: str) -> Any:
    """The production client factory."""
    return make_client(api_key, base_url=base_url)


@contextmanager
def translated_errors(what: str = "Gemini") -> Iterator[None]:
    """Turn google-genai and network exceptions into the engine's error tree.

    The service may echo the request in its error (the message text, the key): the engine's error says
    only the HTTP code and status name, and the service's own words go to the DEBUG log, redacted. An
    answer that is not a Gemini reply (a 200 that is not JSON: a proxy's page) is an error in words too.
    """
    from google.genai import errors as genai_errors

    unreadable: tuple[type[BaseException], ...] = (json.JSONDecodeError,)
    unknown = getattr(genai_errors, "UnknownApiResponseError", None)
    if isinstance(unknown, type) and issubclass(unknown, BaseException):
        unreadable = (*unreadable, unknown)
    try:
        yield
    except genai_errors.APIError as exc:
        # The original exception is not chained: a logged traceback would show its message.
        code = getattr(exc, "code", 0) or 0
        status = str(getattr(exc, "status", "") or "").strip()
        heading = f"HTTP {code} {status}".strip()
        detail = str(exc.message or "")
        log.debug("%s answered %s: %s", what, heading, redact(detail)[:2000])
        refused_key = code == 400 and "api key" in detail.lower()  # Google's answer to an invalid key
        error: EngineError
        if code == 429:
            error = QuotaExceeded(f"{what}: rate limit or quota reached; try again later")
        elif code in (401, 403) or refused_key:
            error = AuthError(
                f"{what}: the API key was refused ({heading}); check it with `memtray key status`"
            )
        elif code in (408, 504):
            error = GeminiTimeout(f"{what}: no answer in time")
        elif code >= 500:
            error = GeminiUnavailable(f"{what}: the service failed ({heading})")
        else:
            error = GeminiError(f"{what}: the request was refused ({heading})")
        raise error from None
    except unreadable as exc:
        log.debug("%s sent an answer that is not a Gemini reply: %s", what, redact(str(exc))[:2000])
        raise GeminiUnavailable(
            f"{what}: the answer is not a Gemini reply (not JSON); check the gemini_base_url setting "
            "or the proxy between memtray and the service"
        ) from None
    except ReplyTooLarge as exc:
        raise GeminiError(f"{what}: {exc}; none of it was used") from None
    except TimeoutError as exc:
        raise GeminiTimeout(f"{what}: no answer in time") from exc
    except OSError as exc:
        raise GeminiUnavailable(f"{what}: cannot reach the service ({redact(str(exc))})") from None
    except Exception as exc:
        name = type(exc).__name__
        if "Timeout" in name:
            raise GeminiTimeout(f"{what}: no answer in time") from exc
        if "Connect" in name or "Network" in name or "Transport" in name:
            raise GeminiUnavailable(f"{what}: cannot reach the service") from exc
        raise


def usage_of(response: Any) -> Usage:
    """The tokens a response (or a streamed chunk) reports; zeros when it says nothing."""
    return _usage_of(response)


def _usage_of(response: Any) -> Usage:
    meta = getattr(response, "usage_metadata", None)
    if meta is None:
        return Usage()
    prompt = int(getattr(meta, "prompt_token_count", 0) or 0)
    output = int(getattr(meta, "candidates_token_count", 0) or 0) + int(
        getattr(meta, "thoughts_token_count", 0) or 0
    )
    total = int(getattr(meta, "total_token_count", 0) or 0) or prompt + output
    return Usage(prompt, output, total)


class Gemini:
    """JSON calls to Gemini with one API key and a per-model cool-down (the client owns the retries).

    Args:
        api_key: the Gemini key (never logged).
        base_url: empty for Google's endpoint, else e.g. a fake server's URL.
        client_factory: ``(api_key, base_url) -> genai.Client``; the default builds one with
            :func:`make_client`.
        on_usage: called with a :class:`UsageEvent` after each answered call.
        monotonic: the clock of the cool-down (seconds).
    """

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = "",
        client_factory: ClientFactory | None = None,
        on_usage: Callable[[UsageEvent], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = (client_factory or default_client_factory)(api_key, base_url)
        self._on_usage = on_usage
        self._monotonic = monotonic
        self._cooling: dict[str, float] = {}
        self._guard = threading.Lock()

    def cooling_down(self, model: str) -> bool:
        """Whether ``model`` answered "quota" recently and should be avoided for now."""
        with self._guard:
            until = self._cooling.get(model, 0.0)
        return until > self._monotonic()

    def _cool(self, model: str) -> None:
        with self._guard:
            self._cooling[model] = self._monotonic() + COOLDOWN_S
        log.info("model %s cools down for %.0f s after a quota error", model, COOLDOWN_S)

    def generate_json(
        self,
        models: Sequence[str],
        *,
        system: str,
        prompt: str,
        schema: Any,
        timeout_s: float,
        session: str,
        purpose: str,
        attempts: int | None = None,
        thinking_budget: int | None = None,
    ) -> Reply:
        """Ask for a JSON answer; try the models in order (cooling ones last), moving on only on a
        service error (quota, timeout, 5xx, network).

        Args:
            models: the model to use first, then fallbacks (duplicates and empty names are skipped).
            system: the system instruction.
            prompt: the user text.
            schema: the response schema (a pydantic model class).
            timeout_s: the timeout of each request.
            session: the session the tokens are billed to, for the usage record.
            purpose: ``summary``, ``prune`` or ``relevance``, for the usage record.
            attempts: tries of this request; None keeps the client's retry policy.
            thinking_budget: the model's thinking budget in tokens; None leaves the model's default.

        Raises:
            GeminiError: the last model's failure (``QuotaExceeded``, ``GeminiTimeout``, ...).
        """
        order = [m for i, m in enumerate(models) if m and m not in models[:i]]
        if not order:
            raise GeminiError("no Gemini model is configured")
        order.sort(key=self.cooling_down)  # stable: cooling models go last
        failure: GeminiError | None = None
        for model in order:
            try:
                return self._call(
                    model, system, prompt, schema, timeout_s, session, purpose, attempts, thinking_budget
                )
            except (QuotaExceeded, GeminiTimeout, GeminiUnavailable) as exc:
                if isinstance(exc, QuotaExceeded):
                    self._cool(model)
                # INFO: the caller gets the last failure as an error (the CLI's one line); this is its history.
                log.info("%s call to %s failed: %s", purpose, model, exc)
                failure = exc
        assert failure is not None
        raise failure

    def _call(
        self,
        model: str,
        system: str,
        prompt: str,
        schema: Any,
        timeout_s: float,
        session: str,
        purpose: str,
        attempts: int | None,
        thinking_budget: int | None,
    ) -> Reply:
        from google.genai import types

        config = types.GenerateContentConfig(
            system_instruction=system,
            response_mime_type="application/json",
            response_schema=schema,
            temperature=0.2,
            thinking_config=(
                types.ThinkingConfig(thinking_budget=thinking_budget) if thinking_budget is not None else None
            ),
            http_options=types.HttpOptions(
                timeout=max(1, int(timeout_s * 1000)),
                # None keeps the client's retry policy; an explicit count replaces it for this call.
                retry_options=None if attempts is None else _retry_options(RetryPolicy(attempts=attempts)),
            ),
        )
        started = time.perf_counter()
        with translated_errors(f"Gemini {model}"):
            response = self._client.models.generate_content(model=model, contents=prompt, config=config)
        usage = _usage_of(response)
        log.info(
            "%s call to %s for session %s: %d+%d tokens in %.2fs",
            purpose,
            model,
            session,
            usage.prompt_tokens,
            usage.output_tokens,
            time.perf_counter() - started,
        )
        if self._on_usage is not None:
            self._on_usage(UsageEvent(session, model, purpose, usage))
        try:
            text = response.text
        except (ValueError, AttributeError):
            text = None
        return Reply(text if isinstance(text, str) else None, model, usage)

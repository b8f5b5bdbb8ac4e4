"""``Generate``: fold a session's new messages into its rolling summary.

0. Load summary.json (missing or unreadable: ``{}``) and the cursor.
1. Bootstrap: a summary with no cursor only gets the cursor set to the latest message time. No LLM call.
   A damaged cursor (not a time, or in the future) is moved aside instead, and every message is new.
2. The new messages: those with no time, or with a time after the cursor (compared as strings).
3. With a decision model: drop noise exchanges and superseded entries; when nothing is left, save
   the pruned summary and move the cursor, with no summary call.
4. Chunks of up to 32,000 characters, never ending on a user message.
5. One call per chunk; the running summary sits in the system prompt, so the call merges. After each
   chunk, summary.json and then the cursor are saved; the first failure stops the run (later chunks are
   not billed) and is raised; the next run starts again from the cursor.

Nothing is written before the first success, so a first run that fails is retried by the scheduler. A
session's first summary.json is preceded by a cursor just before its oldest message ("nothing summarized
yet"): a run killed between that file and its cursor must not leave a summary without a cursor, which the
next run would take for an older one (step 1) and mark up to date, skipping what the run had not reached.
So the cursor never points past what summary.json reflects; at worst a chunk is merged twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.errors import GeminiError, GeminiTimeout, NoApiKey
from engine.llm.gemini import FALLBACK_MODEL, Gemini
from engine.llm.keys import NO_KEY
from engine.llm.redact import redact
from engine.messages import Message
from engine.paths import Paths
from engine.settings import Settings
from engine.summary import files, prompts
from engine.summary.chunks import chunk
from engine.summary.decide import prune
from engine.summary.parse import parse_reply
from engine.summary.replies import SummaryOut
from engine.summary.schema import KEYS, coerce

log = logging.getLogger("memtray.summary")

SECOND = 1_000_000_000


@dataclass(frozen=True)
class GenerateResult:
    """What one run did.

    Attributes:
        session: the session id.
        considered: new messages found past the cursor.
        summarized: messages sent to the summary model.
        chunks: chunks merged (each one summary call that succeeded).
        dropped_exchanges: exchanges dropped as noise.
        bootstrapped: the cursor was only initialised (no LLM call).
        cursor: the cursor after the run.
    """

    session: str
    considered: int = 0
    summarized: int = 0
    chunks: int = 0
    dropped_exchanges: int = 0
    bootstrapped: bool = False
    cursor: str = ""


def _without_legacy(parsed: dict[str, object]) -> dict[str, object]:
    """A merged answer in the current shape drops legacy keys (they were folded in); else kept as is."""
    current = {k: v for k, v in parsed.items() if k in KEYS}
    return current if len(current) >= 2 else parsed


def _latest(messages: Sequence[Message]) -> str:
    return max((files.time_key(m.send_at) for m in messages), default="")


def _first_cursor(paths: Paths, session: str, cursor: str, new: Sequence[Message]) -> str:
    """Before a session's first summary.json: write a cursor one second before its oldest new message (see
    the module docstring) and return it; ``cursor`` unchanged when there is one."""
    oldest = min((m.send_at for m in new if m.send_at), default=0)
    if cursor or oldest <= SECOND:
        return cursor
    floor = files.time_key(oldest - SECOND)
    files.write_cursor(paths, session, floor)
    return floor


def generate(
    paths: Paths,
    session: str,
    messages: Sequence[Message],
    *,
    gemini: Gemini | None,
    settings: Settings,
    deadline: float | None = None,
    now: int = 0,
) -> GenerateResult:
    """Run ``Generate`` on ``messages`` (all of the session's history.json, oldest first).

    Args:
        gemini: the Gemini caller, or None when there is no key (only the bootstrap can run).
        deadline: a ``time.monotonic()`` time after which no further chunk is started.
        now: the wall clock (Unix ns; 0: the system's), to tell a cursor in the future.

    Raises:
        NoApiKey: there is something to summarize but no key.
        GeminiError: a call failed or its answer was unusable (earlier chunks are saved).
    """
    raw = files.load_raw(paths, session)
    running = coerce(raw)
    cursor = files.read_cursor(paths, session)
    damaged = bool(cursor) and files.cursor_damaged(cursor, _latest(messages), now or time.time_ns())
    if damaged:  # a cursor in the future would stop every later run: read history.json from its start
        files.move_cursor_aside(paths, session, cursor)
        cursor = ""
    if not cursor and raw and not damaged:
        cursor = _latest(messages)
        files.save(paths, session, running)
        if cursor:
            files.write_cursor(paths, session, cursor)
        log.info("summary of session %s: cursor initialised to %s without a call", session, cursor or "-")
        return GenerateResult(session, bootstrapped=True, cursor=cursor)
    new = [m for m in messages if m.content.strip() and (not m.send_at or files.time_key(m.send_at) > cursor)]
    if not new:
        return GenerateResult(session, cursor=cursor)
    if gemini is None:
        raise NoApiKey(NO_KEY)
    if settings.redact_secrets:  # keys, tokens and passwords never leave the machine
        new = [replace(m, content=redact(m.content)) for m in new]
    timeout = float(settings.agent_send_timeout_seconds)
    pruned = prune(gemini, settings.decision_model, session, new, running, timeout)
    running = pruned.summary
    if not pruned.messages:
        _first_cursor(paths, session, cursor, new)
        cursor = max(cursor, _latest(new))
        files.save(paths, session, running)
        files.write_cursor(paths, session, cursor)
        log.info("summary of session %s: every new exchange was noise; cursor moved, no call", session)
        return GenerateResult(session, len(new), 0, 0, pruned.dropped, cursor=cursor)
    chunks = chunk(pruned.messages)
    for number, part in enumerate(chunks, 1):
        remaining = timeout if deadline is None else deadline - time.monotonic()
        if remaining <= 0:
            raise GeminiTimeout(f"summary of session {session}: out of time before chunk {number}")
        reply = gemini.generate_json(
            [settings.summary_model, FALLBACK_MODEL],
            system=prompts.summary_system(running, settings.reply_lang),
            prompt=prompts.summary_user(part),
            schema=SummaryOut,
            timeout_s=min(timeout, remaining),
            session=session,
            purpose="summary",
        )
        parsed = parse_reply(reply.text)
        if parsed is None:
            log.warning(
                "summary of session %s stopped at chunk %d of %d: the answer was not a valid summary",
                session,
                number,
                len(chunks),
            )
            raise GeminiError(
                f"summary of session {session}: chunk {number} of {len(chunks)} got no valid summary back"
            )
        running = coerce(_without_legacy(parsed))
        cursor = _first_cursor(paths, session, cursor, new)
        files.save(paths, session, running)
        latest = _latest(part) if number < len(chunks) else max(_latest(part), _latest(new))
        cursor = max(cursor, latest)
        if cursor:
            files.write_cursor(paths, session, cursor)
        log.info("summary of session %s: chunk %d of %d merged", session, number, len(chunks))
    return GenerateResult(session, len(new), len(pruned.messages), len(chunks), pruned.dropped, cursor=cursor)

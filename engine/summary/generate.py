"""``Generate``: fold a session's new messages into its rolling summary.

0. Load summary.json (missing or unreadable: ``{}``) and the cursor (:mod:`engine.summary.files`).
1. Bootstrap: a summary with no cursor only gets the cursor set to the end of history.json. No LLM call.
   A damaged cursor is moved aside instead, and every message is new.
2. The new messages: those past the cursor's position in history.json (by archive id, never by time).
3. With a decision model: drop noise exchanges and superseded entries; when nothing is left, save
   the pruned summary and move the cursor, with no summary call.
4. Chunks of up to 32,000 characters, never ending on a user message.
5. One call per chunk; the running summary sits in the system prompt, so the call merges. The reply is
   untrusted (:mod:`engine.summary.untrusted`: bounded, cleaned, secrets removed) before it is saved. After
   each chunk, summary.json and then the cursor are saved; the first failure stops the run (later chunks
   are not billed) and is raised; the next run starts again from the cursor.

Nothing is written before the first success, so a first run that fails is retried by the scheduler. A
session's first summary.json is preceded by a cursor saying "nothing summarized yet": a run killed between
that file and its cursor must not leave a summary without a cursor, which the next run would take for an
older one (step 1) and mark up to date, skipping what the run had not reached. So the cursor never points
past what summary.json reflects; at worst a chunk is merged twice.
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
from engine.summary.schema import coerce
from engine.summary.untrusted import MAX_DEPTH, MAX_REPLY_CHARS, readable

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


def _first_cursor(paths: Paths, session: str, cursor: files.Cursor | None) -> files.Cursor:
    """Before a session's first summary.json: write the cursor "nothing summarized yet" (see the module
    docstring) and return it; ``cursor`` unchanged when there is one."""
    if cursor is not None:
        return cursor
    files.write_cursor(paths, session, files.Cursor())
    return files.Cursor()


def _refused(reply: str | None) -> str:
    """Why a reply gave no summary, in words."""
    if reply and len(reply) > MAX_REPLY_CHARS:
        return f"the answer has {len(reply):,} characters, over the bound of {MAX_REPLY_CHARS:,}; none of it was used"
    if reply and readable(reply) is None:
        return f"the answer is JSON nested deeper than {MAX_DEPTH}; none of it was used"
    return "the answer was not a valid summary"


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
    now = now or time.time_ns()
    cursor, damaged = files.load_cursor(paths, session, now)
    end = len(messages) - 1
    if cursor is None and raw and not damaged:
        cursor = files.cursor_through(messages, end) if messages else files.Cursor()
        files.save(paths, session, running)
        files.write_cursor(paths, session, cursor)
        log.info(
            "summary of session %s: cursor initialised to %s without a call", session, cursor.display() or "-"
        )
        return GenerateResult(session, bootstrapped=True, cursor=cursor.display())
    positions = [i for i in files.unsummarized(messages, cursor, now) if messages[i].content.strip()]
    if not positions:
        if cursor is not None and cursor.legacy and messages:  # an older cursor: replace it by the new form
            cursor = files.cursor_through(messages, end)
            files.write_cursor(paths, session, cursor)
        return GenerateResult(session, cursor=cursor.display() if cursor else "")
    if gemini is None:
        raise NoApiKey(NO_KEY)
    new = [messages[i] for i in positions]
    if settings.redact_secrets:  # keys, tokens and passwords never leave the machine
        new = [replace(m, content=redact(m.content)) for m in new]
    where = {id(m): i for m, i in zip(new, positions, strict=True)}
    timeout = float(settings.agent_send_timeout_seconds)
    pruned = prune(gemini, settings.decision_model, session, new, running, timeout)
    running = pruned.summary
    if not pruned.messages:
        _first_cursor(paths, session, cursor)
        files.save(paths, session, running)
        cursor = files.cursor_through(messages, end)
        files.write_cursor(paths, session, cursor)
        log.info("summary of session %s: every new exchange was noise; cursor moved, no call", session)
        return GenerateResult(session, len(new), 0, 0, pruned.dropped, cursor=cursor.display())
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
            why = _refused(reply.text)
            log.warning(
                "summary of session %s stopped at chunk %d of %d: %s", session, number, len(chunks), why
            )
            raise GeminiError(f"summary of session {session}: chunk {number} of {len(chunks)}: {why}")
        running = coerce(parsed)
        cursor = _first_cursor(paths, session, cursor)
        files.save(paths, session, running)
        cursor = files.cursor_through(messages, where[id(part[-1])] if number < len(chunks) else end)
        files.write_cursor(paths, session, cursor)
        log.info("summary of session %s: chunk %d of %d merged", session, number, len(chunks))
    shown = cursor.display() if cursor else ""
    return GenerateResult(session, len(new), len(pruned.messages), len(chunks), pruned.dropped, cursor=shown)

"""The decision model's two jobs: noise pruning and the per-turn relevance filter.

Both fail safe. A failed, timed-out or unparsable check keeps everything: no exchange is dropped, no entry
removed, every summary entry stays in the turn context.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import GeminiError
from engine.llm.gemini import Gemini
from engine.messages import Message
from engine.summary import prompts
from engine.summary.chunks import EXCERPT_CHARS, exchange_numbers, exchanges, retry_candidates
from engine.summary.parse import parse_json_object
from engine.summary.replies import PruneOut, RelevanceOut
from engine.summary.schema import CurrentDiscussion, Summary

log = logging.getLogger("memtray.summary")

NOISE_THRESHOLD = 0.7
RELEVANCE_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class PruneResult:
    """What pruning left.

    Attributes:
        messages: the messages still to summarize (kept exchanges, in order).
        summary: the previous summary without the entries the new messages supersede.
        dropped: exchanges dropped as noise.
        superseded: summary entries removed.
        checked: whether the decision model answered usably.
    """

    messages: tuple[Message, ...]
    summary: Summary
    dropped: int = 0
    superseded: int = 0
    checked: bool = False


def _indices(values: Any, size: int) -> set[int]:
    """1-based numbers from the model, as 0-based indices; anything out of range or not a number ignored."""
    found = set()
    for value in values if isinstance(values, list) else []:
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and int(value) == value and 1 <= int(value) <= size:
            found.add(int(value) - 1)
    return found


def prune(
    gemini: Gemini | None,
    model: str,
    session: str,
    messages: Sequence[Message],
    previous: Summary,
    timeout_s: float,
) -> PruneResult:
    """Drop noise exchanges (confidence ≥ 0.7) and superseded summary entries before a summary run."""
    unchanged = PruneResult(tuple(messages), previous)
    if gemini is None or not model or not messages:
        return unchanged
    groups = exchanges(messages)
    prompt = prompts.prune_user(groups, previous, retry_candidates(groups), EXCERPT_CHARS)
    try:
        reply = gemini.generate_json(
            [model],
            system=prompts.PRUNE_SYSTEM,
            prompt=prompt,
            schema=PruneOut,
            timeout_s=timeout_s,
            session=session,
            purpose="prune",
        )
    except GeminiError as exc:
        log.info("noise check for session %s failed, keeping everything: %s", session, exc)
        return unchanged
    verdict = parse_json_object(reply.text)
    if verdict is None:
        log.warning("noise check for session %s gave no usable answer, keeping everything", session)
        return unchanged
    by_number = {n: i for i, n in enumerate(exchange_numbers(groups)) if n > 0}
    drop: set[int] = set()
    for item in verdict.get("noise") or []:
        if not isinstance(item, dict):
            continue
        number, confidence = item.get("exchange"), item.get("confidence")
        if isinstance(number, bool) or not isinstance(number, int | float) or int(number) != number:
            continue
        if not isinstance(confidence, int | float) or confidence < NOISE_THRESHOLD:
            continue
        if int(number) in by_number:
            drop.add(by_number[int(number)])
    superseded = verdict.get("superseded") if isinstance(verdict.get("superseded"), dict) else {}
    assert isinstance(superseded, dict)
    gone_decisions = _indices(superseded.get("key_decisions"), len(previous.key_decisions))
    gone_past = _indices(superseded.get("past_discussions"), len(previous.past_discussions))
    pruned = replace(
        previous,
        key_decisions=tuple(d for i, d in enumerate(previous.key_decisions) if i not in gone_decisions),
        past_discussions=tuple(p for i, p in enumerate(previous.past_discussions) if i not in gone_past),
    )
    kept = tuple(m for i, g in enumerate(groups) if i not in drop for m in g.messages)
    log.info(
        "noise check for session %s: %d of %d exchanges dropped, %d summary entries superseded",
        session,
        len(drop),
        len(groups),
        len(gone_decisions) + len(gone_past),
    )
    return PruneResult(kept, pruned, len(drop), len(gone_decisions) + len(gone_past), True)


@dataclass(frozen=True)
class Relevance:
    """The summary to show this turn (None: leave the block out) and whether the filter answered."""

    summary: Summary | None
    filtered: bool


def relevant(
    gemini: Gemini | None,
    model: str,
    session: str,
    request: str,
    summary: Summary,
    timeout_s: float = RELEVANCE_TIMEOUT_S,
) -> Relevance:
    """Keep the summary entries relevant to ``request`` (for the turn context); all of them on any failure."""
    if summary.is_empty:
        return Relevance(None, False)
    if gemini is None or not model or summary.entry_count() == 0:
        return Relevance(summary, False)
    try:
        reply = gemini.generate_json(
            [model],
            system=prompts.RELEVANCE_SYSTEM,
            prompt=prompts.relevance_user(request, summary),
            schema=RelevanceOut,
            timeout_s=timeout_s,
            session=session,
            purpose="relevance",
            attempts=1,
        )
    except GeminiError as exc:
        log.warning("relevance check for session %s failed, keeping the whole summary: %s", session, exc)
        return Relevance(summary, False)
    verdict = parse_json_object(reply.text)
    if verdict is None or not any(k in verdict for k in ("key_decisions", "past_discussions")):
        log.warning("relevance check for session %s gave no usable answer, keeping everything", session)
        return Relevance(summary, False)
    decisions = _indices(verdict.get("key_decisions"), len(summary.key_decisions))
    past = _indices(verdict.get("past_discussions"), len(summary.past_discussions))
    keep_current = verdict.get("current_discussion") is True and bool(summary.current_discussion.topic)
    filtered = Summary(
        tuple(d for i, d in enumerate(summary.key_decisions) if i in decisions),
        tuple(p for i, p in enumerate(summary.past_discussions) if i in past),
        summary.current_discussion if keep_current else CurrentDiscussion(),
    )
    return Relevance(None if filtered.is_empty else filtered, True)

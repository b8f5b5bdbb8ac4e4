"""The JSON shapes Gemini is asked to answer in (its response schemas), as pydantic models.

Answers are still parsed tolerantly and validated by hand: the schema makes a good answer likely, it does
not make a bad one impossible. The schema's limits are the ones every answer is held to
(:mod:`engine.summary.untrusted`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from engine.summary.untrusted import MAX_DECISION_CHARS, MAX_ENTRIES, MAX_FIELD_CHARS

_TEXT = Field(max_length=MAX_FIELD_CHARS)


class PastOut(BaseModel):
    topic: str = _TEXT
    description: str = _TEXT
    direction: str = _TEXT
    last_discussed: str = Field(
        description="YYYY-MM-DD HH:mm, local time of the latest mention", max_length=64
    )


class CurrentOut(BaseModel):
    topic: str = _TEXT
    description: str = _TEXT
    perspectives: str = _TEXT
    direction: str = _TEXT


class SummaryOut(BaseModel):
    """The rolling summary, as the summary model answers it."""

    key_decisions: list[Annotated[str, Field(max_length=MAX_DECISION_CHARS)]] = Field(
        description=f"at most {MAX_ENTRIES} standing rules, each starting 'Do: ' or 'Don't: '",
        max_length=MAX_ENTRIES,
    )
    past_discussions: list[PastOut] = Field(
        description=f"at most {MAX_ENTRIES} earlier topics", max_length=MAX_ENTRIES
    )
    current_discussion: CurrentOut


class NoiseOut(BaseModel):
    exchange: int
    confidence: float
    reason: str


class SupersededOut(BaseModel):
    key_decisions: list[int]
    past_discussions: list[int]


class PruneOut(BaseModel):
    """The decision model's noise verdict: noise exchanges and superseded entries."""

    noise: list[NoiseOut]
    superseded: SupersededOut


class RelevanceOut(BaseModel):
    """The decision model's relevance verdict: the entries relevant to the request."""

    key_decisions: list[int]
    past_discussions: list[int]
    current_discussion: bool

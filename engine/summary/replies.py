"""The JSON shapes Gemini is asked to answer in (its response schemas), as pydantic models.

Answers are still parsed tolerantly and validated by hand: the schema makes a good answer likely, it does
not make a bad one impossible.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class PastOut(BaseModel):
    topic: str
    description: str
    direction: str
    last_discussed: str = Field(description="YYYY-MM-DD HH:mm, local time of the latest mention")


class CurrentOut(BaseModel):
    topic: str
    description: str
    perspectives: str
    direction: str


class SummaryOut(BaseModel):
    """The rolling summary, as the summary model answers it."""

    key_decisions: list[str] = Field(
        description="at most 8 standing rules, each starting 'Do: ' or 'Don't: '"
    )
    past_discussions: list[PastOut] = Field(description="at most 8 earlier topics")
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

"""The rolling summary of a session and the turn context built on it (docs/architecture.md, *The tiers*).

Modules: ``schema`` (the shape, validation), ``untrusted`` (the bounds and cleaning every reply gets),
``parse`` (reading a model's reply), ``files`` (summary.json and the cursor), ``chunks`` (chunking, exchanges, transcripts), ``prompts`` and ``replies`` (what Gemini is
told and the JSON shapes it answers in), ``decide`` (noise pruning, relevance), ``generate`` (the
algorithm), ``service`` (``mem.summaries``), ``scheduler`` (every 15 minutes), ``context`` and
``hygiene`` (the turn context, ``strip_reply``).
"""

from __future__ import annotations

from engine.summary.context import ContextMessage, TurnContext
from engine.summary.generate import GenerateResult
from engine.summary.hygiene import strip_reply
from engine.summary.scheduler import EVERY_MINUTES, SummaryScheduler
from engine.summary.schema import CurrentDiscussion, PastDiscussion, Summary
from engine.summary.service import Summaries, SummaryStatus

__all__ = [
    "EVERY_MINUTES",
    "ContextMessage",
    "CurrentDiscussion",
    "GenerateResult",
    "PastDiscussion",
    "Summaries",
    "Summary",
    "SummaryScheduler",
    "SummaryStatus",
    "TurnContext",
    "strip_reply",
]

"""Error memory: tool errors and their fixes, remembered across sessions for 90 days.

::

    errors = mem.errors                               # an ErrorMemory, opened by Memory.open
    errors.remember("fetch_page", symptom="timeout after 30s", action="retry with timeout=90",
                    outcome="resolved", keywords=["timeout"])
    errors.search("fetch_page timed out")             # [ErrorRecord], newest first, hits refreshed
    errors.read("3fa2c1d0")                           # by a unique id prefix of >= 8 hex characters
    errors.records(); errors.forget("3fa2c1d0"); errors.purge()

Modules: ``records`` (the record, limits, classifier), ``schema`` (migration ``m003_error_memory`` and the
FTS tables), ``rows`` (SQL), ``vectors`` (embedding, similarity floor), ``lexical`` (keyword fallback),
``service`` (:class:`ErrorMemory`), ``hint`` (the automatic hint after a failed or empty tool call).
"""

from __future__ import annotations

from engine.errormemory.records import OUTCOMES, TTL_NS, ErrorRecord, classify
from engine.errormemory.service import ErrorMemory, Remembered

__all__ = ["OUTCOMES", "TTL_NS", "ErrorMemory", "ErrorRecord", "Remembered", "classify"]

"""The real-history question set (``tests/fixtures/realhistory``, ``bench/realhistory.py``) imports through
the engine's own importers, whole, and every question's answer is exactly one of its messages."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench import realhistory
from engine import Memory
from engine.embedders.hashing import HashEmbedder


def test_every_export_imports_and_every_answer_is_one_message(home: Path) -> None:
    with Memory.open(home, embedder=HashEmbedder()) as mem:
        assert realhistory.import_into(mem, realhistory.FOLDER) == 144
        sessions = Counter(s.id.split("-", 1)[0] for s in mem.sessions())
        assert sessions == {"gpt": 14, "claude": 13, "cc": 5, "codex": 5}
        asked = realhistory.questions(realhistory.FOLDER)
        answers = realhistory.answer_ids(mem, asked)  # raises unless each answer is in exactly one message
        assert len(asked) == 42 and len(answers) == len({q.answer for q in asked})
        assert {q.kind for q in asked} == set(realhistory.KINDS)

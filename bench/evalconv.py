"""Load LoCoMo-format conversations and import them into a memory by the evaluation protocol.

The data is never copied into the repository: its path is given on the command line. Each conversation
becomes one session; each turn one message, ``sendAt`` from its session's date-time (turns 30 s apart),
role ``user`` for ``speaker_a`` and ``assistant`` for ``speaker_b``, the speaker's name as ``sender``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from engine import Memory, Message

NS = 1_000_000_000


@dataclass(frozen=True)
class Question:
    text: str
    evidence: frozenset[str]
    category: int


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: list[tuple[str, Message]]  # (dia_id, message)
    questions: list[Question]


def _when(text: str) -> int:
    parsed = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return int(parsed.timestamp()) * NS


def load(path: Path) -> list[Conversation]:
    result = []
    for item in json.loads(path.read_text(encoding="utf-8")):
        conv = item["conversation"]
        a, b = conv["speaker_a"], conv["speaker_b"]
        numbers = sorted(
            int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)) and conv[k]
        )
        turns = []
        for n in numbers:
            start = _when(conv[f"session_{n}_date_time"])
            for i, turn in enumerate(conv[f"session_{n}"]):
                role = "user" if turn["speaker"] == a else "assistant"
                assert turn["speaker"] in (a, b)
                message = Message(role, turn["text"], start + i * 30 * NS, turn["speaker"])
                turns.append((turn["dia_id"], message))
        questions = [
            Question(q["question"], frozenset(q.get("evidence", [])), int(q["category"]))
            for q in item["qa"]
            if int(q["category"]) in (1, 2, 3, 4)
        ]
        result.append(Conversation(item["sample_id"], turns, questions))
    return result


def import_into(mem: Memory, conversation: Conversation) -> dict[str, int]:
    """Append the conversation as one session; return ``dia_id -> message id``."""
    stored = mem.append(conversation.sample_id, [m for _, m in conversation.turns])
    return {dia: m.id for (dia, _), m in zip(conversation.turns, stored, strict=True) if m.id is not None}

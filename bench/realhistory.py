"""The real-history question set: exports in the shapes ChatGPT, Claude.ai, Claude Code and Codex write,
and the questions an agent asks of them, imported into a memory through the engine's own importers.

The set lives in ``tests/fixtures/realhistory/`` (written for the project, nobody's real data; see its
README): ``chatgpt/conversations.json``, ``claude/conversations.json``, ``claude-code/projects/…``,
``codex/sessions/…`` and ``questions.json``, a list of ``{question, answer, kind}`` where ``answer`` is a
piece of text found in exactly one message (the answer message) and ``kind`` says how the question relates
to it: ``same-language``, ``cross-language`` (English about Dutch or Chinese, Chinese about English, …) or
``paraphrase`` (the same language, other words). Every question is searched in all sessions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine import Memory
from engine.importers import readers

FOLDER = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "realhistory"
SOURCES = (("chatgpt", "chatgpt/conversations.json"), ("claude", "claude/conversations.json"),
           ("claude-code", "claude-code"), ("codex", "codex"))  # fmt: skip
KINDS = ("same-language", "cross-language", "paraphrase")


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    kind: str


def is_history(path: Path) -> bool:
    """Whether ``path`` is a real-history set (a folder with ``questions.json``)."""
    return path.is_dir() and (path / "questions.json").is_file()


def questions(folder: Path) -> list[Question]:
    items = json.loads((folder / "questions.json").read_text(encoding="utf-8"))
    found = [Question(q["question"], q["answer"], q["kind"]) for q in items]
    unknown = {q.kind for q in found} - set(KINDS)
    if unknown:
        raise ValueError(f"unknown question kinds in {folder / 'questions.json'}: {sorted(unknown)}")
    return found


def import_into(mem: Memory, folder: Path) -> int:
    """Import every export of the set; return how many messages were stored."""
    stored = 0
    for name, relative in SOURCES:
        result = readers()[name](folder / relative, None)
        stored += mem.import_sessions(result.sessions).messages_added
    return stored


def answer_ids(mem: Memory, wanted: list[Question]) -> dict[str, int]:
    """Each question's answer text -> the id of the one message holding it (ValueError if not exactly one)."""
    with mem._store.read() as conn:
        rows = conn.execute("SELECT id, content FROM messages", ()).all()
    found: dict[str, int] = {}
    for q in wanted:
        ids = [int(i) for i, content in rows if q.answer in content]
        if len(ids) != 1:
            raise ValueError(f"{q.answer!r} is in {len(ids)} imported messages, not exactly one")
        found[q.answer] = ids[0]
    return found

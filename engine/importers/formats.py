"""The import formats by name, with what each reads, without loading the readers.

``memtray import``'s parser lists and checks formats from this table, so building it does not import the
six readers (:func:`engine.importers.readers` loads them when an import runs; a test checks that both name
the same formats).
"""

from __future__ import annotations

DESCRIPTIONS = {
    "agenvoy": "an Agenvoy home (~/.config/agenvoy: sessions/ and .store/history.db), its sessions/ folder, "
    "or one session folder",
    "chatgpt": "a ChatGPT data export: the .zip, its folder, or conversations.json (or conversations-000.json …)",
    "claude": "a Claude data export: the .zip, its folder, or conversations.json",
    "claude-code": "Claude Code transcripts: ~/.claude/projects, a project folder, or one .jsonl file",
    "codex": "Codex CLI rollouts: ~/.codex/sessions, a folder below it, or one rollout-….jsonl file",
    "jsonl": "one history.json record per line, into one session ('-' reads standard input)",
}
"""Every format ``memtray import`` knows, by name, with what it reads (the parser's help and choices)."""
INCREMENTAL = ("claude-code", "codex")
"""Formats that remember how far each file was read (see :mod:`engine.importers.importstate`)."""
FOLDERS = {"agenvoy": "~/.config/agenvoy", "claude-code": "~/.claude/projects", "codex": "~/.codex/sessions"}
"""Formats read from a folder, and the folder their program keeps (the agents' ones are the folders the
watch reads when none are set; the desktop's folder chooser starts there)."""

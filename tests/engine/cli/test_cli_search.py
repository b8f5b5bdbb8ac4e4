"""``memtray search --match/--scope`` through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.cli import main


def test_cli_search_matches(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Memory.open(home) as mem:
        mem.update_settings(embedder="hash")
    with Memory.open(home) as mem:
        mem.append("s1", [Message("user", "the zebra crossing", 1_700_000_000_000_000_000)])
        assert mem.wait_idle(timeout=60)  # the CLI's search ranks what is embedded; it does not embed
    for match in ("semantic", "hybrid", "keyword"):
        assert main(["--home", str(home), "search", "zebra crossing", "--match", match, "--json"]) == 0
        hits = json.loads(capsys.readouterr().out)
        assert hits[0]["content"] == "the zebra crossing"
        assert hits[0]["source"] == {"semantic": "semantic", "hybrid": "hybrid"}.get(match, "recent")
    assert main(["--home", str(home), "search", "zebra", "--scope", "recent"]) == 0
    assert "hybrid" in capsys.readouterr().out

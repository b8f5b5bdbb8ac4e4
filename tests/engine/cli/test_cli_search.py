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


def test_a_long_message_shows_the_part_around_the_words_and_its_length(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long = "filler words here. " * 400 + "The pgbouncer pool size is twenty." + " more filler text." * 400
    with Memory.open(home) as mem:
        mem.update_settings(embedder="hash")
        mem.append("s1", [Message("assistant", long, 1_700_000_000_000_000_000)])
        mem.append("s1", [Message("user", "a short pgbouncer note", 1_700_000_001_000_000_000)])
    assert main(["--home", str(home), "search", "pgbouncer", "--match", "keyword"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    shown = next(line for line in lines if "characters]" in line)
    assert "The pgbouncer pool size is twenty." in shown
    assert shown.endswith(f"… [{len(long):,} characters]") and len(shown) < 500
    assert any(line.endswith("a short pgbouncer note") for line in lines)  # a short one whole, as before
    assert main(["--home", str(home), "search", "pgbouncer", "--match", "keyword", "--json"]) == 0
    assert long in [hit["content"] for hit in json.loads(capsys.readouterr().out)]

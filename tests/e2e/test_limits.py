"""Limits: a message at the size bound (1,000,000 characters), a 1,000,000-message session, and a home on a
nearly full disk."""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.cli import main
from engine.errors import InvalidMessage, StorageError
from engine.messages import MAX_CONTENT_CHARS
from engine.sessions import archive
from tests.clirun import run_cli
from tests.diskfaults import small_disk

T0 = 1_700_000_000 * 1_000_000_000


def test_a_message_at_the_size_bound_is_stored_found_exported_and_left_alone_by_compaction(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    words = " ".join(f"w{n}" for n in range(200_000))  # distinct words
    head, tail = "start-of-giant ", " zyxwvhugeend"
    big = head + words[: MAX_CONTENT_CHARS - len(head) - len(tail)] + tail
    assert len(big) == MAX_CONTENT_CHARS
    with Memory.open(home) as mem:
        with pytest.raises(InvalidMessage, match="a message may have at most 1,000,000"):
            mem.append("cli-big", [Message("user", big + "!", T0)])  # one character over: refused
        assert not mem.paths.session_dir("cli-big").exists()
        for n in range(3):
            mem.append(
                "cli-big",
                [Message("user", f"small q{n}", T0 + n), Message("assistant", f"small a{n}", T0 + n)],
            )
        stored = mem.append(
            "cli-big", [Message("user", big, T0 + 10), Message("assistant", "that was long", T0 + 11)]
        )
        assert stored[0].id is not None
        history = mem.history("cli-big")
        assert big in [m.content for m in history]  # compaction left the giant message in history.json
        assert [h.message.id for h in mem.search("zyxwvhugeend", match="keyword")] == [stored[0].id]
        exported = io.StringIO()
        with contextlib.redirect_stdout(exported):
            assert main(["--home", str(home), "export", "--session", "cli-big", "--format", "jsonl"]) == 0
        assert big in [json.loads(line)["content"] for line in exported.getvalue().splitlines()]


BIG_SESSION = int(os.environ.get("MEMTRAY_BIG_SESSION", "100000"))
"""Messages in the big session: 100,000 by default (~10 s); MEMTRAY_BIG_SESSION=1000000 for the full
figure (about a minute on 2 idle cores, mostly FTS indexing)."""


@pytest.mark.slow
def test_a_million_message_session_stays_usable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    total, batch = BIG_SESSION, 50_000
    with Memory.open(home) as mem:
        started = time.perf_counter()
        with mem._store.write() as conn:
            for start in range(0, total - 200, batch):
                count = min(batch, total - 200 - start)
                archive.insert(
                    conn,
                    "cli-huge",
                    [
                        Message("user" if i % 2 == 0 else "assistant", f"m{i} note", T0 + i)
                        for i in range(start, start + count)
                    ],
                    T0,
                )
            last = int(conn.execute("SELECT MAX(id) FROM messages").scalar_one())
            archive.save_meta(conn, "cli-huge", archive.Meta(T0, last + 1, last))
        filled = time.perf_counter() - started
        # The last 200 through the facade: history.json holds them, the rest is archived.
        mem.append(
            "cli-huge",
            [
                Message("user" if i % 2 == 0 else "assistant", f"m{i} note", T0 + i)
                for i in range(total - 200, total)
            ],
        )
    timings = {}
    with Memory.open(home) as mem:
        for name, call in [
            ("window", lambda: mem.window("cli-huge")),
            ("search", lambda: mem.search(f"m{total - 1}", match="keyword")),
            ("search old", lambda: mem.search("m12345", match="keyword", session="cli-huge")),
            ("common word", lambda: mem.search("note", match="keyword", limit=10)),
            ("sessions", lambda: mem.sessions()),
            ("compact", lambda: mem.compact("cli-huge")),
            ("archive page", lambda: mem.archive_page("cli-huge", before_id=500_000)),
        ]:
            started = time.perf_counter()
            result = call()
            timings[name] = time.perf_counter() - started
            assert result is not None
        assert len(mem.window("cli-huge")) == mem.settings.max_history_messages
        assert mem.search("m12345", match="keyword")[0].message.content == "m12345 note"
        assert mem.sessions()[0].total_messages == total
    print(
        f"\n{total:,} messages archived in {filled:.1f}s; "
        + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in timings.items())
    )


def test_a_full_disk_fails_cleanly_and_the_user_is_told_in_one_line(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "4m") as disk:
        home = disk / "home"
        acked: list[str] = []
        failures = 0
        with Memory.open(home) as mem:
            for n in range(40):
                content = f"chunk {n} " + os.urandom(150_000).hex()  # 300 KB that does not compress
                try:
                    mem.append("cli-full", [Message("user", content, T0 + n)])
                except StorageError as exc:
                    assert "disk is full" in str(exc)
                    failures += 1
                    if failures >= 3:
                        break
                else:
                    acked.append(content)
            assert failures >= 1 and acked
            history = [m.content for m in mem.history("cli-full")]
            with mem._store.read() as conn:
                archived = [r[0] for r in conn.execute("SELECT content FROM messages ORDER BY id")]
        # Nothing half-written: what was acknowledged is everywhere, what failed is nowhere.
        assert history == acked
        assert archived == acked
        assert not list((home / ".store" / "tmp").glob("*.tmp"))
        json.loads((home / "sessions" / "cli-full" / "history.json").read_bytes())

        done = run_cli(
            home,
            "append",
            "--session",
            "cli-full",
            "--role",
            "user",
            "--content",
            "-",
            stdin="x" * MAX_CONTENT_CHARS,
        )
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1 and "disk is full" in done.stderr, done.stderr
        with Memory.open(home) as mem:
            assert [m.content for m in mem.history("cli-full")] == acked  # still intact after the failure

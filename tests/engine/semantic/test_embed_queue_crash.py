"""A process killed (SIGKILL) with messages still queued for embedding: the next open embeds them."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine import Memory
from engine.embedders.hashing import HashEmbedder

CHILD = textwrap.dedent(
    """
    import sys, threading
    from engine import Memory, Message
    from engine.embedders.hashing import HashEmbedder

    class Stuck(HashEmbedder):
        def encode_documents(self, texts):
            threading.Event().wait()  # never returns: the queue stays full

    mem = Memory.open(sys.argv[1], embedder=Stuck())
    mem.append("s1", [Message("user", f"message {i}", 1_700_000_000_000_000_000 + i) for i in range(25)])
    print("appended", flush=True)
    threading.Event().wait()
    """
)


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL is POSIX")
def test_queue_survives_sigkill(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = Path(__file__).resolve().parents[3]
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home)], stdout=subprocess.PIPE, text=True, cwd=root
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "appended"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    # Counted before a memory with a background embedder opens: its worker would start on the queue.
    with contextlib.closing(sqlite3.connect(home / ".store" / "history.db")) as db:
        assert db.execute("SELECT COUNT(*) FROM embed_queue").fetchone() == (25,)
        assert db.execute("SELECT COUNT(*) FROM vectors").fetchone() == (0,)
    with Memory.open(home, embedder=HashEmbedder()) as mem:
        assert mem.wait_idle(timeout=120)
        with mem._store.read() as conn:
            assert conn.execute("SELECT COUNT(*) FROM vectors").scalar_one() == 25
            assert conn.execute("SELECT COUNT(*) FROM embed_queue").scalar_one() == 0
        hits = mem.search("message 7", session="s1", match="semantic")
        assert "message 7" in [h.message.content for h in hits[:2]]

"""Concurrency with real processes: two CLI writers, an MCP server and the in-process engine on one home.

The CLI writers run ``memtray append`` and ``memtray import jsonl`` over and over, an agent drives
``memtray mcp`` (stdio, the ``mcp`` SDK's client) with ``save`` followed by ``search``
and ``list_sessions`` reads, and three threads of one :class:`Memory` (the tray app's engine, embedding in
the background) append to the same session, with history.json compacting all the time. Afterwards no
message is lost or doubled, the file and the archive agree, each writer's messages stay in its order,
every MCP read found what it looked for, and no writer ever saw "database is locked" (or any other
error), neither in its answers nor on its stderr.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

from mcp.client.session import ClientSession

from engine import Memory, Message
from tests.clirun import run_cli
from tests.e2e.test_mcp import call, run_client

SESSION = "shared"
CLI_APPENDS = 6
IMPORT_LINES = 300
MCP_MIN_ROUNDS = 20


def cli_writer(home: Path, name: str, folder: Path, errors: list[str]) -> None:
    """One CLI writer: appends, then an import, then appends again; every run must succeed silently."""
    jsonl = folder / f"{name}.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps(
                {"role": "user" if i % 2 == 0 else "assistant", "content": f"{name}-imp-{i} " + "i" * 200}
            )
            + "\n"
            for i in range(IMPORT_LINES)
        )
    )
    runs = [
        ["append", "--session", SESSION, "--role", "user", "--content", f"{name}-cli-{n} " + "c" * 300]
        for n in range(CLI_APPENDS)
    ]
    runs.insert(CLI_APPENDS // 2, ["import", "jsonl", str(jsonl), "--session", SESSION])
    for args in runs:
        done = run_cli(home, *args, timeout=300)
        if done.returncode != 0 or ("locked" in done.stderr or "busy" in done.stderr):
            errors.append(f"{name} {args[0]}: exit {done.returncode}: {done.stderr.strip()}")


def mcp_agent(
    home: Path,
    stop: threading.Event,
    errors: list[str],
    acked: Counter[str],
    guard: threading.Lock,
    reads: list[int],
) -> None:
    """An agent on ``memtray mcp``: per round, saves a pair, searches for it with ``search`` and
    lists the sessions; until ``stop`` is set, and at least MCP_MIN_ROUNDS rounds."""

    async def rounds(session: ClientSession) -> None:
        n = 0
        while not stop.is_set() or n < MCP_MIN_ROUNDS:
            pair = [
                {"role": "user", "content": f"mcp-{n}-q " + "m" * 200},
                {"role": "assistant", "content": f"mcp-{n}-a"},
            ]
            answer, failed = await call(session, "save", {"session": SESSION, "messages": pair})
            if failed or json.loads(answer)["saved"] != 2:
                errors.append(f"mcp append {n}: {answer}")
                return
            with guard:
                acked.update(m["content"] for m in pair)
            found, failed = await call(
                session, "search", {"session": SESSION, "query": f'"mcp-{n}-q"', "match": "keyword"}
            )
            if failed or f"mcp-{n}-q " not in found:
                errors.append(f"mcp search {n}: {found[:300]}")
                return
            listed, failed = await call(session, "list_sessions", {"limit": 100})
            if failed or SESSION not in [s["id"] for s in json.loads(listed)["sessions"]]:
                errors.append(f"mcp list_sessions {n}: {listed[:300]}")
                return
            reads.append(2)
            n += 1

    try:
        run_client(home, rounds)
    except Exception as exc:  # the server died or the protocol broke
        errors.append(f"mcp: {type(exc).__name__}: {exc}")


def test_two_cli_writers_an_mcp_server_and_engine_threads_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory.open(home) as mem:
        mem.update_settings(max_history_bytes=16_384)
    errors: list[str] = []
    clis = [
        threading.Thread(target=cli_writer, args=(home, name, tmp_path, errors)) for name in ("cliA", "cliB")
    ]
    acked: Counter[str] = Counter()
    guard = threading.Lock()
    stop = threading.Event()
    reads: list[int] = []
    agent = threading.Thread(target=mcp_agent, args=(home, stop, errors, acked, guard, reads))

    with Memory.open(home) as mem:

        def engine_writer(name: str) -> None:
            n = 0
            while not stop.is_set() or n < 20:
                pair = [
                    Message("user", f"{name}-{n}-q " + "q" * 200, 0),
                    Message("assistant", f"{name}-{n}-a", 0),
                ]
                try:
                    mem.append(SESSION, pair)
                except Exception as exc:  # StoreLocked would land here
                    errors.append(f"{name}: {type(exc).__name__}: {exc}")
                    return
                with guard:
                    acked.update(m.content for m in pair)
                n += 1

        threads = [threading.Thread(target=engine_writer, args=(f"thr{k}",)) for k in range(3)]
        for t in [agent, *clis, *threads]:
            t.start()
        for t in clis:
            t.join()
        stop.set()
        for t in [*threads, agent]:
            t.join()
        assert errors == []
        mcp_stderr = (tmp_path / "mcp-stderr.log").read_text()
        assert "locked" not in mcp_stderr and "Traceback" not in mcp_stderr, mcp_stderr

        history = [m.content for m in mem.history(SESSION)]
        cut = mem.compaction_cut(SESSION)
        with mem._store.read() as conn:
            rows = conn.execute(
                "SELECT id, content FROM messages WHERE session_id = ? ORDER BY id", (SESSION,)
            ).all()
    contents = [r[1] for r in rows]
    counts = Counter(contents)
    assert [c for c, k in counts.items() if k > 1] == []
    for content in acked:
        assert counts[content] == 1
    for name in ("cliA", "cliB"):
        assert sum(1 for c in contents if c.startswith(f"{name}-cli-")) == CLI_APPENDS
        assert sum(1 for c in contents if c.startswith(f"{name}-imp-")) == IMPORT_LINES
    for prefix in ("cliA-cli-", "cliB-cli-", "thr0-", "thr1-", "thr2-", "mcp-"):
        numbers = [
            int(c[len(prefix) :].split("-")[0].split(" ")[0]) for c in contents if c.startswith(prefix)
        ]
        assert numbers == sorted(numbers)  # each writer's messages stay in its order
    assert history == [r[1] for r in rows if r[0] >= cut]  # history.json is the archive after the cut
    expected = len(acked) + 2 * (CLI_APPENDS + IMPORT_LINES)
    assert len(contents) == expected
    from_mcp = sum(1 for c in contents if c.startswith("mcp-"))
    assert from_mcp >= 2 * MCP_MIN_ROUNDS
    print(
        f"\nconcurrency: {len(contents)} messages from 2 CLI writers, 3 engine threads and an MCP server "
        f"({from_mcp} of them, and {sum(reads)} MCP reads that found what they looked for), none lost or "
        "doubled"
    )

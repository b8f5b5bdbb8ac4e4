"""Damaged files: each is detected, reported in one line, and recovered where the data exists elsewhere."""

from __future__ import annotations

import contextlib
import io
import json
import random
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.cli import main
from engine.errors import CorruptStore
from engine.semantic import annoyindex
from engine.sessions import archive
from tests import clirun

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_700_000_000 * 1_000_000_000


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def fill(home: Path) -> dict[str, list[str]]:
    """Two sessions, one compacted; returns each session's history.json contents. No background embedder:
    its vectors would land between the messages' pages in another order at every run, and the damage below
    hits every third page of the file."""
    with Memory.open(home, background=False) as mem:
        mem.update_settings(max_history_bytes=8192)
        for n in range(30):
            mem.append(
                "cli-long",
                [
                    Message("user", f"long q{n} " + "x" * 300, T0 + 2 * n),
                    Message("assistant", f"long a{n}", T0 + 2 * n + 1),
                ],
            )
        mem.append(
            "cli-short", [Message("user", "short hello", T0), Message("assistant", "short reply", T0 + 1)]
        )
        assert mem.compaction_cut("cli-long") > 0
        return {s: [m.content for m in mem.history(s)] for s in ("cli-long", "cli-short")}


def archive_contents(mem: Memory, session: str) -> list[str]:
    with mem._store.read() as conn:
        return [
            r[0]
            for r in conn.execute("SELECT content FROM messages WHERE session_id = ? ORDER BY id", (session,))
        ]


def test_a_truncated_history_file_is_rebuilt_from_the_archive_and_kept_aside(tmp_path: Path) -> None:
    home = tmp_path / "home"
    hot = fill(home)
    path = home / "sessions" / "cli-long" / "history.json"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    code, out, err = run_cli("--home", str(home), "history", "--session", "cli-long", "--json")
    assert code == 0 and "moved aside" in err and "rebuilt history.json" in err  # told, in words
    assert [m["content"] for m in json.loads(out)] == hot["cli-long"]
    kept = list(path.parent.glob("history.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == data[: len(data) // 2]
    assert [r["content"] for r in json.loads(path.read_text())] == hot["cli-long"]


def test_a_truncated_summary_does_not_break_the_session_list(tmp_path: Path) -> None:
    home = tmp_path / "home"
    fill(home)
    summary = home / "sessions" / "cli-short" / "summary.json"
    summary.write_text('{"key_decisions": ["Do: be br')
    code, out, err = run_cli("--home", str(home), "sessions", "--json")
    assert code == 0 and err == ""
    assert {s["id"] for s in json.loads(out)} == {"cli-long", "cli-short"}
    with Memory.open(home) as mem:
        assert [m.content for m in mem.history("cli-short")] == ["short hello", "short reply"]
        mem.append("cli-short", [Message("user", "still works", T0 + 5)])
    assert summary.read_text() == '{"key_decisions": ["Do: be br'  # left for the summarizer to replace


def garbage_header(db: Path) -> None:
    with db.open("r+b") as f:
        f.write(b"this is not sqlite at all" * 4)


def truncated(db: Path) -> None:
    size = db.stat().st_size
    with db.open("r+b") as f:
        f.truncate(size // 2 + 100)


def garbage_pages(db: Path) -> None:
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    rng = random.Random(3)
    for number in range(2, len(data) // page, 3):  # every third page after the first
        start = number * page
        data[start : start + page] = rng.randbytes(page)
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [garbage_header, truncated, garbage_pages])
def test_a_damaged_database_is_reported_in_words_and_repaired(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    home = tmp_path / "home"
    hot = fill(home)
    db = home / ".store" / "history.db"
    assert not (home / ".store" / "history.db-wal").exists()  # closed cleanly: everything is in the file
    damage(db)
    for _ in range(2):  # the same answer every time: no crash loop, nothing changed
        code, out, err = run_cli("--home", str(home), "sessions")
        assert code == 1 and out == ""
        assert err.count("\n") == 1 and "damaged" in err and "memtray repair" in err
        assert "Traceback" not in err and "internal error" not in err
    with pytest.raises(CorruptStore):
        Memory.open(home)
    code, out, _ = run_cli("--home", str(home), "repair", "--check")
    assert code == 1 and "damaged" in out

    code, out, err = run_cli("--home", str(home), "repair")
    assert code == 0, err
    assert "moved aside" in out and "could not be recovered" in out
    assert len(list((home / ".store").glob("history.db.corrupt-*"))) >= 1
    with Memory.open(home) as mem:
        for session, contents in hot.items():
            assert [m.content for m in mem.history(session)] == contents
            archived = archive_contents(mem, session)
            assert archived[-len(contents) :] == contents  # history.json is the archive's newest part
            assert all(n == 1 for n in Counter(archived).values())
            assert mem.history(session)[0].id == mem.compaction_cut(session)
        assert mem.search("short", match="keyword", session="cli-short")
        mem.append("cli-long", [Message("user", "after the repair", T0 + 999)])
    code, out, _ = run_cli("--home", str(home), "repair")
    assert code == 0 and "fine" in out


def test_the_cli_says_the_database_is_damaged_in_one_line_from_a_real_process(tmp_path: Path) -> None:
    home = tmp_path / "home"
    fill(home)
    garbage_header(home / ".store" / "history.db")
    expected = [("sessions", 1), ("search", 1), ("repair", 0), ("sessions", 0)]
    for command, status in expected:
        args = [command, "hello", "--match", "keyword"] if command == "search" else [command]
        done = clirun.run_cli(home, *args)
        assert done.returncode == status, done.stderr
        assert "Traceback" not in done.stderr
        if status == 1:
            assert done.stderr.count("\n") == 1 and "memtray repair" in done.stderr
        if command == "repair":
            assert "moved aside" in done.stdout
        elif status == 0:
            assert "cli-long" in done.stdout


ANNOY_CLI = (
    "import sys; from engine.semantic import annoyindex, worker; annoyindex.EXACT_BELOW = 10; "
    "worker.JOIN_S = float(sys.argv.pop(1)); from engine.cli import main; sys.exit(main(sys.argv[1:]))"
)
"""``memtray`` in a real process, with Annoy from 10 archived vectors (the module constant the unit tests
lower too; the production threshold is 20,000) and the given wait for the embedder thread at close
(``worker.JOIN_S``, 10 s in production)."""


def garble_ann(ann: Path) -> None:
    data = bytearray(ann.read_bytes())
    rng = random.Random(9)
    for start in range(0, len(data), 4096):  # one random byte run in every page: nothing is left intact
        data[start : start + 64] = rng.randbytes(64)
    ann.write_bytes(bytes(data))


def truncate_ann(ann: Path) -> None:
    ann.write_bytes(ann.read_bytes()[:1000])


def indexed_session(home: Path, fillers: int) -> tuple[Path, Path, int]:
    """Session ``cli-idx``: "zebra crossing at the zoo" then ``fillers`` messages, compacted, embedded
    and indexed with Annoy (EXACT_BELOW lowered by the caller); (the .ann, its record, the cut)."""
    with Memory.open(home) as mem:
        mem.update_settings(max_history_bytes=4096)
        texts = ["zebra crossing at the zoo"] + [f"filler line {i} " + "x" * 120 for i in range(fillers)]
        roles = ("user", "assistant")
        mem.append("cli-idx", [Message(roles[i % 2], t, T0 + i) for i, t in enumerate(texts)])
        assert mem.wait_idle(timeout=120)
        cut = mem.compaction_cut("cli-idx")
        with mem._store.read() as conn:
            key = archive.known_key(conn, "cli-idx")
    assert key is not None and cut > 10
    ann, record = annoyindex.paths_for(home / ".store" / "vectors", key, "hash-512")
    built = annoyindex.read_record(record)
    assert built is not None and built.cut == cut and annoyindex.file_check(ann) == (built.size, built.check)
    return ann, record, cut


def search_process(home: Path, join_s: float) -> subprocess.CompletedProcess[str]:
    args = ["search", "zebra crossing zoo", "--session", "cli-idx", "--match", "semantic", "--json"]
    return subprocess.run(
        [sys.executable, "-c", ANNOY_CLI, str(join_s), "--home", str(home), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def index_intact(ann: Path, record: Path, cut: int) -> bool:
    found = annoyindex.read_record(record)
    return (
        found is not None
        and found.cut == cut
        and ann.exists()
        and annoyindex.file_check(ann) == (found.size, found.check)
    )


@pytest.mark.parametrize("damage", [truncate_ann, garble_ann])
def test_a_damaged_archive_index_is_rebuilt_by_a_real_search_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: Callable[[Path], None]
) -> None:
    home = tmp_path / "home"
    monkeypatch.setattr(annoyindex, "EXACT_BELOW", 10)
    ann, record, cut = indexed_session(home, 60)
    damage(ann)
    assert not index_intact(ann, record, cut)
    log = home / "logs" / "memtray.log"
    logged = log.stat().st_size if log.exists() else 0
    for run in range(2):  # the second run finds the rebuilt file: nothing to say, no crash loop
        done = search_process(home, 10.0)
        assert done.returncode == 0, done.stderr
        hits = json.loads(done.stdout)
        assert hits[0]["content"] == "zebra crossing at the zoo" and hits[0]["id"] < cut  # from the archive
        if run == 0:  # told in words, on one line
            assert done.stderr.count("\n") == 1, done.stderr
            assert "archive index of session cli-idx is damaged or stale: rebuilding it" in done.stderr
        else:
            assert done.stderr == ""
        assert index_intact(ann, record, cut)
    assert log.read_text(encoding="utf-8")[logged:].count("built the archive index") == 1
    assert list(ann.parent.glob("*.tmp-*")) == []


def test_a_search_finishes_the_index_rebuild_it_started_before_it_exits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild longer than the close's wait for the embedder thread (production: 10 s; a big archive)
    is not abandoned by the exit, so the next search is not told the index is damaged again. Here the
    wait is 10 ms and the rebuild of 2,000 vectors takes about ten times that."""
    home = tmp_path / "home"
    monkeypatch.setattr(annoyindex, "EXACT_BELOW", 10)
    ann, record, cut = indexed_session(home, 2000)
    truncate_ann(ann)
    first = search_process(home, 0.01)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)[0]["content"] == "zebra crossing at the zoo"
    assert "rebuilding it in the background" in first.stderr
    assert index_intact(ann, record, cut)
    second = search_process(home, 0.01)
    assert second.returncode == 0 and "rebuilding" not in second.stderr, second.stderr


def readable_one_by_one(db: Path, last_id: int) -> int:
    """How many messages a reader asking for each id alone gets back (strict UTF-8, like the salvage)."""
    source = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    source.text_factory = bytes
    found = 0
    try:
        for ident in range(1, last_id + 1):
            try:
                row = source.execute(
                    "SELECT session_id, role, content FROM messages WHERE id = ?", (ident,)
                ).fetchone()
                if row is not None:
                    [value.decode("utf-8") for value in row]
                    found += 1
            except (sqlite3.Error, UnicodeDecodeError):
                continue
    finally:
        source.close()
    return found


def test_repair_reads_back_the_archive_row_by_row_around_damaged_pages(tmp_path: Path) -> None:
    """Ten small corruptions (32 bytes each, in ten of the messages' pages): the repair reads back every
    message a reader can still get one by one, not only those before the first damaged page, and says how
    many of how many."""
    home = tmp_path / "home"
    with Memory.open(home, background=False) as mem:
        mem.update_settings(max_history_bytes=8192)
        for n in range(240):  # 480 messages, nearly all compacted out of history.json
            mem.append(
                "cli-long",
                [
                    Message("user", f"long q{n} " + "x" * 300, T0 + 2 * n),
                    Message("assistant", f"long a{n}", T0 + 2 * n + 1),
                ],
            )
        mem.errors.remember("git", "push rejected", "pull first", "resolved")
    db = home / ".store" / "history.db"
    source = sqlite3.connect(db)
    page = int(source.execute("PRAGMA page_size").fetchone()[0])
    leaves = [
        int(r[0])
        for r in source.execute(
            "SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY pageno"
        )
    ]
    source.close()
    assert len(leaves) > 20
    data = bytearray(db.read_bytes())
    rng = random.Random(14)
    for number in rng.sample(leaves[1:-1], 10):  # pages numbered from 1; the header page is spared
        start = (number - 1) * page + rng.randrange(page // 2, page - 32)
        data[start : start + 32] = rng.randbytes(32)
    db.write_bytes(bytes(data))
    one_by_one = readable_one_by_one(db, 480)
    assert 400 <= one_by_one < 480

    code, out, err = run_cli("--home", str(home), "repair")
    assert code == 0, err
    with Memory.open(home, background=False) as mem:
        archived = archive_contents(mem, "cli-long")
        assert mem.errors.count() == 1  # the error memory came back too
    salvaged = int(out.split("rebuilt: ")[1].split(" of ")[0])
    assert salvaged >= one_by_one, out  # every message that still reads, read
    assert "of 480 archived messages" in out, out
    assert f"{480 - salvaged} archived messages were on damaged pages" in out, out
    assert len(archived) >= one_by_one and len(set(archived)) == len(archived)


def test_garbled_text_that_passes_the_quick_check_is_damage_too(tmp_path: Path) -> None:
    """A cell whose text is no longer UTF-8 passes ``PRAGMA quick_check``: reading it fails. The CLI says
    the database is damaged (pointing to repair), and repair finds it and reads back everything else."""
    home = tmp_path / "home"
    hot = fill(home)
    db = home / ".store" / "history.db"
    source = sqlite3.connect(db)
    page = int(source.execute("PRAGMA page_size").fetchone()[0])
    pages = {int(r[0]) for r in source.execute("SELECT pageno FROM dbstat WHERE name = 'messages'")}
    source.close()
    data = bytearray(db.read_bytes())
    at = data.find(b"long q3 xxxx")
    while at >= 0 and at // page + 1 not in pages:  # the row itself, not a copy in the context index
        at = data.find(b"long q3 xxxx", at + 1)
    assert at > 0
    data[at + 8] = 0xFF  # not UTF-8
    db.write_bytes(bytes(data))
    code, out, err = run_cli("--home", str(home), "export", "--session", "cli-long", "--format", "jsonl")
    assert code == 1 and err.count("\n") == 1 and "memtray repair" in err, err
    code, out, _ = run_cli("--home", str(home), "repair", "--check")
    assert code == 1 and "garbled" in out
    code, out, err = run_cli("--home", str(home), "repair")
    assert code == 0, err
    assert "rebuilt: 61 of 62 archived messages" in out, out  # the garbled one is left out
    with Memory.open(home) as mem:
        assert [m.content for m in mem.history("cli-long")] == hot["cli-long"]
        assert "long q3 " + "x" * 300 not in archive_contents(mem, "cli-long")


def test_a_damaged_schema_entry_does_not_stop_the_salvage(tmp_path: Path) -> None:
    """A garbled index definition makes every statement fail ("malformed database schema"); the
    salvage reads the tables all the same."""
    home = tmp_path / "home"
    fill(home)
    db = home / ".store" / "history.db"
    data = bytearray(db.read_bytes())
    at = data.find(b"CREATE INDEX ix_vectors_session")
    assert at > 0
    data[at + 7 : at + 12] = b"Zq#!x"  # "CREATE Zq#!x ix_vectors_session ...": not SQL
    db.write_bytes(bytes(data))
    code, out, err = run_cli("--home", str(home), "sessions")
    assert code == 1 and "malformed database schema" in err and "memtray repair" in err, err
    code, out, err = run_cli("--home", str(home), "repair")
    assert code == 0, err
    assert "rebuilt: 62 of 62 archived messages" in out and "every archived message was read back" in out, out


@pytest.mark.parametrize("damage", [garbage_header, truncated])
def test_repair_keeps_blank_messages_as_written(tmp_path: Path, damage: Callable[[Path], None]) -> None:
    """A message of spaces or an empty one is stored like any other, so a repair gives it back too."""
    home = tmp_path / "home"
    blanks = [Message("user", "   \n\t", T0), Message("assistant", "", T0 + 1), Message("user", "x", T0 + 2)]
    with Memory.open(home) as mem:
        mem.append("blanks", blanks)
        assert [m.content for m in mem.history("blanks")] == ["   \n\t", "", "x"]
    damage(home / ".store" / "history.db")
    code, _out, err = run_cli("--home", str(home), "repair")
    assert code == 0, err
    with Memory.open(home) as mem:
        assert [m.content for m in mem.history("blanks")] == ["   \n\t", "", "x"]
        assert archive_contents(mem, "blanks") == ["   \n\t", "", "x"]


def test_a_schema_entry_whose_error_message_is_garbled_is_reported_as_damage(tmp_path: Path) -> None:
    """A damaged schema entry whose name is no longer UTF-8: SQLite's message quotes the name, so Python
    raises UnicodeDecodeError in place of the error. Every command still says "damaged" in one line, and
    repair rebuilds the database."""
    home = tmp_path / "home"
    hot = fill(home)
    db = home / ".store" / "history.db"
    data = bytearray(db.read_bytes())
    sql = data.index(b"CREATE TABLE messages_cjk")
    data[sql : sql + 12] = b"CREATE TABLX"  # the entry no longer parses...
    for _ in range(2):  # ...and its name and table name are garbled
        at = data.rindex(b"messages_cjk", 0, sql)
        data[at : at + 3] = b"\xe8\xe8\xe8"
        sql = at
    db.write_bytes(bytes(data))
    for argv in (("sessions",), ("history", "--session", "cli-short"), ("repair", "--check")):
        code, out, err = run_cli("--home", str(home), *argv)
        assert code == 1 and "damaged" in out + err and "internal error" not in err, (argv, out, err)
    code, out, err = run_cli("--home", str(home), "repair")
    assert code == 0 and "moved aside" in out, (out, err)
    with Memory.open(home) as mem:
        assert [m.content for m in mem.history("cli-short")] == hot["cli-short"]

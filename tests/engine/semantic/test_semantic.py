"""Semantic and hybrid search through ``Memory``: the queue, the recent tier, the archive index."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Message
from engine.embedders import Vectors
from engine.embedders.hashing import HashEmbedder
from engine.errors import InvalidInput
from engine.semantic import annoyindex, passages, rows
from tests.engine.conftest import FakeClock

NS = 1_000_000_000
T0 = 1_700_000_000 * NS


def _messages(texts: list[str], start: int = T0, sender: str = "") -> list[Message]:
    roles = ("user", "assistant")
    return [Message(roles[i % 2], t, start + i * NS, sender) for i, t in enumerate(texts)]


class CountingEmbedder(HashEmbedder):
    """A hash embedder that counts the texts it embeds."""

    def __init__(self, dim: int = 512) -> None:
        super().__init__(dim)
        self.embedded: list[str] = []

    def encode_documents(self, texts: list[str]) -> Vectors:
        self.embedded.extend(texts)
        return super().encode_documents(texts)


def _vector_count(mem: Memory, embedder_id: str | None = None) -> int:
    with mem._store.read() as conn:
        sql = "SELECT COUNT(*) FROM vectors" + (" WHERE embedder = ?" if embedder_id else "")
        return int(conn.execute(sql, (embedder_id,) if embedder_id else ()).scalar_one())


def test_append_queues_and_worker_embeds(memory: Memory) -> None:
    memory.append("s1", _messages(["the cat sat on the mat", "dogs bark at night"], sender="Ann"))
    assert memory.wait_idle(timeout=60)
    assert _vector_count(memory) == 2
    with memory._store.read() as conn:
        assert rows.queued(conn) == 0
        texts = [r[0] for r in conn.execute("SELECT text_hash FROM vectors ORDER BY message_id")]
    assert texts[0] == passages.text_hash("Ann: the cat sat on the mat")
    expected = (
        "Ann: the cat sat on the mat\nAnn: dogs bark at night"
        if rows.PREVIOUS_TURN
        else "Ann: dogs bark at night"
    )
    assert texts[1] == passages.text_hash(expected)


def test_semantic_and_hybrid_sources(memory: Memory) -> None:
    memory.append("s1", _messages(["the cat sat on the mat", "dogs bark at night", "rain in spain"]))
    memory.wait_idle(timeout=60)
    hits = memory.search("cat on a mat", session="s1", match="semantic")
    assert hits[0].message.content == "the cat sat on the mat"
    assert {h.source for h in hits} == {"semantic"}
    hybrid = memory.search("dogs barking", session="s1", match="hybrid", limit=2)
    assert "dogs bark at night" in [h.message.content for h in hybrid]
    assert {h.source for h in hybrid} == {"hybrid"}
    assert len(hybrid) == 2


def test_cross_session_search(memory: Memory) -> None:
    memory.append("a", _messages(["apples and pears", "a sandwich for lunch"]))
    memory.append("b", _messages(["submarine sandwiches"]))
    memory.wait_idle(timeout=60)
    hits = memory.search("submarine sandwich", session=None, match="semantic", limit=3)
    assert hits[0].message.session == "b"
    assert [h.message.content for h in hits] == [
        "submarine sandwiches",
        "a sandwich for lunch",
    ]  # not the pears


def test_time_range_filters_semantic(memory: Memory, clock: FakeClock) -> None:
    old = T0 - 10 * 24 * 3600 * NS
    memory.append("s1", [Message("user", "old cat story", old), Message("user", "new cat story", T0)])
    memory.wait_idle(timeout=60)
    clock.now = T0 + NS
    hits = memory.search("cat story", session="s1", match="semantic", time_range="1d")
    assert [h.message.content for h in hits] == ["new cat story"]


def test_unchanged_text_is_never_embedded_again(
    home: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rows, "PREVIOUS_TURN", False)
    embedder = CountingEmbedder()
    with Memory.open(home, clock=clock, embedder=embedder) as mem:
        mem.append("s1", _messages(["same words", "same words", "other words"]))
        mem.wait_idle(timeout=60)
        assert sorted(embedder.embedded) == ["other words", "same words"]
        with mem._store.write() as conn:  # queue everything again: nothing changed, nothing embedded
            conn.execute(
                "INSERT INTO embed_queue(message_id, session_id, queued_at) SELECT id, session_id, 0 FROM messages"
            )
        assert mem.wait_idle(timeout=60)
        assert len(embedder.embedded) == 2
    again = CountingEmbedder()
    with Memory.open(home, clock=clock, embedder=again) as mem:
        mem.wait_idle(timeout=60)
    assert again.embedded == []


def test_switching_embedder_reembeds_with_progress(memory: Memory) -> None:
    memory.append("s1", _messages([f"message number {i}" for i in range(40)]))
    memory.wait_idle(timeout=60)
    progress: list[tuple[int, int]] = []
    assert memory.semantic is not None
    memory.semantic.set_progress(lambda done, total: progress.append((done, total)))
    small = HashEmbedder(dim=64)
    memory.semantic.switch_embedder(embedder=small)
    assert memory.wait_idle(timeout=60)
    assert _vector_count(memory, small.id) == 40
    assert _vector_count(memory) == 40  # the old embedder's vectors are gone
    assert progress[-1] == (40, 40)
    assert memory.semantic.choice is not None and memory.semantic.choice.embedder_id == small.id
    top = memory.search("message number 7", session="s1", match="semantic", limit=2)
    assert "message number 7" in [h.message.content for h in top]


def test_reset_deletes_vectors_and_queue(memory: Memory) -> None:
    memory.append("s1", _messages(["one", "two"]))
    memory.append("s2", _messages(["three"]))
    memory.wait_idle(timeout=60)
    memory.reset("s1")
    assert _vector_count(memory) == 1
    memory.remove("s2")
    assert _vector_count(memory) == 0


def test_semantic_scope_recent_excludes_archive(home: Path, clock: FakeClock) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=4096)
        texts = ["zebra crossing at the zoo"] + [f"filler line {i} " + "x" * 120 for i in range(60)]
        mem.append("s1", _messages(texts))
        mem.wait_idle(timeout=60)
        assert mem.compaction_cut("s1") > 1
        everything = mem.search("zebra crossing zoo", session="s1", match="semantic", scope="all")
        assert everything[0].message.content == "zebra crossing at the zoo"
        recent = mem.search("zebra crossing zoo", session="s1", match="semantic", scope="recent")
        assert all(h.message.content != "zebra crossing at the zoo" for h in recent)


@pytest.fixture
def small_annoy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Use Annoy for archives of 10 vectors and up, so tests stay small."""
    monkeypatch.setattr(annoyindex, "EXACT_BELOW", 10)


def _compacted(mem: Memory) -> None:
    mem.update_settings(max_history_bytes=4096)
    texts = ["zebra crossing at the zoo"] + [f"filler line {i} " + "x" * 120 for i in range(60)]
    mem.append("s1", _messages(texts))
    assert mem.wait_idle(timeout=60)


def test_index_rebuilt_after_compaction_finds_archived(
    home: Path, clock: FakeClock, small_annoy: None
) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        _compacted(mem)
        ann = list((home / ".store" / "vectors").glob("*.ann"))
        assert len(ann) == 1
        hits = mem.search("zebra crossing zoo", session="s1", match="semantic", scope="all")
        assert hits[0].message.content == "zebra crossing at the zoo"
        first_cut = mem.compaction_cut("s1")
        later = ["walrus ballet recital"] + [f"more filler {i} " + "y" * 120 for i in range(40)]
        mem.append("s1", _messages(later, start=T0 + 100 * NS))
        mem.wait_idle(timeout=60)
        assert mem.compaction_cut("s1") > first_cut
        record = annoyindex.read_record(ann[0].with_suffix(".json"))
        assert record is not None and record.cut == mem.compaction_cut("s1")
        hits = mem.search("walrus ballet recital", session="s1", match="semantic", scope="all")
        assert hits[0].message.content == "walrus ballet recital"
        assert (hits[0].message.id or 0) < mem.compaction_cut("s1")


@pytest.mark.parametrize("damage", ["delete", "corrupt", "truncate"])
def test_missing_or_corrupt_index_is_rebuilt(
    home: Path, clock: FakeClock, small_annoy: None, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        _compacted(mem)
    (ann,) = (home / ".store" / "vectors").glob("*.ann")
    if damage == "delete":
        ann.unlink()
    elif damage == "corrupt":
        data = bytearray(ann.read_bytes())
        data[:4096] = b"\xff" * 4096
        ann.write_bytes(bytes(data))
    else:
        ann.write_bytes(ann.read_bytes()[:1000])
    with (
        caplog.at_level(logging.WARNING, logger="memtray.semantic"),
        Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem,
    ):
        hits = mem.search("zebra crossing zoo", session="s1", match="semantic", scope="all")
        assert hits[0].message.content == "zebra crossing at the zoo"
        assert mem.wait_idle(timeout=60)
        assert ann.exists()
    assert "rebuilding it in the background" in caplog.text
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        caplog.clear()
        hits = mem.search("zebra crossing zoo", session="s1", match="semantic", scope="all")
        assert hits[0].message.content == "zebra crossing at the zoo"
        assert "rebuilding" not in caplog.text


def test_remove_deletes_index_files(home: Path, clock: FakeClock, small_annoy: None) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        _compacted(mem)
        assert list((home / ".store" / "vectors").glob("*.ann"))
        mem.remove("s1")
        assert not list((home / ".store" / "vectors").glob("*"))


def test_semantic_errors(memory: Memory) -> None:
    with pytest.raises(InvalidInput):
        memory.search("x", match="fuzzy")


def test_annoy_recall_against_exact(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    dim, n = 384, 4000
    centres = rng.normal(size=(80, dim)).astype(np.float32)
    data = centres[rng.integers(0, 80, n)] + 0.6 * rng.normal(size=(n, dim)).astype(np.float32)
    data /= np.linalg.norm(data, axis=1, keepdims=True)
    ids = np.arange(1, n + 1, dtype=np.int64) * 3
    stats = rows.Stats(n, int(ids.max()), int(ids.sum()))
    ann, record = tmp_path / "x.ann", tmp_path / "x.json"
    annoyindex.build(ann, record, ids, data, embedder="t", cut=10**9, stats=stats)
    index = annoyindex.load(ann, record, ids)
    assert index is not None
    from engine.semantic import exact

    queries = centres[rng.integers(0, 80, 100)] + 0.6 * rng.normal(size=(100, dim)).astype(np.float32)
    recall = []
    for q in queries / np.linalg.norm(queries, axis=1, keepdims=True):
        found, _ = index.search(q, 10)
        order, _ = exact.top_k(data, q, 10)
        recall.append(len(set(found.tolist()) & set(ids[order].tolist())) / 10)
    index.unload()
    assert float(np.mean(recall)) >= 0.95


def test_a_process_that_does_not_embed_queues_and_the_next_one_embeds(tmp_path: Path) -> None:
    home = tmp_path / "h"
    with Memory.open(home, embedder=HashEmbedder(), background=False) as cli:
        cli.append("cli-q", [Message("user", f"queued message {i}") for i in range(5)])
        assert cli.wait_idle(0)  # nothing runs here
        with cli._store.read() as conn:
            assert conn.execute("SELECT COUNT(*) FROM embed_queue").scalar_one() == 5
        assert _vector_count(cli) == 0
    with Memory.open(home, embedder=HashEmbedder()) as app:
        assert app.wait_idle(60)
        assert _vector_count(app) == 5


def test_the_environment_overrides_the_embedder_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTRAY_EMBEDDER", "hash")
    with Memory.open(tmp_path / "h") as mem:
        mem.append("cli-e", [Message("user", "hello")])
        assert mem.wait_idle(60)
        assert mem.semantic.choice is not None and mem.semantic.choice.name == "hash"


def test_index_files_half_written_by_a_dead_process_are_removed(tmp_path: Path) -> None:
    home = tmp_path / "h"
    Memory.open(home, embedder=HashEmbedder(), background=False).close()
    vectors = home / ".store" / "vectors"
    vectors.mkdir(parents=True, exist_ok=True)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # reaped: its pid names no process now
    dead_pid = ended.pid
    stale = vectors / "s0000001.hash-512.ann.tmp-4242"
    dead = vectors / f"s0000003.hash-512.json.tmp-{dead_pid}"
    live = vectors / f"s0000002.hash-512.ann.tmp-{os.getpid()}"
    for path in (stale, dead, live):
        path.write_bytes(b"x" * 1024)
    old = stale.stat().st_mtime - 3600
    os.utime(stale, (old, old))
    Memory.open(home, embedder=HashEmbedder(), background=False).close()
    assert not stale.exists()  # old enough, whoever wrote it
    assert live.exists()  # a live build's file (recent) is left alone
    assert dead.exists() == (os.name != "posix")  # recent, but its process is gone (checked on POSIX)


def test_a_pending_rebuild_is_reported_once_not_at_every_search(
    home: Path, clock: FakeClock, small_annoy: None, caplog: pytest.LogCaptureFixture
) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        _compacted(mem)
    (ann,) = (home / ".store" / "vectors").glob("*.ann")
    ann.unlink()
    release = threading.Event()
    with (
        caplog.at_level(logging.WARNING, logger="memtray.semantic"),
        Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem,
    ):
        assert mem.semantic is not None
        build = mem.semantic._build_index

        def held_build(session: str) -> None:
            release.wait(timeout=60)  # the rebuild stays pending while the searches run
            build(session)

        mem.semantic._build_index = held_build  # type: ignore[method-assign]
        for _ in range(3):
            hits = mem.search("zebra crossing zoo", session="s1", match="semantic", scope="all")
            assert hits[0].message.content == "zebra crossing at the zoo"
        release.set()
        assert mem.wait_idle(timeout=60)
        assert ann.exists()
    assert caplog.text.count("rebuilding it in the background") == 1


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_index_files_are_owner_only_whatever_the_umask(
    home: Path, clock: FakeClock, small_annoy: None
) -> None:
    old = os.umask(0o022)
    try:
        with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
            _compacted(mem)
    finally:
        os.umask(old)
    files = list((home / ".store" / "vectors").iterdir())
    assert {p.suffix for p in files} == {".ann", ".json"}
    assert {oct(p.stat().st_mode & 0o777) for p in files} == {oct(0o600)}


def test_forgetting_an_archived_message_drops_the_index_and_rebuilds_it_without_it(
    home: Path, clock: FakeClock, small_annoy: None
) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        _compacted(mem)
        (ann,) = (home / ".store" / "vectors").glob("*.ann")
        before = annoyindex.read_record(ann.with_suffix(".json"))
        zebra = mem.search("zebra crossing zoo", session="s1", match="semantic", scope="all")[0].message
        assert zebra.id is not None and zebra.id < mem.compaction_cut("s1")
        mem.forget_message(zebra.id)
        assert mem.wait_idle(timeout=60)
        after = annoyindex.read_record(ann.with_suffix(".json"))
        assert before is not None and after is not None and after.count == before.count - 1
        hits = mem.search("zebra crossing zoo", session="s1", match="semantic", scope="all")
        assert zebra.id not in [h.message.id for h in hits]

"""The cross-session vector index (``engine.semantic.crossindex``) on a real SQLite home: its ranking against
the exact float32 one, filters applied before the top k, and how it follows appends, forgets, resets,
removals, an embedder switch and another process's writes."""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Message, MessageFilter
from engine.embedders.hashing import HashEmbedder
from engine.search import context, fulltext
from engine.semantic import columns, crossindex, exact, rows
from engine.semantic.columns import Ids
from engine.semantic.crossindex import CrossIndex
from engine.semantic.tier import TOP
from engine.storage.sql import Connection
from tests.engine.conftest import FakeClock

NS = 1_000_000_000
T0 = 1_690_000_000 * NS
VOCABULARY = (
    "lighthouse museum harbor ferry pottery violin glacier orchard bakery lantern canyon meadow "
    "falcon marble copper saddle thunder willow pepper quartz velvet hammock compass tundra mango "
    "oyster puzzle rocket saffron tiger umbrella walnut yacht zephyr anchor biscuit cactus dolphin "
    "ember"
)
WORDS = tuple(VOCABULARY.split())
QUERIES = ["lighthouse ferry harbor", "violin and pepper", "glacier canyon tundra", "mango oyster puzzle"]


NEEDLE_WORDS = ("lighthouse", "ferry", "harbor")


def _fill(mem: Memory, sessions: int = 6, per: int = 40, words: tuple[str, ...] = WORDS) -> None:
    """``sessions`` sessions of ``per`` messages of five of ``words`` each (every other one by ann)."""
    rng = random.Random(7)
    for s in range(sessions):
        texts = [" ".join(rng.sample(words, 5)) for _ in range(per)]
        mem.append(
            f"s{s}",
            [
                Message(
                    "user" if i % 2 == 0 else "assistant", t, T0 + (s * per + i) * NS, "ann" if i % 2 else ""
                )
                for i, t in enumerate(texts)
            ],
        )
    assert mem.wait_idle(timeout=60)


def _exact(mem: Memory, query: str, k: int) -> list[tuple[int, float]]:
    """The old ranking over every session: each session's float32 matrix from SQLite, exactly."""
    embedder = mem.semantic.embedder()
    q = embedder.encode_query(query)
    found: list[tuple[int, float]] = []
    with mem._store.read() as conn:
        for session in rows.sessions(conn, embedder.id):
            ids, matrix = rows.load(conn, embedder.id, session, 0, TOP, embedder.dim)
            found += zip(ids.tolist(), (matrix @ q).tolist(), strict=True)
    found.sort(key=lambda p: (p[1], p[0]), reverse=True)
    return found[:k]


def _same(found: list[tuple[int, float]], expected: list[tuple[int, float]]) -> None:
    """The same ranking, but for messages whose scores differ by less than float32 sums do."""
    assert len(found) == len(expected)
    assert np.allclose([s for _, s in found], [s for _, s in expected], atol=1e-5)
    for (a, score_a), (b, score_b) in zip(found, expected, strict=True):
        assert a == b or abs(score_a - score_b) <= 1e-5
    last = expected[-1][1]
    assert {i for i, s in expected if s > last + 1e-5} <= set(_ids(found))


def _index(mem: Memory) -> CrossIndex:
    index = mem.semantic._cross
    assert index is not None
    return index


def _ids(pairs: list[tuple[int, float]]) -> list[int]:
    return [i for i, _ in pairs]


@pytest.mark.parametrize("k", [1, 10, 50])
def test_the_ranking_over_all_sessions_is_the_exact_float32_one(memory: Memory, k: int) -> None:
    _fill(memory)
    for query in QUERIES:
        _same(memory.semantic.search_vectors(query, session=None, scope="all", k=k), _exact(memory, query, k))


def test_above_the_memory_bound_it_ranks_session_by_session_alike(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _fill(memory)
    indexed = {q: memory.semantic.search_vectors(q, session=None, scope="all", k=10) for q in QUERIES}
    monkeypatch.setattr(crossindex, "MAX_BYTES", 1000)
    memory.semantic._cross = None
    with caplog.at_level(logging.INFO, logger="memtray.semantic"):
        for query in QUERIES:
            _same(memory.semantic.search_vectors(query, session=None, scope="all", k=10), indexed[query])
            where = MessageFilter(role="user")
            filtered = memory.semantic.search_vectors(query, session=None, scope="all", k=5, where=where)
            assert len(filtered) == 5
    assert _index(memory).over and _index(memory).rows == 0
    assert sum("rank session by session" in r.getMessage() for r in caplog.records) == 1


def test_int8_chooses_the_candidates_that_float32_ranks_best(memory: Memory) -> None:
    _fill(memory)
    embedder = memory.semantic.embedder()
    with memory._store.read() as conn:
        matrix = np.concatenate(
            [
                rows.load(conn, embedder.id, s, 0, TOP, embedder.dim)[1]
                for s in rows.sessions(conn, embedder.id)
            ]
        )
    small, scale = crossindex.quantize(matrix)
    overlap = []
    for query in QUERIES:
        q = embedder.encode_query(query)
        truth = np.argsort(-(matrix @ q), kind="stable")
        rough = np.argsort(-((small.astype(np.float32) @ q) * scale), kind="stable")
        overlap.append(len(set(truth[:10]) & set(rough[:10])) / 10)
        assert set(truth[:10]) <= set(rough[: crossindex.pool_size(10)])  # the rescoring restores the order
    assert np.mean(overlap) >= 0.8


NEEDLE_AT = T0 - 100 * 86_400 * NS


def _needle(mem: Memory) -> int:
    """A session whose oldest message, a user's by Zed, says 'lighthouse' among other words, and whose 30
    newer ones, ann's, say 'lighthouse ferry harbor': unfiltered top tens leave the first out. Its id."""
    (first,) = mem.append(
        "needle", [Message("user", "Zed saw the lighthouse, violin pepper glacier", NEEDLE_AT, "Zed")]
    )
    later = [
        Message(
            "assistant", "lighthouse ferry harbor lighthouse ferry", NEEDLE_AT + (i + 1) * 86_400 * NS, "ann"
        )
        for i in range(30)
    ]
    mem.append("needle", later)
    assert mem.wait_idle(timeout=60)
    return first.id or 0


@pytest.mark.parametrize(
    "where",
    [
        MessageFilter(sender="zED"),
        MessageFilter(role="user"),
        MessageFilter(until=NEEDLE_AT + NS),
        MessageFilter(since=NEEDLE_AT - NS, until=NEEDLE_AT),
    ],
    ids=["sender", "role", "until", "since-until"],
)
@pytest.mark.parametrize("session", [None, "needle"])
def test_a_filter_applies_before_the_top_k(
    memory: Memory, where: MessageFilter, session: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(memory, sessions=2, per=10, words=tuple(w for w in WORDS if w not in NEEDLE_WORDS))
    needle = _needle(memory)
    unfiltered = memory.semantic.search_vectors("lighthouse ferry harbor", session=session, scope="all", k=10)
    assert needle not in _ids(unfiltered)
    found = memory.semantic.search_vectors(
        "lighthouse ferry harbor", session=session, scope="all", k=10, where=where
    )
    assert _ids(found)[:1] == [needle]
    monkeypatch.setattr(fulltext, "CANDIDATES", 5)  # each word's 5 newest matches: not the needle's
    monkeypatch.setattr(context, "EXACT_MATCHES", 0)
    for match in ("keyword", "semantic", "hybrid"):
        plain = memory.search("lighthouse", session=session, match=match, limit=10)
        assert needle not in [h.message.id for h in plain], match
        hits = memory.search("lighthouse", session=session, match=match, limit=10, where=where)
        assert hits and hits[0].message.id == needle, match
        assert all(where.admits(h.message) for h in hits)
        if match == "keyword":
            assert len(hits) == 1


def test_filters_mean_the_same_over_arrays_in_sql_and_on_a_message(memory: Memory) -> None:
    senders = ["Ωmega", "ωMEGA", "ann", "ANN", ""]
    times = [0, T0 - NS, T0, T0 + NS]
    messages = [
        Message(role, f"text {i}", times[i % len(times)], senders[i % len(senders)])
        for i, role in enumerate(["user", "assistant"] * 20)
    ]
    memory.append("f", messages)
    assert memory.wait_idle(timeout=60)
    stored = memory.archived("f")
    filters = [
        MessageFilter(sender="ΩMEGA"),
        MessageFilter(sender="Ann", role="assistant"),
        MessageFilter(since=T0),
        MessageFilter(until=T0),
        MessageFilter(since=T0 - NS, until=T0, role="user"),
    ]
    sessions, names = columns.Codes(), columns.Codes()
    with memory._store.read() as conn:
        table = columns.read_range(conn, "f", 0, TOP, sessions, names)
        for where in filters:
            expected = [m.id for m in stored if where.admits(m)]
            assert expected
            assert table.message_id[table.admitted(where, names)].tolist() == expected
            sql, params = fulltext.filter_sql(conn, where, "m")
            got = conn.execute(
                f"SELECT m.id FROM messages m WHERE m.session_id = 'f'{sql} ORDER BY m.id", tuple(params)
            )
            assert [r[0] for r in got] == expected


def test_the_index_grows_by_the_new_vectors_only(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(memory)
    memory.semantic.search_vectors("anything", session=None, scope="all", k=5)
    index = _index(memory)
    before = index.rows
    reads: list[int] = []
    after = rows.rows_after

    def counted(
        conn: Connection, embedder_id: str, start: int, batch: int, table: str = "vectors"
    ) -> Iterator[list[tuple[int, int, bytes]]]:
        reads.append(start)
        return after(conn, embedder_id, start, batch, table)

    monkeypatch.setattr(rows, "rows_after", counted)
    memory.append("s0", [Message("user", "a brand new zebra quokka sentence", T0 + 10_000 * NS)])
    assert memory.wait_idle(timeout=60)
    found = memory.semantic.search_vectors("zebra quokka", session=None, scope="all", k=1)
    assert memory.archived("s0")[-1].id == found[0][0]
    assert _index(memory) is index and index.rows == before + 1
    assert len(reads) == 1 and reads[0] > 0  # from the highest row it held, not from the start
    with memory._store.read() as conn:
        assert rows.totals(conn, index.embedder_id)[0] == index.rows


def _indexed_ids(mem: Memory) -> set[int]:
    return {i for i, _ in mem.semantic.search_vectors("x", session=None, scope="all", k=10_000)}


def test_forget_reset_and_remove_leave_the_index(memory: Memory) -> None:
    _fill(memory)
    everything = _indexed_ids(memory)
    victim = memory.archived("s1")[5]
    assert victim.id in everything
    memory.forget_message(victim.id or 0)
    assert memory.wait_idle(timeout=60)
    left = _indexed_ids(memory)
    assert victim.id not in left
    assert len(left) == len(everything) - 1  # the next message was embedded again, under a new row
    memory.reset("s2")
    memory.remove("s3")
    left = _indexed_ids(memory)
    with memory._store.read() as conn:
        alive = {int(r[0]) for r in conn.execute("SELECT id FROM messages")}
    assert left == alive and not any(m.id in left for m in memory.archived("s2"))


def test_an_index_mostly_gone_is_read_again(memory: Memory) -> None:
    _fill(memory, sessions=4, per=20)
    _indexed_ids(memory)
    index = _index(memory)
    memory.remove("s0")
    memory.remove("s1")
    assert len(_indexed_ids(memory)) == 40
    assert index.rows == 40  # read again: masked rows were half of it


def test_another_process_writing_is_followed(home: Path, clock: FakeClock) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        _fill(mem, sessions=3, per=10)
        assert _indexed_ids(mem)
        with Memory.open(home, clock=clock, embedder=HashEmbedder(), background=False) as other:
            gone = other.archived("s1")[3]
            other.forget_message(gone.id or 0)
            other.remove("s2")
        assert mem.wait_idle(timeout=60)  # the message after the forgotten one is embedded again here
        left = _indexed_ids(mem)
        with mem._store.read() as conn:
            vectors = {int(r[0]) for r in conn.execute("SELECT message_id FROM vectors")}
        assert gone.id not in left and left == vectors


def test_a_switched_embedder_gets_its_own_index(memory: Memory) -> None:
    _fill(memory, sessions=3, per=10)
    _indexed_ids(memory)
    memory.semantic.switch_embedder(embedder=HashEmbedder(dim=256))
    assert memory.wait_idle(timeout=60)
    found = memory.semantic.search_vectors(QUERIES[0], session=None, scope="all", k=10)
    assert _index(memory).embedder_id == "hash-256"
    _same(found, _exact(memory, QUERIES[0], 10))


def test_scope_recent_over_all_sessions_leaves_the_archives_out(home: Path, clock: FakeClock) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=4096)
        texts = ["zebra crossing at the zoo"] + [f"filler line {i} " + "x" * 120 for i in range(60)]
        mem.append("s1", [Message("user", t, T0 + i * NS) for i, t in enumerate(texts)])
        mem.append("s2", [Message("user", "a zebra at the zoo", T0)])
        assert mem.wait_idle(timeout=60)
        cut = mem.compaction_cut("s1")
        assert cut > 1
        every = mem.semantic.search_vectors("zebra crossing zoo", session=None, scope="all", k=3)
        recent = mem.semantic.search_vectors("zebra crossing zoo", session=None, scope="recent", k=100)
        assert mem.archived("s1")[0].id == every[0][0]
        assert all(i >= cut or i == mem.archived("s2")[0].id for i, _ in recent)
        per_session = [
            p
            for s in ("s1", "s2")
            for p in mem.semantic.search_vectors("zebra crossing zoo", session=s, scope="recent", k=100)
        ]
        assert sorted(_ids(recent)) == sorted(_ids(per_session))


def test_appends_while_searching(memory: Memory) -> None:
    _fill(memory, sessions=2, per=10)
    errors: list[BaseException] = []
    done = threading.Event()

    def append() -> None:
        try:
            for i in range(30):
                memory.append("busy", [Message("user", f"busy writer line {i} walnut", T0 + i * NS)])
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    writer = threading.Thread(target=append)
    writer.start()
    searches = 0
    while not done.is_set() or searches < 3:
        memory.semantic.search_vectors("busy writer walnut", session=None, scope="all", k=5)
        searches += 1
    writer.join()
    assert not errors
    assert memory.wait_idle(timeout=60)
    found = _indexed_ids(memory)
    with memory._store.read() as conn:
        assert found == {int(r[0]) for r in conn.execute("SELECT message_id FROM vectors")}
        assert rows.totals(conn, _index(memory).embedder_id)[0] == _index(memory).rows


def test_a_vector_of_another_size_is_held_but_never_ranked(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(memory, sessions=1, per=5)
    odd = memory.archived("s0")[2]
    with memory._store.write() as conn:
        conn.execute("UPDATE vectors SET vector = ? WHERE message_id = ?", (b"\0" * 12, odd.id))
    pairs = rows.row_pairs
    resyncs: list[int] = []

    def counted(conn: Connection, embedder_id: str, table: str = "vectors") -> tuple[Ids, Ids]:
        resyncs.append(1)
        return pairs(conn, embedder_id, table)

    monkeypatch.setattr(rows, "row_pairs", counted)
    for _ in range(3):
        assert odd.id not in _indexed_ids(memory)
        memory.append("s0", [Message("user", "one more", T0)])  # a commit: the index checks SQLite again
        assert memory.wait_idle(timeout=60)
    assert not resyncs  # counts and sums agree: nothing to compare


def test_small_products_compute_the_same_scores() -> None:
    rng = np.random.default_rng(3)
    for n, dim in ((1, 512), (17, 512), (5000, 512), (333, 768), (40, 3072)):
        matrix = rng.normal(size=(n, dim)).astype(np.float32)
        query = rng.normal(size=dim).astype(np.float32)
        assert np.allclose(exact.scores(matrix, query), matrix @ query, rtol=1e-5, atol=1e-4)

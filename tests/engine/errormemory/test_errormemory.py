"""The error memory through ``mem.errors``: writes, TTL, search (vectors with a floor, keyword fallback),
prefix reads, purge, and independence from sessions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Message
from engine.embedders.hashing import HashEmbedder
from engine.errormemory import TTL_NS, ErrorMemory, ErrorRecord
from engine.errormemory.service import NO_KEYWORD
from engine.errors import AmbiguousId, InvalidInput, NotFound
from tests.engine.conftest import FakeClock

DAY = 86_400


def remember(
    mem: Memory, tool: str = "fetch_page", symptom: str = "request timeout after 30s", **kw: object
) -> ErrorRecord:
    args: dict[str, object] = {"action": "raised the timeout to 90s", "outcome": "resolved"}
    args.update(kw)
    return mem.errors.remember(tool, symptom, **args).record  # type: ignore[arg-type]


def test_write_tags_error_type_and_sets_a_90_day_ttl(memory: Memory, clock: FakeClock) -> None:
    record = remember(memory, keywords=[" Net ", "net"])
    assert record.keywords == ("net", "error_type:timeout")
    assert record.created_at == clock.now
    assert record.expires_at == clock.now + TTL_NS == clock.now + 90 * DAY * 10**9
    assert len(record.id) == 64
    assert memory.errors.count() == 1


def test_a_search_hit_resets_the_ttl_to_90_days(memory: Memory, clock: FakeClock) -> None:
    record = remember(memory)
    clock.advance(60 * DAY)
    hits = memory.errors.search("request timeout")
    assert [h.id for h in hits] == [record.id]
    assert hits[0].expires_at == clock.now + TTL_NS
    clock.advance(60 * DAY)  # 120 days after the write, 60 after the hit: still alive
    assert memory.errors.read(record.id[:8]).expires_at == clock.now + TTL_NS  # a read is a hit too
    clock.advance(89 * DAY)
    assert memory.errors.count() == 1


def test_listing_does_not_refresh(memory: Memory, clock: FakeClock) -> None:
    record = remember(memory)
    clock.advance(10 * DAY)
    assert memory.errors.records()[0].expires_at == record.expires_at


def test_expired_records_are_never_returned(memory: Memory, clock: FakeClock) -> None:
    record = remember(memory)
    clock.advance(90 * DAY)  # expires_at == now: expired
    assert memory.errors.search("request timeout") == []
    assert memory.errors.search("request timeout", use_vectors=False) == []
    assert memory.errors.search("", tool_name="fetch_page") == []
    assert memory.errors.records() == []
    assert memory.errors.count() == 0
    with pytest.raises(NotFound):
        memory.errors.read(record.id)


def test_purge_deletes_only_expired_records_and_their_vectors(memory: Memory, clock: FakeClock) -> None:
    old = remember(memory, symptom="old timeout")
    clock.advance(50 * DAY)
    young = remember(memory, symptom="young timeout")
    clock.advance(41 * DAY)
    assert memory.errors.purge() == 1
    with memory._store.read() as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM error_memory")]
        vectors = conn.execute("SELECT count(*) FROM error_memory_vectors").scalar()
    assert ids == [young.id] and old.id not in ids
    assert vectors == 1
    assert memory.errors.purge() == 0


def test_expired_records_are_purged_when_the_memory_opens(home: Path, clock: FakeClock) -> None:
    with Memory.open(home, clock=clock) as mem:
        remember(mem)
    clock.advance(91 * DAY)
    with Memory.open(home, clock=clock) as mem, mem._store.read() as conn:
        assert conn.execute("SELECT count(*) FROM error_memory").scalar() == 0


def test_purge_expired_job_purges_and_embeds_missing_vectors(memory: Memory, clock: FakeClock) -> None:
    errors = ErrorMemory(memory._store, clock=clock, embedder=None)
    record = errors.remember("fetch_page", "timeout", "retry", "resolved").record
    remember(memory, symptom="doomed timeout")
    clock.advance(91 * DAY)
    fresh = errors.remember("fetch_page", "new timeout", "retry", "resolved").record
    assert memory.errors.purge_expired() == 2  # the first two expired
    with memory._store.read() as conn:
        rows = conn.execute(
            "SELECT m.id, v.embedder FROM error_memory_vectors v JOIN error_memory m USING(num)"
        ).all()
    assert [(r[0], r[1]) for r in rows] == [(fresh.id, "hash-512")]
    assert record.id != fresh.id


def test_a_duplicate_write_refreshes_the_existing_record(memory: Memory, clock: FakeClock) -> None:
    first = remember(memory, keywords=["net"], outcome="failed")
    clock.advance(30 * DAY)
    again = memory.errors.remember(
        "fetch_page",
        "  Request   TIMEOUT after 30s ",
        "Raised the timeout to 90s",
        "resolved",
        cause="slow server",
        keywords=["http"],
    )
    assert again.refreshed
    assert again.record.id == first.id
    assert again.record.created_at == first.created_at
    assert again.record.expires_at == clock.now + TTL_NS
    assert again.record.outcome == "resolved"
    assert again.record.cause == "slow server"
    assert again.record.keywords == ("http", "net", "error_type:timeout")
    assert memory.errors.count() == 1
    assert memory.errors.records()[0] == again.record
    # another tool, or another action, is another record
    assert remember(memory, tool="other_tool").id != first.id
    assert not memory.errors.remember(
        "fetch_page", "request timeout after 30s", "gave up", "abandoned"
    ).refreshed
    assert memory.errors.count() == 3


def test_writes_in_the_same_nanosecond_get_distinct_ids(memory: Memory) -> None:
    a = remember(memory, symptom="one")
    b = remember(memory, symptom="two")
    assert a.id != b.id and a.created_at == b.created_at


def test_bad_input_stores_nothing(memory: Memory) -> None:
    for kwargs in (
        {"outcome": "fixed"},
        {"symptom": ""},
        {"action": ""},
        {"tool": ""},
        {"symptom": "x" * 9000},
        {"keywords": ["k"] * 33},
    ):
        with pytest.raises(InvalidInput):
            remember(memory, **kwargs)  # type: ignore[arg-type]
    assert memory.errors.count() == 0


def test_read_by_a_unique_prefix_of_at_least_8_hex_characters(memory: Memory) -> None:
    record = remember(memory)
    assert memory.errors.read(record.id[:8]).id == record.id
    assert memory.errors.read(record.id.upper()[:12]).id == record.id
    assert memory.errors.read(f"  {record.id}  ").id == record.id
    with pytest.raises(InvalidInput, match="at least 8"):
        memory.errors.read(record.id[:7])
    for bad in ("", "zzzzzzzz", "1234-5678", "0" * 65, "'; DROP TABLE error_memory; --"):
        with pytest.raises(InvalidInput):
            memory.errors.read(bad)
    with pytest.raises(NotFound):
        memory.errors.read("00000000" if not record.id.startswith("00000000") else "ffffffff")


def test_an_ambiguous_prefix_names_the_candidates(memory: Memory, clock: FakeClock) -> None:
    # sha256("fetch_page" + ns) of these two times share their first 8 hex characters (found by search)
    start = clock.now
    clock.now = start + 60619
    a = remember(memory, symptom="first")
    clock.now = start + 64560
    b = remember(memory, symptom="second")
    assert a.id[:8] == b.id[:8] == "53387f31"
    with pytest.raises(AmbiguousId) as caught:
        memory.errors.read("53387f31")
    assert sorted(caught.value.candidates) == sorted([a.id, b.id])
    assert a.id[:16] in str(caught.value) and b.id[:16] in str(caught.value)
    assert memory.errors.read(a.id[:12]).id == a.id
    with pytest.raises(AmbiguousId):
        memory.errors.forget("53387f31")
    assert memory.errors.count() == 2


def test_forget(memory: Memory) -> None:
    record = remember(memory)
    assert memory.errors.forget(record.id[:10]) == record
    assert memory.errors.count() == 0
    with pytest.raises(NotFound):
        memory.errors.forget(record.id)


def test_search_limit_defaults_to_4_and_is_at_most_16(memory: Memory, clock: FakeClock) -> None:
    for i in range(20):
        remember(memory, symptom=f"request timeout number {i}")
        clock.advance(1)
    assert len(memory.errors.search("request timeout")) == 4
    assert len(memory.errors.search("request timeout", limit=0)) == 4
    assert len(memory.errors.search("request timeout", limit=-3)) == 4
    assert len(memory.errors.search("request timeout", limit=100)) == 16
    assert len(memory.errors.search("request timeout", limit=7, use_vectors=False)) == 7


def test_results_are_newest_first(memory: Memory, clock: FakeClock) -> None:
    ids = []
    for i in range(3):
        ids.append(remember(memory, symptom=f"request timeout {i}").id)
        clock.advance(1)
    assert [r.id for r in memory.errors.search("request timeout")] == ids[::-1]
    assert [r.id for r in memory.errors.records()] == ids[::-1]


def test_a_keyword_or_a_tool_is_required(memory: Memory) -> None:
    with pytest.raises(InvalidInput, match=NO_KEYWORD):
        memory.errors.search("  ")
    remember(memory, tool="a_tool")
    remember(memory, tool="b_tool")
    assert [r.tool_name for r in memory.errors.search("", tool_name="a_tool")] == ["a_tool"]


def test_vectors_have_a_floor_so_unrelated_records_stay_out(memory: Memory) -> None:
    record = remember(memory, symptom="SMTP 535 authentication failed", tool="send_email", keywords=["smtp"])
    assert [r.id for r in memory.errors.search("send_email failed: 535 smtp authentication rejected")] == [
        record.id
    ]
    assert memory.errors.search("a photo of a cat on a sofa") == []
    assert memory.errors.search("kubernetes pod crashloop backoff") == []


def test_the_floor_is_per_embedder() -> None:
    from engine.errormemory import vectors

    assert vectors.floor_for("hash-512") == vectors.FLOORS["hash"]
    assert vectors.floor_for("e5-small-q4") == vectors.DEFAULT_FLOOR


def test_keyword_fallback_runs_when_vectors_find_nothing_above_the_floor(memory: Memory) -> None:
    # the action is not embedded, so this query has no vector hit; full text finds it
    record = remember(memory, symptom="archive corrupt", action="rebuilt the zstd dictionary", keywords=[])
    assert memory.errors.search("zstd") == [memory.errors.read(record.id)]


class BrokenEmbedder:
    id = "broken-1"
    dim = 4

    def encode_documents(self, texts: list[str]) -> np.ndarray:
        raise RuntimeError("model not loaded")

    def encode_query(self, text: str) -> np.ndarray:
        raise RuntimeError("model not loaded")


def test_a_failing_embedder_stores_without_vectors_and_search_uses_keywords(
    memory: Memory, clock: FakeClock
) -> None:
    errors = ErrorMemory(memory._store, clock=clock, embedder=BrokenEmbedder())
    record = errors.remember("fetch_page", "request timeout", "retry", "resolved").record
    assert [r.id for r in errors.search("request timeout")] == [record.id]
    loading = ErrorMemory(memory._store, clock=clock, embedder=lambda: None)
    assert [r.id for r in loading.search("timeout")] == [record.id]
    # vectors had no say, so the keyword scan is the original's (substring of the tool name)
    assert [r.id for r in errors.search("fetch_pa")] == [record.id]
    assert [r.id for r in memory.errors.search("fetch_pa")] == [record.id]  # no hash vectors yet either
    # the hash embedder picks the record up later
    assert memory.errors.embed_missing() == 1
    assert memory.errors.embed_missing() == 0


def test_vector_less_keyword_scan_keeps_the_original_semantics(memory: Memory, clock: FakeClock) -> None:
    errors = ErrorMemory(memory._store, clock=clock, embedder=None)
    timeout = errors.remember("fetch_page", "request timeout", "retry", "resolved", keywords=["net"]).record
    clock.advance(1)
    other = errors.remember(
        "fetch_page", "segfault in parser", "upgrade", "failed", keywords=["crash"]
    ).record
    clock.advance(1)
    elsewhere = errors.remember("run_shell", "deadline exceeded", "wait", "failed").record
    # with a tool: the query's error class against the tool's error_type keyword
    assert [r.id for r in errors.search("context deadline exceeded", tool_name="fetch_page")] == [timeout.id]
    assert [r.id for r in errors.search("weird thing happened", tool_name="fetch_page")] == [other.id]
    # without a tool: substring of tool name, symptom or cause; keyword contains it or is contained in it
    assert [r.id for r in errors.search("run_sh")] == [elsewhere.id]
    assert [r.id for r in errors.search("parser")] == [other.id]
    assert [r.id for r in errors.search("cras")] == [other.id]
    assert [r.id for r in errors.search("a crashing program")] == [other.id]
    assert errors.search("nothing like it") == []


def test_cjk_and_diacritics_keyword_search(memory: Memory) -> None:
    cjk = remember(
        memory, tool="fetch_page", symptom="抓取網頁逾時", cause="伺服器回應太慢", keywords=["逾時"]
    )
    cafe = remember(memory, tool="menu", symptom="the café menu is empty", keywords=[])
    for query in ("網頁逾時", "逾時", "伺服器回應"):
        assert cjk.id in {r.id for r in memory.errors.search(query, use_vectors=False)}, query
    assert [r.id for r in memory.errors.search("cafe", use_vectors=False)] == [cafe.id]


HOSTILE = [
    '"',
    '""',
    "'",
    "*",
    "NEAR(a b)",
    "a AND OR NOT b",
    "col:value",
    "^start",
    "{keywords}: x",
    "%_\\",
    "'); DROP TABLE error_memory; --",
    "\x00",
    "nul\x00inside",
    "\ud800 lone surrogate",
    "🔥" * 50,
    "x" * 100_000,
    "網" * 5000,
    "(((((",
    "-timeout",
    "timeout*",
]


@pytest.mark.parametrize("use_vectors", [True, False])
@pytest.mark.parametrize("tool", [None, "fetch_page", "'; --"])
def test_hostile_search_strings_never_raise(memory: Memory, use_vectors: bool, tool: str | None) -> None:
    remember(memory)
    for query in HOSTILE:
        if tool is None and not query.replace("\x00", "").strip():
            with pytest.raises(InvalidInput, match=NO_KEYWORD):  # a clear error, not an FTS5 one
                memory.errors.search(query, use_vectors=use_vectors)
            continue
        result = memory.errors.search(query, tool_name=tool, use_vectors=use_vectors)
        assert isinstance(result, list), query
    assert memory.errors.count() == 1


def test_another_process_sees_new_records_and_vectors(home: Path, clock: FakeClock) -> None:
    with Memory.open(home, clock=clock) as a, Memory.open(home, clock=clock) as b:
        assert a.errors.search("request timeout") == []  # a's vector matrix is now cached (empty)
        record = remember(b)
        assert [r.id for r in a.errors.search("request timeout")] == [record.id]
        b.errors.forget(record.id)
        assert a.errors.search("request timeout") == []


def test_error_memory_survives_reset_reset_all_and_remove(memory: Memory) -> None:
    for sid in ("s1", "s2", "s3"):
        memory.append(sid, [Message("user", f"hello {sid}", 1), Message("assistant", "hi", 2)])
    records = [remember(memory, symptom=f"timeout {i}") for i in range(3)]
    memory.reset("s1")
    memory.reset("s2", include_summary=True)
    memory.remove("s3")
    for sid in ("s1", "s2"):
        memory.remove(sid)
    assert memory.sessions() == []
    assert {r.id for r in memory.errors.records()} == {r.id for r in records}
    assert len(memory.errors.search("timeout")) == 3
    with memory._store.read() as conn:
        assert conn.execute("SELECT count(*) FROM error_memory_vectors").scalar() == 3


def test_records_are_json_ready(memory: Memory) -> None:
    record = remember(memory, cause="slow server")
    value = json.loads(record.dumps())
    assert list(value) == [
        "id",
        "tool_name",
        "keywords",
        "symptom",
        "cause",
        "action",
        "outcome",
        "created_at",
        "expires_at",
    ]
    assert value["keywords"] == ["error_type:timeout"]


def test_the_schema_has_fts_and_vectors(memory: Memory) -> None:
    with memory._store.read() as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        applied = {r[0] for r in conn.execute("SELECT name FROM migrations")}
    assert {"error_memory", "error_memory_vectors", "error_memory_fts", "error_memory_tri"} <= names
    assert "m003_error_memory" in applied
    assert memory.errors.fts_tables == {"error_memory_fts", "error_memory_tri"}


def test_the_hash_embedder_is_used_by_default(memory: Memory) -> None:
    embedder = memory.errors.embedder()
    assert isinstance(embedder, HashEmbedder)


@pytest.mark.parametrize(
    "module",
    [
        "engine.storage.migrations",
        "engine.errormemory",
        "engine.tools.error_history",
        "engine.storage.store",
        "engine.database",
    ],
)
def test_modules_import_first_without_a_cycle(module: str) -> None:
    import subprocess
    import sys

    code = (
        f"import {module}, sys; assert not [m for m in sys.modules if m.startswith(('PySide6', 'desktop'))]"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)

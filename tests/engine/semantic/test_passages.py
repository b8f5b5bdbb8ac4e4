"""Long messages embedded whole: passages of the embedder's window, found by meaning past their first
2,000 characters, named by the hits, counted honestly, queued again by ``m016_passages``, and dropped
with their message (forget, reset, remove) from every table and file.

The hash embedder ranks by shared words, so these questions share words with their fact; the test with
the real e5 model and paraphrased questions is ``test_passages_e5.py``.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest

from bench.longreplies import reply
from engine import Memory, Message
from engine.embedders import Vectors
from engine.embedders.hashing import HashEmbedder
from engine.mcpserver.adapter import Catalog, Context
from engine.semantic import annoyindex, crossindex, passages, rows
from engine.semantic.passages import ESTIMATED, Window, estimate, split
from tests import rawdb
from tests.engine.conftest import FakeClock

NS = 1_000_000_000
T0 = 1_700_000_000 * NS
FACT = "the quokka treasury moved its vault keys to a lighthouse near Reykjavik"


class CountingEmbedder(HashEmbedder):
    """A hash embedder that keeps the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def encode_documents(self, texts: list[str]) -> Vectors:
        self.embedded.extend(texts)
        return super().encode_documents(texts)


def _long(seed: int, chars: int = 9_000, fact: str | None = FACT) -> str:
    """A realistic long reply with ``fact`` past its first 2,000 characters (none: without it)."""
    rng = random.Random(seed)
    if fact is None:
        return reply(rng, chars, cjk=True)
    head = reply(rng, 4_000, cjk=True)
    return head + "\n\n" + fact + ".\n\n" + reply(rng, chars - len(head), cjk=True)


def _chat(mem: Memory, session: str, start: int = T0) -> int:
    """A question and a long answer holding :data:`FACT` at about 4,000 characters; the answer's id."""
    stored = mem.append(
        session,
        [
            Message("user", "where are the keys now?", start),
            Message("assistant", _long(1), start + NS),
            Message("user", "thanks, and the rest?", start + 2 * NS),
            Message("assistant", _long(2, fact=None), start + 3 * NS),
        ],
    )
    assert stored[1].id is not None
    return stored[1].id


def _passage_rows(mem: Memory, message_id: int | None = None) -> list[tuple[int, int, int, bytes]]:
    with mem._store.read() as conn:
        sql = "SELECT message_id, start_char, end_char, vector FROM passages"
        got = conn.execute(
            sql + (" WHERE message_id = ?" if message_id else "") + " ORDER BY id",
            (message_id,) if message_id else (),
        )
        return [(int(r[0]), int(r[1]), int(r[2]), bytes(r[3])) for r in got]


# -- cutting ----------------------------------------------------------------------------------------


def test_a_message_that_fits_is_one_passage_embedded_as_before() -> None:
    message, previous = Message("user", "the cat sat on the mat", 0, "Ann"), Message("user", "hello", 0, "Bo")
    item = rows.pending(1, "s", message, previous)
    assert not item.passages and item.parts[0].text == rows.document_text(message, previous)
    assert item.text_hash == passages.text_hash(
        rows.document_text(message, previous)
    )  # nothing embedded again


@pytest.mark.parametrize("seed", range(4))
def test_a_long_text_is_cut_into_overlapping_passages_that_fit_and_cover_it(seed: int) -> None:
    content = _long(seed, 15_000)
    parts, _ = split(content, "Ann", "a question before it", ESTIMATED)
    assert len(parts) > 3
    assert parts[0].start == 0 and parts[-1].end == len(content)
    for before, after in itertools.pairwise(parts):
        assert before.start < after.start < before.end  # every character is in one; neighbours share some
        shared = content[after.start : before.end]
        assert estimate(shared) <= ESTIMATED.overlap + passages.PIECE
    for part in parts:
        assert part.text.endswith(content[part.start : part.end].rstrip())
        assert "Ann: " in part.text
        assert (
            estimate(part.text) <= ESTIMATED.tokens + 4
        )  # "Ann:" and the line break between context and text
    assert parts[0].text.startswith("a question before it\n")
    assert all(not p.text.startswith("a question") for p in parts[1:])


def test_text_without_spaces_is_cut_too() -> None:
    content = "記憶體" * 2_000
    parts, _ = split(content, "", None, ESTIMATED)
    assert len(parts) >= 12 and parts[-1].end == len(content)
    assert all(len(p.text) <= ESTIMATED.tokens for p in parts)


def test_the_window_is_the_embedders_own() -> None:
    class Counting(HashEmbedder):
        def count_tokens(self, text: str) -> int:
            return len(text)

    window = passages.window_for(Counting())
    assert window.tokens == passages.WINDOW_TOKENS["hash"] and window.count("abc") == 3
    assert passages.window_for(HashEmbedder()).count is estimate

    def words(text: str) -> int:
        return len(text.split())

    parts, digest = split("word " * 100, "", None, Window(10, 2, words))
    assert all(len(p.text.split()) <= 10 for p in parts) and len(parts) == 13
    assert all(len(p.text.split()) == 10 for p in parts[:-1])  # each takes what fits: 8 new words, 2 shared
    assert digest != split("word " * 100, "", None, Window(12, 2, words))[1]  # another window: embedded again


# -- searching --------------------------------------------------------------------------------------


def test_a_fact_past_the_first_2000_characters_is_found_by_meaning_and_named(memory: Memory) -> None:
    answer = _chat(memory, "s1")
    for n in range(3):
        memory.append(f"other{n}", [Message("assistant", _long(10 + n, fact=None), T0 + n * NS)])
    assert memory.wait_idle(timeout=120)
    content = memory.archived("s1")[1].content
    at = content.index(FACT)
    assert at > 2_000 and FACT not in rows.document_text(Message("assistant", content))  # beyond the old cut
    for match in ("semantic", "hybrid"):
        hits = memory.search("quokka treasury vault keys lighthouse Reykjavik", match=match, limit=5)
        assert hits[0].message.id == answer, match
        assert hits[0].passage is not None, match
        start, end = hits[0].passage
        assert start <= at and at + len(FACT) <= end, (match, hits[0].passage, at)
    assert [h.message.id for h in memory.search("quokka treasury", match="keyword")] == [answer]
    assert memory.search("quokka treasury", match="keyword")[0].passage is None


def test_one_session_and_the_filters_rank_passages_too(memory: Memory) -> None:
    answer = _chat(memory, "s1")
    memory.append("s2", [Message("assistant", _long(3, fact=None), T0)])
    assert memory.wait_idle(timeout=120)
    for session in ("s1", None):
        hits = memory.search("vault keys lighthouse Reykjavik", session=session, match="semantic", limit=3)
        assert hits[0].message.id == answer
    from engine.messages import MessageFilter

    admitted = memory.search_with_coverage(
        "vault keys lighthouse Reykjavik",
        "s1",
        "semantic",
        "all",
        None,
        3,
        where=MessageFilter(role="assistant"),
    )
    assert admitted.hits[0].message.id == answer and admitted.hits[0].passage is not None
    refused = memory.search_with_coverage(
        "vault keys lighthouse Reykjavik", None, "semantic", "all", None, 10, where=MessageFilter(role="user")
    )
    assert answer not in [h.message.id for h in refused.hits]


def test_a_message_is_ranked_once_whatever_its_passages(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = _chat(memory, "s1")
    memory.append("s2", [Message("assistant", _long(4, fact=None), T0)])
    assert memory.wait_idle(timeout=120)
    everywhere = memory.semantic.search_vectors("refactor the caching layer", session=None, scope="all", k=50)
    ids = [i for i, _ in everywhere]
    assert len(ids) == len(set(ids)) and answer in ids
    monkeypatch.setattr(crossindex, "MAX_BYTES", 0)  # too many for the index: session by session, exactly
    memory.semantic._cross = memory.semantic._cross_passages = None
    apart = memory.semantic.search_vectors("refactor the caching layer", session=None, scope="all", k=50)
    assert [i for i, _ in apart] == ids
    assert np.allclose([s for _, s in apart], [s for _, s in everywhere], atol=1e-5)


def test_the_mcp_hit_names_its_passage_and_shows_it(memory: Memory) -> None:
    from tests.engine.mcpserver.test_mcp_tools import call

    answer = _chat(memory, "s1")
    assert memory.wait_idle(timeout=120)
    found = call(
        Context(memory, Catalog(memory)), "search", {"query": "treasury lighthouse", "match": "semantic"}
    )
    hit = found["hits"][0]
    assert hit["messageId"] == answer and hit["kind"] == "meaning"
    content = memory.archived("s1")[1].content
    assert hit["passage"]["start"] <= content.index(FACT) < hit["passage"]["end"]
    found = call(
        Context(memory, Catalog(memory)), "search", {"query": "vault keys Reykjavik", "match": "hybrid"}
    )
    assert found["hits"][0]["messageId"] == answer and "Reykjavik" in found["hits"][0]["snippet"]


def test_the_cli_prints_the_passage_that_matched(memory: Memory) -> None:
    from engine.cli.output import hit_json, passage_line

    _chat(memory, "s1")
    assert memory.wait_idle(timeout=120)
    (hit,) = memory.search("vault keys lighthouse Reykjavik", match="semantic", limit=1)
    assert hit.passage is not None
    assert hit_json(hit)["passage"] == {"start": hit.passage[0], "end": hit.passage[1]}
    line = passage_line(hit)
    assert line is not None and f"{hit.passage[0]:,}-{hit.passage[1]:,}" in line


# -- coverage and the migration ---------------------------------------------------------------------


def test_coverage_counts_a_long_message_only_once_all_its_passages_are_embedded(memory: Memory) -> None:
    answer = _chat(memory, "s1")
    assert memory.wait_idle(timeout=120)
    assert memory.semantic.coverage(None, HashEmbedder().id).complete
    with memory._store.write() as conn:  # queued again, as m016_passages does: its start only is embedded
        conn.execute(
            "INSERT INTO embed_queue(message_id, session_id, queued_at) VALUES (?, 's1', 0)", (answer,)
        )
    covered = memory.semantic.coverage(None, HashEmbedder().id)
    assert (covered.embedded, covered.total) == (3, 4) and not covered.complete
    assert memory.semantic.coverage("s1", HashEmbedder().id).embedded == 3
    assert memory.wait_idle(timeout=120)
    assert memory.semantic.coverage(None, HashEmbedder().id).complete


def test_the_migration_queues_long_messages_again_and_embeds_only_those(home: Path, clock: FakeClock) -> None:
    short = ["a short question", "a short answer", "another question"]
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        mem.append("s1", [Message(("user", "assistant")[i % 2], t, T0 + i * NS) for i, t in enumerate(short)])
        answer = _chat(mem, "s1", T0 + 10 * NS)
        assert mem.wait_idle(timeout=120)
        assert len(_passage_rows(mem, answer)) > 3
    # the home as m014 left it: no passages table, the long message's vector of its first 2,000 characters
    db = rawdb.connect(home / ".store" / "history.db")
    with db:
        db.execute("DROP TABLE passages")
        db.execute("DELETE FROM migrations WHERE name = 'm016_passages'")
        for (mid,) in db.execute("SELECT id FROM messages").fetchall():
            db.execute(
                "UPDATE vectors SET text_hash = 'old' WHERE message_id = ? AND message_id >= ?", (mid, answer)
            )
    db.close()
    counting = CountingEmbedder()
    with Memory.open(home, clock=clock, embedder=counting) as mem:
        assert mem.wait_idle(timeout=120)
        assert len(_passage_rows(mem, answer)) > 3
        assert not any(t in counting.embedded for t in short)  # unchanged short messages: not embedded again
        assert any(FACT in t for t in counting.embedded)
        hits = mem.search("vault keys lighthouse Reykjavik", match="semantic", limit=1)
        assert hits[0].message.id == answer and hits[0].passage is not None


# -- dropped with their message ---------------------------------------------------------------------


@pytest.fixture
def small_annoy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(annoyindex, "EXACT_BELOW", 10)


def _bytes_in(home: Path, needles: list[bytes]) -> dict[int, list[str]]:
    """Which ``needles`` appear in which files under ``home``."""
    found: dict[int, list[str]] = {}
    for path in sorted(home.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            for n, needle in enumerate(needles):
                if needle in data:
                    found.setdefault(n, []).append(path.name)
    return found


def _annoy_bytes(blob: bytes) -> bytes:
    """How an Annoy file holds a vector: its float32 values (a slice long enough not to match by chance)."""
    return np.frombuffer(blob, dtype=np.float32)[:64].tobytes()


def test_compaction_builds_the_archive_index_with_the_passages(
    home: Path, clock: FakeClock, small_annoy: None
) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=8192)
        answer = _chat(mem, "s1")
        filler = [Message("user", f"filler line {i} " + "x" * 120, T0 + (10 + i) * NS) for i in range(60)]
        mem.append("s1", filler)
        assert mem.wait_idle(timeout=120)
        assert mem.compaction_cut("s1") > answer
        (ann,) = (home / ".store" / "vectors").glob("*.ann")
        record = annoyindex.read_record(ann.with_suffix(".json"))
        with mem._store.read() as conn:
            vectors = conn.execute(
                "SELECT COUNT(*) FROM vectors WHERE message_id < ?", (mem.compaction_cut("s1"),)
            ).scalar_one()
        parts = len([r for r in _passage_rows(mem) if r[0] < mem.compaction_cut("s1")])
        assert parts > 3 and record is not None and record.count == vectors + parts
        index = mem.semantic._annoy["s1"]
        assert index.repeats == parts  # every passage is a second row of its message
        hits = mem.search(
            "vault keys lighthouse Reykjavik", session="s1", match="semantic", scope="all", limit=3
        )
        assert hits[0].message.id == answer and hits[0].passage is not None
        ids = [
            h.message.id
            for h in mem.search("filler line caching layer", session="s1", match="semantic", limit=50)
        ]
        assert len(ids) == len(set(ids))


def test_forget_reset_and_remove_drop_every_passage_from_every_file(
    home: Path, clock: FakeClock, small_annoy: None
) -> None:
    with Memory.open(home, clock=clock, embedder=HashEmbedder()) as mem:
        mem.update_settings(max_history_bytes=8192)
        answers = {}
        for session in ("cli-f", "cli-r", "cli-x"):
            answers[session] = _chat(mem, session)
            rng = random.Random(session)
            mem.append(
                session,
                [
                    Message("assistant", reply(rng, 3_000) + f" marker {session}", T0 + (20 + i) * NS)
                    for i in range(8)
                ],
            )
        assert mem.wait_idle(timeout=120)
        assert list(
            (home / ".store" / "vectors").glob("*.ann")
        )  # the passages are in the archive indexes too
        blobs = {s: [r[3] for r in _passage_rows(mem, answers[s])] for s in answers}
        assert all(len(b) > 3 for b in blobs.values())
        needles = [_annoy_bytes(b) for s in answers for b in blobs[s]]
        assert len(_bytes_in(home, needles)) == len(needles)  # the scan does see them
        mem.forget_message(answers["cli-f"])
        assert _passage_rows(mem, answers["cli-f"]) == []
        mem.reset("cli-r")
        mem.remove("cli-x")
        assert _passage_rows(mem) == [] or {r[0] for r in _passage_rows(mem)} <= {
            m.id for m in mem.archived("cli-f")
        }
        assert mem.wait_idle(timeout=120)
    assert _bytes_in(home, needles) == {}


def test_a_huge_message_is_embedded_up_to_the_limit() -> None:
    content = "log line with some words 12345\n" * 1_000_000  # 31 MB: all of it would take hours to embed
    parts, _ = split(content, "", "previous " * 1_000_000, ESTIMATED)
    assert parts[-1].end == passages.LIMIT and len(parts) < 100
    assert len(parts[0].text) < 3_000  # the previous turn gives a quarter of the first passage

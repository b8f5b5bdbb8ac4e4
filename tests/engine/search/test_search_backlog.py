"""Search that keeps up: a search never waits for the embedding backlog and says what it covered; the
queue is embedded newest first; the background embedder pauses and resumes; its rate gives an ETA."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.cli import main
from engine.embedders import Vectors
from engine.embedders.hashing import HashEmbedder
from engine.semantic import rows
from engine.semantic import tier as semantic_tier
from engine.semantic.progress import Coverage, RateMeter

NS = 1_000_000_000
T0 = 1_700_000_000 * NS


class GatedEmbedder(HashEmbedder):
    """Hash vectors whose documents wait for ``gate`` (the backlog cannot drain until it opens); queries
    never wait."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.batches: list[list[str]] = []

    def encode_documents(self, texts: list[str]) -> Vectors:
        self.gate.wait(timeout=60)
        self.batches.append(texts)
        return super().encode_documents(texts)


def _turns(count: int, session: str = "s1") -> list[Message]:
    return [
        Message("user" if i % 2 else "assistant", f"note {i} about the harbour ferry timetable", T0 + i * NS)
        for i in range(count)
    ]


def test_a_search_right_after_a_big_enqueue_answers_at_once_and_says_what_it_covered(home: Path) -> None:
    embedder = GatedEmbedder()
    with Memory.open(home, embedder=embedder) as mem:
        mem.append("s1", [Message("user", "the ferry leaves at noon", T0 - NS)])
        embedder.gate.set()
        assert mem.wait_idle(timeout=60)
        embedder.gate.clear()  # from now on the backlog stays put
        mem.append("s1", _turns(5000))
        started = time.monotonic()
        result = mem.search_with_coverage("ferry noon", session="s1", match="hybrid", limit=5)
        assert time.monotonic() - started < 5.0  # no wait for 5,000 queued messages
        assert result.coverage == Coverage(embedded=1, total=5001)
        assert not result.coverage.complete
        assert result.coverage.describe() == "meaning search covers 1 of 5,001 messages"
        assert result.hits[0].message.content == "the ferry leaves at noon"  # the keyword side finds the rest
        assert all(h.score > 0 for h in result.hits)
        assert mem.search_with_coverage("ferry", match="keyword").coverage is None
        assert [h.message.id for h in mem.search("ferry noon", session="s1", limit=5)] == [
            h.message.id for h in result.hits
        ]
        embedder.gate.set()


def test_the_queue_is_embedded_newest_first(home: Path) -> None:
    with Memory.open(home, embedder=HashEmbedder(), background=False) as mem:
        stored = mem.append("s1", _turns(40))
        with mem._store.read() as conn:
            pending, gone = rows.next_batch(conn, 16)
    ids = [m.id for m in stored]
    assert [p.message_id for p in pending] == sorted(ids, reverse=True)[:16] and gone == []
    embedder = GatedEmbedder()
    embedder.gate.set()
    with Memory.open(home, embedder=embedder) as mem:
        assert mem.wait_idle(timeout=60)
    assert embedder.batches[0][-1].endswith("note 24 about the harbour ferry timetable")
    assert embedder.batches[0][0].endswith("note 39 about the harbour ferry timetable")


def test_embedding_pauses_and_resumes_and_the_pause_is_kept(home: Path) -> None:
    with Memory.open(home, embedder=HashEmbedder()) as mem:
        mem.pause_embedding()
        mem.append("s1", _turns(50))
        assert mem.wait_idle(timeout=10)  # paused: the queue counts as done
        time.sleep(0.3)
        status = mem.embedding_status()
        assert (status.queued, status.embedded, status.total, status.paused) == (50, 0, 50, True)
        assert status.rate is None and status.eta_s is None
    with Memory.open(home, embedder=HashEmbedder()) as mem:
        assert mem.settings.embedding_paused and mem.embedding_status().queued == 50  # kept across restarts
        mem.resume_embedding()
        assert mem.wait_idle(timeout=60)
        status = mem.embedding_status()
        assert (status.queued, status.embedded, status.total, status.paused) == (0, 50, 50, False)
        assert status.rate is not None and status.rate > 0 and status.eta_s == 0.0


def test_a_paused_embedder_picks_up_a_pause_set_by_another_process(home: Path) -> None:
    with Memory.open(home, embedder=HashEmbedder()) as app, Memory.open(home, background=False) as cli:
        cli.update_settings(embedding_paused=True)
        app.reload_settings()  # the app's snapshot re-reads the settings
        app.append("s1", _turns(20))
        time.sleep(0.5)
        assert app.embedding_status().queued == 20
        cli.update_settings(embedding_paused=False)
        app.reload_settings()
        assert app.wait_idle(timeout=60) and app.embedding_status().queued == 0


def test_the_rate_over_the_last_minute_gives_the_time_left() -> None:
    now = [100.0]
    meter = RateMeter(clock=lambda: now[0])
    assert meter.rate() is None
    meter.record(16)
    now[0] = 102.0
    meter.record(16)
    now[0] = 104.0
    assert meter.rate() == pytest.approx(32 / 4.0)
    now[0] = 300.0  # nothing for minutes
    assert meter.rate() is None


def test_a_cli_search_of_an_unembedded_archive_loads_no_model_and_answers_by_keyword(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory.open(home, background=False) as mem:
        mem.append("s1", [Message("user", "kubernetes ramen night", T0), *_turns(30)])

    def no_model(*args: object, **kwargs: object) -> object:
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(semantic_tier, "select", no_model)
    assert main(["--home", str(home), "search", "kubernetes ramen"]) == 0
    out, err = capsys.readouterr()
    assert "kubernetes ramen night" in out and "\thybrid\t" in out
    assert err == (
        "memtray: meaning search covers 0 of 31 messages; the rest are found by keyword until the tray app "
        "or `memtray daemon` has embedded them\n"
    )
    assert main(["--home", str(home), "search", "zyzzogeton", "--match", "keyword"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == "no matches\n"
    assert main(["--home", str(home), "search", "zyzzogeton", "--json"]) == 0
    out, _ = capsys.readouterr()
    assert out == "[]\n"
    with Memory.open(home, background=False) as mem:
        assert mem.embedding_status().queued == 31  # the search embedded nothing


def test_a_cli_search_prints_no_coverage_line_when_everything_is_embedded(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Memory.open(home) as mem:
        mem.append("s1", _turns(10))
        assert mem.wait_idle(timeout=60)
    assert main(["--home", str(home), "search", "harbour ferry", "--limit", "3"]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n") == 3 and err == ""


def test_semantic_hits_below_the_floor_are_no_matches(memory: Memory) -> None:
    memory.append("s1", [Message("user", "apples and pears", T0)])
    memory.append("s2", [Message("user", "the harbour ferry", T0 + NS)])  # not its neighbour: no context
    assert memory.wait_idle(timeout=60)
    assert memory.search("qqqq xxxx zzzz", match="semantic") == []
    assert memory.search("qqqq xxxx zzzz", match="hybrid") == []
    hits = memory.search("ferry to the harbour", match="hybrid")
    assert [h.message.content for h in hits] == ["the harbour ferry"] and hits[0].score > 0


def test_hybrid_scores_are_never_zero(memory: Memory) -> None:
    memory.append("s1", [Message("user", f"garden tomatoes round {i}", T0 + i * NS) for i in range(30)])
    assert memory.wait_idle(timeout=60)
    hits = memory.search("garden tomatoes", session="s1", match="hybrid", limit=30)
    assert len(hits) == 30 and min(h.score for h in hits) > 0

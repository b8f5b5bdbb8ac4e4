"""The context ranking of a large home (each word's newest matches) scores as FTS5's ``bm25()`` does."""

from __future__ import annotations

import math

import pytest

from engine import Memory, Message
from engine.messages import EVERY_MESSAGE
from engine.search import context as contextfts
from engine.search import fulltext
from engine.search.query import parse
from engine.sessions import archive

NS = 1_000_000_000
T0 = 1_700_000_000 * NS


def _append(mem: Memory, session: str, texts: list[str]) -> None:
    senders = ("Caroline", "Melanie")
    mem.append(
        session,
        [Message(("user", "assistant")[i % 2], t, T0 + i * NS, senders[i % 2]) for i, t in enumerate(texts)],
    )


def _both(
    mem: Memory, monkeypatch: pytest.MonkeyPatch, query: str, session: str | None, limit: int = 100
) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """The context ranking of ``query`` by FTS5 (exact) and on the bounded path of large homes."""
    with mem._store.read() as conn:
        key = archive.known_key(conn, session) if session else None

        def ranked() -> list[tuple[int, float]]:
            return contextfts.search(
                conn, parse(query), session_key=key, session_id=session, where=EVERY_MESSAGE, limit=limit
            )

        exact = ranked()
        with monkeypatch.context() as patch:
            patch.setattr(contextfts, "EXACT_MATCHES", -1)
            bounded = ranked()
    return exact, bounded


def _assert_same(exact: list[tuple[int, float]], bounded: list[tuple[int, float]]) -> None:
    """The same rows with the same scores (rows of equal scores may come in another order)."""
    assert exact, "the query matches"
    assert sorted(i for i, _ in bounded) == sorted(i for i, _ in exact), (bounded, exact)
    scores = dict(exact)
    for row_id, score in bounded:
        assert math.isclose(score, scores[row_id], rel_tol=1e-9), (row_id, bounded, exact)
    assert [s for _, s in bounded] == sorted((s for _, s in bounded), reverse=True)


def _assert_scored_alike(
    rows: set[int], exact: list[tuple[int, float]], bounded: list[tuple[int, float]]
) -> None:
    """Each of ``rows`` the bounded path ranks scores as FTS5 scores it."""
    scores = dict(exact)
    for row_id, score in bounded:
        if row_id in rows:
            assert math.isclose(score, scores[row_id], rel_tol=1e-9)


def _rare_and_common(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A session where "common" has more rows than its newest list and than may be scanned, so its share
    in the older candidates is computed in Python; its texts, oldest first."""
    texts = ["a rare comet with common common common dust", "rare and common again"]
    texts += [f"a common thing number {i}" for i in range(12)]
    texts += ["a rare stamp", "some rare common pair"]
    texts += [f"filler chat {i}" for i in range(40)]
    _append(memory, "s1", texts)
    monkeypatch.setattr(fulltext, "CANDIDATES", 4)
    monkeypatch.setattr(contextfts, "SCANNED_ROWS", -1)
    return texts


def test_the_bounded_path_gives_fts5s_scores(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    _append(
        memory,
        "s1",
        [
            "We went camping by the lake, camping again next month",  # the word twice
            "The campers camped near the lake",  # stemmed forms
            "Did you like it?",  # found through its neighbours
            "Camping " + " ".join(f"word{i}" for i in range(60)),  # long: its length counts
            "Nothing to do with it",
            "lake lake lake",
            "Caroline said camping is fun",
        ],
    )
    _append(memory, "s2", ["camping in another session", "a lake elsewhere", "and more camping"])
    _append(memory, "s3", [f"small talk {i}" for i in range(30)])  # so that no word is in most rows
    for query in ("camping", "when did Caroline go camping by the lake", "lake campers"):
        for session in ("s1", None):
            _assert_same(*_both(memory, monkeypatch, query, session))


def test_a_word_used_long_ago_weighs_what_it_weighs_in_fts5(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "postgres" fills an old conversation and is rare since: the density of its newest matches says
    # little of how many rows hold it (what the bounded path once weighed it by).
    _append(memory, "old", [f"postgres tuning note {i}" for i in range(40)])
    _append(memory, "s2", [f"chat about gardens {i}" for i in range(200)])
    _append(
        memory,
        "s1",
        ["what about the postgres pooler?", "pgbouncer in transaction mode", "the pooler stays", "lunch"],
    )
    monkeypatch.setattr(fulltext, "CANDIDATES", 8)  # "postgres" has more matches than its newest list
    for query in ("postgres pooler", "what did we decide about the postgres connection pooler"):
        exact, bounded = _both(memory, monkeypatch, query, "s1")
        _assert_same(exact, bounded)


def test_an_old_candidate_has_every_occurrence_of_a_common_word_counted(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = ["a rare comet with common common common dust"]  # oldest: the common word three times
    texts += [f"a common thing number {i}" for i in range(12)]
    texts += ["a rare stamp", "some rare common pair"]
    texts += [f"filler chat {i}" for i in range(40)]
    _append(memory, "s1", texts)
    monkeypatch.setattr(fulltext, "CANDIDATES", 4)  # "common" is truncated to its 4 newest matches
    exact, bounded = _both(memory, monkeypatch, "rare common", "s1")
    assert [i for i, _ in bounded[:3]] == [i for i, _ in exact[:3]]  # the rows with "rare" hold the top
    _assert_scored_alike({i for i, _ in exact[:3]}, exact, bounded)


def test_older_candidates_of_a_common_word_are_scored_as_fts5_scores_them(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A common word's rows between the oldest and the newest candidate are too many to scan (here: any),
    # so its share in the candidates older than its newest matches is computed in Python.
    _rare_and_common(memory, monkeypatch)
    exact, bounded = _both(memory, monkeypatch, "rare common", "s1")
    rare = {i for i, _ in exact[:4]}  # the four rows with "rare"
    assert {i for i, _ in bounded[:4]} == rare
    _assert_scored_alike(rare, exact, bounded)


def test_a_small_session_of_a_large_home_is_ranked_exactly(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _append(memory, "big", [f"common words number {i}" for i in range(60)])
    _append(memory, "s1", ["common ground", "a common common view", "nothing here"])
    monkeypatch.setattr(contextfts, "EXACT_MATCHES", 10)  # the home is large, the session is not
    called: list[bool] = []
    bounded = contextfts._bounded_search
    monkeypatch.setattr(
        contextfts, "_bounded_search", lambda *a, **k: called.append(True) or bounded(*a, **k)
    )
    with memory._store.read() as conn:
        key = archive.known_key(conn, "s1")
        ranked = contextfts.search(
            conn, parse("common"), session_key=key, session_id="s1", where=EVERY_MESSAGE, limit=10
        )
        assert len(ranked) == 3 and not called  # "nothing here" through its previous turn
        contextfts.search(
            conn, parse("common"), session_key=None, session_id=None, where=EVERY_MESSAGE, limit=10
        )
        assert called  # over all sessions: 62 matching rows, the bounded path


def test_a_common_words_weight_is_counted_when_none_of_its_newest_rows_is_a_candidate(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = _rare_and_common(memory, monkeypatch)
    scored = contextfts._word_scores

    def without_common(conn: object, word: str, *rest: object) -> list[tuple[int, float]]:
        return [] if word == "common" else scored(conn, word, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(contextfts, "_word_scores", without_common)  # no row to read its weight back from
    exact, bounded = _both(memory, monkeypatch, "rare common", "s1")
    ids = {m.content: m.id for m in memory.archive_page("s1")}
    scores, got = dict(exact), dict(bounded)
    for text in texts[:2]:  # the oldest rows: "rare" by FTS5, "common" in Python with its counted weight
        row_id = ids[text]
        assert row_id is not None and math.isclose(got[row_id], scores[row_id], rel_tol=1e-9)


def test_more_candidates_than_one_statement_takes_score_as_fts5(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"{('alpha', 'beta', 'gamma')[i % 3]} talk {i}" for i in range(1500)]
    _append(memory, "s1", texts)
    _append(memory, "s2", [f"other {i}" for i in range(3000)])  # so that no word is in most rows
    monkeypatch.setattr(fulltext, "RERANK", 1500)  # more candidates than one statement's parameters
    exact, bounded = _both(memory, monkeypatch, "alpha beta gamma", None, limit=1500)
    assert len(bounded) > 990
    _assert_scored_alike({row_id for row_id, _ in bounded}, exact, bounded)

"""Hybrid fusion keeps a meaning-only hit when the words find nothing relevant: each keyword match counts by
how well it covers the query (``fusion.match_confidence``; the plain list by its best,
``fusion.keyword_confidence``), and for CJK queries the vectors' cosine of a keyword match counts below
the similarity floors (``fusion.supported``)."""

from __future__ import annotations

from collections.abc import Sequence, Set
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Message
from engine.search import fusion
from engine.search.query import Query, parse

NS = 1_000_000_000
T0 = 1_700_000_000 * NS

TOPICS = {"rent": ("rent", "huur"), "party": ("party", "feest"), "bike": ("bike", "fiets")}


class TopicEmbedder:
    """A real (if tiny) embedder: a text's vector is the mix of the topics whose words it holds, in any of
    two languages, plus a little of its own hashed words; so it matches across English and Dutch as a
    multilingual model does, and never by shared spelling alone."""

    id = "topics-test"
    dim = 8

    def _one(self, text: str) -> np.ndarray:
        folded = text.casefold()
        vector = np.zeros(self.dim, dtype=np.float32)
        for n, words in enumerate(TOPICS.values()):
            vector[n] = sum(folded.count(w) for w in words)
        vector[len(TOPICS) + sum(map(ord, folded)) % (self.dim - len(TOPICS))] += 0.2
        return vector / (np.linalg.norm(vector) or 1.0)

    def encode_documents(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        return self._one(text)


def test_a_weak_keyword_match_counts_less_and_a_good_one_fully() -> None:
    query = parse("how much rent can we pay at most in Utrecht")  # terms: much, rent, pay, utrecht
    chosen = fusion.WORDS
    terms = len(query.terms)

    def best(context: list[tuple[int, float]], weights: fusion.Weights = chosen) -> float:
        return fusion.keyword_confidence(fusion.match_confidence(query, context, weights))

    weak = [(1, 0.5 * chosen.term_score * terms), (2, 0.1)]
    assert best(weak) == pytest.approx(0.5)
    strong = [(1, 2.0 * chosen.term_score * terms)]
    assert best(strong) == 1.0
    assert best([]) == 1.0  # no context ranking: plain counts fully
    assert best(weak, fusion.Weights(1.0, 0.5, 0.1)) == 1.0  # not measured


def test_below_the_floors_only_keyword_matches_keep_their_cosine_and_only_for_cjk() -> None:
    ranked = [(1, 0.9), (2, 0.85), (3, 0.84), (4, 0.83)]
    passed = [(1, 0.9)]  # the floors kept only message 1
    worded = {3}  # the keyword rankings found message 3
    assert fusion.supported(ranked, passed, worded, fusion.WORDS) == passed
    assert fusion.supported(ranked, passed, worded, fusion.CJK) == [(1, 0.9), (3, 0.84)]
    assert fusion.weights(parse("晚上睡不好"), "e5-small-q4").support
    assert not fusion.weights(parse("sleep badly"), "e5-small-q4").support
    weak = fusion.weights(parse("晚上睡不好"), "hash-512")  # measured: a lexical embedder never leads
    assert not weak.support and weak.term_score == 0.0


def test_an_english_question_finds_the_dutch_answer_that_only_the_meaning_matches(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memory.open(home, embedder=TopicEmbedder())
    try:
        roles = ("user", "assistant")
        texts = [
            "The Utrecht party was great, everyone danced.",
            "Did you pay for the party drinks?",
            "We willen verhuizen naar een andere stad.",
            "De huur mag maximaal 1.450 euro per maand zijn.",  # neither it nor its neighbours share a word
            "My new bike has a basket for the groceries.",
        ]
        mem.append("s1", [Message(roles[i % 2], t, T0 + i * NS) for i, t in enumerate(texts)])
        mem.wait_idle(timeout=60)
        answer = "De huur mag maximaal 1.450 euro per maand zijn."
        query = "how much rent can we pay at most in Utrecht"

        def top(match: str) -> str:
            return mem.search(query, session="s1", match=match, limit=5)[0].message.content

        assert top("semantic") == answer
        assert top("keyword") != answer  # no Dutch word in the question
        assert top("hybrid") == answer
        hit = mem.search(query, session="s1", match="hybrid", limit=5)[0]
        assert hit.kind == "meaning"
        with monkeypatch.context() as patch:  # without the keyword lists' confidence, the words' best wins
            patch.setattr(fusion, "WORDS", fusion.Weights(context=1.0, semantic=0.5, plain=0.1))
            assert top("hybrid") != answer
    finally:
        mem.close()


def test_a_cosine_gains_a_share_of_its_better_same_session_neighbours() -> None:
    passed = [(10, 0.90), (20, 0.86), (31, 0.85)]  # at the floors
    cosines = {10: 0.90, 20: 0.86, 21: 0.96, 31: 0.85, 30: 0.99, 11: 0.70}  # 21, 30 and 11 below them
    sessions = {10: "a", 11: "a", 20: "a", 21: "a", 30: "b", 31: "c"}  # 30 is another session's
    lifted = fusion.neighbour_lifted(passed, cosines, sessions, 0.5)
    assert lifted == [(20, pytest.approx(0.91)), (10, 0.90), (31, 0.85)]  # 10 keeps its own: 11 is lower
    assert fusion.neighbour_lifted(passed, cosines, sessions, 0.0) == passed
    assert fusion.weights(parse("what did Ann say"), "e5-small-q4").neighbours == fusion.WORDS.neighbours > 0
    assert fusion.weights(parse("what did Ann say"), "hash-512").neighbours == 0.0


class _Apart:
    """What the fusion reads of messages that share no session, have no turns, senders or times (so no
    hand-on, neighbours or boosts)."""

    def sessions(self, ids: Set[int]) -> dict[int, str]:
        return {}

    def turns(self, ids: Set[int]) -> dict[int, fusion.Turn]:
        return {}

    def named(self, ids: Sequence[int], query: Query) -> set[int]:
        return set()

    def sent(self, ids: Sequence[int]) -> dict[int, int]:
        return {}


def test_a_match_of_one_common_word_counts_little_beside_full_matches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    query = parse("what did we decide about the postgres connection pooler?")  # 4 terms
    full = fusion.WORDS.term_score * len(query.terms)
    # 1 and 2 match the question well; 58, of another conversation, by "postgres" alone; the answer (6,
    # "Decision recorded: PgBouncer, …") shares no word with it, and only the vectors find it
    context = [(1, 1.2 * full), (2, 1.1 * full), (58, 0.2 * full), (31, 0.12 * full), (59, 0.1 * full)]
    cosines = [(1, 0.88), (2, 0.87), (6, 0.853), (58, 0.847), (9, 0.80)]
    assert fusion.match_confidence(query, context, fusion.WORDS)[58] == pytest.approx(0.2)
    assert (
        fusion.keyword_confidence(fusion.match_confidence(query, context, fusion.WORDS)) == 1.0
    )  # the list's best counts fully

    def order() -> list[int]:
        combined = fusion.combine(
            query, "e5-small-q4", context=context, plain=[], ranked=cosines, passed=cosines,
            depth=fusion.DEPTH, around=_Apart(),
        )  # fmt: skip
        return [i for i, _ in combined.ranking]

    assert order().index(6) < order().index(58)
    with monkeypatch.context() as patch:  # every match counted as fully as the list's best, as before
        share = fusion.keyword_confidence(fusion.match_confidence(query, context, fusion.WORDS))
        patch.setattr(fusion, "match_confidence", lambda q, items, w: {i: share for i, _ in items})
        assert order().index(58) < order().index(6)

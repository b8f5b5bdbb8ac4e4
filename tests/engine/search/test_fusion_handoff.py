"""Hybrid fusion hands a matched turn's keyword score on to the turn that answers it
(``fusion.handed_on``): the question holds the query's words, the reply often only its meaning, and the
vectors then decide between the two."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine import Memory, Message
from engine.search import fusion
from engine.search.query import parse

NS = 1_000_000_000
T0 = 1_700_000_000 * NS

Turn = fusion.Turn


def test_a_question_or_a_prompt_hands_its_score_to_the_nearer_reply_after_it() -> None:
    chosen = replace(fusion.WORDS, asked=1.0, prompted=0.5)
    turns = {
        1: Turn("a", "assistant", asks=True),  # a question by the assistant ...
        2: Turn("a", "user", asks=False),  # ... answered by the user: inherits all of it
        3: Turn("a", "assistant", asks=False),  # a user prompt's reply: inherits half of 2's score
        4: Turn("a", "user", asks=True),  # asks, but 5 is less near the query than 4
        5: Turn("a", "assistant", asks=False),
        6: Turn("a", "user", asks=True),  # asks, but 7 is another session's
        7: Turn("b", "assistant", asks=False),
        8: Turn("b", "user", asks=True),  # asks, but 9 holds a better score of its own
        9: Turn("b", "assistant", asks=False),
    }
    cosines = {1: 0.80, 2: 0.85, 3: 0.90, 4: 0.90, 5: 0.89, 6: 0.80, 7: 0.95, 8: 0.80, 9: 0.90}
    items = [(1, 10.0), (2, 4.0), (4, 8.0), (6, 7.0), (9, 6.5), (8, 6.0)]
    handed = dict(fusion.handed_on(items, cosines, turns, chosen))
    assert handed[2] == 10.0  # 1 asks: 2 gets its score (more than its own 4)
    assert handed[3] == pytest.approx(2.0)  # 2 is a user prompt, 3 its reply: half of 2's own 4
    assert 5 not in handed and 7 not in handed  # lower cosine; another session
    assert handed[9] == 6.5 and handed[8] == 6.0  # 9 keeps its own, higher score
    assert handed[1] == 10.0 and handed[4] == 8.0  # the question keeps its score
    ranked = fusion.handed_on(items, cosines, turns, chosen)
    assert [i for i, _ in ranked] == [2, 1, 4, 6, 9, 8, 3]  # ties: newer id first
    off = replace(chosen, asked=0.0, prompted=0.0)
    assert not off.hands_on and fusion.handed_on(items, cosines, turns, off) == items
    no_cosine = {i: c for i, c in cosines.items() if i != 2}  # 2 is not among the nearest messages
    assert dict(fusion.handed_on(items, no_cosine, turns, chosen))[2] == 4.0


def test_a_question_mark_ascii_or_full_width_asks() -> None:
    assert fusion.asks("How much may the rent rise?")
    assert fusion.asks("房租可以漲多少？")
    assert not fusion.asks("Find the leak.")
    assert fusion.weights(parse("rent rise"), "e5-small-q4").hands_on
    assert fusion.weights(parse("房租"), "e5-small-q4").hands_on
    assert not fusion.weights(parse("rent rise"), "hash-512").hands_on  # a lexical embedder never decides
    assert not fusion.weights(parse("rent rise"), None).hands_on  # no vectors: no cosines to decide by


class RentEmbedder:
    """A real (if tiny) embedder: a text's vector counts how often it names rent (in English or Dutch), a
    bike, and its question marks (a little), so a Dutch reply about rent is near an English question about
    it, and nearer than the question itself (which asks)."""

    id = "rent-test"
    dim = 4

    def _one(self, text: str) -> np.ndarray:
        folded = text.casefold()
        rent = sum(folded.count(w) for w in ("rent", "huur"))
        bike = sum(folded.count(w) for w in ("bike", "chain", "derailleur"))
        vector = np.array([rent, bike, 0.3 * folded.count("?"), 0.05], dtype=np.float32)
        return vector / float(np.linalg.norm(vector))

    def encode_documents(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        return self._one(text)


def test_the_reply_that_answers_the_matched_question_ranks_first(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = Memory.open(home, embedder=RentEmbedder())
    try:
        chat = [f"Day {n}: the bike chain slipped again, so I cleaned the derailleur." for n in range(30)]
        mem.append("bikes", [Message("user", t, T0 + i * NS) for i, t in enumerate(chat)])
        texts = [
            ("user", "How much may my landlord raise the rent this year?"),
            ("assistant", "De huur mag dit jaar maximaal 5,5 procent omhoog; meer huur mag hij niet vragen."),
        ]
        mem.append("s1", [Message(role, t, T0 + (40 + i) * NS) for i, (role, t) in enumerate(texts)])
        mem.wait_idle(timeout=60)
        question, reply = texts[0][1], texts[1][1]
        query = "how much may the landlord raise the rent"

        def top(match: str) -> str:
            return mem.search(query, match=match, limit=5)[0].message.content

        assert top("keyword") == question  # the question holds the words
        assert top("semantic") == reply  # the reply (embedded with the question before it) the meaning
        assert top("hybrid") == reply
        hits = mem.search(query, match="hybrid", limit=5)
        assert {h.message.content: h.kind for h in hits}[question] == "both"
        with monkeypatch.context() as patch:  # without the hand-on, the question's words win
            patch.setattr(fusion, "WORDS", replace(fusion.WORDS, asked=0.0, prompted=0.0))
            assert top("hybrid") == question
    finally:
        mem.close()


def test_a_short_list_of_about_equal_cosines_is_not_stretched_over_the_whole_scale() -> None:
    cosines = [(45, 0.829), (43, 0.827), (105, 0.824)]  # within 0.005: about equally near the query
    stretched = dict(fusion.normalized(cosines))
    assert stretched[105] == fusion.MEMBER_SHARE  # min-max: the third counts next to nothing
    kept = dict(fusion.normalized(cosines, min_span=0.01))
    assert kept[45] == 1.0 and kept[105] == pytest.approx(0.01 + 0.99 * 0.5)  # half of the least span
    assert fusion.normalized([(1, 0.9), (2, 0.7)], min_span=0.01) == fusion.normalized([(1, 0.9), (2, 0.7)])
    words = [(7, 6.0), (45, 3.0)]  # a keyword list that ranks 7 well above 45
    plain = fusion.fuse([(words, 0.2), (cosines, 0.5)])
    spread = fusion.fuse([(words, 0.2), (cosines, 0.5)], (0.0, 0.01))
    assert [i for i, _ in plain] == [45, 43, 7, 105]  # the third cosine falls behind a keyword-only match
    assert [i for i, _ in spread] == [45, 43, 105, 7]
    assert fusion.weights(parse("rent rise"), "e5-small-q4").span == fusion.COSINE_SPAN
    assert fusion.weights(parse("rent rise"), "hash-512").span == 0.0  # other cosine scales: min-max

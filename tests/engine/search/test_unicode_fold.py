"""Search folds Unicode on both sides: a word typed decomposed, full-width, with a ligature, ``ß`` for
``ss`` or with an invisible character inside finds the message that holds it in another form, and the
other way round, in keyword and hybrid search, through :meth:`Memory.search` and the CLI; the stored text
comes back exactly as written."""

from __future__ import annotations

import itertools
import json
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.cli import main
from engine.embedders.hashing import HashEmbedder
from engine.search.query import query_terms
from engine.search.terms import STOP_WORDS

T0 = 1_700_000_000 * 10**9


def nfd(word: str) -> str:
    return unicodedata.normalize("NFD", word)


def full_width(word: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in word)


def zero_width(word: str) -> str:
    return word[:1] + "\u200b" + word[1:]


def upper(word: str) -> str:
    return word.upper()


def soft_hyphen(word: str) -> str:
    return word[:2] + "\u00ad" + word[2:]


def joiners(word: str) -> str:
    return word[:1] + "\u200d" + word[1:2] + "\u200c" + word[2:]


def bom(word: str) -> str:
    return "\ufeff" + word[:1] + "\ufe0f" + word[1:]


TRANSFORMS: dict[str, Callable[[str], str]] = {
    "nfd": nfd,
    "full-width": full_width,
    "zero-width space": zero_width,
    "upper case": upper,
    "soft hyphen": soft_hyphen,
    "ZWJ/ZWNJ": joiners,
    "BOM and variation selector": bom,
}

CASES = [
    # (stored, typed in the query)
    ("the crème brûlée was perfect", nfd("brûlée")),
    (nfd("the crème brûlée was perfect"), "brûlée"),
    ("we flew to Việt Nam in May", nfd("Việt")),
    (nfd("we flew to Việt Nam in May"), "Việt"),
    ("회의는 한국어로 진행했다", nfd("한국어로")),
    (nfd("회의는 한국어로 진행했다"), "한국어로"),
    ("call the REST API twice", "ＡＰＩ"),
    ("call the REST ＡＰＩ twice", "API"),
    ("the ﬁle was locked", "file"),
    ("the file was locked", "ﬁle"),
    ("meet at Straße corner", "strasse"),
    ("meet at STRASSE corner", "straße"),
    ("the pass\u200bword expired", "password"),
    ("the password expired", "pass\u200bword"),
    ("a so\u00adft hyphen in tele\u00adphone", "telephone"),
    ("the re\u200dset and re\u200cload keys", "reload"),
    ("\ufeffbommarker at the start", "bommarker"),
    ("ｶﾀｶﾅの検索テスト", "カタカナ"),
]


@pytest.fixture
def mem(home: Path) -> Iterator[Memory]:
    with Memory.open(home, embedder=HashEmbedder(), background=False) as memory:
        yield memory


def _found(mem: Memory, query: str, session: str, match: str) -> list[str]:
    return [h.message.content for h in mem.search(query, session=session, match=match, limit=10)]


@pytest.mark.parametrize("match", ["keyword", "hybrid"])
def test_each_form_finds_the_other_and_the_text_comes_back_exactly(mem: Memory, match: str) -> None:
    for n, (stored, _) in enumerate(CASES):
        mem.append(
            f"s{n}", [Message("user", stored, T0 + n), Message("assistant", "unrelated words", T0 + n + 1)]
        )
    for n, (stored, typed) in enumerate(CASES):
        assert _found(mem, typed, f"s{n}", match)[:1] == [stored], (stored, typed)
        everywhere = [h.message.content for h in mem.search(typed, match=match, limit=20)]
        assert stored in everywhere, (stored, typed)


def test_the_highlighter_gets_the_folded_terms() -> None:
    assert "api" in query_terms("ＡＰＩ")
    assert "password" in query_terms("pass\u200bword")
    assert "strasse" in query_terms("Straße")
    assert "brûlée" in query_terms(nfd("brûlée"))


def test_a_quoted_phrase_and_the_chat_history_phrase_mode_fold_too(mem: Memory) -> None:
    mem.append("p", [Message("user", "the REST ＡＰＩ was slow today", mem.clock())])
    assert _found(mem, '"rest api"', "p", "keyword") == ["the REST ＡＰＩ was slow today"]
    archive, recent = mem.seed_keyword_search(
        "p", "REST API", "1d", 4
    )  # the chat_history tool's keyword mode
    assert [h.message.content for h in [*archive, *recent]] == ["the REST ＡＰＩ was slow today"]


def test_cjk_trigram_phrase_and_bigrams_fold(mem: Memory) -> None:
    mem.append("z", [Message("user", "記憶體不足，請重啟電腦", T0), Message("user", "ｶﾀｶﾅ表記", T0 + 1)])
    assert _found(mem, '"不足,請重啟"', "z", "keyword") == ["記憶體不足，請重啟電腦"]
    assert _found(mem, "カタカナ", "z", "keyword") == ["ｶﾀｶﾅ表記"]


def test_the_cli_search_folds(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Memory.open(home, embedder=HashEmbedder(), background=False) as memory:
        memory.update_settings(embedder="hash")
        memory.append("c", [Message("user", "the ﬁle of the REST ＡＰＩ", T0)])
        memory.append("d", [Message("user", nfd("crème brûlée"), T0 + 1)])
    for query, expected in (("file api", "the ﬁle of the REST ＡＰＩ"), ("brûlée", nfd("crème brûlée"))):
        for match in ("keyword", "hybrid"):
            assert main(["--home", str(home), "search", query, "--match", match, "--json"]) == 0
            hits = json.loads(capsys.readouterr().out)
            assert hits[0]["content"] == expected, (query, match)


def test_the_error_memory_folds(mem: Memory) -> None:
    symptom = "pass\u200bword rejected by the Straße registry"
    mem.errors.remember("shell", symptom, "log in again", "resolved", keywords=["ＤＯＣＫＥＲ"])
    mem.errors.remember("shell", "disk quota exceeded on upload", "clean up", "resolved")
    found = [r.symptom for r in mem.errors.search("password strasse docker", use_vectors=False)]
    assert found == [symptom]


# --- property: any word of any text, transformed, finds the text (and the other way round) -----------

LATIN = "abcdefghijklmnopqrstuvwxyzéèêëàâäîïôöûüùçñßœøåæ"
HANGUL = "한국어회의진행했다검색테스트가나다라마바사"

latin_word = st.text(alphabet=LATIN, min_size=3, max_size=10).filter(
    lambda w: w not in STOP_WORDS and w.casefold() not in STOP_WORDS
)
hangul_word = st.text(alphabet=HANGUL, min_size=2, max_size=6)
_sessions = itertools.count()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=st.lists(st.one_of(latin_word, hangul_word), min_size=1, max_size=8),
    pick=st.integers(min_value=0),
    transform=st.sampled_from(sorted(TRANSFORMS)),
    stored_transformed=st.booleans(),
    match=st.sampled_from(["keyword", "hybrid"]),
)
def test_a_transformed_word_finds_its_text(
    mem: Memory, words: list[str], pick: int, transform: str, stored_transformed: bool, match: str
) -> None:
    word = words[pick % len(words)]
    changed = TRANSFORMS[transform](word)
    stored_words = list(words)
    if stored_transformed:
        stored_words[pick % len(words)] = changed
    text = " ".join(stored_words)
    query = word if stored_transformed else changed
    session = f"prop{next(_sessions)}"
    mem.append(session, [Message("user", text, T0)])
    assert _found(mem, query, session, match) == [text], (text, query)

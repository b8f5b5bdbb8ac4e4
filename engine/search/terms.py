"""Keyword queries: parsing and routing by script (the SQL that runs them is in ``engine.search.fulltext``).

Two kinds of query:

* natural language (the viewer, the CLI, hybrid search): any non-stop-word term matches; each term is
  quoted; a ``"double-quoted phrase"`` stays a phrase; rows are ranked by BM25;
* one phrase (the ``chat_history`` tool's keyword mode, as in the original): the whole keyword, newest
  first.

Routes: words of spaced scripts go to ``messages_fts`` (porter over unicode61, diacritics removed). A CJK
run has no spaces to split it into words, so it is split at its stop characters
(:data:`CJK_STOP_WORDS`: 的, 了, 什麼, ...) and each piece of 2+ characters becomes its overlapping
bigrams in ``messages_bi``, an index of CJK bigrams (two characters is the most common Chinese word
length): 晚上睡不好怎麼辦 looks for 晚上, 上睡, 睡不 and 不好. A query of stop characters only keeps
them. A single CJK character (or anything an index cannot hold) is a ``LIKE`` substring scan, newest
first. A quoted CJK phrase of 3+ characters goes to the trigram table ``messages_tri``, whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine import cjk

_TOKEN = re.compile(f"[{cjk.RANGES}]+|[^\\W_]+", re.UNICODE)
PHRASE = re.compile(r'"([^"]+)"')
"""A ``"double-quoted phrase"`` of a query."""

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "re",
        "ve",
        "y",
        "also",
        "ever",
        "get",
        "got",
        "kind",
        "much",
        "many",
        "way",
    ]
)


CJK_STOP_WORDS = frozenset(
    [
        *(
            "的",
            "了",
            "嗎",
            "呢",
            "吧",
            "啊",
            "呀",
            "是",
            "我",
            "你",
            "他",
            "她",
            "我們",
            "你們",
            "他們",
            "她們",
        ),
        *(
            "什麼",
            "為什麼",
            "怎麼",
            "怎麼樣",
            "怎樣",
            "如何",
            "為何",
            "哪裡",
            "哪兒",
            "哪",
            "誰",
            "幾",
            "多少",
        ),
        # the same in Simplified characters (not measured: the evaluation set is Traditional)
        *("吗", "我们", "你们", "他们", "她们", "什么", "为什么", "怎么", "怎么样", "为何", "哪里"),
        *("哪儿", "谁", "几"),
    ]
)
"""Where a CJK run of a query is split (particles, pronouns, question words; Traditional Chinese).

Chosen on a Traditional-Chinese evaluation set (``bench/README.md``): with these, keyword search finds an
evidence turn in the top 10 for 0.782 of questions, against 0.729 with every bigram of the question; the
brief list without the question words scores 0.786, adding 在/有/和/也/都/就/還/又/很 or 關於/認為/覺得/知道
0.780-0.782 (neighbours alike), adding 不 or 男/女 loses."""


@dataclass(frozen=True)
class Term:
    """One searchable piece of a query.

    Attributes:
        text: the text to find (a word, a phrase, a trigram or a short CJK run).
        route: ``"word"`` (unicode61 table), ``"tri"`` (trigram table), ``"bi"`` (CJK bigram table) or
            ``"like"`` (substring scan).
    """

    text: str
    route: str


def quote(text: str) -> str:
    """An FTS5 string: double quotes around, inner double quotes doubled."""
    return '"' + text.replace('"', '""') + '"'


def route_phrase(text: str) -> Term | None:
    """The route for a text searched as one phrase (substring semantics for CJK)."""
    text = text.strip()
    if not text:
        return None
    runs = cjk.RUN.findall(text)
    if len(runs) == 1 and len(runs[0]) == 2 and runs[0] == text:
        return Term(text, "bi")
    if any(len(run) < 3 for run in runs) or (runs and len(text) < 3):
        return Term(text, "like")
    if runs:
        return Term(text, "tri")
    if not _TOKEN.search(text):
        return Term(text, "like")  # punctuation only: nothing a tokenizer would index
    return Term(text, "word")


_CJK_STOP = re.compile("|".join(re.escape(w) for w in sorted(CJK_STOP_WORDS, key=len, reverse=True)))


def cjk_pieces(run: str) -> list[str]:
    """The pieces of a CJK run between its stop characters (:data:`CJK_STOP_WORDS`), longest stop first."""
    return [piece for piece in _CJK_STOP.split(run) if piece]


def bigrams(text: str) -> list[str]:
    """The overlapping two-character grams of ``text`` (the text itself when it is shorter)."""
    return [text[i : i + 2] for i in range(len(text) - 1)] or [text]


def _cjk_terms(runs: list[str], route: str) -> list[Term]:
    """The terms of the query's CJK runs: bigrams of the pieces between stop characters (``route="bi"``),
    or trigrams of the whole runs (``route="tri"``, the error memory's). Runs of stop characters only, or of
    one character, keep their text (a 2-character run as a bigram, one character as a substring)."""
    terms: list[Term] = []
    if route == "bi":
        for run in runs:
            terms.extend(
                Term(g, "bi") for piece in cjk_pieces(run) if len(piece) >= 2 for g in bigrams(piece)
            )
        if terms:
            return terms
    for run in runs:
        if len(run) < 3:
            terms.append(Term(run, "bi" if len(run) == 2 else "like"))
        elif route == "bi":
            terms.extend(Term(g, "bi") for g in bigrams(run))
        else:
            terms.extend(Term(run[i : i + 3], "tri") for i in range(len(run) - 2))
    return terms


def parse_natural(query: str, *, cjk_route: str = "bi") -> list[Term]:
    """Terms of a natural-language query (any term may match).

    ``cjk_route``: ``"bi"`` (bigrams of the CJK runs between stop characters: message search) or ``"tri"``
    (trigrams of the whole runs).
    """
    terms: list[Term] = []
    for phrase in PHRASE.findall(query):
        term = route_phrase(phrase)
        if term is not None:
            terms.append(term)
    rest = PHRASE.sub(" ", query)
    words: list[str] = []
    runs: list[str] = []
    for token in _TOKEN.findall(rest):
        if cjk.RUN.fullmatch(token):
            runs.append(token)
        else:
            words.append(token.lower())
    terms.extend(_cjk_terms(runs, cjk_route))
    kept = [w for w in words if w not in STOP_WORDS] or words
    terms.extend(Term(w, "word") for w in kept)
    unique: dict[tuple[str, str], Term] = {}
    for term in terms:
        unique.setdefault((term.text.lower(), term.route), term)
    return list(unique.values())

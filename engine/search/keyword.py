"""Keyword queries: parsing and routing by script (the SQL that runs them is in ``engine.search.fulltext``).

Two kinds of query:

* natural language (the viewer, the CLI, hybrid search): any non-stop-word term matches; each term is
  quoted; a ``"double-quoted phrase"`` stays a phrase; rows are ranked by BM25;
* one phrase (the ``chat_history`` tool's keyword mode, as in the original): the whole keyword, newest
  first.

Routes: words of spaced scripts go to ``messages_fts`` (porter over unicode61, diacritics removed); a CJK
run of 3+ characters becomes its trigrams in ``messages_tri``; a CJK run of exactly 2 characters (the
most common Chinese word length) goes to ``messages_bi``, an index of CJK bigrams; a single CJK character
(or anything an index cannot hold) is a ``LIKE`` substring scan, newest first.
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


def parse_natural(query: str) -> list[Term]:
    """Terms of a natural-language query (any term may match)."""
    terms: list[Term] = []
    for phrase in PHRASE.findall(query):
        term = route_phrase(phrase)
        if term is not None:
            terms.append(term)
    rest = PHRASE.sub(" ", query)
    words: list[str] = []
    for token in _TOKEN.findall(rest):
        if cjk.RUN.fullmatch(token):
            if len(token) < 3:
                terms.append(Term(token, "bi" if len(token) == 2 else "like"))
            else:
                terms.extend(Term(token[i : i + 3], "tri") for i in range(len(token) - 2))
        else:
            words.append(token.lower())
    kept = [w for w in words if w not in STOP_WORDS] or words
    terms.extend(Term(w, "word") for w in kept)
    unique: dict[tuple[str, str], Term] = {}
    for term in terms:
        unique.setdefault((term.text.lower(), term.route), term)
    return list(unique.values())

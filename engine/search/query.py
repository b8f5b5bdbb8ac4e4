"""A search query, parsed once: :func:`parse` makes the :class:`Query` every part of a search reads.

Cleaning (NULs and lone surrogates out, at most :data:`MAX_QUERY_CHARS`) happens here and only here, and
so does folding: the terms, phrases and CJK runs are those of the text folded for search
(:func:`engine.textfold.fold`, as every index holds its text), the cleaned text itself stays as typed. The
keyword ranking, the context index, the vectors, the sender rule of hybrid fusion and the viewer's
highlighting all take the parsed query (or its cleaned text), so they agree on its words, stop words and
CJK runs (:mod:`engine.search.terms`, :mod:`engine.cjk`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine import cjk
from engine.search import dates, terms
from engine.search.dates import NamedDate
from engine.search.terms import Term
from engine.textfold import fold

MAX_QUERY_CHARS = 4096


def clean(text: str) -> str:
    """``text`` with NULs and lone surrogates removed, cut to :data:`MAX_QUERY_CHARS`."""
    text = text.replace("\x00", " ")
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text[:MAX_QUERY_CHARS]


def named_in(text: str, sender: str) -> bool:
    """Whether ``text`` names ``sender`` (a whole word, any case; CJK names anywhere; 2+ characters)."""
    name = sender.strip().casefold()
    if len(name) < 2:
        return False
    folded = text.casefold()
    if cjk.has_cjk(name):
        return name in folded
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", folded) is not None


@dataclass(frozen=True)
class Query:
    """One query, cleaned and parsed.

    Attributes:
        text: the cleaned text, as typed (what the vectors embed, what sender names are looked for in).
        terms: the natural-language terms of the folded text, routed by script (any of them may match; stop words out).
        phrase: the whole text searched as one phrase (the ``chat_history`` tool's keyword mode); None
            when it is blank.
        phrases: the ``"double-quoted phrases"``.
        runs: the CJK runs outside the phrases, whole (their terms are the bigrams of their pieces between
            stop characters).
        has_cjk: whether the text holds a CJK character.
        dates: the calendar dates the text names (:func:`engine.search.dates.named_dates`).
    """

    text: str
    terms: tuple[Term, ...]
    phrase: Term | None
    phrases: tuple[str, ...]
    runs: tuple[str, ...]
    has_cjk: bool
    dates: tuple[NamedDate, ...] = ()

    @property
    def words(self) -> list[str]:
        """The texts of the terms for the word index (words, and phrases of spaced scripts)."""
        return [t.text for t in self.terms if t.route == "word"]

    def names(self, sender: str) -> bool:
        """Whether the query names ``sender`` (see :func:`named_in`)."""
        return named_in(self.text, sender)

    def highlights(self) -> list[str]:
        """What a result is searched for, as texts to mark in it: the phrases, the CJK runs whole, their
        pieces between stop characters and the trigrams of those (so a result holding three characters of
        a piece in a row has them marked together, not as a bigram and a lone character), and every term
        (a CJK run's bigrams mark a result holding only part of it); no duplicates."""
        pieces = [p for run in self.runs for p in terms.cjk_pieces(run) if len(p) >= 2]
        grams = [p[i : i + 3] for p in pieces for i in range(len(p) - 2)]
        found = [*self.phrases, *self.runs, *pieces, *grams, *(t.text for t in self.terms)]
        return list(dict.fromkeys(f for f in found if f))


def parse(text: str) -> Query:
    """Clean ``text`` and parse it folded for search."""
    text = clean(text)
    folded = fold(text)
    phrases = tuple(p.strip() for p in terms.PHRASE.findall(folded) if p.strip())
    runs = tuple(cjk.RUN.findall(terms.PHRASE.sub(" ", folded)))
    return Query(
        text=text,
        terms=tuple(terms.parse_natural(folded)),
        phrase=terms.route_phrase(folded),
        phrases=phrases,
        runs=runs,
        has_cjk=cjk.has_cjk(folded),
        dates=dates.named_dates(text),
    )


def query_terms(text: str) -> list[str]:
    """The texts that a search for ``text`` looks for, to highlight in its results (see
    :meth:`Query.highlights`), folded for search as the indexes hold them."""
    return parse(text).highlights()

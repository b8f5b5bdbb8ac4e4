"""Synthetic conversation text for benchmarks: Zipf-distributed English words and zh-TW characters."""

from __future__ import annotations

import itertools
import random

_SYLLABLES = ["ka", "lo", "re", "mi", "tan", "os", "ve", "qu", "ix", "ar", "ne", "po", "su", "el", "dr", "ym"]
# Common Traditional Chinese characters (enough variety for trigram statistics).
_HANZI = (
    "的一是不了在人有我他這個們中來上大為和國地到以說時要就出會可也你對生能而子那得於著下自之年過發後作裡"
    "用道行所然家種事成方多經麼去法學如都同現當沒動面起看定天分還進好小部其些主樣理心她本前開但因只從想實"
    "日軍者意無力它與長把機十民第公此已工使情明性知全三又關點正業外將兩高間由問很最重並物手應戰向頭文體政"
    "美相見被利什二等產或新己制身果加西斯月話合回特代內信表化老給世位次度門任常先海通教兒原東聲提立及比員"
    "解水名真論處走義各入幾口認條平系氣題活爾更別打女變四神總何電數安少報才結反受目太量再感建務做接必場件"
)


class Corpus:
    """A deterministic generator of short English and zh-TW messages."""

    def __init__(self, seed: int = 1, vocabulary: int = 20_000) -> None:
        self.rng = random.Random(seed)
        self.words = self._vocabulary(vocabulary)
        self.word_weights = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(self.words))))
        self.hanzi_weights = list(
            itertools.accumulate(1.0 / (rank + 1) ** 0.8 for rank in range(len(_HANZI)))
        )

    def _vocabulary(self, size: int) -> list[str]:
        words: list[str] = ["memory", "the", "and", "search", "summary", "tray", "index", "session"]
        seen = set(words)
        while len(words) < size:
            word = "".join(self.rng.choice(_SYLLABLES) for _ in range(self.rng.randint(2, 4)))
            if word not in seen:
                seen.add(word)
                words.append(word)
        return words

    def english(self) -> str:
        n = self.rng.randint(5, 15)
        return " ".join(self.rng.choices(self.words, cum_weights=self.word_weights, k=n))

    def chinese(self) -> str:
        n = self.rng.randint(8, 30)
        return "".join(self.rng.choices(_HANZI, cum_weights=self.hanzi_weights, k=n))

    def message(self) -> str:
        return self.english() if self.rng.random() < 0.5 else self.chinese()

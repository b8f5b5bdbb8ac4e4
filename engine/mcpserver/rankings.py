"""The rankings an MCP server's ``search`` pages through, kept between its calls
(:class:`engine.mcpserver.kept.Kept`).

A search ranks once, at a fixed depth, so a page never changes the ranking; kept, the ranking also holds
while the memory changes between pages: the background embedder, after an import, moves the meaning ranking
with every vector for minutes, and a hook or the ``save`` tool can add a message holding the query's words.
Later pages are what was found then, in that order, less what has been forgotten since (each page reads its
messages again, and a forgotten one is gone). Kept: ids, scores, kinds and passages, never the text.

A first page ranks :data:`FIRST_DEPTH` deep (or as deep as it shows), the fused head hybrid search ranks
anyway: ranking to the most a search may give (200) costs a second, deeper fusion, which made a first hybrid
page take twice as long (``bench.mcp``, 200,000 messages: p50 70 → 129 ms). A page past the kept depth
ranks again, deeper, and the ranking goes on with the hits it does not hold yet (:meth:`Ranking.extended`):
never a hit twice, and a skip only of a hit that moved from below the kept depth to above it meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.search.fusion import DEPTH

FIRST_DEPTH = DEPTH
"""How deep a first page ranks: the depth of each list hybrid search fuses."""


@dataclass(frozen=True)
class Ranked:
    """One hit of a kept ranking: where to read its message again, and what the search said of it."""

    message_id: int
    session: str
    score: float
    source: str
    kind: str
    passage: tuple[int, int] | None


@dataclass(frozen=True)
class Ranking:
    """A search's ranking to the depth it was asked for, and what its meaning search covered then (``None``:
    complete, or a keyword search)."""

    hits: tuple[Ranked, ...]
    coverage: str | None
    depth: int

    @property
    def cut(self) -> bool:
        """Whether the ranking may go on past its hits (it filled the depth it was asked for)."""
        return len(self.hits) >= self.depth

    def extended(self, deeper: Ranking) -> Ranking:
        """This ranking followed by the hits of ``deeper`` (the same search ranked again, deeper) that it
        does not hold: no hit twice, and the pages already shown keep their order."""
        held = {hit.message_id for hit in self.hits}
        more = tuple(hit for hit in deeper.hits if hit.message_id not in held)
        return Ranking(self.hits + more, self.coverage, deeper.depth)

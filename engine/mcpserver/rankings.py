"""The rankings an MCP server's ``search`` pages through, kept between its calls.

A search ranks once (at a fixed depth, so a page never changes the ranking), but a second page asked for
a minute later would rank again, and in that minute the memory may have changed: the background embedder
has embedded more messages (after an import it embeds for minutes, and every one of them moves the meaning
ranking), a hook or the ``save`` tool has added a message holding the query's words. A ranking done again
then repeats some hits and skips others. So the first page keeps its ranking here, under a random token
that its cursor carries, and later pages slice that one ranking: what was found then, in that order, less
what has been forgotten since (each page reads its messages again, and a forgotten one is gone).

A first page ranks :data:`FIRST_DEPTH` deep (or as deep as it shows), the fused head hybrid search ranks
anyway: ranking to the most a search may give (200) costs a second, deeper fusion, which made a first hybrid
page take twice as long (``bench.mcp``, 200,000 messages: p50 70 → 129 ms). A page past the kept depth
ranks again, deeper, and the ranking goes on with the hits it does not hold yet (:meth:`Ranking.extended`):
never a hit twice, and a skip only of a hit that moved from below the kept depth to above it meanwhile.

Only the ids, scores and kinds are kept (a few kilobytes a ranking), never the messages' text, for the
:data:`KEPT` most recent rankings of this server process. A cursor whose ranking is no longer here (the
server restarted, or many searches came between) pages a new ranking of the same query from its offset, as
a cursor without a token always did.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass

from engine.search.fusion import DEPTH

KEPT = 64
"""How many rankings a server keeps (the least recently used goes first)."""
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
    """A search's ranking to the depth it was asked for, the fingerprint of the arguments it was made for,
    and what its meaning search covered then (``None``: complete, or a keyword search)."""

    fingerprint: str
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
        return Ranking(self.fingerprint, self.hits + more, self.coverage, deeper.depth)


class Rankings:
    """The most recent rankings, by token; safe to use from the server's worker threads."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._lock = threading.Lock()
        self._rankings: OrderedDict[str, Ranking] = OrderedDict()

    def keep(self, ranking: Ranking) -> str:
        """Keep ``ranking``; return its token (for a cursor)."""
        token = secrets.token_urlsafe(9)
        with self._lock:
            self._rankings[token] = ranking
            while len(self._rankings) > self._kept:
                self._rankings.popitem(last=False)
        return token

    def replace(self, token: str, ranking: Ranking) -> None:
        """Keep ``ranking`` under ``token`` instead of the one it held (a ranking extended deeper)."""
        with self._lock:
            self._rankings[token] = ranking
            self._rankings.move_to_end(token)

    def get(self, token: str, fingerprint: str) -> Ranking | None:
        """The ranking kept under ``token`` for arguments of ``fingerprint``, or None."""
        with self._lock:
            ranking = self._rankings.get(token)
            if ranking is None or ranking.fingerprint != fingerprint:
                return None
            self._rankings.move_to_end(token)
            return ranking

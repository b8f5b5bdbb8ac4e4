"""What an MCP server keeps between the pages of a listing: the listing as its first page saw it.

A later page asked for a minute after the first would otherwise list again, and in that minute the memory
may have changed (the embedder embeds, hooks and the ``save`` tool add messages, sessions move up the list
as they get new ones): listed again, pages repeat some items and skip others. So a first page keeps its
listing here under a random token that its cursor carries, and later pages slice that one listing
(``search``: :mod:`engine.mcpserver.rankings`; ``list_sessions``: the session ids in their order).

A store keeps the :data:`KEPT` most recently used listings of this server process, small ones (ids and
scores, never the messages' text). A cursor whose listing is no longer kept (a new server process, or many
listings since) lists again from its offset.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Generic, TypeVar

KEPT = 64
"""How many listings a store keeps (the least recently used goes first)."""

Listing = TypeVar("Listing")


class Kept(Generic[Listing]):
    """Listings by token, each for the arguments of one fingerprint; safe to use from the server's worker
    threads."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._lock = threading.Lock()
        self._listings: OrderedDict[str, tuple[str, Listing]] = OrderedDict()

    def keep(self, fingerprint: str, listing: Listing) -> str:
        """Keep ``listing``, made for arguments of ``fingerprint``; return its token (for a cursor)."""
        token = secrets.token_urlsafe(9)
        self.replace(token, fingerprint, listing)
        return token

    def replace(self, token: str, fingerprint: str, listing: Listing) -> None:
        """Keep ``listing`` under ``token`` (instead of the one it held: a ranking extended deeper)."""
        with self._lock:
            self._listings[token] = (fingerprint, listing)
            self._listings.move_to_end(token)
            while len(self._listings) > self._kept:
                self._listings.popitem(last=False)

    def get(self, token: str, fingerprint: str) -> Listing | None:
        """The listing kept under ``token`` for arguments of ``fingerprint``, or None."""
        with self._lock:
            found = self._listings.get(token)
            if found is None or found[0] != fingerprint:
                return None
            self._listings.move_to_end(token)
            return found[1]

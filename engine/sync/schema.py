"""``m013_sync``: the sync's tables (:mod:`engine.sync.tables`), from the statements frozen from them in
:mod:`engine.storage.frozen_ddl`."""

from __future__ import annotations

from engine.storage import ddl, frozen_ddl
from engine.storage.sql import Connection


def m013_sync(conn: Connection) -> None:
    """The sync's state, applied cursors, tombstones, received messages and title clocks."""
    ddl.create_missing(conn, frozen_ddl.M013_SYNC)

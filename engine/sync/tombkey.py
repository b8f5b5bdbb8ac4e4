"""The tombstone key every device of a sync folder shares: derived from the folder's key (so it is in the
keyring wherever the folder's key is, and a device that joins has it at once), never the folder's key
itself, and never written anywhere. :mod:`engine.sessions.tombstones` hashes a forgotten text under it
while sync is on, so the tombstones of two devices can be compared."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from engine.storage.sql import Connection
from engine.sync import state


def derive(folder_key: bytes) -> bytes:
    """The folder's tombstone key: 32 bytes of BLAKE2b keyed with the folder's key."""
    return hashlib.blake2b(
        b"memtray tombstones v1", key=folder_key, digest_size=32, person=b"mt-tombs"
    ).digest()


def shared(conn: Connection, folder_key: Callable[[str], bytes | None]) -> tuple[str, bytes] | None:
    """(folder id, tombstone key) while sync is on and this device has the folder's key, else None."""
    if not state.get(conn, state.FOLDER):
        return None
    folder_id = state.get(conn, state.FOLDER_ID)
    key = folder_key(folder_id) if folder_id else None
    return None if key is None else (folder_id, derive(key))

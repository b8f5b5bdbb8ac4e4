"""The keys tombstones (:mod:`engine.sessions.tombstones`) are made and checked with.

- the home's own (scope ``""``): 32 random bytes in ``<home>/.store/forget.key`` (owner-only), never in the
  database, made once whoever races;
- while sync is on, the key every device of the sync folder shares (scope: the folder's id), derived from
  the folder's key in the keyring (:mod:`engine.sync.tombkey`), handed in by the memory
  (:attr:`TombKeys.shared`);
- the keys of the sync folders this home left (``sync disable``, or another folder):
  ``<home>/.store/tombs-<folder id>.key`` (:func:`retire`), so their tombstones still count.

A keyed hash of a short text cannot be reversed by trying every likely text without the key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from engine.paths import Paths
from engine.storage.atomic import O_BINARY, atomic_write, sync_dir
from engine.storage.diskerrors import file_errors
from engine.storage.sql import Connection

KEY_FILE = "forget.key"
KEY_BYTES = 32

LOCAL = ""
"""The scope of a tombstone under the home's own key."""
IMPORTED = "~import"
"""The scope of a former unkeyed import key, hashed under the home's key."""

Scoped = tuple[str, bytes]
"""A key and its scope."""


def key_path(paths: Paths) -> Path:
    return paths.store_dir / KEY_FILE


def load_key(paths: Paths, *, create: bool) -> bytes | None:
    """The home's tombstone key; made (durably, once, whoever races) when ``create``, else None if none."""
    path = key_path(paths)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    if len(data) == KEY_BYTES:
        return data
    if not create:
        return None
    with file_errors("the forget key"):
        tmp = path.with_name(f".{KEY_FILE}.{secrets.token_hex(6)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, 0o600)
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            if data:  # a short file: damaged, replaced (the tombstones made with it are lost anyway)
                os.replace(tmp, path)
            else:
                os.link(tmp, path)  # fails if another program made it first: theirs is used
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
        sync_dir(path.parent)
        return path.read_bytes()


RETIRED_PREFIX, RETIRED_SUFFIX = "tombs-", ".key"
"""``<home>/.store/tombs-<folder id>.key``: the tombstone key of a sync folder this home no longer uses."""


def retire(paths: Paths, scope: str, key: bytes) -> None:
    """Keep the tombstone key of a sync folder being left (``sync disable``, or another folder): its
    tombstones of messages this device never had keep them out of an import after (owner-only, beside
    the home's own key, never in the database)."""
    if not scope or not all(c in "0123456789abcdef" for c in scope):
        return
    path = paths.store_dir / f"{RETIRED_PREFIX}{scope}{RETIRED_SUFFIX}"
    with file_errors("a sync folder's tombstone key"):
        atomic_write(path, key)


def retired(paths: Paths) -> dict[str, bytes]:
    """The tombstone keys of the sync folders this home left, by scope."""
    found = {}
    for path in paths.store_dir.glob(f"{RETIRED_PREFIX}*{RETIRED_SUFFIX}"):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if len(data) == KEY_BYTES:
            found[path.name[len(RETIRED_PREFIX) : -len(RETIRED_SUFFIX)]] = data
    return found


def digest(key: bytes, text: str) -> str:
    """The keyed hash of a message's text (or of an error record's duplicate key)."""
    return hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def _none(conn: Connection) -> Scoped | None:
    return None


class TombKeys:
    """The keys tombstones are made and checked with: the home's own, and the sync folder's while sync is
    on (``shared``: handed in by the memory, which knows the sync; None when it is off or its key is not
    on this device)."""

    def __init__(self, paths: Paths) -> None:
        self._paths = paths
        self.shared: Callable[[Connection], Scoped | None] = _none

    def local(self, *, create: bool) -> bytes | None:
        return load_key(self._paths, create=create)

    def writing(self, conn: Connection) -> list[Scoped]:
        """The keys a new tombstone is made under: the home's (made if missing), then the folder's while
        sync is on, else those of the folders left (so a forget made while sync is off is told when the
        same folder is enabled again)."""
        key = self.local(create=True)
        assert key is not None
        found: list[Scoped] = [(LOCAL, key)]
        if (shared := self.shared(conn)) is not None:
            found.append(shared)
        else:
            found += sorted(retired(self._paths).items())
        return found

    def reading(self, conn: Connection) -> dict[str, bytes]:
        """Every key this device holds, by scope (``~import`` tombstones use the home's; the keys of
        folders left, :func:`retire`)."""
        found: dict[str, bytes] = retired(self._paths)
        if (key := self.local(create=False)) is not None:
            found[LOCAL] = found[IMPORTED] = key
        if (shared := self.shared(conn)) is not None:
            found[shared[0]] = shared[1]
        return found

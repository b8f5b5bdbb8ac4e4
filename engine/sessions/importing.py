"""How an import is cut into batches, and which of its messages are new (for :class:`~engine.sessions.log.SessionLog`).

An export of many conversations is stored a batch of sessions at a time: one write transaction for the
archive rows of every session of the batch, then every session's history.json, written concurrently
(:func:`in_parallel`). A session is at most once in a batch, so each session of a batch gets one append,
as the append/replay protocol expects (rows above ``hot_last_id``: the last finished append's, and at most
one interrupted append's after them; ``docs/architecture.md``, *The session log*).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from engine.imported import ImportedSession
from engine.messages import Message
from engine.sessions import archive, identity

BATCH_MESSAGES = 5000
"""Messages per batch (a conversation is never split): large enough that the per-transaction costs
(commit, FTS5 segment flush and merge) are shared by many conversations, small enough that the write lock
is held for well under a second and the progress moves often."""

BATCH_SESSIONS = 200
"""Sessions per batch at most: a batch holds the lock of each (an open file each)."""

WRITERS = 8
"""History files written at once. Each write is its own temp file, fsync, rename and folder fsync; the
file system serves fsyncs that wait together with one journal commit, so they cost little more than one."""

T = TypeVar("T")
R = TypeVar("R")


def batches(
    imported: Sequence[ImportedSession], size: int | None = None, sessions: int | None = None
) -> Iterator[list[ImportedSession]]:
    """The conversations in order, in batches of about ``size`` messages (default :data:`BATCH_MESSAGES`)
    and at most ``sessions`` sessions (default :data:`BATCH_SESSIONS`); a conversation larger than a
    batch is a batch of its own, and a session seen again starts a new batch."""
    size = BATCH_MESSAGES if size is None else size
    sessions = BATCH_SESSIONS if sessions is None else sessions
    batch: list[ImportedSession] = []
    seen: set[str] = set()
    count = 0
    for item in imported:
        full = count + len(item.messages) > size or len(batch) >= sessions
        if batch and (full or item.session in seen):
            yield batch
            batch, seen, count = [], set(), 0
        batch.append(item)
        seen.add(item.session)
        count += len(item.messages)
    if batch:
        yield batch


def fresh(
    item: ImportedSession,
    known: set[tuple[str, str, int]],
    buried: Callable[[str, Message, int], bool] | None = None,
) -> tuple[list[Message], int]:
    """The messages of ``item`` the session does not hold yet, and how many were passed over as forgotten.

    ``known`` has the archive's (role, text, time) of the session
    (:func:`engine.sessions.archive.fingerprints`), time as it would be archived. ``buried(session, message,
    time)`` says a message was forgotten, reset or removed, here or on another device
    (:class:`engine.sessions.tombstones.Buried`): it never comes back.
    Each message comes with its global id: its own (a synced message), else the import key's
    (:func:`engine.sessions.identity.with_import_gids`).
    """
    times = archive.archive_times(item.messages)
    named = identity.with_import_gids(item.session, item.messages, times)
    new = [(m, t) for m, t in zip(named, times, strict=True) if (m.role, m.content, t) not in known]
    kept = [m for m, t in new if not (buried is not None and buried(item.session, m, t))]
    return kept, len(new) - len(kept)


def in_parallel(work: Callable[[T], R], items: Sequence[T]) -> list[R | Exception]:
    """``work(item)`` for every item, up to :data:`WRITERS` at once; each result, or the exception it
    raised, in the order of ``items``."""

    def attempt(item: T) -> R | Exception:
        try:
            return work(item)
        except Exception as exc:  # handed back: the caller takes back what the failed item wrote
            return exc

    if len(items) <= 1:
        return [attempt(item) for item in items]
    with ThreadPoolExecutor(
        max_workers=min(WRITERS, len(items)), thread_name_prefix="memtray-import"
    ) as pool:
        return list(pool.map(attempt, items))

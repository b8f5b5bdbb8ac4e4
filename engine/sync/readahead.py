"""Reading the next segment while this one is applied: :class:`ReadAhead` reads, decrypts and decodes
segment ``n + 1`` in a thread of its own while the caller applies segment ``n`` (the decryption and
zlib release the interpreter's lock, and so does SQLite while it stores ``n``). Reading changes
nothing, so a process killed at any point leaves nothing to undo."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")


class ReadAhead(Generic[T]):
    """``read(seq)`` of the numbers asked for, each next one started while the caller works on the last."""

    def __init__(self, read: Callable[[int], T]) -> None:
        self._read = read
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memtray-sync-read")
        self._ahead: tuple[int, Future[T]] | None = None

    def __enter__(self) -> ReadAhead[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._ahead is not None:
            self._ahead[1].cancel()
        self._pool.shutdown(wait=True)

    def take(self, seq: int, then: int | None) -> T:
        """``read(seq)`` (what it returned or raised), with ``read(then)`` started in the thread (if not
        None) before this one's result is awaited."""
        ahead, self._ahead = self._ahead, None
        future = ahead[1] if ahead is not None and ahead[0] == seq else self._pool.submit(self._read, seq)
        if ahead is not None and ahead[0] != seq:
            ahead[1].cancel()
        if then is not None:
            self._ahead = (then, self._pool.submit(self._read, then))
        return future.result()

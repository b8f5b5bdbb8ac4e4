"""Derived model files, built once and kept in the user's cache folder (``<cache>/memtray/models/``).

A file is named by what it is made from (``<stem>-<key>.model``: the key covers the source's hash and the
builder's version), so a new source or builder gives a new file and the old ones of that stem are
deleted. The file is an 8-byte magic, the payload's BLAKE2b digest and the payload; one whose magic or digest
does not match (damaged, cut short) is rebuilt, with a log line. Files are written to a temporary name,
flushed and renamed (a crash never leaves a half-written model under the real name), owner-only (0600)
in an owner-only folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import platformdirs

log = logging.getLogger("memtray.embedders")

MAGIC = b"MTMODEL1"
DIGEST = 32
STALE_TEMP_S = 3600.0
"""A temporary file older than this is left over from a build that died; it is deleted."""


def default_folder() -> Path:
    """``<the platform's user cache folder>/memtray/models``."""
    return platformdirs.user_cache_path("memtray", appauthor=False) / "models"


def load_or_build(folder: Path, stem: str, key: str, build: Callable[[], bytes]) -> bytes:
    """The payload of ``<folder>/<stem>-<key>.model``, built with ``build()`` and kept if missing or damaged.

    A model that cannot be written (read-only or full disk) is returned all the same, with a warning.
    The build's own errors pass through.
    """
    path = folder / f"{stem}-{key}.model"
    payload = _read(path)
    if payload is not None:
        return payload
    started = time.perf_counter()
    payload = build()
    try:
        _write(path, payload)
    except OSError as exc:
        log.warning("the model %s cannot be kept (%s): it will be built again next time", path, exc)
        return payload
    log.info("built %s (%.1f MB) in %.1f s", path, len(payload) / 1e6, time.perf_counter() - started)
    for old in folder.glob(f"{stem}-*.model"):
        if old != path:
            with contextlib.suppress(OSError):
                old.unlink()
                log.info("deleted the outdated model %s", old)
    return payload


def _digest(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=DIGEST).digest()


def _read(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("the model %s cannot be read (%s): building it again", path, exc)
        return None
    head, digest, payload = (
        data[: len(MAGIC)],
        data[len(MAGIC) : len(MAGIC) + DIGEST],
        data[len(MAGIC) + DIGEST :],
    )
    if head != MAGIC or _digest(payload) != digest:
        log.warning("the model %s is damaged: building it again", path)
        return None
    return payload


def _write(path: Path, payload: bytes) -> None:
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name == "posix":
        os.chmod(folder, 0o700)
    for left in folder.glob(f".{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if time.time() - left.stat().st_mtime > STALE_TEMP_S:
                left.unlink()
    handle, temporary = tempfile.mkstemp(  # created owner-only (0600)
        dir=folder, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(MAGIC)
            out.write(_digest(payload))
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
        raise

"""Sync through a folder another program keeps in step (Syncthing, Dropbox, a network share, a USB stick).

Each device writes only its own files, under ``<folder>/memtray/<device id>/``: immutable, encrypted
segments (:mod:`engine.sync.segment`) and a manifest (:mod:`engine.sync.folder`). ``sync now`` writes what
is new here (:mod:`engine.sync.export`) and applies what the others wrote (:mod:`engine.sync.apply`),
through the memory's own public methods: the same import, forget, reset and removal as any caller's.
:class:`engine.sync.service.Sync` puts it together (``Memory.sync``); its public names are here, loaded
when first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.sync.service import DeviceStatus, Sync, SyncReport, SyncStatus


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'engine.sync' has no attribute {name!r}")
    return getattr(importlib.import_module("engine.sync.service"), name)


__all__ = ["DeviceStatus", "Sync", "SyncReport", "SyncStatus"]

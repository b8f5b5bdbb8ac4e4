"""The settings every device of a sync folder shares (:data:`engine.settings.SHARED`): a change made on one
device reaches the others; the newest wins on every device.

Nothing is journaled: each shared setting has a register in this device's sync state, the value last
synced (a digest of it) and that change's clock (time, device). A value that differs from its register
was changed here since the last sync, and the next segment tells it as a ``setting`` change, with a clock
past every change of it seen here (a Lamport clock, as for titles); once written, the register holds it.
So a change made here is never lost to a kill: it is in the settings table, and the register says it is
not sent yet.

**Applying** a change of another device: when this device's own value has a change not sent yet, that
change was made after everything seen here and is kept (its clock will pass the one that arrived);
otherwise the newer clock wins and the value is stored through the memory's own ``update_settings``
(validated: a value this version refuses is logged and skipped).

**Which device's settings a folder starts with**: the device that creates the folder sends the shared
settings it has changed from their defaults; a device that joins takes the folder's, keeping its own
only for those nobody changed (its registers start at clock 0, older than any change: :func:`joined`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any, Protocol

from engine.errors import InvalidSetting
from engine.settings import DEFAULTS, SHARED, Settings, coerce, from_stored
from engine.storage.sql import Connection
from engine.storage.store import Store
from engine.sync import state

log = logging.getLogger("memtray.sync")

KIND = "setting"
"""The kind of a segment's change that carries a shared setting: ``{"kind", "name", "value", "at"}``."""
_PREFIX = "setting:"
"""The sync state's key of a setting's register: ``setting:<name>`` → ``[at, device, digest]``."""


class SettingsTarget(Protocol):
    """What applying needs of the memory (:class:`engine.memory.Memory` has it)."""

    def update_settings(self, **changes: Any) -> Settings: ...


def digest(value: object) -> str:
    """A digest of a setting's value (its JSON form)."""
    raw = json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(raw, digest_size=16, person=b"memtray-setting").hexdigest()


def _register(conn: Connection, name: str) -> tuple[int, str, str] | None:
    raw = state.get(conn, _PREFIX + name)
    if not raw:
        return None
    at, device, value_digest = json.loads(raw)
    return int(at), str(device), str(value_digest)


def _set_register(conn: Connection, name: str, at: int, device: str, value_digest: str) -> None:
    state.put(conn, _PREFIX + name, json.dumps([at, device, value_digest]))


def _stored(conn: Connection) -> dict[str, Any]:
    """The shared settings as stored now (another program may have changed them: not a cached copy)."""
    settings = from_stored({str(k): str(v) for k, v in conn.execute("SELECT key, value FROM settings")})
    values = settings.as_dict()
    return {name: values[name] for name in sorted(SHARED)}


def joined(conn: Connection, me: str) -> None:
    """A device joins a folder: its shared settings as they are count as synced at clock 0, so the
    folder's changes replace them and they are sent only once changed here."""
    for name, value in _stored(conn).items():
        if _register(conn, name) is None:
            _set_register(conn, name, 0, me, digest(_plain(value)))


def collect(conn: Connection, now: int) -> list[dict[str, Any]]:
    """The changes of shared settings made here since the last segment (see the module), in the caller's
    transaction; :func:`commit` records them once written."""
    changes = []
    for name, value in _stored(conn).items():
        register = _register(conn, name)
        if not _unsent(register, value, name):
            continue
        at = max(now, register[0] + 1) if register is not None else now
        changes.append({"kind": KIND, "name": name, "value": _plain(value), "at": at})
    return changes


def commit(conn: Connection, me: str, changes: list[dict[str, Any]]) -> None:
    """Record that ``changes`` (of :func:`collect`) are written, in the caller's transaction."""
    for change in changes:
        _set_register(conn, str(change["name"]), int(change["at"]), me, digest(change["value"]))


def in_force(conn: Connection, me: str) -> list[dict[str, Any]]:
    """For a snapshot: the changes made here still in force (their register is this device's and the value
    has not changed since)."""
    changes = []
    for name, value in _stored(conn).items():
        register = _register(conn, name)
        if (
            register is not None
            and register[0] > 0
            and register[1] == me
            and register[2] == digest(_plain(value))
        ):
            changes.append({"kind": KIND, "name": name, "value": _plain(value), "at": register[0]})
    return changes


def apply(store: Store, target: SettingsTarget, device: str, changes: list[dict[str, Any]]) -> int:
    """Apply another device's setting changes (see the module); return how many settings changed here."""
    applied: dict[str, Any] = {}
    with store.write() as conn:
        stored = _stored(conn)
        for change in changes:
            name, at = str(change.get("name", "")), int(change.get("at", 0))
            if name not in SHARED:
                continue  # a setting this version does not share (a newer version's): not applied
            try:
                value = coerce(name, change.get("value"))
            except InvalidSetting as exc:
                log.warning("sync: a shared setting from %s is not usable here: %s", device, exc)
                continue
            register = _register(conn, name)
            if register is not None and (at, device) <= register[:2]:
                continue  # older than the change in force
            _set_register(conn, name, at, device, digest(_plain(value)))
            if _unsent(register, stored[name], name):
                continue  # changed here and not sent yet: it is, next, with a clock past this one
            if value != stored[name]:
                applied[name] = value
    if applied:
        target.update_settings(**applied)
    return len(applied)


def _unsent(register: tuple[int, str, str] | None, value: object, name: str) -> bool:
    """Whether ``value`` is a change made here that no segment has told yet."""
    if register is None:
        return bool(value != DEFAULTS.as_dict()[name])
    return register[2] != digest(_plain(value))


def _plain(value: object) -> object:
    """A setting's value as JSON holds it (a list for a tuple)."""
    return list(value) if isinstance(value, tuple) else value

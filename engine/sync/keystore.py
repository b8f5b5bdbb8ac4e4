"""The shared folder's key in the OS keyring, beside the Gemini key and under the same rules
(:class:`engine.llm.keys.Keys`: a secure keyring only, unless one is chosen explicitly), or held for this
run only. The keyring entry is ``memtray`` / ``sync-key:<folder id>``; the key is never logged."""

from __future__ import annotations

import threading

from engine.errors import KeyringUnavailable
from engine.llm.keys import Keys
from engine.logs import register_secret

SERVICE = "memtray"


def _username(folder_id: str) -> str:
    return f"sync-key:{folder_id}"


class SyncKeys:
    """Where this device keeps the folder's key."""

    def __init__(self, keys: Keys) -> None:
        self._keys = keys
        self._this_run: dict[str, bytes] = {}
        self._guard = threading.Lock()

    def get(self, folder_id: str) -> bytes | None:
        """The key, or None when this device has none (run ``memtray sync enable`` again)."""
        with self._guard:
            if folder_id in self._this_run:
                return self._this_run[folder_id]
        from keyring.errors import KeyringError

        try:
            value = self._keys.backend().get_password(SERVICE, _username(folder_id))
        except (KeyringUnavailable, KeyringError):
            return None
        if not value:
            return None
        register_secret(value)
        try:
            return bytes.fromhex(value)
        except ValueError:
            return None

    def get_stored(self, folder_id: str) -> bool:
        """Whether the key is in the keyring (not only held for this run)."""
        from keyring.errors import KeyringError

        try:
            return bool(self._keys.backend().get_password(SERVICE, _username(folder_id)))
        except (KeyringUnavailable, KeyringError):
            return False

    def store(self, folder_id: str, key: bytes) -> bool:
        """Keep the key in the keyring; False (held for this run only) when there is no secure keyring."""
        from keyring.errors import KeyringError

        self.use_for_this_run(folder_id, key)
        register_secret(key.hex())
        try:
            self._keys.backend().set_password(SERVICE, _username(folder_id), key.hex())
        except (KeyringUnavailable, KeyringError):
            return False
        return True

    def use_for_this_run(self, folder_id: str, key: bytes) -> None:
        register_secret(key.hex())
        with self._guard:
            self._this_run[folder_id] = key

    def delete(self, folder_id: str) -> None:
        from keyring.errors import KeyringError, PasswordDeleteError

        with self._guard:
            self._this_run.pop(folder_id, None)
        try:
            self._keys.backend().delete_password(SERVICE, _username(folder_id))
        except (KeyringUnavailable, KeyringError, PasswordDeleteError):
            pass

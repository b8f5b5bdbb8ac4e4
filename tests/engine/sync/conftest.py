"""Fixtures of the sync tests: homes that share a folder, a fast key derivation, an in-memory keyring."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nacl.pwhash
import pytest
from keyring.backend import KeyringBackend

from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.llm.keys import Keys
from engine.sync import crypto


class MemoryKeyring(KeyringBackend):
    """A keyring that keeps its entries in a dict (one per test): the real ``keyring`` API."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError("none")


@pytest.fixture(autouse=True)
def fast_kdf(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2id with libsodium's smallest limits: the tests derive many keys."""
    monkeypatch.setattr(
        crypto, "KDF_LIMITS", (nacl.pwhash.argon2id.OPSLIMIT_MIN, nacl.pwhash.argon2id.MEMLIMIT_MIN)
    )


class Homes:
    """Memories on one machine, each in its own home, opened and closed by the test."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.open_ones: list[Memory] = []

    def open(self, name: str, **options: Any) -> Memory:
        options.setdefault("embedder", HashEmbedder())
        options.setdefault("background", False)
        options.setdefault("keys", Keys(backend=MemoryKeyring()))  # None: the OS keyring (as the CLI)
        mem = Memory.open(self.base / name, **options)
        self.open_ones.append(mem)
        return mem

    def close_all(self) -> None:
        for mem in self.open_ones:
            if not mem.closed:
                mem.close()


def pair(
    homes: Homes, folder: Path, passphrase: str, names: tuple[str, str] = ("a", "b"), **options: Any
) -> tuple[Memory, Memory]:
    """Two homes named ``names`` (their device names too) syncing through ``folder`` (made if missing)."""
    folder.mkdir(exist_ok=True)
    a, b = homes.open(names[0], **options), homes.open(names[1], **options)
    a.sync.enable(folder, passphrase, names[0])
    b.sync.enable(folder, passphrase, names[1])
    return a, b


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[Homes]:
    made = Homes(tmp_path / "homes")
    yield made
    made.close_all()

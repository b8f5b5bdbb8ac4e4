"""The shared folder's key: derived from a passphrase with Argon2id, checked against the folder's
``sync.json``, and used to encrypt and authenticate every file memtray writes there
(XChaCha20-Poly1305 from libsodium, through PyNaCl).

``sync.json`` holds only what deriving the key needs (a random salt, the Argon2id limits) and a check
value (a known text encrypted with the key), so a wrong passphrase is told at once. Each encrypted file
binds its own name (device and sequence number) as associated data: a segment copied under another name
does not decrypt. What encryption protects against: anyone who can read the folder (the cloud provider,
a lost USB stick) learns neither a message, a title nor a session id, and cannot change or add a segment
without it being refused. It does not hide how many devices there are, how many segments each wrote,
their sizes or their times.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nacl.exceptions
import nacl.pwhash
import nacl.secret

from engine.errors import SyncError, WrongPassphrase
from engine.sync import folder as layout

FORMAT = "memtray-sync"
VERSION = 1
KEY_BYTES = 32
CHECK = b"memtray sync key check v1"
KDF_LIMITS = (nacl.pwhash.argon2id.OPSLIMIT_MODERATE, nacl.pwhash.argon2id.MEMLIMIT_MODERATE)
"""Argon2id's (operations, memory) for a new folder: libsodium's "moderate" (~1.5 s, 256 MiB here); kept
in ``sync.json``, so a folder made with other limits still opens."""


@dataclass(frozen=True)
class FolderConfig:
    """``sync.json``: the salt and limits of the key's derivation, and the check value."""

    salt: bytes
    opslimit: int
    memlimit: int
    check: bytes

    @property
    def folder_id(self) -> str:
        """A short public name for the folder's key (it names the key in the keyring)."""
        return self.salt.hex()[:16]

    def to_json(self) -> bytes:
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "kdf": {
                "alg": "argon2id13",
                "salt": self.salt.hex(),
                "opslimit": self.opslimit,
                "memlimit": self.memlimit,
            },
            "check": self.check.hex(),
        }
        return json.dumps(data, indent=1).encode("utf-8")


def derive(passphrase: str, salt: bytes, opslimit: int, memlimit: int) -> bytes:
    """The folder's 32-byte key from a passphrase."""
    if not passphrase:
        raise WrongPassphrase("the sync passphrase is empty")
    return bytes(
        nacl.pwhash.argon2id.kdf(
            KEY_BYTES, passphrase.encode("utf-8"), salt, opslimit=opslimit, memlimit=memlimit
        )
    )


def create(folder: Path, passphrase: str) -> tuple[FolderConfig, bytes]:
    """A new folder's ``sync.json`` (written) and its key."""
    ops, mem = KDF_LIMITS
    salt = secrets.token_bytes(nacl.pwhash.argon2id.SALTBYTES)
    key = derive(passphrase, salt, ops, mem)
    config = FolderConfig(salt, ops, mem, seal(key, CHECK, b"check"))
    layout.write_atomically(layout.root(folder) / layout.CONFIG, config.to_json())
    return config, key


def read_config(folder: Path) -> FolderConfig | None:
    """The folder's ``sync.json``; None when there is none yet.

    Raises:
        SyncError: it exists but cannot be read, or was written by a newer memtray.
    """
    path = layout.root(folder) / layout.CONFIG
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SyncError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(raw)
        if data.get("format") != FORMAT:
            raise ValueError("not a memtray sync folder")
        if int(data.get("version", 0)) > VERSION:
            raise SyncError(f"{path} was written by a newer memtray: update memtray on this device")
        kdf = data["kdf"]
        return FolderConfig(
            bytes.fromhex(kdf["salt"]),
            int(kdf["opslimit"]),
            int(kdf["memlimit"]),
            bytes.fromhex(data["check"]),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise SyncError(f"{path} is not a readable memtray sync.json ({exc})") from exc


def unlock(config: FolderConfig, passphrase: str) -> bytes:
    """The key for ``config`` from a passphrase.

    Raises:
        WrongPassphrase: the passphrase is not the folder's.
    """
    key = derive(passphrase, config.salt, config.opslimit, config.memlimit)
    if not check(config, key):
        raise WrongPassphrase(
            "this passphrase does not open the sync folder (it was set on the first device)"
        )
    return key


def check(config: FolderConfig, key: bytes) -> bool:
    """Whether ``key`` is the folder's."""
    try:
        return unseal(key, config.check, b"check") == CHECK
    except SyncError:
        return False


def seal(key: bytes, plaintext: bytes, name: bytes) -> bytes:
    """``plaintext`` encrypted and authenticated, bound to ``name`` (random 24-byte nonce first)."""
    return bytes(nacl.secret.Aead(key).encrypt(plaintext, aad=name))


def unseal(key: bytes, data: bytes, name: bytes) -> bytes:
    """What :func:`seal` sealed.

    Raises:
        SyncError: the data is truncated, altered, under another name, or sealed with another key.
    """
    try:
        return nacl.secret.Aead(key).decrypt(data, aad=name)
    except (nacl.exceptions.CryptoError, ValueError, TypeError) as exc:
        raise SyncError("a sync file does not decrypt: incomplete, altered, or of another folder") from exc

"""The Gemini API key: from ``GEMINI_API_KEY``, a key given for this run only, or the OS keyring.

Order: the environment wins (headless use), then a key handed to :meth:`Keys.use_for_this_run` (held in
memory only, never written anywhere), then the OS keyring (``keyring``, service ``memtray``).

memtray only stores a key in a *secure* keyring (Secret Service, macOS Keychain, Windows Credential
Locker, ...). When the keyring is the ``fail`` backend, or only an insecure one such as
``keyrings.alt``'s plaintext file (which becomes the default silently once installed), storing refuses
with :class:`~engine.errors.KeyringUnavailable` and a message naming the non-persistent alternatives. An
insecure backend is used only when chosen explicitly (``PYTHON_KEYRING_BACKEND`` or the ``backend``
argument). Keys are never logged: every key handed out or set is registered with
:func:`engine.logs.register_secret`, so it is hidden in every log line, traceback and redacted text,
whatever its shape.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import InvalidKey, KeyringUnavailable, NoApiKey
from engine.logs import register_secret

log = logging.getLogger("memtray.keys")

SERVICE = "memtray"
USERNAME = "gemini_api_key"
ENV_KEY = "GEMINI_API_KEY"
ENV_BACKEND = "PYTHON_KEYRING_BACKEND"

NO_SECURE_STORE = (
    "no secure key store (OS keyring) is available on this computer{detail}, and memtray never stores "
    "the key in plain text. For this run only, set GEMINI_API_KEY in the environment "
    "(e.g. `GEMINI_API_KEY=... memtray daemon`), pass --key-stdin to `memtray summarize` or "
    "`memtray daemon`, or enter the key in the app for this session"
)
NO_KEY = (
    "no Gemini API key: the summarizer is off. Run `memtray key set`, or set GEMINI_API_KEY "
    "(search and everything else work without it)"
)


@dataclass(frozen=True)
class KeyStatus:
    """Where the key comes from, without the key itself.

    Attributes:
        source: ``env``, ``this-run``, ``keyring`` or ``none``.
        backend: the keyring backend's name, or ``""`` when there is none.
        secure_store: whether a secure keyring is available to store a key.
        message: one line for the user.
    """

    source: str
    backend: str
    secure_store: bool
    message: str

    @property
    def available(self) -> bool:
        return self.source != "none"


def _name(backend: Any) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _unusable(backend: Any) -> bool:
    module = type(backend).__module__
    return module.startswith(("keyring.backends.fail", "keyring.backends.null"))


def _insecure(backend: Any) -> bool:
    return type(backend).__module__.startswith("keyrings.alt")


def checked(value: str) -> str:
    """``value`` as a key is kept: white space around it dropped.

    Raises:
        InvalidKey: empty, or white space inside (a key is one word of text).
    """
    value = value.strip()
    if not value or any(c.isspace() for c in value):
        raise InvalidKey("the key must be one word of text")
    return value


class Keys:
    """The Gemini key of this user.

    Args:
        backend: a keyring backend chosen explicitly (tests; an explicit choice may be insecure);
            None resolves the OS default, refusing insecure backends unless ``PYTHON_KEYRING_BACKEND``
            names one.
        environ: the environment to read ``GEMINI_API_KEY`` from.
    """

    def __init__(self, backend: Any = None, environ: Mapping[str, str] | None = None) -> None:
        self._explicit = backend
        self._environ = os.environ if environ is None else environ
        self._this_run: str | None = None
        self._guard = threading.Lock()

    # -- the backend ------------------------------------------------------------------------------

    def backend(self) -> Any:
        """The keyring backend memtray will use.

        Raises:
            KeyringUnavailable: no secure backend exists (the message says what to do instead).
        """
        if self._explicit is not None:
            if _unusable(self._explicit):
                raise KeyringUnavailable(NO_SECURE_STORE.format(detail=f" ({_name(self._explicit)})"))
            return self._explicit
        import keyring
        from keyring.backends.chainer import ChainerBackend

        chosen = keyring.get_keyring()
        explicit_env = bool(self._environ.get(ENV_BACKEND))
        candidates = list(chosen.backends) if isinstance(chosen, ChainerBackend) else [chosen]
        usable = [b for b in candidates if not _unusable(b) and (explicit_env or not _insecure(b))]
        if not usable:
            detail = f" (the keyring backend is {_name(chosen)})"
            if any(_insecure(b) for b in candidates):
                detail = " (only an insecure plaintext keyring is installed)"
            raise KeyringUnavailable(NO_SECURE_STORE.format(detail=detail))
        return usable[0]

    def secure_store(self) -> bool:
        try:
            self.backend()
        except KeyringUnavailable:
            return False
        return True

    # -- reading ----------------------------------------------------------------------------------

    def get(self) -> str | None:
        """The key, or None when there is none (the keyring failing counts as none, with a log line)."""
        key = self._find()
        register_secret(key)
        return key

    def _find(self) -> str | None:
        env = self._environ.get(ENV_KEY, "").strip()
        if env:
            return env
        with self._guard:
            if self._this_run:
                return self._this_run
        try:
            value = self._stored()
        except KeyringUnavailable:
            return None
        return value or None

    def _stored(self) -> str | None:
        from keyring.errors import KeyringError

        backend = self.backend()
        try:
            value = backend.get_password(SERVICE, USERNAME)
        except KeyringError as exc:
            log.warning("cannot read the keyring (%s): %s", _name(backend), type(exc).__name__)
            raise KeyringUnavailable(f"the keyring could not be read: {exc}") from exc
        return value if isinstance(value, str) and value.strip() else None

    def require(self) -> str:
        """The key.

        Raises:
            NoApiKey: there is none.
        """
        key = self.get()
        if not key:
            raise NoApiKey(NO_KEY)
        return key

    def status(self) -> KeyStatus:
        """Where the key would come from now (the key itself is never part of it)."""
        try:
            backend_name = _name(self.backend())
            secure = True
        except KeyringUnavailable:
            backend_name, secure = "", False
        if self._environ.get(ENV_KEY, "").strip():
            return KeyStatus("env", backend_name, secure, f"the Gemini key comes from {ENV_KEY}")
        with self._guard:
            this_run = bool(self._this_run)
        if this_run:
            return KeyStatus("this-run", backend_name, secure, "a Gemini key is set for this run only")
        if secure:
            try:
                stored = self._stored()
            except KeyringUnavailable as exc:
                return KeyStatus("none", backend_name, secure, str(exc))
            if stored:
                return KeyStatus(
                    "keyring", backend_name, secure, f"the Gemini key is in the keyring ({backend_name})"
                )
            return KeyStatus("none", backend_name, secure, NO_KEY)
        return KeyStatus("none", "", False, NO_KEY + "; " + NO_SECURE_STORE.format(detail=""))

    # -- writing ----------------------------------------------------------------------------------

    def set(self, value: str) -> str:
        """Store the key in the OS keyring; return the backend's name.

        Raises:
            InvalidKey: a value that is not one word of text.
            KeyringUnavailable: no secure keyring (nothing is stored anywhere).
        """
        from keyring.errors import KeyringError

        value = checked(value)
        register_secret(value)
        backend = self.backend()
        try:
            backend.set_password(SERVICE, USERNAME, value)
        except KeyringError as exc:
            raise KeyringUnavailable(f"the keyring refused the key: {exc}") from exc
        log.info("Gemini key stored in %s", _name(backend))
        return _name(backend)

    def delete(self) -> bool:
        """Remove the stored key (and any key for this run); False if none was stored."""
        from keyring.errors import KeyringError, PasswordDeleteError

        with self._guard:
            self._this_run = None
        backend = self.backend()
        try:
            backend.delete_password(SERVICE, USERNAME)
        except PasswordDeleteError:
            return False
        except KeyringError as exc:
            raise KeyringUnavailable(f"the keyring could not delete the key: {exc}") from exc
        log.info("Gemini key deleted from %s", _name(backend))
        return True

    def use_for_this_run(self, value: str | None) -> None:
        """Hold a key in memory for this process only (the non-persistent alternative); None clears it.

        Raises:
            InvalidKey: a value that is not one word of text (as :meth:`set`).
        """
        value = checked(value) if value is not None else None
        register_secret(value)
        with self._guard:
            self._this_run = value
        if value:
            log.info("a Gemini key is set for this run only (not stored)")

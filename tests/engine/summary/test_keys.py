"""The Gemini key: environment, this-run key, the OS keyring (a real Secret Service), refusals."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from engine.errors import KeyringUnavailable, NoApiKey
from engine.llm.keys import SERVICE, USERNAME, Keys


@pytest.fixture
def fail_backend() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.mark.keyring
@pytest.mark.timeout(60)
def test_round_trip_through_a_real_secret_service(secret_service: dict[str, str]) -> None:
    from keyring.backends import SecretService

    keys = Keys(backend=SecretService.Keyring())
    assert keys.status().source == "none" and keys.status().secure_store
    keys.set("AIza-test-key")
    assert keys.get() == "AIza-test-key"
    assert keys.status().source == "keyring"
    seen = subprocess.run(
        ["secret-tool", "lookup", "service", SERVICE, "username", USERNAME],
        capture_output=True,
        text=True,
        timeout=20,
        env={**secret_service, "PATH": "/usr/bin:/bin"},
    )
    assert seen.stdout.strip() == "AIza-test-key"  # the real store holds it, under service memtray
    assert keys.delete() is True
    assert keys.get() is None and keys.delete() is False


@pytest.mark.keyring
@pytest.mark.timeout(60)
def test_cli_key_set_reads_stdin_and_never_prints_the_key(
    secret_service: dict[str, str], tmp_path: Path
) -> None:
    env = {**secret_service, "PATH": "/usr/bin:/bin", "MEMTRAY_HOME": str(tmp_path / "home")}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.SecretService.Keyring"
    run = [sys.executable, "-m", "desktop.launcher"]
    stored = subprocess.run(
        [*run, "key", "set"], input="AIza-cli-key\n", capture_output=True, text=True, env=env, timeout=30
    )
    assert stored.returncode == 0, stored.stderr
    assert "AIza-cli-key" not in stored.stdout + stored.stderr
    status = subprocess.run([*run, "key", "status"], capture_output=True, text=True, env=env, timeout=30)
    assert status.returncode == 0 and "in the keyring" in status.stdout
    assert "AIza-cli-key" not in status.stdout
    deleted = subprocess.run([*run, "key", "delete"], capture_output=True, text=True, env=env, timeout=30)
    assert deleted.returncode == 0


def test_fail_backend_refuses_with_a_clear_message_and_offers_this_run(fail_backend: None) -> None:
    keys = Keys()
    with pytest.raises(KeyringUnavailable, match=r"no secure key store.*GEMINI_API_KEY"):
        keys.set("AIza-x")
    assert keys.get() is None
    with pytest.raises(NoApiKey):
        keys.require()
    status = keys.status()
    assert (status.source, status.secure_store) == ("none", False)
    keys.use_for_this_run("AIza-session-only")
    assert keys.get() == "AIza-session-only" and keys.status().source == "this-run"
    keys.use_for_this_run(None)
    assert keys.get() is None


def test_environment_wins(monkeypatch: pytest.MonkeyPatch, fail_backend: None) -> None:
    keys = Keys()
    keys.use_for_this_run("from-memory")
    monkeypatch.setenv("GEMINI_API_KEY", "from-env")
    assert keys.get() == "from-env" and keys.status().source == "env"


def test_an_installed_plaintext_keyring_is_not_used_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    from keyrings.alt.file import PlaintextKeyring

    previous = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    try:
        with pytest.raises(KeyringUnavailable, match="plain"):
            Keys().set("AIza-x")
    finally:
        keyring.set_keyring(previous)


def test_plaintext_keyring_only_when_selected_explicitly(tmp_path: Path) -> None:
    from keyrings.alt.file import PlaintextKeyring

    backend = PlaintextKeyring()
    backend.file_path = str(tmp_path / "keyring_pass.cfg")
    keys = Keys(backend=backend)
    keys.set("AIza-plain")
    assert keys.get() == "AIza-plain"
    assert "AIza-plain" not in (tmp_path / "keyring_pass.cfg").read_text()  # base64, but a file all the same
    assert keys.delete()


def test_cli_key_set_with_fail_backend_is_one_line_and_nonzero(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "MEMTRAY_HOME": str(tmp_path / "home"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    done = subprocess.run(
        [sys.executable, "-m", "desktop.launcher", "key", "set"],
        input="AIza-x\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "no secure key store" in done.stderr
    assert "AIza-x" not in done.stdout + done.stderr


def test_a_key_is_one_word_of_text_wherever_it_is_kept(fail_backend: None) -> None:
    from engine.errors import InvalidInput, InvalidKey

    keys = Keys()
    for pasted in ("", "   ", "AIza one", "AIza\nsecond line"):
        with pytest.raises(InvalidKey, match="one word of text"):
            keys.use_for_this_run(pasted)
        with pytest.raises(InvalidKey):
            keys.set(pasted)
    assert keys.get() is None and issubclass(InvalidKey, InvalidInput)
    keys.use_for_this_run("  AIza-trimmed  ")
    assert keys.get() == "AIza-trimmed"

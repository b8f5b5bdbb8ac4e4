"""A private, unlocked Secret Service for tests: its own D-Bus session bus and gnome-keyring-daemon.

    with private_secret_service(tmp_path) as env:   # env: the variables to set (DBUS_SESSION_BUS_ADDRESS, HOME, XDG_*)
        ...

The keyring is unlocked at start (password on stdin): without that, the daemon waits for an interactive
prompt and the first ``set_password`` hangs. Both processes are ended by their ids on exit.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BINARIES = ("dbus-daemon", "gnome-keyring-daemon")
START_TIMEOUT_S = 10.0


def missing_binaries() -> list[str]:
    return [b for b in BINARIES if shutil.which(b) is None]


def _service_ready(address: str, deadline: float) -> bool:
    """Wait (bounded) until the Secret Service name has an owner on the bus."""
    from jeepney import DBusAddress, new_method_call
    from jeepney.io.blocking import open_dbus_connection

    bus = DBusAddress(
        "/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus"
    )
    with open_dbus_connection(address) as conn:
        while time.monotonic() < deadline:
            reply = conn.send_and_get_reply(
                new_method_call(bus, "NameHasOwner", "s", ("org.freedesktop.secrets",))
            )
            if reply.body[0]:
                return True
            time.sleep(0.05)
    return False


@contextmanager
def private_secret_service(root: Path, password: str = "test") -> Iterator[dict[str, str]]:
    """Start the bus and the keyring daemon under ``root``; yield the environment to use."""
    home = root / "ss-home"
    env = dict(os.environ)
    env["HOME"] = str(home)
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
        folder = home / name.lower()
        folder.mkdir(parents=True, mode=0o700)
        env[name] = str(folder)
    out = subprocess.run(
        ["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
        check=True,
    ).stdout.split("\n")
    address, bus_pid = out[0].strip(), int(out[1].strip())
    env["DBUS_SESSION_BUS_ADDRESS"] = address
    keyring_daemon: subprocess.Popen[bytes] | None = None
    try:
        keyring_daemon = subprocess.Popen(
            ["gnome-keyring-daemon", "--unlock", "--components=secrets", "--foreground"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert keyring_daemon.stdin is not None
        keyring_daemon.stdin.write(password.encode())
        keyring_daemon.stdin.close()
        if not _service_ready(address, time.monotonic() + START_TIMEOUT_S):
            raise RuntimeError("gnome-keyring-daemon did not register the Secret Service in time")
        yield {
            k: env[k] for k in ("HOME", "DBUS_SESSION_BUS_ADDRESS", *[n for n in env if n.startswith("XDG_")])
        }
    finally:
        if keyring_daemon is not None:
            keyring_daemon.terminate()
            try:
                keyring_daemon.wait(timeout=5)
            except subprocess.TimeoutExpired:
                keyring_daemon.kill()
                keyring_daemon.wait(timeout=5)
        try:
            os.kill(bus_pid, signal.SIGTERM)
        except ProcessLookupError:
            pass

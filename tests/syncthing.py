"""Real Syncthing daemons for tests, on 127.0.0.1 only: their own homes, GUI/REST on loopback ports, no
global or local discovery, no relays, no NAT, no usage reporting, no upgrades.

    with syncthing_daemons(tmp_path, 2) as (a, b):
        share_folder([(a, path_a), (b, path_b)], "memtray")   # through their REST API
        a.rest("POST", "/rest/db/scan?folder=memtray")

Each daemon is ended by its own process id on exit.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

START_TIMEOUT_S = 30.0


def missing() -> str | None:
    """Why Syncthing cannot run here, or None."""
    return None if shutil.which("syncthing") else "needs syncthing (apt-get install syncthing)"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Daemon:
    home: Path
    gui_port: int
    listen_port: int
    api_key: str
    device_id: str
    process: subprocess.Popen[bytes] | None = None

    def rest(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.gui_port}{path}",
            data=data,
            method=method,
            headers={"X-API-Key": self.api_key, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            raw = answer.read()
        return json.loads(raw) if raw.strip() else None

    def log_tail(self) -> str:
        path = self.home / "syncthing.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


def _configure(home: Path) -> Daemon:
    subprocess.run(
        ["syncthing", "generate", f"--home={home}", "--no-default-folder"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    path = home / "config.xml"
    tree = ET.parse(path)
    root = tree.getroot()
    gui_port, listen_port, api_key = _free_port(), _free_port(), f"memtray-test-{_free_port()}"
    gui = root.find("gui")
    assert gui is not None
    gui.find("address").text = f"127.0.0.1:{gui_port}"  # type: ignore[union-attr]
    gui.find("apikey").text = api_key  # type: ignore[union-attr]
    options = root.find("options")
    assert options is not None
    for name, value in {
        "listenAddress": f"tcp://127.0.0.1:{listen_port}",
        "globalAnnounceEnabled": "false",
        "localAnnounceEnabled": "false",
        "relaysEnabled": "false",
        "natEnabled": "false",
        "startBrowser": "false",
        "urAccepted": "-1",
        "autoUpgradeIntervalH": "0",
        "crashReportingEnabled": "false",
        "reconnectionIntervalS": "1",
        "setLowPriority": "false",
    }.items():
        element = options.find(name)
        if element is None:
            element = ET.SubElement(options, name)
        element.text = value
    device = root.find("device")
    assert device is not None
    tree.write(path)
    return Daemon(home, gui_port, listen_port, api_key, device.attrib["id"])


def _start(daemon: Daemon) -> None:
    daemon.process = subprocess.Popen(
        [
            "syncthing",
            "serve",
            f"--home={daemon.home}",
            "--no-browser",
            "--no-restart",
            "--no-upgrade",
            "--no-default-folder",
            "--skip-port-probing",
            f"--logfile={daemon.home / 'syncthing.log'}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"HOME": str(daemon.home), "PATH": "/usr/bin:/bin", "STNOUPGRADE": "1"},
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            daemon.rest("GET", "/rest/system/ping")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if daemon.process.poll() is not None:
                raise RuntimeError(f"syncthing exited at start:\n{daemon.log_tail()}") from None
            time.sleep(0.2)
    raise RuntimeError(f"syncthing did not answer within {START_TIMEOUT_S:.0f} s:\n{daemon.log_tail()}")


def _stop(daemon: Daemon) -> None:
    process = daemon.process
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@contextmanager
def syncthing_daemons(base: Path, count: int) -> Iterator[list[Daemon]]:
    """``count`` Syncthing daemons that know each other (by address on 127.0.0.1), connected."""
    daemons = []
    with ExitStack() as stack:
        for i in range(count):
            daemon = _configure(base / f"syncthing-{i}")
            stack.callback(_stop, daemon)
            _start(daemon)
            daemons.append(daemon)
        for daemon in daemons:
            for peer in daemons:
                if peer is not daemon:
                    daemon.rest(
                        "POST",
                        "/rest/config/devices",
                        {
                            "deviceID": peer.device_id,
                            "name": peer.home.name,
                            "addresses": [f"tcp://127.0.0.1:{peer.listen_port}"],
                        },
                    )
        wait_until(lambda: all(_connected(d, daemons) for d in daemons), 60, "the daemons did not connect")
        yield daemons


def _connected(daemon: Daemon, daemons: list[Daemon]) -> bool:
    connections = daemon.rest("GET", "/rest/system/connections")["connections"]
    return all(connections.get(p.device_id, {}).get("connected") for p in daemons if p is not daemon)


def share_folder(members: list[tuple[Daemon, Path]], folder_id: str) -> None:
    """Share one folder between the daemons (each keeps it at its own path), watched and rescanned often."""
    devices = [{"deviceID": d.device_id} for d, _ in members]
    for daemon, path in members:
        path.mkdir(parents=True, exist_ok=True)
        daemon.rest(
            "POST",
            "/rest/config/folders",
            {
                "id": folder_id,
                "label": folder_id,
                "path": str(path),
                "type": "sendreceive",
                "devices": devices,
                "rescanIntervalS": 2,
                "fsWatcherEnabled": True,
                "fsWatcherDelayS": 1,
            },
        )


def wait_until(check: Any, timeout: float, what: str) -> float:
    """Poll ``check()`` until true; the seconds it took. Raises AssertionError with ``what`` on timeout."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return time.monotonic() - started
        time.sleep(0.2)
    raise AssertionError(f"{what} within {timeout:.0f} s")

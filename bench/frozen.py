"""Figures of the frozen build: bundle and tarball size, CLI start time, time until the GUI is ready.

    make dist && .venv/bin/python -m bench.frozen [--runs 5] [--bundle dist/memtray]

Each run uses a fresh temporary home. "CLI" is ``memtray --home TMP sessions`` (start, open the
database, list, exit); the first run after the build is reported apart (the page cache is then warm
from the build itself, so it is not a true cold start after a reboot). "GUI ready" is from launch until
the log says the memory is open (``QT_QPA_PLATFORM=offscreen``); "quit" is from ``memtray --quit`` until
the app has exited.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def du(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def run_cli(exe: Path, env: dict[str, str]) -> float:
    with tempfile.TemporaryDirectory() as home:
        started = time.perf_counter()
        subprocess.run([str(exe), "--home", home, "sessions"], env=env, check=True, capture_output=True)
        return time.perf_counter() - started


def run_gui(exe: Path, env: dict[str, str]) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as home:
        log = Path(home) / "logs" / "memtray.log"
        started = time.perf_counter()
        proc = subprocess.Popen([str(exe), "--home", home], env=env)
        while not (log.exists() and "memory: open at" in log.read_text(errors="replace")):
            if proc.poll() is not None or time.perf_counter() - started > 60:
                proc.kill()
                raise SystemExit("the GUI did not get ready")
            time.sleep(0.02)
        ready = time.perf_counter() - started
        asked = time.perf_counter()
        subprocess.run([str(exe), "--home", home, "--quit"], env=env, check=True, capture_output=True)
        proc.wait(timeout=30)
        return ready, time.perf_counter() - asked


def main() -> None:
    parser = argparse.ArgumentParser(description="figures of the frozen build")
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "memtray")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    exe = args.bundle / "memtray"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMTRAY_")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    print(f"bundle  {args.bundle}: {du(args.bundle) / 2**20:.0f} MiB on disk")
    for tarball in sorted(args.bundle.parent.glob("memtray-*.tar.gz")):
        print(f"tarball {tarball.name}: {tarball.stat().st_size / 2**20:.0f} MiB")
    first = run_cli(exe, env)
    cli = [run_cli(exe, env) for _ in range(args.runs)]
    print(
        f"CLI `sessions`: first run {first:.2f} s, then median {statistics.median(cli):.2f} s "
        f"(min {min(cli):.2f}, max {max(cli):.2f}, {args.runs} runs)"
    )
    gui = [run_gui(exe, env) for _ in range(args.runs)]
    ready = [g[0] for g in gui]
    quit_ = [g[1] for g in gui]
    print(
        f"GUI ready (offscreen): median {statistics.median(ready):.2f} s "
        f"(min {min(ready):.2f}, max {max(ready):.2f}); --quit to exit: median {statistics.median(quit_):.2f} s"
    )


if __name__ == "__main__":
    main()

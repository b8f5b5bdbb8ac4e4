"""Pack the PyInstaller bundle into the Linux tarball: the program, install.sh, uninstall.sh, the menu
entry and the hicolor icons.

    python installer/linux/package.py --bundle dist/memtray --out dist/memtray-0.1.0-linux-x86_64.tar.gz

The tarball unpacks to one folder named like the file (``memtray-0.1.0-linux-x86_64/``)::

    memtray/                               the onedir bundle (run memtray/memtray)
    install.sh, uninstall.sh               per-user install into ~/.local (see install.sh)
    share/applications/memtray.desktop     the menu entry (install.sh points Exec at the install)
    share/icons/hicolor/NxN/apps/memtray.png, share/icons/hicolor/scalable/apps/memtray.svg

Files are stored owned by root:root with normalised permissions, and the bundle's symlinks are kept.
"""

from __future__ import annotations

import argparse
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256)


def _normalise(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    if info.isdir() or info.mode & 0o111:
        info.mode = 0o755
    elif not info.issym():
        info.mode = 0o644
    return info


def members(bundle: Path) -> list[tuple[Path, str]]:
    """(source file, path inside the top folder) for everything but the bundle itself."""
    here = Path(__file__).resolve().parent
    files = [
        (here / "install.sh", "install.sh"),
        (here / "uninstall.sh", "uninstall.sh"),
        (ROOT / "resources" / "memtray.desktop", "share/applications/memtray.desktop"),
        (ICONS / "memtray.svg", "share/icons/hicolor/scalable/apps/memtray.svg"),
    ]
    files += [
        (ICONS / f"memtray-{size}.png", f"share/icons/hicolor/{size}x{size}/apps/memtray.png")
        for size in SIZES
    ]
    missing = [str(src) for src, _ in files if not src.exists()]
    if missing or not (bundle / "memtray").exists():
        raise SystemExit(f"package.py: missing {', '.join(missing) or bundle / 'memtray'}")
    return files


def build(bundle: Path, out: Path) -> Path:
    """Write the tarball ``out`` and return it."""
    top = out.name.removesuffix(".tar.gz")
    files = members(bundle)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with tarfile.open(tmp, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=f"{top}/memtray", filter=_normalise)
        for src, name in files:
            tar.add(src, arcname=f"{top}/{name}", filter=_normalise)
    tmp.replace(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True, help="the PyInstaller onedir folder")
    parser.add_argument("--out", type=Path, required=True, help="NAME.tar.gz")
    args = parser.parse_args(argv)
    path = build(args.bundle, args.out)
    sys.stderr.write(f"package.py: wrote {path} ({path.stat().st_size / 2**20:.1f} MiB)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

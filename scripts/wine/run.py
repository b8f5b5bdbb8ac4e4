"""Run the Windows CPython of the Wine prefix: ``python -m scripts.wine.run ARGS…`` = ``python.exe ARGS…``.

The current folder is passed on (Wine shows it as ``Z:\\…``), so ``python -m scripts.wine.run -m pytest
tests/engine`` runs the repository's tests as Windows runs them. Provision the prefix first
(``python -m scripts.wine.provision``). Exits with python.exe's status.
"""

from __future__ import annotations

import sys

from scripts.wine.prefix import WinePython


def main(argv: list[str] | None = None) -> int:
    wine = WinePython.default()
    if not (wine.python_dir / "python.exe").is_file():
        raise SystemExit(f"no Windows Python in {wine.root}: run `python -m scripts.wine.provision` first")
    return wine.relay(*(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())

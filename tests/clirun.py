"""``memtray …`` in a fresh Python process, as a user runs it: the one way the tests start the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from engine.cli import main; sys.exit(main(sys.argv[1:]))"
"""The program ``memtray`` runs, for ``python -c`` (the code of this checkout, not an installed copy)."""


def run_cli(
    home: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """``memtray --home HOME ARGS…``, waited for, its output captured as text; ``env`` is added to this
    process's environment; ``options`` go to :func:`subprocess.run` (``preexec_fn``, …)."""
    return subprocess.run(
        [sys.executable, "-c", CLI, "--home", str(home), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",  # the CLI's streams are UTF-8 on every platform (engine.cli.output.utf8_streams)
        input=stdin,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        **options,
    )

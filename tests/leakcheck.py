"""A test helper: prove that a known secret appears in no file under a memtray home.

``assert_absent(home, secret)`` reads every file below ``home`` (the database and its -wal/-shm, history
and summary files, quarantined copies, logs, lock files, indexes) as bytes and fails, naming the files,
if the secret is in any of them in UTF-8, UTF-16 or JSON-escaped form. Use it after a full run with a
known API key (``GEMINI_API_KEY``) or after forgetting a message.
"""

from __future__ import annotations

import json
from pathlib import Path


def _forms(secret: str) -> set[bytes]:
    forms = {
        secret.encode("utf-8"),
        secret.encode("utf-16-le"),
        json.dumps(secret)[1:-1].encode("ascii"),
    }
    return {f for f in forms if f}


def files_containing(home: Path, secret: str) -> list[Path]:
    """Every file under ``home`` that holds ``secret`` in any of its encoded forms."""
    forms = _forms(secret)
    found = []
    for path in sorted(home.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        if any(form in data for form in forms):
            found.append(path)
    return found


def assert_absent(home: Path, secret: str) -> None:
    """Fail if ``secret`` appears in any file under ``home``."""
    assert len(secret) >= 8, "a secret this short would match by chance"
    found = files_containing(home, secret)
    assert not found, f"the secret was found in: {', '.join(str(p.relative_to(home)) for p in found)}"

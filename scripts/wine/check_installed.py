"""Run BY THE WINDOWS PYTHON after provisioning: Windows' own ``pip check``, and the native modules load.

Every installed distribution's requirements are evaluated with this interpreter's markers (win32,
cp313) and must be met by what is installed; then each compiled dependency memtray uses is imported.
Prints one line per problem and exits 1 if there is any.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import sys

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# memtray's compiled dependencies (and sqlite3, whose DLL comes with CPython).
NATIVE = ("sqlite3", "numpy", "annoy", "sqlalchemy", "pydantic_core", "onnxruntime", "onnx", "cryptography")


def unmet_requirements() -> list[str]:
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in md.distributions()}
    problems = []
    for dist in md.distributions():
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            have = installed.get(canonicalize_name(req.name))
            if have is None:
                problems.append(f"{dist.metadata['Name']} needs {req}: not installed")
            elif have not in req.specifier:
                problems.append(f"{dist.metadata['Name']} needs {req}: {have} is installed")
    return problems


def failed_imports() -> list[str]:
    problems = []
    for name in NATIVE:
        try:
            importlib.import_module(name)
        except Exception as exc:
            problems.append(f"import {name}: {type(exc).__name__}: {exc}")
    return problems


def main() -> int:
    problems = unmet_requirements() + failed_imports()
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

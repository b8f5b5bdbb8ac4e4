"""The Windows test Python's packages (scripts/wine/requirements.txt) match what the Linux suite runs.

Each pin of pyproject.toml that applies on Windows (PySide6 aside: the Windows suite needs no Qt) and each
test tool of the ``dev`` extra it uses is in the list at the same version, or a commented line says which
package "replaces" it and why; every other line (a dependency of those, which pyproject.toml leaves free, so
a fresh Linux venv takes the newest) names a package this venv has installed, or has a comment.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "scripts" / "wine" / "requirements.txt"
WINDOWS = {
    "sys_platform": "win32",
    "platform_system": "Windows",
    "platform_machine": "AMD64",
    "os_name": "nt",
    "python_version": "3.13",
    "python_full_version": "3.13.2",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "extra": "",
}
NOT_IN_WINDOWS_SUITE = {"pyside6-essentials", "pytest-qt", "ruff", "mypy"}


def lines() -> list[tuple[str, str, str]]:
    """(canonical name, version, comment) of each pin."""
    found = []
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        pin, _, comment = line.partition("#")
        if pin.strip():
            name, _, version = pin.strip().partition("==")
            found.append((canonicalize_name(name), version, comment.strip()))
    return found


def pyproject_pins() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = {}
    for text in project["dependencies"] + project["optional-dependencies"]["dev"]:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate(WINDOWS):
            continue
        name = canonicalize_name(req.name)
        if name not in NOT_IN_WINDOWS_SUITE:
            (spec,) = req.specifier
            pins[name] = spec.version
    return pins


def test_every_pyproject_pin_is_in_the_windows_list_or_replaced_with_a_reason() -> None:
    have = {name: version for name, version, _ in lines()}
    replaced = {
        canonicalize_name(m[1]): m[2]
        for _, _, comment in lines()
        for m in re.finditer(r"replaces ([A-Za-z0-9_.-]+)==(\S+?)[,:;)]?(?:\s|$)", comment)
    }
    wrong = {
        name: version
        for name, version in pyproject_pins().items()
        if have.get(name) != version and replaced.get(name) != version
    }
    assert not wrong, f"pyproject.toml pins missing from {REQUIREMENTS.name}: {wrong}"
    assert set(replaced) <= set(pyproject_pins()), "a 'replaces' names no pin of pyproject.toml"


def test_every_other_pin_is_a_package_of_the_linux_venv_or_says_why_not() -> None:
    wrong = []
    for name, version, comment in lines():
        if comment:
            assert comment.startswith(("windows:", "wine:")), f"{name}: {comment!r}"
            continue
        try:
            md.version(name)
        except md.PackageNotFoundError:
            wrong.append(f"{name}=={version}: not in the Linux venv, and no comment says why")
    assert not wrong, wrong

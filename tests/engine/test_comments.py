"""Comments and docstrings stand alone: none points to a design document that is not in the repository.

Such a pointer (a file name of the project's external notes, or a section sign with a number) means
nothing to a reader of this repository. A comment states the rule itself in a few words, or points to a
section of ``docs/architecture.md``.

Every ``.py`` file under ``engine/``, ``desktop/``, ``tests/``, ``bench/`` and ``installer/`` is read:
its comments with :mod:`tokenize`, its docstrings (and the string statements documenting an attribute)
with :mod:`ast`. String values in code are not looked at: a test may well feed a section sign to a
parser.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("engine", "desktop", "tests", "bench", "installer")

FORBIDDEN = re.compile(
    r"(memory-engine|platform-notes|decisions|style)\.md|\u00a7",
    re.IGNORECASE,
)
"""Names of documents kept outside the repository, and the section sign their pointers used."""


def _comments(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every comment."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(tok.start[0], tok.string) for tok in tokens if tok.type == tokenize.COMMENT]


def _docstrings(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every string that stands as a statement of its own: docstrings of modules,
    classes and functions, and the strings documenting an attribute after its assignment."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            found.append((node.lineno, node.value.value))
    return found


def offending(source: str) -> list[tuple[int, str]]:
    """``(line, excerpt)`` of each comment or docstring line that points outside the repository."""
    bad = []
    for start, text in _comments(source) + _docstrings(source):
        for offset, line in enumerate(text.splitlines()):
            if FORBIDDEN.search(line):
                bad.append((start + offset, line.strip()))
    return sorted(bad)


def _files() -> list[Path]:
    return sorted(path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py"))


def test_comments_and_docstrings_point_to_nothing_outside_the_repository() -> None:
    found = []
    for path in _files():
        for line, excerpt in offending(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(ROOT)}:{line}: {excerpt}")
    hint = "state the rule itself, or point to a section of docs/architecture.md:"
    assert not found, "\n".join([hint, *found])


def test_the_check_reads_every_part() -> None:
    names = {path.relative_to(ROOT).parts[0] for path in _files()}
    assert {"engine", "desktop", "tests", "bench"} <= names


def test_the_check_can_fail() -> None:
    section = "\u00a7"
    source = (
        f'"""Module docstring (see memory-engine.md {section}7)."""\n'
        "\n"
        "LIMIT = 4\n"
        '"""Documented attribute, as in\n'
        'Platform-Notes.md."""\n'
        "\n"
        "\n"
        "def f() -> str:\n"
        f'    """Rule ({section}9.2)."""\n'
        "    # from decisions.md and STYLE.md\n"
        f'    return "{section} in a plain string is data, not a comment"\n'
    )
    assert [line for line, _ in offending(source)] == [1, 5, 9, 10]
    assert offending('"""A rule, stated (docs/architecture.md, *Compaction*)."""\n# plain comment\n') == []

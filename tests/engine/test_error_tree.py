"""The error tree drawn in engine/errors.py's docstring is the tree of its classes: every class drawn once,
under its real parent, and nothing drawn that is not a class."""

from __future__ import annotations

import re

from engine import errors

BRANCH = re.compile(r"^(?P<indent>(?:│   |    )*)(?:├── |└── )(?P<name>\w+)")


def drawn_tree() -> dict[str, str]:
    """Each class the docstring draws, with the class drawn above it (its parent)."""
    doc = errors.__doc__ or ""
    lines = doc.split("::", 1)[1].splitlines()
    parents: dict[str, str] = {}
    stack = ["EngineError"]
    for line in lines:
        found = BRANCH.match(line.strip("\n")[4:])  # the drawing is indented by four spaces
        if found is None:
            continue
        depth = len(found.group("indent")) // 4
        del stack[depth + 1 :]
        name = found.group("name")
        assert name not in parents, f"{name} is drawn twice"
        parents[name] = stack[depth]
        stack.append(name)
    return parents


def test_the_drawing_is_the_class_tree() -> None:
    drawn = drawn_tree()
    classes = {
        name: value.__bases__[0].__name__
        for name, value in vars(errors).items()
        if isinstance(value, type)
        and issubclass(value, errors.EngineError)
        and value is not errors.EngineError
    }
    assert len(classes) > 20
    assert drawn == classes
    assert drawn["MemoryClosed"] == "StorageError" and drawn["NoApiKey"] == "GeminiError"


def test_the_reader_sees_a_misplaced_class() -> None:
    assert BRANCH.match("│   ├── StoreLocked   x").group("indent") == "│   "  # type: ignore[union-attr]
    assert BRANCH.match("├── GeminiError   x").group("indent") == ""  # type: ignore[union-attr]

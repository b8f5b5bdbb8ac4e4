"""A CLI command loads only what it runs: no SQLAlchemy, SQLModel, numpy, Gemini, keyring, MCP or Qt for
listing, reading, appending or a keyword search (each would cost more than the rest of the command), and
``import engine`` loads nothing but the package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[3]
LAZY = (
    "sqlalchemy",
    "sqlmodel",
    "pydantic",
    "numpy",
    "annoy",
    "google",
    "keyring",
    "mcp",
    "onnxruntime",
    "PySide6",
)
RUN = """
import contextlib, io, json, sys
from desktop.launcher import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps([code, sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(LAZY)))]))
"""


def loaded(home: Path, *argv: str) -> tuple[int, list[str]]:
    """The exit code of ``memtray --home HOME ARGV`` run in a fresh process, and the lazy packages it loaded."""
    env = {**os.environ, "MEMTRAY_EMBEDDER": "hash"}
    code = RUN.replace("json.loads(LAZY)", repr(list(LAZY)))
    done = subprocess.run(
        [sys.executable, "-c", code, "--home", str(home), *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    status, modules = json.loads(done.stdout.strip().splitlines()[-1])
    return int(status), list(modules)


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("sessions",),
        ("sessions", "--json"),
        ("history", "--session", "cli-a"),
        ("append", "--session", "cli-a", "--role", "user", "--content", "hello again"),
        ("search", "hello", "--match", "keyword"),
        ("title", "--session", "cli-a"),
    ],
)
def test_a_command_on_an_opened_home_loads_none_of_the_heavy_packages(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    home = tmp_path / "home"
    assert loaded(home, "append", "--session", "cli-a", "--role", "user", "--content", "hello") == (
        0,
        [],  # the first open creates the tables from frozen statements, without SQLModel
    )
    assert loaded(home, *argv) == (0, [])


def test_import_engine_loads_no_part_until_one_is_used() -> None:
    code = "import sys, engine; print(sorted(m for m in sys.modules if m.startswith('engine')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['engine']"


def test_every_public_name_resolves_lazily() -> None:
    assert sorted(engine._WHERE) == sorted(engine.__all__)
    for name in engine.__all__:
        assert getattr(engine, name) is not None
    assert set(engine.__all__) <= set(dir(engine))
    with pytest.raises(AttributeError):
        _ = engine.no_such_name


READERS = ("agenvoy", "chatgpt", "claude", "claude_code", "codex", "jsonl")


@pytest.mark.parametrize("argv", [("import", "--help"), ("sessions",)])
def test_the_parser_lists_the_import_formats_without_loading_a_reader(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    code = (
        "import contextlib, io, sys\n"
        "from desktop.launcher import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):\n"
        "    try:\n"
        "        main(sys.argv[1:])\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(sorted(m for m in {['engine.importers.' + r for r in READERS]!r} if m in sys.modules))\n"
        "print('claude-code' in out.getvalue())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "--home", str(tmp_path / "home"), *argv],
        cwd=ROOT,
        env={**os.environ, "MEMTRAY_EMBEDDER": "hash"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    readers_loaded, listed = done.stdout.strip().splitlines()[-2:]
    assert readers_loaded == "[]"
    assert listed == str(argv[0] == "import")  # the help lists the formats from the table


def test_the_format_table_names_every_reader() -> None:
    from engine.importers import readers
    from engine.importers.formats import DESCRIPTIONS, INCREMENTAL

    assert sorted(DESCRIPTIONS) == sorted(readers())
    assert set(INCREMENTAL) <= set(DESCRIPTIONS)

"""Hostile input, fuzzed with hypothesis: CLI arguments, session ids, import files, search queries.

Nothing raises past ``engine.cli.main`` (exit 0, 1 or 2 and never an "internal error" line), and nothing
is written outside the home folder: the folder around it is snapshotted before and compared after.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.cli import main
from engine.errors import EngineError, InvalidInput

T0 = 1_700_000_000 * 1_000_000_000
HOSTILE_IDS = [
    "..",
    ".",
    "../x",
    "../../etc/passwd",
    "a/../../b",
    "/etc",
    "/tmp/x",
    "a/b",
    "a\\b",
    "C:\\x",
    "x\x00y",
    "~",
    "~root",
    "$HOME",
    "con",
    "nul",
    ".hidden",
    "-rf",
    "a" * 129,
    "a" * 5000,
    "é",
    "\u202e",
    "\udcff",
    "NUL.txt",
    "com1",
    "x.",
    "../sessions/x",
    "x/..",
    "x..y",
    " x",
    "x ",
    "\n",
    "",
]
HOSTILE_TEXT = [
    '"',
    "'",
    "*",
    "NEAR(a b)",
    "a OR b AND NOT c",
    "content:x",
    "^x",
    "x*",
    '"unterminated',
    "(",
    ")",
    "\x00",
    "a\x00b",
    "\udcff",
    "\ud800x",
    "%",
    "_",
    "\\",
    "' OR 1=1 --",
    "; DROP TABLE messages;",
    "{}[]",
    "記憶",
    "記憶體不足",
    "😀" * 10,
    "\u202e",
    "x" * 1_000_000,
    "記" * 300_000,
]


@contextlib.contextmanager
def sandbox() -> Iterator[tuple[Path, Path]]:
    """(home, outside): a home folder, and the folder around it that must stay untouched."""
    with tempfile.TemporaryDirectory() as root:
        outside = Path(root)
        (outside / "sentinel.txt").write_text("do not touch")
        (outside / "etc").mkdir()
        yield outside / "home", outside


def snapshot(outside: Path, home: Path) -> dict[str, tuple[int, int]]:
    """Every path outside ``home``, with its size and mtime."""
    found = {}
    for path in outside.rglob("*"):
        if path == home or home in path.parents:
            continue
        st_ = path.lstat()
        found[str(path.relative_to(outside))] = (st_.st_size, st_.st_mtime_ns)
    return found


def run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        _stdin("piped text"),
    ):
        code = main(argv)
    return code, err.getvalue()


@contextlib.contextmanager
def _stdin(data: str) -> Iterator[None]:
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(data)
    try:
        yield
    finally:
        sys.stdin = old


COMMANDS = [
    "sessions",
    "append",
    "history",
    "search",
    "compact",
    "reset",
    "remove",
    "export",
    "import",
    "config",
    "repair",
]
OPTIONS = [
    "--session",
    "--role",
    "--content",
    "--send-at",
    "--sender",
    "--json",
    "--match",
    "--scope",
    "--limit",
    "--time-range",
    "--format",
    "--all",
    "--check",
    "-v",
    "--help",
    "user",
    "assistant",
    "keyword",
    "jsonl",
    "markdown",
    "recent",
    "all",
    "-1",
    "0",
    "99999999999999999999999",
    "-",
    "--",
    "max_history_bytes",
]
argument = st.one_of(
    st.sampled_from(OPTIONS),
    st.sampled_from(HOSTILE_IDS),
    st.sampled_from(HOSTILE_TEXT[:-2]),
    st.text(max_size=30),
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(COMMANDS), st.lists(argument, max_size=8))
def test_the_cli_never_raises_and_never_writes_outside_the_home(command: str, rest: list[str]) -> None:
    with sandbox() as (home, outside):
        before = snapshot(outside, home)
        cwd = Path.cwd()
        os.chdir(outside / "etc")  # a relative path in an argument would land here
        try:
            code, err = run(
                ["--home", str(home), command, *[a for a in rest if a not in ("-o", "--output", "--home")]]
            )
        finally:
            os.chdir(cwd)
        assert code in (0, 1, 2)
        assert "internal error" not in err and "Traceback" not in err
        assert snapshot(outside, home) == before


@pytest.mark.parametrize("session", HOSTILE_IDS)
def test_hostile_session_ids_are_refused_everywhere(session: str) -> None:
    with sandbox() as (home, outside):
        before = snapshot(outside, home)
        with Memory.open(home) as mem:
            calls = [
                lambda: mem.append(session, [Message("user", "hi", T0)]),
                lambda: mem.history(session),
                lambda: mem.compact(session),
                lambda: mem.reset(session),
                lambda: mem.remove(session),
                lambda: mem.search("hi", session=session, match="keyword"),
                lambda: list(mem.iter_archive(session)),
            ]
            for call in calls:
                with pytest.raises(EngineError):
                    call()
        for args in (
            ["append", "--session", session, "--role", "user", "--content", "x"],
            ["history", "--session", session],
        ):
            code, err = run(["--home", str(home), *args])
            assert code in (1, 2) and "internal error" not in err
        assert snapshot(outside, home) == before
        assert not (home / "sessions").exists() or all(
            p.parent == home / "sessions" for p in (home / "sessions").iterdir()
        )


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_random_session_ids_never_escape_the_sessions_folder(session: str) -> None:
    with sandbox() as (home, outside):
        before = snapshot(outside, home)
        with Memory.open(home) as mem:
            try:
                mem.append(session, [Message("user", "hi", T0)])
            except InvalidInput:
                pass
            else:
                assert (home / "sessions" / session / "history.json").is_file()
        assert snapshot(outside, home) == before


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


IMPORT_FILES = {
    "deep array": _deep(200_000) + "\n",
    "deep object": '{"a":' * 100_000 + "1" + "}" * 100_000 + "\n",
    "deep content": '{"role":"user","content":' + _deep(100_000) + "}\n",
    "huge string": json.dumps({"role": "user", "content": "x" * 5_000_000}) + "\n",
    "huge number": '{"role":"user","content":"x","sendAt":' + "9" * 5000 + "}\n",
    "wrong types": '{"role":1,"content":{"a":1},"sendAt":"soon"}\n',
    "null": "null\n",
    "list of strings": '["a","b"]\n',
    "bad utf-8": '{"role":"user","content":"\xff\xfe"}\n',
    "lone surrogate": '{"role":"user","content":"\\udcff"}\n',
    "nul": '{"role":"user","content":"a\\u0000b"}\n',
    "binary": "\x00\x01\x02garbage",
    "empty": "",
}


@pytest.mark.parametrize("kind", sorted(IMPORT_FILES))
@pytest.mark.parametrize("fmt", ["jsonl", "chatgpt", "claude", "agenvoy"])
def test_hostile_import_files_give_clear_errors(tmp_path: Path, kind: str, fmt: str) -> None:
    home = tmp_path / "home"
    path = tmp_path / "conversations.json" if fmt != "jsonl" else tmp_path / "chat.jsonl"
    raw = IMPORT_FILES[kind]
    path.write_bytes(raw.encode("latin-1") if kind == "bad utf-8" else raw.encode("utf-8", "surrogatepass"))
    code, err = run(["--home", str(home), "import", fmt, str(path), "--session", "imp"])
    assert code in (0, 1), err
    assert "internal error" not in err and "Traceback" not in err
    if code == 1:
        lines = err.splitlines()  # warnings naming skipped records, then the error: each one line
        assert lines and all(line.startswith("memtray: ") and len(line) < 600 for line in lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=200),
        st.sampled_from(HOSTILE_TEXT),
        st.lists(
            st.sampled_from([*HOSTILE_TEXT[:-2], '"', "OR", "AND", "NOT", "NEAR", "*", ":"]), max_size=8
        ).map(" ".join),
    ),
    st.sampled_from(["recent", "all"]),
)
def test_hostile_search_queries_never_fail(query: str, scope: str) -> None:
    mem = _search_memory()
    for session in (None, "cli-s"):
        hits = mem.search(query, session=session, match="keyword", scope=scope, limit=5)
        assert all(h.message.session == "cli-s" for h in hits)
    code, err = run(
        ["--home", str(mem.paths.home), "search", query.replace("\x00", ""), "--match", "keyword"]
    )
    assert code in (0, 1, 2) and "internal error" not in err


_MEMORY: list[Memory] = []


def _search_memory() -> Memory:
    if not _MEMORY:
        home = Path(tempfile.mkdtemp()) / "home"
        mem = Memory.open(home)
        mem.update_settings(max_history_bytes=4096)
        for n in range(20):
            mem.append(
                "cli-s",
                [
                    Message("user", f"我的電腦記憶體不足 question {n} OR NEAR * x" + "q" * 100, T0 + n),
                    Message("assistant", f"answer {n} café", T0 + n),
                ],
            )
        _MEMORY.append(mem)
    return _MEMORY[0]


@pytest.fixture(autouse=True, scope="module")
def _close_search_memory() -> Iterator[None]:
    yield
    for mem in _MEMORY:
        mem.close()
    _MEMORY.clear()

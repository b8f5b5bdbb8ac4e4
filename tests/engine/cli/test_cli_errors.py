"""``memtray errors ...`` through ``engine.cli.main``: output, --json shapes, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main

FIELDS = ["id", "tool_name", "keywords", "symptom", "cause", "action", "outcome", "created_at", "expires_at"]


def run(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def remember(home: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    code, out, err = run(
        home,
        capsys,
        "errors",
        "remember",
        "--tool",
        "fetch_page",
        "--symptom",
        "request timeout after 30s",
        "--action",
        "raised the timeout to 90s",
        "--outcome",
        "resolved",
        "--json",
        *extra,
    )
    assert (code, err) == (0, "")
    value: dict[str, object] = json.loads(out)
    return value


def test_remember_then_search_read_list_forget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "h"
    record = remember(home, capsys, "--cause", "slow server", "--keyword", "Net", "--keyword", "http")
    assert list(record) == FIELDS
    assert record["keywords"] == ["net", "http", "error_type:timeout"]
    ident = str(record["id"])

    code, out, err = run(home, capsys, "errors", "search", "request timeout", "--json")
    assert (code, err) == (0, "")
    found = json.loads(out)
    assert [list(r) for r in found] == [FIELDS]
    assert found[0]["id"] == ident and found[0]["cause"] == "slow server"

    code, out, _ = run(home, capsys, "errors", "search", "request timeout")
    assert code == 0 and out.startswith(ident[:12]) and "fetch_page" in out

    code, out, _ = run(home, capsys, "errors", "read", ident[:8], "--json")
    assert code == 0 and json.loads(out)["id"] == ident
    code, out, _ = run(home, capsys, "errors", "read", ident[:8])
    assert code == 0 and f"id:        {ident}" in out and "cause:     slow server" in out

    code, out, _ = run(home, capsys, "errors", "list", "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == [ident]
    code, out, _ = run(home, capsys, "errors", "list")
    assert code == 0 and out.count("\n") == 1

    code, out, _ = run(home, capsys, "errors", "forget", ident[:8])
    assert (code, out) == (0, f"forgot error {ident}\n")
    code, out, _ = run(home, capsys, "errors", "search", "request timeout", "--json")
    assert (code, json.loads(out)) == (0, [])
    code, out, _ = run(home, capsys, "errors", "search", "request timeout")
    assert out == "no matching error records\n"
    code, out, _ = run(home, capsys, "errors", "list")
    assert out == "no error records\n"


def test_a_duplicate_remember_says_refreshed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = remember(tmp_path, capsys)
    code, out, _ = run(
        tmp_path,
        capsys,
        "errors",
        "remember",
        "--tool",
        "fetch_page",
        "--symptom",
        "Request timeout after 30s",
        "--action",
        "raised the timeout to 90s",
        "--outcome",
        "failed",
    )
    assert (code, out) == (0, f"refreshed existing error {first['id']}\n")


def test_purge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(tmp_path, capsys)
    assert run(tmp_path, capsys, "errors", "purge") == (0, "purged 0 expired error records\n", "")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["remember", "--tool", "t", "--symptom", "s", "--action", "a", "--outcome", "fixed"],
            "memtray: outcome must be one of resolved, failed, abandoned, not 'fixed'\n",
        ),
        (
            ["remember", "--tool", "t", "--symptom", "", "--action", "a", "--outcome", "failed"],
            "memtray: symptom must not be empty\n",
        ),
        (
            ["remember", "--tool", "", "--symptom", "s", "--action", "a", "--outcome", "failed"],
            "memtray: tool_name must not be empty\n",
        ),
        (
            ["remember", "--tool", "t", "--symptom", "s" * 9000, "--action", "a", "--outcome", "failed"],
            "memtray: symptom is too long (9,000 bytes; at most 8,192)\n",
        ),
        (["search", ""], "memtray: keyword is required when tool is not specified\n"),
        (["search", "x", "--limit", "17"], "memtray: --limit must be between 1 and 16, not 17\n"),
        (["read", "abc"], "memtray: give at least 8 characters of the error id, not 3\n"),
        (["read", "not-hex!"], "memtray: an error id is 8 to 64 hex characters (0-9, a-f), not 'not-hex!'\n"),
        (["read", "00000000"], "memtray: no error record with id 00000000\n"),
        (["forget", "00000000"], "memtray: no error record with id 00000000\n"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_stores_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert run(tmp_path, capsys, "errors", *argv) == (1, "", message)
    code, out, _ = run(tmp_path, capsys, "errors", "list", "--json")
    assert (code, json.loads(out)) == (0, [])


def test_errors_needs_a_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(tmp_path), "errors"]) == 2
    assert "usage" in capsys.readouterr().err


def test_error_memory_survives_cli_reset_and_remove(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for sid in ("a", "b"):
        assert run(tmp_path, capsys, "append", "--session", sid, "--role", "user", "--content", "hi")[0] == 0
    record = remember(tmp_path, capsys)
    assert run(tmp_path, capsys, "reset", "--session", "a", "--all")[0] == 0
    assert run(tmp_path, capsys, "remove", "--session", "a")[0] == 0
    assert run(tmp_path, capsys, "remove", "--session", "b")[0] == 0
    _code, out, _ = run(tmp_path, capsys, "errors", "list", "--json")
    assert [r["id"] for r in json.loads(out)] == [record["id"]]

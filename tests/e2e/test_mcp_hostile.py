"""Hostile input to ``memtray mcp`` in a subprocess: every request gets an answer (a JSON-RPC error or a
tool error), the server keeps serving, and nothing a refused call carried is written.

Two clients: raw bytes on the server's stdin (broken JSON, lone surrogates, 20 MiB lines, deep nesting,
which the SDK's own client cannot even send), and the SDK's client with arguments built from each
tool's input schema (wrong types, missing and unknown fields, 10 MB strings, unknown sessions).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from engine import Memory
from engine.mcpserver.spec import STORED_TEXT_NOTICE
from tests.e2e.test_mcp import run_client, server

BIG = 10 * 1000 * 1000
WRONG = [5, 1.5, "x", True, None, [], {}]
ACCEPTS = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "null": lambda v: v is None,
}
# A valid call of each tool that writes nothing when it runs (unknown sessions and records).
BASE: dict[str, dict[str, Any]] = {
    "search": {"query": "x", "match": "keyword"},
    "read": {"session": "nosuch"},
    "list_sessions": {},
    "turn_context": {"session": "nosuch"},
    "save": {"session": "nosuch", "messages": [{"role": "user", "content": "x"}]},
    "forget_message": {"session": "nosuch", "message": 1},
    "forget_session": {"session": "nosuch"},
    "search_error_memory": {"query": "x"},
    "read_error": {"id": "0123456789abcdef"},
    "remember_error": {"tool_name": "t", "symptom": "s", "action": "a", "outcome": "failed"},
    "forget_error": {"id": "0123456789abcdef"},
}
WRITERS = {"save", "remember_error"}  # their BASE would write: every hostile variant must be refused


class RawClient:
    """``memtray mcp`` with raw lines on stdin; answers collected by id."""

    def __init__(self, home: Path, errlog: IO[str]) -> None:
        params = server(home)
        env = {**subprocess_env(), **(params.env or {})}
        self.proc = subprocess.Popen(
            [params.command, *params.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            env=env,
            cwd=params.cwd,
        )
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(json.loads(line))  # anything but JSON-RPC on stdout fails here

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def request(self, rid: int, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())

    def next(self, timeout: float = 30) -> dict[str, Any]:
        return self.answers.get(timeout=timeout)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def subprocess_env() -> dict[str, str]:
    from mcp.client.stdio import get_default_environment

    return get_default_environment()


def call_line(rid: int, name: str, arguments: str, *, id_last: bool = False) -> bytes:
    """A tools/call line with ``arguments`` as raw JSON text (so it can hold what json.dumps cannot)."""
    params = f'{{"name":"{name}","arguments":{arguments}}}'
    if id_last:  # the TypeScript SDK's order (the Inspector's)
        return f'{{"method":"tools/call","params":{params},"jsonrpc":"2.0","id":{rid}}}'.encode()
    return f'{{"jsonrpc":"2.0","id":{rid},"method":"tools/call","params":{params}}}'.encode()


def test_every_malformed_line_gets_an_answer_and_the_server_goes_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    errlog = (tmp_path / "stderr.log").open("w")
    client = RawClient(home, errlog)
    client.request(
        0,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    assert client.next()["id"] == 0
    client.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    surrogate = '{"session":"s","messages":[{"role":"user","content":"\\ud800 secret"}]}'
    huge = "y" * (20 * 1024 * 1024)
    deep = "[" * 100_000 + "]" * 100_000
    cases: list[tuple[bytes, int | None, int]] = [
        (b"{bad json", None, -32700),
        (b"\xff\xfe{}", None, -32700),
        (call_line(2, "save", surrogate), 2, -32602),
        (call_line(3, "search", '{"query":"\\udfff"}', id_last=True), 3, -32602),
        (b'{"jsonrpc":"2.0","id":4}', 4, -32600),
        (b"[1,2]", None, -32600),
        (
            call_line(5, "save", f'{{"session":"s","messages":[{{"role":"user","content":"{huge}"}}]}}'),
            5,
            -32600,
        ),
        (call_line(6, "search", f'{{"query":"{huge}"}}', id_last=True), 6, -32600),
        (call_line(7, "search", f'{{"query":"x","a":{deep}}}'), 7, -32600),
        (call_line(8, "search", '{"query":"x","a":' + "[" * 300 + "]" * 300 + "}", id_last=True), 8, -32600),
        (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}', 9, -32602),
        (call_line(10, "no_such_tool", "{}"), 10, -32602),
        (call_line(14, "search", "[]"), 14, -32602),
        (b'{"jsonrpc":"2.0","id":11,"method":"no/such/method"}', 11, -32601),
        # ids JSON-RPC does not allow: the SDK would take these for notifications and never answer
        *(
            (b'{"jsonrpc":"2.0","id":' + bad + b',"method":"tools/list"}', None, -32600)
            for bad in (b"null", b"1.5", b"{}", b"true", b"[1]", b'{"a":1}')
        ),
    ]
    for raw, rid, code in cases:
        client.send(raw)
        client.send(b"")  # a blank line is skipped
        client.send(b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}')  # no answer
        answer = client.next()
        assert answer.get("id") == rid and answer["error"]["code"] == code, (raw[:80], answer)
    client.send(call_line(12, "search", json.dumps({"query": "q" * BIG})))
    refused = client.next()
    assert refused["id"] == 12 and refused["result"]["isError"] is True
    assert "query is too long: 10,000,000 characters" in refused["result"]["content"][0]["text"]
    client.request(13, "ping")
    assert client.next() == {"jsonrpc": "2.0", "id": 13, "result": {}}
    assert client.close() == 0
    errlog.close()
    assert (tmp_path / "stderr.log").read_text() == ""
    with Memory.open(home) as mem:
        assert mem.sessions() == []


def _variants(name: str, schema: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(what, arguments, words the refusal must hold) for a tool, from its input schema."""
    base = BASE[name]
    out: list[tuple[str, dict[str, Any], str]] = [
        ("unknown field", {**base, "zzz": 1}, '"zzz" is not an argument'),
    ]
    for required in schema.get("required", []):
        out.append(
            (f"no {required}", {k: v for k, v in base.items() if k != required}, f"{required} is required")
        )
    for prop, spec in schema["properties"].items():
        kinds = spec.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        for value in WRONG:
            if not any(ACCEPTS[k](value) for k in kinds):
                out.append((f"{prop}={value!r}", {**base, prop: value}, f"{prop} must be"))
        deep: Any = "x"
        for _ in range(60):
            deep = [deep]
        out.append((f"{prop} nested", {**base, prop: deep if "array" not in kinds else [deep]}, prop))
        if "string" in kinds:
            out.append((f"{prop} 10 MB", {**base, prop: "x" * BIG}, f"{prop}"))
    return out


async def _hostile_calls(session: ClientSession) -> list[str]:
    problems: list[str] = []
    tools = (await session.list_tools()).tools
    assert {t.name for t in tools} == set(BASE)
    for tool in tools:
        for what, args, words in _variants(tool.name, tool.input_schema):
            answer = await session.call_tool(tool.name, args)
            text = "".join(b.text for b in answer.content if b.type == "text")
            if not answer.is_error or words not in text or len(text) > 1000 or "\n" in text:
                problems.append(f"{tool.name} {what}: {answer.is_error} {text[:200]}")
    for name, args in [
        ("read", {"session": "nosuch"}),
        ("read", {"session": "nosuch", "around": 5}),
        ("forget_message", {"session": "nosuch", "message": 1}),
        ("forget_session", {"session": "nosuch"}),
        ("search", {"query": "x", "session": "nosuch"}),
        ("read_error", {"id": "0123456789abcdef"}),
        ("forget_error", {"id": "0123456789abcdef"}),
        ("read", {"session": "nosuch", "cursor": "not-a-cursor"}),
    ]:
        answer = await session.call_tool(name, args)
        text = "".join(b.text for b in answer.content if b.type == "text")
        if not answer.is_error or ("no " not in text and "cursor" not in text):
            problems.append(f"{name} {args}: {answer.is_error} {text[:200]}")
    try:  # 20 MB of UTF-8: over the request size bound, refused before it is parsed
        await session.call_tool(
            "save", {"session": "s", "messages": [{"role": "user", "content": "é" * BIG}]}
        )
        problems.append("a 20 MB request was not refused")
    except MCPError as exc:
        assert exc.error.code == -32600 and "over 16 MiB" in exc.error.message
    listed = await session.call_tool("list_sessions", {})
    assert not listed.is_error and listed.structured_content == {
        "sessions": [],
        "total": 0,
        "summary": "No sessions yet.",
        "storedText": STORED_TEXT_NOTICE,
    }
    return problems


@pytest.mark.timeout(240)
def test_hostile_arguments_to_every_tool_are_refused_and_write_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    problems = run_client(home, _hostile_calls)
    assert problems == []
    assert (tmp_path / "mcp-stderr.log").read_text() == ""
    with Memory.open(home) as mem:
        assert mem.sessions() == [] and mem.errors.count() == 0
    assert not (home / "sessions").exists() or not any((home / "sessions").iterdir())

"""``memtray mcp`` under the official MCP Inspector CLI (Node.js, from npm), as a third-party client.

The Inspector is looked for in ``tests/.node`` (``.ci/run`` installs the pinned version there:
``npm install --prefix tests/.node @modelcontextprotocol/inspector@1.0.3``, the newest that runs on
Debian 12's Node 18). It coerces arguments to the input schema before sending them, so it cannot test
the server's own type checks (tests/e2e/test_mcp_hostile.py does); it checks what a real host sees.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Memory, Message
from engine.imported import ImportedSession

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tests" / ".node" / "node_modules" / "@modelcontextprotocol" / "inspector"
INSTALL = (
    "needs Node.js and the MCP Inspector in tests/.node (what .ci/run does: apt-get install nodejs npm; "
    "npm install --prefix tests/.node @modelcontextprotocol/inspector@1.0.3)"
)


def inspector() -> tuple[list[str], int]:
    """The command that runs the Inspector, and its major version."""
    node = shutil.which("node")
    manifest = PACKAGE / "package.json"
    if node is None or not manifest.exists():
        pytest.skip(INSTALL)
    meta = json.loads(manifest.read_text())
    script = meta["bin"]["mcp-inspector"] if isinstance(meta["bin"], dict) else meta["bin"]
    return [node, str(PACKAGE / script)], int(meta["version"].split(".")[0])


def run(home: Path, *args: str) -> tuple[int, Any, str]:
    """Exit status, the JSON on stdout (None if there is none) and stderr of one Inspector call."""
    command, _ = inspector()
    memtray = Path(sys.executable).with_name("memtray")
    done = subprocess.run(
        [*command, "--cli", str(memtray), "--home", str(home), "mcp", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MEMTRAY_EMBEDDER": "hash"},
        cwd=ROOT,
    )
    try:
        out = json.loads(done.stdout)
    except ValueError:
        out = None
    return done.returncode, out, done.stderr


def test_the_inspector_lists_searches_and_sees_a_tool_error(tmp_path: Path) -> None:
    _, major = inspector()
    home = tmp_path / "home"
    with Memory.open(home) as mem:
        mem.import_sessions(
            [ImportedSession("chat-1", [Message("user", "the kettle is blue", 1_600_000_000 * 10**9)])]
        )
    status, listed, err = run(home, "--method", "tools/list")
    assert status == 0, err
    assert {t["name"] for t in listed["tools"]} >= {"search", "read", "list_sessions", "save"}
    search = next(t for t in listed["tools"] if t["name"] == "search")
    assert search["annotations"]["readOnlyHint"] is True and search["outputSchema"]["type"] == "object"

    status, found, err = run(
        home, "--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=kettle"
    )
    assert status == 0 and found["isError"] is False, err
    assert found["structuredContent"]["hits"][0]["snippet"] == "the kettle is blue"

    status, bad, err = run(
        home, "--method", "tools/call", "--tool-name", "read", "--tool-arg", "session=nosuch"
    )
    assert status == (5 if major >= 2 else 0), err  # 2.x exits 5 on isError; 1.x prints it and exits 0
    assert bad["isError"] is True and bad["content"][0]["text"] == "read failed: no session 'nosuch'"

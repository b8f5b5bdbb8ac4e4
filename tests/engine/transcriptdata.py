"""Synthetic agents' transcripts in the real line shapes: Claude Code projects and Codex CLI rollouts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CC_SESSION = "3f2c0000-0000-4000-8000-000000000001"
CODEX_SESSION = "019bce9f-0a40-79e2-8351-8818e8487fb6"
CWD = "/home/u/app"


def cc_line(kind: str, n: int, **fields: Any) -> dict[str, Any]:
    """One Claude Code line: the common fields, then ``fields``; ``n`` numbers the uuid and the second."""
    return {
        "parentUuid": f"u-{n - 1}" if n > 1 else None,
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": CC_SESSION,
        "version": "2.0.0",
        "gitBranch": "main",
        "type": kind,
        "uuid": f"u-{n}",
        "timestamp": f"2026-01-10T09:00:{n:02d}.000Z",
        **fields,
    }


def cc_prompt(n: int, text: Any, **fields: Any) -> dict[str, Any]:
    return cc_line("user", n, message={"role": "user", "content": text}, **fields)


def cc_reply(n: int, blocks: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
               "content": blocks, "stop_reason": None}  # fmt: skip
    message.update(fields.pop("message_fields", {}))
    return cc_line("assistant", n, message=message, requestId=f"req_{n}", **fields)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def claude_code_lines() -> list[dict[str, Any]]:
    """A session with every kind of line Claude Code writes; 3 prompts and 3 replies are real."""
    return [
        {"type": "file-history-snapshot", "messageId": "m-0", "snapshot": {}, "isSnapshotUpdate": False},
        cc_prompt(1, "Add a retry to the fetch helper"),
        cc_reply(2, [{"type": "thinking", "thinking": "let me look", "signature": "sig"}]),
        cc_reply(3, [{"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/x"}}]),
        cc_prompt(4, [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "export async …"}],
                  toolUseResult={"type": "text"}),
        cc_reply(5, [text("I added a retry with backoff.")]),
        cc_prompt(6, "<system-reminder>injected</system-reminder>\n", isMeta=True),
        cc_prompt(7, "<command-name>/clear</command-name>\n<command-message>clear</command-message>"),
        cc_prompt(8, "<local-command-stdout>cleared</local-command-stdout>"),
        cc_prompt(9, [text("Also log each retry"), {"type": "image", "source": {"type": "base64", "data": "AA"}}]),
        cc_reply(10, [text("Done: each retry is logged.")]),
        cc_prompt(11, "[Request interrupted by user]"),
        cc_prompt(12, "sub task", isSidechain=True),
        cc_reply(13, [text("sub answer")], isSidechain=True),
        {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "sessionId": CC_SESSION,
         "uuid": "s-1", "timestamp": "2026-01-10T09:00:14.000Z", "compactMetadata": {"trigger": "auto"}},
        cc_prompt(15, "This session is being continued from a previous conversation that ran out of context.",
                  isCompactSummary=True),
        cc_reply(16, [text("API Error: overloaded")], isApiErrorMessage=True,
                 message_fields={"model": "<synthetic>"}),
        cc_prompt(17, "<ide_opened_file>fetch.ts</ide_opened_file>Thanks, <b>ship it</b>"),
        cc_reply(18, [text("Shipped.")]),
        {"type": "ai-title", "aiTitle": "Fetch retries", "sessionId": CC_SESSION},
        {"type": "summary", "summary": "Retry added to fetch helper", "leafUuid": "u-18"},
        {"type": "queue-operation", "operation": "enqueue", "sessionId": CC_SESSION,
         "timestamp": "2026-01-10T09:00:19.000Z", "content": "queued"},
    ]  # fmt: skip


def write_jsonl(path: Path, lines: list[dict[str, Any]], tail: str = "") -> Path:
    """``lines`` as JSONL, then ``tail`` as is (e.g. half a line still being written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines) + tail, encoding="utf-8")
    return path


def append_jsonl(path: Path, lines: list[dict[str, Any]], tail: str = "") -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines) + tail)


def codex_line(second: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": f"2026-01-18T02:01:{second:02d}.500Z", "type": kind, "payload": payload}


def codex_meta(second: int = 0) -> dict[str, Any]:
    return codex_line(second, "session_meta", {
        "id": CODEX_SESSION, "timestamp": "2026-01-18T02:01:28.500Z", "cwd": CWD, "originator": "codex_cli_rs",
        "cli_version": "0.80.0", "source": "cli", "git": {"branch": "main"},
    })  # fmt: skip


def codex_item(second: int, role: str, value: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return codex_line(second, "response_item",
                      {"type": "message", "role": role, "content": [{"type": part, "text": value}]})  # fmt: skip


def codex_turn(second: int, prompt: str, reply: str) -> list[dict[str, Any]]:
    """One turn as Codex writes it: the prompt and reply both as response items and as events."""
    return [
        codex_item(second, "user", prompt),
        codex_line(second, "event_msg", {"type": "user_message", "message": prompt, "images": []}),
        codex_line(second + 1, "response_item", {"type": "reasoning", "summary": [], "encrypted_content": "x"}),
        codex_line(second + 1, "response_item",
                   {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}),
        codex_line(second + 1, "response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}),
        codex_item(second + 2, "assistant", reply),
        codex_line(second + 2, "event_msg", {"type": "agent_message", "message": reply, "phase": "final_answer"}),
        codex_line(second + 2, "event_msg", {"type": "token_count", "info": {}}),
    ]  # fmt: skip


def codex_lines() -> list[dict[str, Any]]:
    return [
        codex_meta(),
        codex_item(1, "developer", "<permissions instructions>…"),
        codex_item(1, "user", "<environment_context>\n  <cwd>/home/u/app</cwd>\n</environment_context>"),
        codex_item(
            1, "user", "# AGENTS.md instructions for /home/u/app\n<INSTRUCTIONS>be brief</INSTRUCTIONS>"
        ),
        codex_line(1, "turn_context", {"cwd": CWD, "approval_policy": "on-request", "model": "gpt-5"}),
        *codex_turn(2, "Fix the flaky date test", "The test assumed UTC; I pinned the timezone."),
        *codex_turn(10, "Run it again", "All green."),
    ]


def codex_legacy_lines() -> list[dict[str, Any]]:
    """A rollout from before the {type, payload} envelope: a bare header, bare items, state records."""
    return [
        {"id": CODEX_SESSION, "timestamp": "2025-05-01T10:00:00.000Z", "instructions": None, "git": {}},
        {"record_type": "state"},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "<user_instructions>x"}],
        },
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "What does main.rs do?"}],
        },
        {"type": "reasoning", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "It starts the CLI."}],
        },
    ]

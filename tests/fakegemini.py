"""A fake Gemini REST server on 127.0.0.1 for tests: the real google-genai SDK talks to it.

It speaks the REST shapes the SDK uses (``generateContent``, ``streamGenerateContent?alt=sse``,
``batchEmbedContents``, ``countTokens``), records every request, and plays scripted replies in order:

    with FakeGemini() as fake:
        fake.reply_text('{"a": 1}')               # next generateContent answers this text
        fake.reply_error(429, "quota")            # the one after fails with HTTP 429
        fake.reply_function_call("chat_history", {"keyword": "x"})
        fake.reply_echo_error(400)                # fails, echoing the request (body, key, query) back
        fake.reply_raw(b"<html>log in</html>")     # a 200 that is not JSON (a proxy's page)
        fake.reply_stream(["Hel", "lo"], gate=event)  # "Hel" is sent, "lo" only once event is set
        client = make_client("test-key", base_url=fake.url, attempts=1)

A hostile endpoint, for the tests that treat a reply as untrusted input (each answer a 200):

        fake.reply_huge(20 * 2**20)                # a 20 MB reply (declared, or streamed without a length)
        fake.reply_nested(100_000)                 # a summary whose value is nested 100,000 deep
        fake.reply_echo_key("Do: use {key}")      # the text with the request's own API key in it

With nothing scripted, ``generateContent`` answers with ``fake.responder(request)`` when a responder is
set (an answer computed from what was asked), else with ``fake.default_text``; embeddings are
deterministic vectors derived from the text.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PATH = re.compile(r"^/(v1beta|v1)/models/([^:/?]+):(\w+)")


@dataclass
class Request:
    """One request the fake server received."""

    method: str  # generateContent, streamGenerateContent, batchEmbedContents, countTokens, ...
    model: str
    body: dict[str, Any]
    headers: dict[str, str]

    def text(self) -> str:
        """All text parts of the request's contents and system instruction, joined."""
        parts: list[str] = []
        system = self.body.get("systemInstruction") or self.body.get("system_instruction") or {}
        for part in system.get("parts", []):
            parts.append(part.get("text", ""))
        for content in self.body.get("contents", []):
            for part in content.get("parts", []):
                if "text" in part:
                    parts.append(part["text"])
        return "\n".join(parts)


@dataclass
class Reply:
    status: int = 200
    payload: dict[str, Any] = field(default_factory=dict)
    delay: float = 0.0
    chunks: list[dict[str, Any]] | None = None
    gate: threading.Event | None = None  # a gated stream sends its first chunk, then waits for this
    echo: bool = False  # an error whose message repeats the request: its body, key header and query
    raw: bytes | None = None  # sent as it is (with ``ctype``): a proxy's page instead of a Gemini reply
    ctype: str = "application/json"
    undeclared: bool = False  # sent without Content-Length (the body ends when the connection closes)
    echo_key: str | None = None  # a text answer in which ``{key}`` is the request's API key


def _candidate(parts: list[dict[str, Any]], prompt_tokens: int = 10, out_tokens: int = 5) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": out_tokens,
            "totalTokenCount": prompt_tokens + out_tokens,
        },
    }


def fake_vector(text: str, dim: int) -> list[float]:
    """A deterministic unit vector for a text."""
    seed = hashlib.sha256(text.encode("utf-8")).digest()
    values = [((seed[i % len(seed)] + i * 7) % 255) / 127.0 - 1.0 for i in range(dim)]
    norm = sum(v * v for v in values) ** 0.5 or 1.0
    return [v / norm for v in values]


def one_try_client(api_key: str, base_url: str) -> Any:
    """A real google-genai client that does not retry (a scripted 429 is answered once)."""
    from engine.llm.gemini import make_client

    return make_client(
        api_key, base_url=base_url, attempts=1, initial_delay_s=0.01, max_delay_s=0.01, jitter_s=0
    )


class FakeGemini:
    """The server. Use as a context manager; ``url`` is its base URL."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.default_text = "{}"
        self.responder: Callable[[Request], str] | None = None
        self.embed_dim = 8
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                fake._handle(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeGemini:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- scripting --------------------------------------------------------------------------------

    def reply_text(
        self, text: str, *, delay: float = 0.0, prompt_tokens: int = 10, out_tokens: int = 5
    ) -> None:
        self._push(Reply(payload=_candidate([{"text": text}], prompt_tokens, out_tokens), delay=delay))

    def reply_json(self, value: Any, **kwargs: Any) -> None:
        self.reply_text(json.dumps(value, ensure_ascii=False), **kwargs)

    def reply_function_call(self, name: str, args: dict[str, Any]) -> None:
        self._push(Reply(payload=_candidate([{"functionCall": {"name": name, "args": args}}])))

    def reply_stream(
        self, pieces: list[str], *, delay: float = 0.0, gate: threading.Event | None = None
    ) -> None:
        """A streamed answer in ``pieces``; with a ``gate``, the rest waits after the first piece."""
        chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}}]} for p in pieces]
        if chunks:
            chunks[-1]["candidates"][0]["finishReason"] = "STOP"
            chunks[-1]["usageMetadata"] = {
                "promptTokenCount": 10,
                "candidatesTokenCount": len(pieces),
                "totalTokenCount": 10 + len(pieces),
            }
        self._push(Reply(chunks=chunks, delay=delay, gate=gate))

    def reply_error(self, status: int, message: str = "error", *, delay: float = 0.0) -> None:
        statuses = {
            400: "INVALID_ARGUMENT",
            401: "UNAUTHENTICATED",
            403: "PERMISSION_DENIED",
            429: "RESOURCE_EXHAUSTED",
            500: "INTERNAL",
            503: "UNAVAILABLE",
        }
        payload = {"error": {"code": status, "message": message, "status": statuses.get(status, "UNKNOWN")}}
        self._push(Reply(status=status, payload=payload, delay=delay))

    def reply_echo_error(self, status: int = 400) -> None:
        """The next call fails with ``status``, and the error's message repeats the whole request (its
        JSON body, the ``x-goog-api-key`` header and the query string), as some endpoints and proxies do."""
        self.reply_error(status, "echo")
        self._replies[-1].echo = True

    def reply_raw(self, body: bytes, *, status: int = 200, ctype: str = "text/html") -> None:
        """The next call is answered with ``body`` as it is (e.g. a captive portal's HTML with 200)."""
        self._push(Reply(status=status, raw=body, ctype=ctype))

    def reply_huge(self, size: int, *, declared: bool = True) -> None:
        """The next call is answered with a summary about ``size`` bytes long (one huge description);
        ``declared=False`` sends it without a Content-Length, so only reading it tells its size."""
        text = json.dumps(
            {
                "key_decisions": ["Do: keep it short"],
                "past_discussions": [],
                "current_discussion": {
                    "topic": "huge",
                    "description": "x" * size,
                    "perspectives": "",
                    "direction": "",
                },
            }
        )
        body = json.dumps(_candidate([{"text": text}])).encode("utf-8")
        self._push(Reply(raw=body, ctype="application/json", undeclared=not declared))

    def reply_nested(self, depth: int) -> None:
        """The next call is answered with a summary whose ``key_decisions`` is nested ``depth`` lists deep."""
        nested = "[" * depth + "]" * depth
        self.reply_text(f'{{"key_decisions": {nested}, "past_discussions": [], "current_discussion": {{}}}}')

    def reply_echo_key(self, template: str) -> None:
        """The next call is answered with ``template``, ``{key}`` replaced by the request's API key."""
        self._push(Reply(echo_key=template))

    def reply_blocked(self) -> None:
        self._push(Reply(payload={"candidates": [], "promptFeedback": {"blockReason": "SAFETY"}}))

    def _push(self, reply: Reply) -> None:
        with self._lock:
            self._replies.append(reply)

    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def calls(self, method: str = "generateContent") -> list[Request]:
        """The recorded requests of one kind (streaming counts as generateContent too)."""
        with self._lock:
            if method == "generateContent":
                return [r for r in self.requests if r.method in ("generateContent", "streamGenerateContent")]
            return [r for r in self.requests if r.method == method]

    # -- serving ----------------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b"{}"
        if len(raw) < length:  # the client died mid-request (the crash tests kill it): nobody to answer
            return
        match = _PATH.match(handler.path)
        if match is None:
            self._send(handler, 404, {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}})
            return
        _, model, method = match.groups()
        body = json.loads(raw or b"{}")
        request = Request(method, model, body, {k.lower(): v for k, v in handler.headers.items()})
        with self._lock:
            self.requests.append(request)
            scripted = (
                self._replies.popleft()
                if method in ("generateContent", "streamGenerateContent") and self._replies
                else None
            )
            if (
                scripted is None
                and method == "batchEmbedContents"
                and self._replies
                and self._replies[0].status != 200
            ):
                scripted = self._replies.popleft()
        if scripted is not None and scripted.delay:
            time.sleep(scripted.delay)
        if method == "batchEmbedContents" and (scripted is None or scripted.status == 200):
            embeddings = []
            for item in body.get("requests", []):
                text = "".join(p.get("text", "") for p in item.get("content", {}).get("parts", []))
                dim = int(item.get("outputDimensionality") or self.embed_dim)
                embeddings.append({"values": fake_vector(text, dim)})
            self._send(handler, 200, {"embeddings": embeddings})
            return
        if method == "countTokens":
            self._send(handler, 200, {"totalTokens": max(1, len(request.text()) // 4)})
            return
        if scripted is None and self.responder is not None and method == "generateContent":
            scripted = Reply(payload=_candidate([{"text": self.responder(request)}]))
        reply = scripted or Reply(payload=_candidate([{"text": self.default_text}]))
        if reply.echo_key is not None:
            key = handler.headers.get("x-goog-api-key", "")
            reply = Reply(payload=_candidate([{"text": reply.echo_key.replace("{key}", key)}]))
        if reply.raw is not None:
            self._send_raw(handler, reply.status, reply.raw, reply.ctype, declared=not reply.undeclared)
            return
        if method == "streamGenerateContent" and reply.status == 200 and reply.gate is not None:
            self._send_gated(handler, reply.chunks or [reply.payload], reply.gate)
            return
        if method == "streamGenerateContent" and reply.status == 200:
            chunks = reply.chunks or [reply.payload]
            data = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
            self._send_raw(handler, 200, data, "text/event-stream")
            return
        if reply.echo:
            echoed = (
                f"Invalid request {raw.decode('utf-8', 'replace')} with key "
                f"{handler.headers.get('x-goog-api-key', '')} at {handler.path}"
            )
            payload = json.loads(json.dumps(reply.payload))
            payload["error"]["message"] = echoed
            payload["error"]["details"] = [{"request": body, "key": handler.headers.get("x-goog-api-key")}]
            self._send(handler, reply.status, payload)
            return
        if reply.chunks is not None:
            text = "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in reply.chunks)
            reply = Reply(payload=_candidate([{"text": text}]))
        self._send(handler, reply.status, reply.payload)

    def _send_gated(
        self, handler: BaseHTTPRequestHandler, chunks: list[dict[str, Any]], gate: threading.Event
    ) -> None:
        """Stream the first chunk, wait for ``gate``, then the rest (HTTP/1.0: the body ends at close)."""
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.end_headers()
            for i, chunk in enumerate(chunks):
                if i == 1:
                    gate.wait(30)
                handler.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n")
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return

    def _send(self, handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
        self._send_raw(handler, status, json.dumps(payload).encode("utf-8"), "application/json")

    def _send_raw(
        self, handler: BaseHTTPRequestHandler, status: int, data: bytes, ctype: str, *, declared: bool = True
    ) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", ctype)
            if declared:
                handler.send_header("Content-Length", str(len(data)))
            else:
                handler.send_header("Connection", "close")
                handler.close_connection = True
            handler.end_headers()
            for start in range(0, len(data), 1 << 16):
                handler.wfile.write(data[start : start + (1 << 16)])
        except (BrokenPipeError, ConnectionResetError):
            return

"""The checked stdin of ``memtray mcp``: every request line gets an answer, even a broken one.

The SDK's stdio transport drops a line it cannot parse without a reply, so a client that sent it waits
for its id until its own timeout (a minute or more). :class:`CheckedStdin` reads the raw bytes itself and
passes on only lines the SDK will accept; for any other line it queues the JSON-RPC error to send:

- not UTF-8, or not JSON: ``-32700`` with id null (JSON-RPC cannot name the request);
- a string holding a lone UTF-16 surrogate (``"\\ud800"``: valid JSON, not valid text): ``-32602`` with
  the request's id;
- anything else the SDK would refuse (no ``method``, a batch array, nesting too deep): ``-32600`` with
  the request's id when it can be read, else null;
- a request whose ``id`` is not a string or an integer (``null``, ``1.5``, ``true``, ``{}``, ``[1]``; the
  SDK would take it for a notification and never answer): ``-32600`` with id null;
- a line over :data:`MAX_LINE_BYTES`: read to its end without keeping it, then ``-32600`` with the id
  recovered from its first or last bytes (the Python SDK writes ``"id"`` first, the TypeScript SDK last).

A malformed notification (no ``id`` member at all) gets no answer, as JSON-RPC says. Blank lines are
skipped.

At the end of input the server does not stop at once: requests still running are answered first
(:class:`InFlight` counts the requests handed to the SDK and the answers written back), for at most
:data:`DRAIN_SECONDS`.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp.types as types
from anyio.streams.memory import MemoryObjectSendStream

log = logging.getLogger("memtray.mcp")

MAX_LINE_BYTES = 16 * 1024 * 1024
"""The largest request line read (16 MiB); a longer one is answered with -32600 and skipped."""

DRAIN_SECONDS = 120.0
"""How long the server waits, once its input has ended, for the requests still running to be answered."""

_EDGE = 4096
_ID = rb'(-?\d+|"(?:[^"\\]|\\.){0,200}")'
_ID_HEAD = re.compile(rb'^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*' + _ID)
_ID_FIRST = re.compile(rb'^\s*\{\s*"id"\s*:\s*' + _ID)
_ID_TAIL = re.compile(rb',\s*"id"\s*:\s*' + _ID + rb"\s*\}\s*$")

RequestId = str | int


def error(request_id: RequestId | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


def _id_of(value: Any) -> RequestId | None:
    if isinstance(value, dict):
        found = value.get("id")
        if isinstance(found, str | int) and not isinstance(found, bool):
            return found
    return None


def _id_from_edges(head: bytes, tail: bytes) -> RequestId | None:
    """The id of a request that could not be parsed whole, from its first or last bytes."""
    found = _ID_HEAD.search(head) or _ID_FIRST.search(head) or _ID_TAIL.search(tail)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, str | int) else None


def _is_notification(value: Any) -> bool:
    return isinstance(value, dict) and "method" in value and "id" not in value


def _has_bad_id(value: Any) -> bool:
    """A request (it has an ``id`` member) whose id JSON-RPC and MCP do not allow: not a string or integer."""
    if not isinstance(value, dict) or "id" not in value:
        return False
    found = value["id"]
    return not isinstance(found, str | int) or isinstance(found, bool)


@dataclass(frozen=True)
class Accepted:
    """A line the SDK will take, and its request id (None for a notification or a response)."""

    text: str
    request_id: RequestId | None


def check_line(raw: bytes) -> Accepted | types.JSONRPCError | None:
    """The line to hand to the SDK, the error to answer instead, or None to drop it silently."""
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return error(None, types.PARSE_ERROR, "Parse error: the message is not UTF-8")
    try:
        value = json.loads(text)  # the stdlib reads lone surrogates too, so the id can still be found
    except RecursionError:
        rid = _id_from_edges(raw[:_EDGE], raw[-_EDGE:])
        return error(rid, types.INVALID_REQUEST, "Invalid Request: the message is nested too deeply")
    except ValueError:
        return error(None, types.PARSE_ERROR, "Parse error: the message is not valid JSON")
    rid = _id_of(value)
    if _has_bad_id(value):
        return error(None, types.INVALID_REQUEST, "Invalid Request: the id must be a string or an integer")
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        if _is_notification(value):
            return None
        return error(rid, types.INVALID_PARAMS, "Invalid params: a string holds a lone UTF-16 surrogate")
    except RecursionError:
        return error(rid, types.INVALID_REQUEST, "Invalid Request: the message is nested too deeply")
    try:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError as exc:  # pydantic's ValidationError: not a JSON-RPC message, or nested too deeply
        if _is_notification(value):
            return None
        why = "nested too deeply" if "recursion" in str(exc).lower() else "not a JSON-RPC 2.0 message"
        return error(rid, types.INVALID_REQUEST, f"Invalid Request: the message is {why}")
    is_request = isinstance(value, dict) and "method" in value
    return Accepted(text, rid if is_request else None)


class InFlight:
    """The requests handed to the SDK that have not been answered yet (counted by id)."""

    def __init__(self) -> None:
        self._open: Counter[RequestId] = Counter()
        self._idle = anyio.Event()
        self._idle.set()

    def started(self, request_id: RequestId) -> None:
        if not self._open:
            self._idle = anyio.Event()
        self._open[request_id] += 1

    def answered(self, message: types.JSONRPCMessage) -> None:
        """Note an outgoing message: a response or an error closes its request."""
        if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError) or message.id is None:
            return
        if self._open[message.id] <= 1:
            self._open.pop(message.id, None)
        else:
            self._open[message.id] -= 1
        if not self._open:
            self._idle.set()

    @property
    def pending(self) -> int:
        return sum(self._open.values())

    async def drained(self, timeout: float = DRAIN_SECONDS) -> bool:
        """Wait until every request handed on was answered; False if ``timeout`` ran out first."""
        with anyio.move_on_after(timeout):
            await self._idle.wait()
            return True
        return False


class CheckedStdin:
    """Async iterator of good request lines for ``stdio_server(stdin=...)``; answers go to ``rejects``.

    At the end of input it waits until ``in_flight`` has no request left before it ends the stream, so
    the SDK does not cancel work it was given (a ``save`` sent just before the client closed stdin).
    """

    def __init__(
        self, fd: int, rejects: MemoryObjectSendStream[types.JSONRPCError], in_flight: InFlight
    ) -> None:
        self._file: BinaryIO = os.fdopen(fd, "rb", closefd=False)
        self._rejects = rejects
        self._in_flight = in_flight

    def _readline(self) -> bytes | types.JSONRPCError:
        line = self._file.readline(MAX_LINE_BYTES + 1)
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
            return line
        head, tail = line[:_EDGE], line[-_EDGE:]
        while line and not line.endswith(b"\n"):  # skip the rest of the line without keeping it
            line = self._file.readline(1 << 20)
            if line:
                tail = (tail + line)[-_EDGE:]
        return error(
            _id_from_edges(head, tail),
            types.INVALID_REQUEST,
            f"Invalid Request: the message is over {MAX_LINE_BYTES // (1024 * 1024)} MiB",
        )

    def __aiter__(self) -> CheckedStdin:
        return self

    async def __anext__(self) -> str:
        while True:
            got = await anyio.to_thread.run_sync(self._readline, abandon_on_cancel=True)
            if isinstance(got, types.JSONRPCError):
                await self._rejects.send(got)
                continue
            if got == b"":
                if not await self._in_flight.drained():
                    log.warning("mcp: input ended; %d requests still unanswered", self._in_flight.pending)
                raise StopAsyncIteration
            verdict = check_line(got)
            if isinstance(verdict, Accepted):
                if verdict.request_id is not None:
                    self._in_flight.started(verdict.request_id)
                return verdict.text
            if verdict is not None:
                await self._rejects.send(verdict)


@asynccontextmanager
async def claimed_stdin() -> AsyncIterator[int]:
    """A private copy of fd 0 for the wire, with fd 0 pointed at the null device meanwhile.

    So an engine call or a child process that reads stdin gets EOF instead of eating requests (what the
    SDK does when it owns stdin). The copy is never closed: a worker thread may still block on it.
    """
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield wire
    finally:
        os.dup2(wire, 0)

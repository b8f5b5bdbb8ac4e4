"""One chat turn: Gemini with the memory's context and tools, streamed, saved only when it succeeds.

:meth:`Chat.send` does, in order:

1. takes the turn's start time (the user message's ``sendAt``) and the Gemini key
   (``NoApiKey`` without one);
2. builds the request from :meth:`engine.Memory.turn_context` (a new session has no window and no
   summary): the system prompt with the ``Prior Conversation Context`` guidance, the window with its
   prefixes, the turn-context ``user`` message, the user's input (:mod:`engine.chat.prompt`);
3. streams the model's answer. When the model calls tools (``chat_history``, ``error_history``: the
   registry of :mod:`engine.tools.registry`), they run here, locally, and their results go back to the
   model; after a failed call the error memory's hint is added. After ``max_rounds`` rounds of
   tool calls the model is asked to answer without tools;
4. shows the final answer as it streams (``on_text`` gets the visible reply so far, cleaned by
   :mod:`engine.chat.display`), then applies output hygiene (``strip_reply``) to the whole of it;
5. appends exactly ``[user, assistant]`` to the session (the assistant's ``sendAt`` = now, always after
   the user's). Tool calls, tool results and any text of the rounds that called tools are not saved.

A turn that fails (``NoApiKey``, ``QuotaExceeded``, ``GeminiUnavailable``, ``EmptyReply``, ...) or is
cancelled (``cancelled()`` is checked between chunks, rounds and tool calls: ``TurnCancelled``) saves no
message. The tokens of every answered request are recorded for the session (purpose ``chat``), whether
or not the turn then succeeds: they were spent.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.chat import prompt
from engine.chat.display import visible_reply
from engine.errormemory.hint import after_tool_call
from engine.errors import EmptyReply, EngineError, InvalidInput, NoApiKey, TurnCancelled
from engine.llm.gemini import (
    ClientFactory,
    Usage,
    UsageEvent,
    default_client_factory,
    translated_errors,
    usage_of,
)
from engine.llm.keys import Keys
from engine.messages import Message
from engine.paths import validate_session_id
from engine.summary.context import TurnContext
from engine.summary.hygiene import strip_reply
from engine.tools.registry import Tool, by_name, memory_tools

if TYPE_CHECKING:
    from engine.memory import Memory

log = logging.getLogger("memtray.chat")

MAX_TOOL_ROUNDS = 6
NO_CHAT_KEY = "no Gemini API key: the chat needs one. Run `memtray key set`, or set GEMINI_API_KEY"


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a turn, as run.

    Attributes:
        name: the tool's name.
        args: the arguments the model gave.
        result: the text sent back to the model (``[<tool>] …``, with the hint after a failure).
        failed: whether the call failed.
    """

    name: str
    args: Mapping[str, Any]
    result: str
    failed: bool


@dataclass(frozen=True)
class TurnResult:
    """A finished turn.

    Attributes:
        session: the session id.
        user: the user message as stored (archive id set).
        reply: the assistant message as stored (after output hygiene).
        tool_calls: the tool calls made, in order (never saved).
        rounds: the requests made to Gemini.
        model: the model that answered.
        usage: the tokens of all the turn's requests.
    """

    session: str
    user: Message
    reply: Message
    tool_calls: tuple[ToolCall, ...]
    rounds: int
    model: str
    usage: Usage


@dataclass
class _Round:
    """What one streamed request returned."""

    text: str = ""
    parts: list[Any] = field(default_factory=list)
    calls: list[Any] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


def _never() -> bool:
    return False


class Chat:
    """Chat turns with Gemini over one memory.

    Args:
        mem: the memory (the session's window, summary, tools and the place replies are saved).
        keys: where the Gemini key comes from (default: the memory's, so a key given for this run only
            is shared).
        client_factory: ``(api_key, base_url) -> genai.Client`` (tests: fast retries).
        tools: the tools offered to the model (default: :func:`engine.tools.registry.memory_tools`).
        max_rounds: rounds of tool calls before the model must answer without tools.
        system_prompt: memtray's chat instructions (the summary guidance is added after them).
    """

    def __init__(
        self,
        mem: Memory,
        *,
        keys: Keys | None = None,
        client_factory: ClientFactory | None = None,
        tools: Sequence[Tool] | None = None,
        max_rounds: int = MAX_TOOL_ROUNDS,
        system_prompt: str = prompt.SYSTEM_PROMPT,
    ) -> None:
        self.mem = mem
        self.keys = keys if keys is not None else mem.keys
        self.client_factory = client_factory or default_client_factory
        self.tools = list(tools) if tools is not None else memory_tools()
        self.max_rounds = max(0, max_rounds)
        self.system_prompt = system_prompt
        self._client: tuple[tuple[int, str], Any] | None = None
        self._guard = threading.Lock()

    # -- the turn ---------------------------------------------------------------------------------

    def send(
        self,
        session: str,
        text: str,
        *,
        sender: str = "",
        on_text: Callable[[str], None] | None = None,
        on_tool: Callable[[ToolCall], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> TurnResult:
        """Run one turn and save it (see the module docstring).

        Args:
            session: the session id (created by the first successful turn).
            text: the user's message.
            sender: the user's display name, stored on the user message.
            on_text: called with the visible reply so far each time it grows (from this thread).
            on_tool: called after each tool call.
            cancelled: polled between chunks, rounds and tool calls; True stops the turn.

        Returns:
            The saved turn.

        Raises:
            InvalidInput: an empty message or a bad session id.
            NoApiKey: no Gemini key.
            GeminiError: Gemini failed (``QuotaExceeded``, ``GeminiUnavailable``, ``GeminiTimeout``,
                ``AuthError``) or gave no usable answer (``EmptyReply``).
            TurnCancelled: ``cancelled()`` became true.
            StorageError: the turn could not be saved.
        """
        validate_session_id(session)
        if not text.strip():
            raise InvalidInput("the message is empty")
        stop = cancelled or _never
        started_at = self.mem.clock()
        started = time.perf_counter()
        key = self.keys.get()
        if not key:
            raise NoApiKey(NO_CHAT_KEY)
        _check(stop)
        context = self.context(session, text)
        _check(stop)
        settings = self.mem.settings
        model = settings.chat_model
        client = self._client_for(key, settings.gemini_base_url)
        contents = prompt.contents(context, text)
        tools = by_name(self.tools)
        calls: list[ToolCall] = []
        total = Usage()
        rounds = 0
        while True:
            _check(stop)
            rounds += 1
            allow_tools = rounds <= self.max_rounds
            step = self._stream(client, model, session, contents, context, allow_tools, on_text, stop)
            total = _add(total, step.usage)
            if not step.calls:
                break
            _check(stop)
            contents.append(_content("model", step.parts))
            responses = []
            for call in step.calls:
                _check(stop)
                done = self._run_tool(tools, session, call)
                calls.append(done)
                responses.append(_function_response(call, done))
                if on_tool is not None:
                    on_tool(done)
            contents.append(_content("user", responses))
        reply_text = strip_reply(step.text)
        if not reply_text:
            raise EmptyReply("Gemini gave no answer to show (it may have been blocked); nothing was saved")
        if on_text is not None:
            on_text(reply_text)
        _check(stop)
        saved_at = max(self.mem.clock(), started_at + 1)
        stored = self.mem.append(
            session,
            [
                Message("user", text, started_at, sender),
                Message("assistant", reply_text, saved_at),
            ],
        )
        log.info(
            "chat turn of session %s: %d rounds, %d tool calls, %d+%d tokens in %.2fs",
            session,
            rounds,
            len(calls),
            total.prompt_tokens,
            total.output_tokens,
            time.perf_counter() - started,
        )
        return TurnResult(session, stored[0], stored[1], tuple(calls), rounds, model, total)

    def _client_for(self, key: str, base_url: str) -> Any:
        """The client for this key and URL, made once (building one loads TLS certificates: ~0.3 s)."""
        ident = (hash(key), base_url)
        with self._guard:
            if self._client is None or self._client[0] != ident:
                self._client = (ident, self.client_factory(key, base_url))
            return self._client[1]

    def context(self, session: str, request: str) -> TurnContext:
        """The memory's turn context (a session that does not exist yet has no window and no summary)."""
        return prompt.context_for(self.mem, session, request)

    # -- one request ------------------------------------------------------------------------------

    def _config(self, context: TurnContext, allow_tools: bool) -> Any:
        from google.genai import types

        declarations = [
            types.FunctionDeclaration(
                name=tool.name,
                description=tool.description,
                parameters=types.Schema.model_validate(tool.parameters),
            )
            for tool in self.tools
        ]
        mode = types.FunctionCallingConfigMode.AUTO if allow_tools else types.FunctionCallingConfigMode.NONE
        return types.GenerateContentConfig(
            system_instruction=prompt.system_instruction(context, self.system_prompt),
            tools=[types.Tool(function_declarations=declarations)] if declarations else None,
            tool_config=(
                types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode=mode))
                if declarations
                else None
            ),
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )

    def _stream(
        self,
        client: Any,
        model: str,
        session: str,
        contents: list[Any],
        context: TurnContext,
        allow_tools: bool,
        on_text: Callable[[str], None] | None,
        stop: Callable[[], bool],
    ) -> _Round:
        step = _Round()
        shown = ""
        answered = False
        with translated_errors(f"Gemini {model}"):
            stream = client.models.generate_content_stream(
                model=model, contents=contents, config=self._config(context, allow_tools)
            )
            try:
                for chunk in stream:
                    answered = True
                    _check(stop)
                    if getattr(chunk, "usage_metadata", None) is not None:
                        step.usage = usage_of(chunk)
                    for part in _parts(chunk):
                        step.parts.append(part)
                        if part.function_call is not None:
                            step.calls.append(part.function_call)
                        elif part.text and not part.thought:
                            step.text += part.text
                    if on_text is not None and not step.calls:
                        visible = visible_reply(step.text)
                        if visible != shown:
                            shown = visible
                            on_text(visible)
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
        if answered:
            self._record(session, model, step.usage)
        return step

    def _record(self, session: str, model: str, used: Usage) -> None:
        try:
            self.mem.usage.record(UsageEvent(session, model, "chat", used))
        except EngineError as exc:
            log.warning("could not record Gemini usage: %s", exc)

    # -- tools ------------------------------------------------------------------------------------

    def _run_tool(self, tools: Mapping[str, Tool], session: str, call: Any) -> ToolCall:
        name = str(call.name or "")
        args: Mapping[str, Any] = dict(call.args or {})
        tool = tools.get(name)
        error: str | None = None
        result = ""
        if tool is None:
            error = f"tool not found: {name!r}"
        else:
            try:
                result = tool.run(self.mem, session, args)
            except EngineError as exc:
                error = str(exc) or type(exc).__name__
        if error is not None:
            log.info("chat tool %s failed", name)
        text = after_tool_call(self.mem.errors, name or "unknown", result, error)
        return ToolCall(name, args, text, error is not None)


def _check(stop: Callable[[], bool]) -> None:
    if stop():
        raise TurnCancelled("the reply was stopped; nothing was saved")


def _parts(chunk: Any) -> list[Any]:
    candidates = getattr(chunk, "candidates", None) or []
    if not candidates or candidates[0].content is None:
        return []
    return list(candidates[0].content.parts or [])


def _content(role: str, parts: list[Any]) -> Any:
    from google.genai import types

    return types.Content(role=role, parts=parts)


def _function_response(call: Any, done: ToolCall) -> Any:
    from google.genai import types

    key = "error" if done.failed else "output"
    return types.Part(
        function_response=types.FunctionResponse(id=call.id, name=done.name, response={key: done.result})
    )


def _add(a: Usage, b: Usage) -> Usage:
    return Usage(
        a.prompt_tokens + b.prompt_tokens, a.output_tokens + b.output_tokens, a.total_tokens + b.total_tokens
    )

"""Benchmark of the summarizer: Gemini calls and tokens per 100 summarized messages, with and without the
decision model, on a scripted noisy conversation; and the turn-context assembly time.

Run from the repository root: ``.venv/bin/python -m bench.summary``. Everything talks to the fake Gemini
server on 127.0.0.1 (tests/fakegemini.py); tokens are estimated from its request log at 4 characters a
token (the fake server cannot count real tokens), output tokens from the scripted replies.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from typing import Any

from engine import Memory, Message
from engine.llm.gemini import make_client
from tests.fakegemini import FakeGemini

T0 = 1_700_000_000 * 1_000_000_000
S = 1_000_000_000
SUMMARY = {
    "key_decisions": ["Do: answer in English", "Don't: use emoji"],
    "past_discussions": [
        {
            "topic": "trip",
            "description": "Planning.",
            "direction": "Book.",
            "last_discussed": "2023-11-14 10:00",
        }
    ],
    "current_discussion": {"topic": "budget", "description": "d", "perspectives": "p", "direction": "x"},
}


def noisy_conversation() -> tuple[list[Message], list[int]]:
    """100 messages (50 exchanges): 30 real ones, and greetings, thanks and failed retries; returns the
    messages and the 1-based numbers of the noise exchanges."""
    messages: list[Message] = []
    noise: list[int] = []
    kinds = ["real", "real", "greeting", "real", "retry", "real", "thanks", "real", "real", "retry"] * 5
    for n, kind in enumerate(kinds, 1):
        t = T0 + len(messages) * 30 * S
        if kind == "greeting":
            pair = ("hi again!", "Hello! What can I do for you today?")
        elif kind == "thanks":
            pair = ("thanks, that's great", "You're welcome!")
        elif kind == "retry":
            pair = (f"Compare the two budget options again, please ({n}).", "Sorry, the request timed out.")
        else:
            pair = (
                f"Question {n}: how should the household budget handle irregular yearly costs? "
                + "detail " * 40,
                f"Answer {n}: put a twelfth of each yearly cost aside every month. " + "because " * 120,
            )
        if kind != "real":
            noise.append(n)
        messages += [Message("user", pair[0], t), Message("assistant", pair[1], t + 10 * S)]
    return messages, noise


def estimate(requests: list[Any], replies: list[str]) -> tuple[int, int]:
    prompt = sum(len(r.text()) + len(json.dumps(r.body.get("generationConfig", {}))) for r in requests) // 4
    return prompt, sum(len(r) for r in replies) // 4


def run(with_decisions: bool) -> dict[str, float]:
    messages, noise = noisy_conversation()
    with FakeGemini() as fake, tempfile.TemporaryDirectory() as home:
        mem = Memory.open(home, client_factory=lambda k, u: make_client(k, base_url=u, attempts=1))
        mem.update_settings(
            gemini_base_url=fake.url, decision_model="gemini-2.5-flash-lite" if with_decisions else ""
        )
        mem.append("bench", messages)
        replies = []
        if with_decisions:
            verdict = {
                "noise": [{"exchange": n, "confidence": 0.9, "reason": "noise"} for n in noise],
                "superseded": {"key_decisions": [], "past_discussions": []},
            }
            replies.append(json.dumps(verdict))
        replies += [json.dumps(SUMMARY)] * 5
        for reply in replies:
            fake.reply_text(reply)
        started = time.perf_counter()
        result = mem.summaries.generate("bench")
        elapsed = time.perf_counter() - started
        calls = fake.calls()
        used = replies[: len(calls)]
        prompt, output = estimate(calls, used)
        lite = [i for i, c in enumerate(calls) if c.model == "gemini-2.5-flash-lite"]
        decision_prompt, _ = estimate([calls[i] for i in lite], [used[i] for i in lite])
        scale = 100 / len(messages)
        mem.close()
    return {
        "calls": len(calls) * scale,
        "summary_calls": result.chunks * scale,
        "prompt_tokens": prompt * scale,
        "decision_prompt_tokens": decision_prompt * scale,
        "output_tokens": output * scale,
        "messages_sent": result.summarized,
        "seconds": elapsed,
    }


def context_timing(with_decisions: bool, rounds: int = 50) -> float:
    messages, _ = noisy_conversation()
    with FakeGemini() as fake, tempfile.TemporaryDirectory() as home:
        mem = Memory.open(home, client_factory=lambda k, u: make_client(k, base_url=u, attempts=1))
        mem.update_settings(
            gemini_base_url=fake.url, decision_model="gemini-2.5-flash-lite" if with_decisions else ""
        )
        mem.append("bench", messages)
        (mem.paths.summary_file("bench")).write_text(json.dumps(SUMMARY))
        fake.default_text = json.dumps(
            {"key_decisions": [1], "past_discussions": [], "current_discussion": True}
        )
        mem.turn_context("bench", "warm up")
        times = []
        for i in range(rounds):
            started = time.perf_counter()
            mem.turn_context("bench", f"request {i}")
            times.append(time.perf_counter() - started)
        mem.close()
    return statistics.median(times) * 1000


def main() -> None:
    os.environ.setdefault("GEMINI_API_KEY", "bench-key")
    print("summarizer, per 100 summarized messages (scripted noisy conversation: 50 exchanges, 20 noise)")
    print(
        f"{'':24}{'calls':>7}{'summary calls':>15}{'prompt tok':>12}{'(decision)':>12}"
        f"{'output tok':>12}{'msgs sent':>11}"
    )
    for label, flag in (("without decision model", False), ("with decision model", True)):
        r = run(flag)
        print(
            f"{label:24}{r['calls']:>7.0f}{r['summary_calls']:>15.0f}{r['prompt_tokens']:>12,.0f}"
            f"{r['decision_prompt_tokens']:>12,.0f}"
            f"{r['output_tokens']:>12,.0f}{r['messages_sent']:>11.0f}"
        )
    print("turn-context assembly, median of 50 (16-message window, summary present)")
    print(f"  no decision model:                   {context_timing(False):7.2f} ms")
    print(f"  with the relevance check (loopback): {context_timing(True):7.2f} ms")


if __name__ == "__main__":
    main()

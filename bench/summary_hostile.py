"""The hostile-reply table: what memtray saved when the fake Gemini endpoint answered each hostile reply
(each a 200) to a summary run, through the real google-genai SDK.

Run from the repository root: ``.venv/bin/python -m bench.summary_hostile``. For each case of
tests/engine/summary/hostile.py it prints the reply, what the run said, the size of summary.json afterwards,
whether the key in use is in it (the time is the summary run's, after one warm-up run), the turn context's summary block (its size, its fence lines: 2 when no
text closed the fence, whether the key is in it), and what the saved summary holds.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path

from engine import Memory
from engine.errors import EngineError
from tests.engine.summary.conftest import conversation, fast_client
from tests.engine.summary.hostile import CASES, KEY
from tests.fakegemini import FakeGemini


def _short(text: str, width: int = 70) -> str:
    text = json.dumps(text, ensure_ascii=True)[1:-1]
    return text if len(text) <= width else text[: width - 1] + "…"


def run_case(name: str, root: Path) -> tuple[str, str, str, str]:
    with FakeGemini() as fake:
        mem = Memory.open(root / "home", client_factory=fast_client)
        try:
            mem.update_settings(gemini_base_url=fake.url, decision_model="")
            mem.append("s", conversation(4))
            CASES[name](fake)
            started = time.perf_counter()
            try:
                result = mem.summaries.generate("s")
                outcome = f"saved ({result.chunks} chunk)"
            except EngineError as exc:
                outcome = f"refused: {str(exc).split(': ', 2)[-1]}"
            elapsed = time.perf_counter() - started
            path = mem.paths.summary_file("s")
            if not path.exists():
                return outcome, f"{elapsed:.2f}s", "no summary.json", "-"
            raw = path.read_text(encoding="utf-8")
            summary = mem.summaries.load("s")
            held = (*summary.key_decisions[:2], summary.current_discussion.topic)
            shown = " | ".join(_short(t, 40) for t in held if t)
            block = mem.turn_context("s", "what now?").messages[-1].content
            fences = sum(line.lstrip().startswith("```") for line in block.splitlines())
            shown = f"context {len(block):,} chars, {fences} fence lines, key {'IN' if KEY in block else 'absent'}; {shown}"
            return (
                outcome,
                f"{elapsed:.2f}s",
                f"{len(raw.encode()):,} B, key {'IN' if KEY in raw else 'absent'}",
                shown,
            )
        finally:
            mem.close()


def main() -> None:
    os.environ["GEMINI_API_KEY"] = KEY
    logging.disable(logging.WARNING)  # each refusal is also logged; the table says it
    with tempfile.TemporaryDirectory() as tmp:  # a warm-up, not shown: google-genai's import takes seconds
        run_case(next(iter(CASES)), Path(tmp))
    print(f"{'reply':42} {'outcome':58} {'time':6} {'summary.json':26} holds")
    for name in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            outcome, elapsed, saved, shown = run_case(name, Path(tmp))
        print(f"{name:42} {_short(outcome, 58):58} {elapsed:6} {saved:26} {shown}")


if __name__ == "__main__":
    main()

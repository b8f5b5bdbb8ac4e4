"""The MCP server's event loop answers even when a worker thread's wake-up is lost.

asyncio wakes its loop from another thread by writing a byte to a socket and drops a failed write in
silence; under Wine that write sometimes fails on an empty socket. Here every such write is dropped, on
the real loop, and a finished worker thread's result still arrives, within the server's wake-up period.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import anyio
import anyio.to_thread
import pytest

from engine.mcpserver.server import keep_awake


@pytest.fixture
def lost_wakeups(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every write to the loop's self-pipe is dropped (as a failed send is); yields how many were."""
    dropped: list[int] = []
    loop = asyncio.new_event_loop()  # the default loop's class, as anyio.run makes it
    loop.close()
    monkeypatch.setattr(type(loop), "_write_to_self", lambda self: dropped.append(1))
    yield dropped


async def _a_thread_call(with_timer: bool) -> float:
    async with anyio.create_task_group() as tasks:
        if with_timer:
            tasks.start_soon(keep_awake, 0.05)
        began = time.monotonic()
        with anyio.move_on_after(3):  # a timer of the test's own: the loop would sleep past it otherwise
            await anyio.to_thread.run_sync(time.sleep, 0.01)
        took = time.monotonic() - began
        tasks.cancel_scope.cancel()
    return took


def test_a_lost_wakeup_delays_a_thread_s_result_without_the_timer(lost_wakeups: list[int]) -> None:
    took = anyio.run(_a_thread_call, False)
    assert lost_wakeups and took >= 2.9  # the result waited for the next timer: the failure is real here


def test_with_the_timer_a_lost_wakeup_costs_one_period(lost_wakeups: list[int]) -> None:
    took = anyio.run(_a_thread_call, True)
    assert lost_wakeups and took < 1.0

"""Sync with a real engine: two Syncthing daemons on 127.0.0.1 keep two copies of a folder in step, and a
message appended on one memtray home becomes keyword-searchable on the other within a bound; then the
other home's folder watch applies what Syncthing brings without anyone calling ``sync now``."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import schedule

from engine import Memory
from engine.embedders.hashing import HashEmbedder
from engine.jobs import add_maintenance
from engine.llm.keys import Keys
from engine.messages import Message
from tests.engine.sync.conftest import MemoryKeyring
from tests.syncthing import missing, share_folder, syncthing_daemons, wait_until

BOUND_S = 60.0
"""From ``sync now`` on A to searchable on B, the engine's own delay included (a rescan every 2 s, the
watcher's 1 s delay); on an idle machine it takes a few seconds."""

PASS = "two laptops, one memory"


@pytest.fixture(autouse=True)
def _needs_syncthing() -> None:
    reason = missing()
    if reason:
        pytest.skip(reason)


def test_a_message_appended_on_a_is_searchable_on_b(tmp_path: Path) -> None:
    with syncthing_daemons(tmp_path, 2) as (daemon_a, daemon_b):
        folder_a, folder_b = tmp_path / "Sync-a", tmp_path / "Sync-b"
        share_folder([(daemon_a, folder_a), (daemon_b, folder_b)], "memtray-sync")
        a = Memory.open(
            tmp_path / "home-a", keys=Keys(backend=MemoryKeyring()), embedder=HashEmbedder(), background=False
        )
        b = Memory.open(
            tmp_path / "home-b", keys=Keys(backend=MemoryKeyring()), embedder=HashEmbedder(), background=False
        )
        try:
            a.sync.enable(folder_a, PASS, "a")
            wait_until(
                lambda: (folder_b / "memtray" / "sync.json").exists(), BOUND_S, "sync.json did not reach B"
            )
            b.sync.enable(folder_b, PASS, "b")
            a.append("trip", [Message("user", "the capybara is in Lisbon", time.time_ns())])
            started = time.monotonic()
            a.sync.now()
            daemon_a.rest("POST", "/rest/db/scan?folder=memtray-sync")

            def arrived() -> bool:
                b.sync.now()
                return bool(b.search("capybara", match="keyword"))

            wait_until(arrived, BOUND_S, "the message did not become searchable on B")
            took = time.monotonic() - started
            assert took < BOUND_S
            assert [h.message.content for h in b.search("capybara", match="keyword")] == [
                "the capybara is in Lisbon"
            ]
            # and back: B's title of the session reaches A
            b.set_title("trip", "Lisbon trip")
            b.sync.now()
            daemon_b.rest("POST", "/rest/db/scan?folder=memtray-sync")

            def titled() -> bool:
                a.sync.now()
                return [s.title for s in a.sessions() if s.id == "trip"] == ["Lisbon trip"]

            wait_until(titled, BOUND_S, "B's title did not reach A")
            print(f"searchable on B {took:.2f} s after sync now on A (Syncthing's delay included)")
            # B as the tray app and `memtray daemon` run it: nobody calls sync now there, the timer is an
            # hour away, and the folder watch sees Syncthing's partial download renamed into place
            worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memtray-store")
            try:
                add_maintenance(schedule.Scheduler(), b, worker.submit, sync_minutes=60)
                worker.submit(lambda: None).result(timeout=BOUND_S)  # the sync at start made the watch
                watch = b.sync.watch
                assert watch is not None
                wait_until(lambda: watch.active, BOUND_S, f"B does not watch its folder: {watch.error}")
                a.append("trip", [Message("user", "a second capybara, seen by the watch", time.time_ns())])
                started = time.monotonic()
                a.sync.now()
                daemon_a.rest("POST", "/rest/db/scan?folder=memtray-sync")
                wait_until(
                    lambda: bool(b.search("watch", match="keyword")), BOUND_S, "B's watch did not apply it"
                )
                assert watch.events >= 1
                print(
                    f"applied on B by its folder watch {time.monotonic() - started:.2f} s after sync now on A"
                )
            finally:
                worker.shutdown(wait=True)
        finally:
            a.close()
            b.close()

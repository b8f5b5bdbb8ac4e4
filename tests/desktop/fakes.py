"""Fakes of the summaries, error memory and key store seams (desktop.seams), for widget tests without I/O.

The tests in ``test_wiring.py`` run the same widgets against the real engine.
"""

from __future__ import annotations

import threading
import time

from desktop.seams import KeyInfo, SummaryState, SummaryView
from engine import Settings
from engine.errormemory import ErrorRecord
from engine.summary import CurrentDiscussion, PastDiscussion, Summary

DAY_NS = 86_400 * 1_000_000_000


class FakeSummaries:
    """A :class:`desktop.seams.SummarySource` that records calls."""

    def __init__(self) -> None:
        self.generated: list[str] = []
        self.runs = 0
        self.pending_ids = ["proj-zh", "english-notes"]
        self.last = 0
        self.lock = threading.Lock()

    def load(self, session: str) -> SummaryView | None:
        if session != "proj-zh":
            return None
        summary = Summary(
            key_decisions=("Do: 回覆使用繁體中文", "Don't: 在週末部署"),
            current_discussion=CurrentDiscussion("會議紀錄", "整理今天的會議", direction="下週三交付設計稿"),
            past_discussions=(
                PastDiscussion("記憶體不足", "關閉分頁、檢查程式", last_discussed="2025-10-09 08:00"),
            ),
        )
        return SummaryView(summary, cursor_ns=1_760_000_000 * 1_000_000_000)

    def generate(self, session: str) -> object:
        with self.lock:
            self.generated.append(session)
            self.last = time.time_ns()
        return None

    def pending(self) -> list[str]:
        return list(self.pending_ids)

    def run_pending(self) -> object:
        self.runs += 1
        for sid in self.pending():
            self.generate(sid)
        return None

    def state(self) -> SummaryState:
        return SummaryState(self.last or None)


class FakeErrors:
    """A :class:`desktop.seams.ErrorSource` over a list."""

    def __init__(self) -> None:
        now = time.time_ns()
        self.records = [
            ErrorRecord(
                "a1b2c3d4e5f6" * 5 + "a1b2",
                "fetch_page",
                (),
                "timeout after 30s",
                "",
                "retried with a longer timeout",
                "resolved",
                now,
                now + 89 * DAY_NS + 60_000_000_000,
            ),
            ErrorRecord(
                "ffee00112233" * 5 + "ffee",
                "run_sql",
                (),
                "syntax error near 'FROM'",
                "",
                "quoted the column name",
                "resolved",
                now,
                now + 10 * DAY_NS + 60_000_000_000,
            ),
        ]
        self.forgotten: list[str] = []

    def list(self, limit: int = 500) -> list[ErrorRecord]:
        return self.records[:limit]

    def count(self) -> int:
        return len(self.records)

    def search(self, query: str, limit: int = 50) -> list[ErrorRecord]:
        q = query.lower()
        return [r for r in self.records if q in r.tool_name.lower() or q in r.symptom.lower()][:limit]

    def forget(self, record_id: str) -> None:
        self.forgotten.append(record_id)
        self.records = [r for r in self.records if r.id != record_id]


class FakeKeys:
    """A :class:`desktop.seams.KeyStore` kept in memory (secure store or not)."""

    def __init__(self, secure_store: bool = True) -> None:
        self.value = ""
        self.secure_store = secure_store

    def status(self) -> KeyInfo:
        if not self.value:
            return KeyInfo("No key is stored.", "none", self.secure_store)
        return KeyInfo(
            f"A key is stored (…{self.value[-4:]}).", "keyring", self.secure_store, "…" + self.value[-4:]
        )

    def set_key(self, value: str) -> KeyInfo:
        self.value = value
        return self.status()

    def use_for_session(self, value: str) -> KeyInfo:
        self.value = value
        return self.status()

    def delete_key(self) -> KeyInfo:
        self.value = ""
        return self.status()

    def test_key(self, settings: Settings, candidate: str = "") -> str:
        return "The key works." if candidate or self.value else "No key to test."

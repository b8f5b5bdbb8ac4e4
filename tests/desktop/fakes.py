"""Fakes of the engine parts that land later (summaries, error memory, key store), per desktop.seams."""

from __future__ import annotations

import threading
import time

from desktop.seams import Discussion, ErrorRecordView, SummaryView


class FakeSummaries:
    """A :class:`desktop.seams.SummarySource` that records calls."""

    def __init__(self) -> None:
        self.generated: list[str] = []
        self.ticks = 0
        self.pending_ids = ["proj-zh", "english-notes"]
        self.last = 0
        self.lock = threading.Lock()

    def load(self, session: str) -> SummaryView | None:
        if session != "proj-zh":
            return None
        return SummaryView(
            key_decisions=["Do: 回覆使用繁體中文", "Don't: 在週末部署"],
            current=Discussion("會議紀錄", "整理今天的會議", direction="下週三交付設計稿"),
            past=[Discussion("記憶體不足", "關閉分頁、檢查程式", last_discussed="2025-10-09 08:00")],
            cursor_ns=1_760_000_000 * 1_000_000_000,
        )

    def generate(self, session: str) -> object:
        with self.lock:
            self.generated.append(session)
            self.last = time.time_ns()
        return None

    def pending(self) -> list[str]:
        return list(self.pending_ids)

    def last_run(self) -> int | None:
        return self.last or None

    def tick(self) -> None:
        self.ticks += 1


class FakeErrors:
    """A :class:`desktop.seams.ErrorSource` over a list."""

    def __init__(self) -> None:
        now = int(time.time())
        self.records = [
            ErrorRecordView(
                "a1b2c3d4e5f6",
                "fetch_page",
                "timeout after 30s",
                "retried with a longer timeout",
                "resolved",
                expire_at=now + 89 * 86400 + 60,
            ),
            ErrorRecordView(
                "ffee00112233",
                "run_sql",
                "syntax error near 'FROM'",
                "quoted the column name",
                "resolved",
                expire_at=now + 10 * 86400 + 60,
            ),
        ]
        self.forgotten: list[str] = []

    def list(self, limit: int = 500) -> list[ErrorRecordView]:
        return self.records[:limit]

    def search(self, query: str, limit: int = 50) -> list[ErrorRecordView]:
        q = query.lower()
        return [r for r in self.records if q in r.tool.lower() or q in r.symptom.lower()][:limit]

    def forget(self, record_id: str) -> None:
        self.forgotten.append(record_id)
        self.records = [r for r in self.records if r.id != record_id]


class FakeKeys:
    """A :class:`desktop.seams.KeyStore` kept in memory."""

    def __init__(self) -> None:
        self.value = ""

    def status(self) -> str:
        return f"A key is stored (…{self.value[-4:]})." if self.value else "No key is stored."

    def set_key(self, value: str) -> None:
        self.value = value

    def delete_key(self) -> None:
        self.value = ""

    def test_key(self, settings: object) -> str:
        return "The key works." if self.value else "No key to test."

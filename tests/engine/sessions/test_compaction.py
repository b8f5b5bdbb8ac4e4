"""Compaction of history.json (to 80 % on a pair boundary), including property tests."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.sessions.compaction import may_trim, plan_cut
from engine.sessions.historyfile import dumps
from tests.engine.conftest import FakeClock

MIB = 1024 * 1024


def fill(mem: Memory, clock: FakeClock, session: str, total_bytes: int, size: int = 2000) -> int:
    """Append user/assistant pairs until history.json passes ``total_bytes`` or a compaction happened."""
    count = 0
    while mem._log.files.size(mem.paths.history_file(session)) < total_bytes and not (
        mem.exists(session) and mem.compaction_cut(session)
    ):
        batch = [
            Message("user", f"q{count} " + "x" * size, clock.advance(1)),
            Message("assistant", f"a{count} " + "y" * size, clock.advance(1)),
        ]
        mem.append(session, batch)
        count += 2
    return count


def test_compaction_at_4_mib_trims_to_80_percent_on_a_pair_boundary(memory: Memory, clock: FakeClock) -> None:
    memory.update_settings(max_history_bytes=4 * MIB)
    written = fill(memory, clock, "cli-a", 4 * MIB + 1, size=20_000)
    path = memory.paths.history_file("cli-a")
    records = json.loads(path.read_text(encoding="utf-8"))
    assert len(path.read_bytes()) <= 0.8 * 4 * MIB + 45_000  # one message of slack past the cut
    assert records[0]["role"] == "user"  # the removed prefix ended on an assistant message
    with memory._store.read() as conn:
        total = conn.execute("SELECT COUNT(*) FROM messages").scalar_one()
        start_at, start_id = conn.execute("SELECT start_at, start_id FROM message_meta").one()
        first_kept = conn.execute("SELECT content FROM messages WHERE id = ?", (start_id,)).scalar_one()
    assert total == written  # the archive never loses a row
    assert start_at == records[0]["sendAt"]
    assert first_kept == records[0]["content"]


def test_fewer_than_four_messages_are_never_compacted(memory: Memory) -> None:
    memory.update_settings(max_history_bytes=4096)
    memory.append(
        "cli-a", [Message("user", "x" * 5000), Message("assistant", "y" * 5000), Message("user", "z")]
    )
    assert len(memory.history("cli-a")) == 3
    result = memory.compact("cli-a")
    assert result.trimmed == 0


def test_on_demand_compaction_reports_what_it_did(memory: Memory, clock: FakeClock) -> None:
    fill(memory, clock, "cli-a", 60_000, size=1000)
    memory.update_settings(max_history_bytes=20_000)
    result = memory.compact("cli-a")
    assert result.trimmed > 0 and result.bytes_after < result.bytes_before <= 62_500
    assert result.bytes_after <= 16_000 + 2100
    assert result.kept == len(memory.history("cli-a"))


def test_archive_and_recent_stay_disjoint_after_compaction(memory: Memory, clock: FakeClock) -> None:
    memory.update_settings(max_history_bytes=20_000)
    fill(memory, clock, "cli-a", 60_000, size=1000)
    hot_ids = [m.id for m in memory.history("cli-a")]
    cut = memory.compaction_cut("cli-a")
    assert cut == hot_ids[0]
    archived = memory.archive_page("cli-a", before_id=cut, limit=5000)
    assert archived and all(m.id is not None and m.id < cut for m in archived)


def test_archive_by_position_counts_across_the_cut(memory: Memory, clock: FakeClock) -> None:
    memory.update_settings(max_history_bytes=20_000)
    fill(memory, clock, "cli-a", 60_000, size=1000)
    memory.append("other", [Message("user", "between", clock.advance(1))])  # ids of another session
    memory.append("cli-a", [Message("user", f"late {i}", clock.advance(1)) for i in range(30)])
    every = list(memory.iter_archive("cli-a"))
    assert memory.archive_count("cli-a") == len(every) > 40
    assert memory.archive_slice("cli-a", 0, 5) == every[:5]
    assert memory.archive_slice("cli-a", 30, 10) == every[30:40]
    assert memory.archive_slice("cli-a", len(every) - 3, 10) == every[-3:]
    cut = memory.compaction_cut("cli-a")
    position = memory.archive_position("cli-a", cut)
    assert every[position].id == cut and position == sum(1 for m in every if (m.id or 0) < cut)
    assert memory.archive_position("cli-a", every[0].id or 0) == 0
    assert memory.archive_count("other") == 1


records_strategy = st.lists(
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["user", "assistant"]),
            "content": st.text(max_size=300),
            "sendAt": st.integers(min_value=0, max_value=2**62),
        }
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(records=records_strategy, max_bytes=st.integers(min_value=10, max_value=20_000))
def test_plan_cut_invariants(records: list[dict[str, object]], max_bytes: int) -> None:
    size = len(b"[" + b",".join(dumps(r) for r in records) + b"]")
    target = size - int(max_bytes * 0.8)
    cut = plan_cut(records, size, max_bytes)
    assert 0 <= cut < max(len(records), 1)
    assert not cut or may_trim(size, len(records), max_bytes)  # what the desktop's chooser foretells
    assert may_trim(size, len(records), max_bytes) == (len(records) >= 4 and target > 0)
    roles = [r["role"] for r in records]
    users = [i for i, role in enumerate(roles) if role == "user"]
    if len(records) < 4 or target <= 0:
        assert cut == 0
        return
    assert cut <= (users[-1] if users else len(records) - 1)  # the newest exchange always stays
    removed = sum(len(dumps(r)) + 1 for r in records[:cut])
    shorter = sum(len(dumps(r)) + 1 for r in records[: cut - 1]) if cut else 0
    last = users[-1] if users else len(records) - 1
    pairs = [c for c in range(1, last + 1) if roles[c - 1] == "assistant"]
    enough = [c for c in range(1, len(records)) if sum(len(dumps(r)) + 1 for r in records[:c]) >= target]
    first = enough[0] if enough else len(records)
    if any(c >= first for c in pairs):  # a pair boundary: the first one that removes enough
        assert roles[cut - 1] == "assistant" and removed >= target
        assert shorter < target or roles[cut - 2] != "assistant"
    elif any(i >= first for i in users):  # else right before the first user message that removes enough
        assert roles[cut] == "user" and removed >= target
        assert all(role != "user" for role in roles[first:cut])
    elif users:  # else everything before the newest exchange
        assert cut == users[-1]
    else:  # no user message at all: any message
        assert cut == min(first, len(records) - 1)


def test_a_session_of_user_messages_only_is_compacted_under_the_limit(
    memory: Memory, clock: FakeClock
) -> None:
    memory.update_settings(max_history_bytes=8192)
    for n in range(60):
        memory.append("cli-u", [Message("user", f"note {n} " + "u" * 400, clock.advance(1))])
    size = len(memory.paths.history_file("cli-u").read_bytes())
    assert size <= 8192 and memory.compaction_cut("cli-u") > 0
    history = memory.history("cli-u")
    assert history[-1].content.startswith("note 59 ")
    archived = [m.content for m in memory.iter_archive("cli-u")]
    assert len(archived) == 60 and archived[-len(history) :] == [m.content for m in history]


def test_a_session_of_assistant_messages_only_is_compacted_too(memory: Memory, clock: FakeClock) -> None:
    memory.update_settings(max_history_bytes=8192)
    for n in range(60):
        memory.append("cli-b", [Message("assistant", f"log {n} " + "b" * 400, clock.advance(1))])
    assert len(memory.paths.history_file("cli-b").read_bytes()) <= 8192
    assert len(list(memory.iter_archive("cli-b"))) == 60

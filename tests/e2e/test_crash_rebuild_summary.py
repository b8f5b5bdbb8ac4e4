"""Crash safety of the derived files: SIGKILL at random points of Annoy rebuilds and of summary runs.

Real processes forked from the crash tests' fork server (``tests/e2e/zygote.py``), killed after a random
delay drawn from a seeded generator, scaled by how long the latest job that was not killed took (the first
two of each test are not killed), so the kills spread over the whole job on a slow machine and a fast one
alike:

- **Annoy rebuilds.** Each writer opens the memory with the background embedder, as the app does, with
  Annoy used from :data:`EXACT_BELOW` archived vectors (the module constant, lowered in the child only),
  searches the archive for a random archived message through whatever index file the last writer left
  (it must come first), and appends two pairs of large messages, so history.json compacts and the
  session's archive index is rebuilt (temporary file, ``os.replace``, then its record). The kill delay
  starts once the appends are acknowledged, so it lands in the embedding of the new messages or the
  rebuild (in-process, the rebuild is most of that time). After every kill the index is classified without
  repairing anything (current, behind the archive, its file and record disagreeing, absent), and the
  temporary files a killed build left must be gone once the next process has opened the store. At the
  end the store opens without manual repair, every acknowledged message is archived exactly once, the
  index is current (or rebuilt on this open), it loads, and semantic search over the archive finds
  archived messages, both through ``Memory.search`` and straight from the Annoy file.
- **Summary runs.** Each writer runs ``memtray summarize --session S`` (the CLI, the real google-genai
  SDK, a fake Gemini server on 127.0.0.1 whose answer records which messages the summary covers) while
  the test, like the app, keeps appending to the sessions. The kill delay starts at the run's first
  Gemini request, so it lands among the calls and the writes of summary.json and its cursor. After every
  kill summary.json is valid JSON and the cursor never points past what summary.json reflects; at the
  end a run of every session completes and its summary covers every message, without a gap.
"""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import string
from collections import Counter
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.clock import format_local
from engine.embedders.hashing import HashEmbedder
from engine.semantic import annoyindex
from engine.semantic import rows as vector_rows
from engine.semantic.rows import document_text
from engine.sessions import archive
from engine.summary import files as summary_files
from tests.e2e.zygote import Zygote
from tests.fakegemini import FakeGemini, Request

pytestmark = pytest.mark.skipif(os.name != "posix", reason="fork and SIGKILL are POSIX")

SECOND = 1_000_000_000
T0 = 1_700_000_000 * SECOND

EXACT_BELOW = 50
"""Annoy from this many archived vectors in these tests (the production threshold is 20,000)."""
FILL = 1000
REBUILD_ROUNDS = 60
CALIBRATION = 2
REBUILD_PAIRS = 2
REBUILD_SIZE = 1100
"""Two pairs of this many characters pass the 4096-byte limit on their own: every writer compacts."""

SUMMARY_SESSIONS = 16
SUMMARY_ROUNDS = 64
SUMMARY_FILL = 24
SUMMARY_SIZE = 4000
"""24 messages of 4,000 characters: three 32,000-character chunks; each round adds two more messages."""


# -- Annoy rebuilds ------------------------------------------------------------------------------


def fill_archive(home: Path, rng: random.Random) -> None:
    """FILL messages of made-up words in session ``idx``, compacted and embedded: an archive of about
    FILL vectors (searched exactly until a writer builds its index)."""
    roles = ("user", "assistant")
    words = ["".join(rng.choices(string.ascii_lowercase, k=7)) for _ in range(5000)]
    messages = [
        Message(roles[i % 2], f"fill-{i} " + " ".join(rng.choices(words, k=30)), T0 + i) for i in range(FILL)
    ]
    with Memory.open(home) as mem:
        mem.update_settings(max_history_bytes=4096)
        mem.append("idx", messages)
        assert mem.compaction_cut("idx") > FILL - 20
        assert mem.wait_idle(timeout=120)


def leftovers(home: Path) -> set[str]:
    folder = home / ".store" / "vectors"
    return {p.name for p in folder.glob("*.tmp-*")} if folder.is_dir() else set()


def index_state(home: Path, session: str) -> str:
    """``current``, ``behind`` (built for an older cut), ``mismatch`` (file and record disagree: a kill
    between the two renames) or ``none``, read without repairing anything."""
    db = sqlite3.connect(home / ".store" / "history.db", timeout=30)
    try:
        db.execute("PRAGMA query_only=ON")
        num, cut = db.execute(
            "SELECT s.num, m.start_id FROM sessions s JOIN message_meta m ON m.session_id = s.id "
            "WHERE s.id = ?",
            (session,),
        ).fetchone()
    finally:
        db.close()
    ann, record_path = annoyindex.paths_for(home / ".store" / "vectors", f"s{num:07d}", HashEmbedder().id)
    record = annoyindex.read_record(record_path)
    if record is None or not ann.exists():
        return "none"
    if annoyindex.file_check(ann) != (record.size, record.check):
        return "mismatch"
    return "current" if record.cut == cut else "behind"


def rebuild_message(prefix: str, n: int, role: str) -> str:
    """What the zygote's ``rebuild`` job appends."""
    if role == "user":
        return f"{prefix}-{n}-q ".ljust(REBUILD_SIZE, "x")
    return f"{prefix}-{n}-a ".ljust(REBUILD_SIZE, "y")


def test_annoy_rebuilds_killed_at_random_points_leave_a_usable_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    rng = random.Random(20240610)
    fill_archive(home, rng)
    zygote = Zygote(tmp_path / "rebuild.log")
    kills = finished = 0
    states: Counter[str] = Counter()
    half_written: set[str] = set()
    acked: list[str] = []
    with Memory.open(home, background=False) as mem, mem._store.read() as conn:
        filled = conn.execute("SELECT id, content FROM messages ORDER BY id").all()
    try:
        post_s = 0.0
        for round_no in range(REBUILD_ROUNDS):
            before = leftovers(home)
            acks = tmp_path / f"acks-rebuild-{round_no}"
            prefix = f"rb{round_no}"
            k = rng.randrange(1, FILL - 20)  # an archived message, searched for by its embedded text
            result = zygote.run(
                job="rebuild",
                home=str(home),
                session="idx",
                probe=document_text(Message("user", filled[k][1]), Message("user", filled[k - 1][1])),
                probe_id=filled[k][0],
                prefix=prefix,
                count=REBUILD_PAIRS,
                size=REBUILD_SIZE,
                max_bytes=4096,
                exact_below=EXACT_BELOW,
                acks=str(acks),
                # The clock starts once every append is acknowledged: the kill lands in the embedding of
                # the new messages or in the rebuild (trees, the save to a temporary file, the renames).
                after_lines=REBUILD_PAIRS,
                delay=120 if round_no < CALIBRATION else rng.uniform(0.0, 1.2) * post_s,
            )
            if not result["killed"] and round_no > 0:  # the first child writes the .pyc files it imports
                post_s = result["armed_s"]
            lines = acks.read_text().split() if acks.exists() else []
            if result["killed"]:
                kills += 1
                states[index_state(home, "idx")] += 1
            else:
                assert result["status"] == 0 and lines[-1] == "idle", (result, lines)
                finished += 1
            for n in (int(x) for x in lines if x.isdigit()):
                acked += [rebuild_message(prefix, n, "user"), rebuild_message(prefix, n, "assistant")]
            # The previous writer's half-written files went when this one opened the store.
            assert not (before & leftovers(home)), "a half-written index file was left behind"
            half_written |= leftovers(home)
    finally:
        zygote.close()

    monkeypatch.setattr(annoyindex, "EXACT_BELOW", EXACT_BELOW)
    embedder = HashEmbedder()
    with Memory.open(home, embedder=embedder) as mem:  # opens without manual repair
        assert leftovers(home) == set()
        final_state = index_state(home, "idx")
        cut = mem.compaction_cut("idx")
        with mem._store.read() as conn:
            rows = conn.execute("SELECT id, content FROM messages WHERE session_id = 'idx' ORDER BY id").all()
            embedders = conn.execute("SELECT DISTINCT embedder FROM vectors").scalars().all()
        assert embedders == [embedder.id]  # the forked writers embedded with MEMTRAY_EMBEDDER=hash too
        archived = Counter(r[1] for r in rows)
        assert [c[:30] for c, k in archived.items() if k > 1] == []
        assert all(archived[c] == 1 for c in acked), "an acknowledged message is missing"
        archived_rows = [r for r in rows if r[0] < cut]
        step = max(1, len(archived_rows) // 40)
        probes = [
            (i, archived_rows[i - 1][1], archived_rows[i][1]) for i in range(1, len(archived_rows), step)
        ]
        for i, previous, content in probes:  # through Annoy, or exactly while a damaged index rebuilds
            query = document_text(Message("user", content), Message("user", previous))
            hits = mem.search(query, session="idx", match="semantic", scope="all", limit=3)
            assert hits and hits[0].message.id == archived_rows[i][0], query[:40]
        assert mem.wait_idle(timeout=120)
        assert index_state(home, "idx") == "current"
        with mem._store.read() as conn:
            key = archive.known_key(conn, "idx")
            ids, matrix = vector_rows.load(conn, embedder.id, "idx", 0, cut, embedder.dim)
        assert key is not None
        ann, record_path = annoyindex.paths_for(home / ".store" / "vectors", key, embedder.id)
    assert ids.tolist() == [r[0] for r in archived_rows]  # every archived message has its vector
    loaded = annoyindex.load(ann, record_path, ids)
    assert loaded is not None and loaded.record.count == len(ids)
    try:  # straight from the rebuilt file: item i is the i-th archived vector
        for i, _, _ in probes:
            found, scores = loaded.search(matrix[i], 1)
            assert found[0] == ids[i] and scores[0] > 0.99
    finally:
        loaded.unload()
    assert leftovers(home) == set()
    print(
        f"\nannoy crash test: {kills} SIGKILLs survived ({finished} writers finished first); {len(half_written)} half-written index files left by kills, "
        f"each removed by the next open; index after a kill: {dict(states)}; before the final open: "
        f"{final_state}; {len(ids)} archived vectors, {len(acked)} acknowledged messages checked, "
        f"{len(probes)} archived messages found by semantic search"
    )
    assert kills >= 45


# -- summary runs ---------------------------------------------------------------------------------

_LABEL = re.compile(r"\bsm-(\d+):")
_COVERED = re.compile(r"covered (\d+) to (\d+)")


def covering_reply(request: Request) -> str:
    """The fake Gemini's answer: a summary whose description says which message numbers it covers.

    The previous coverage comes from the running summary in the system prompt, the new messages from
    the transcript. A chunk that does not continue the coverage is recorded as a gap.
    """
    if "noise" in json.dumps(request.body.get("generationConfig", {})):  # the decision model: keep all
        return json.dumps({"noise": [], "superseded": {"key_decisions": [], "past_discussions": []}})
    system = "".join(p.get("text", "") for p in request.body["systemInstruction"]["parts"])
    user = "".join(p.get("text", "") for p in request.body["contents"][0]["parts"])
    seen = [int(n) for n in _LABEL.findall(user)]
    previous = _COVERED.search(system)
    if previous is None:
        low, high = min(seen), max(seen)
        gap = ""
    else:
        low, high = int(previous[1]), int(previous[2])
        gap = " GAP" if min(seen) > high + 1 else ""
        low, high = min(low, min(seen)), max(high, max(seen))
    return json.dumps(
        {
            "key_decisions": ["Do: keep every message"],
            "past_discussions": [],
            "current_discussion": {
                "topic": "the crash test",
                "description": f"covered {low} to {high}{gap}",
                "perspectives": "p",
                "direction": "d",
            },
        }
    )


def summary_message(n: int) -> Message:
    role = "user" if n % 2 == 0 else "assistant"
    return Message(role, f"sm-{n}: ".ljust(SUMMARY_SIZE, "s"), T0 + n * SECOND)


def summary_state(home: Path, session: str) -> tuple[int | None, int]:
    """(the last message number summary.json covers, or None; the last message number the cursor covers,
    -1 for none), checked as the files stand: summary.json is valid JSON without a gap, and the cursor is
    not past what it covers."""
    folder = home / "sessions" / session
    cursor_path = folder / ".summary_cursor"
    text = cursor_path.read_text(encoding="utf-8").strip() if cursor_path.exists() else ""
    parsed = summary_files.parse_cursor(text) if text else None
    assert parsed is not None or not text, f"{session}: the cursor is damaged: {text!r}"
    cursor = (parsed.at - T0) // SECOND if parsed is not None and parsed.at else -1
    summary_path = folder / "summary.json"
    high = None
    if summary_path.exists():
        data = json.loads(summary_path.read_bytes())
        description = data["current_discussion"]["description"]
        assert "GAP" not in description, f"{session}: the summary skipped messages: {description}"
        found = _COVERED.search(description)
        assert found is not None and int(found[1]) == 0, description
        high = int(found[2])
    limit = -1 if high is None else high
    assert cursor <= limit, f"{session}: the cursor {cursor} is past what summary.json covers ({high})"
    return high, cursor


def test_summary_runs_killed_at_random_points_keep_summary_and_cursor_in_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("GEMINI_API_KEY", "fake-key-for-the-crash-test")  # the zygote's children inherit it
    rng = random.Random(20240611)
    sessions = [f"sum-{k}" for k in range(SUMMARY_SESSIONS)]
    count = dict.fromkeys(sessions, SUMMARY_FILL)
    kills = finished = between = first = 0
    calls_log = tmp_path / "gemini-calls"

    odd: list[str] = []

    def logged_reply(request: Request) -> str:
        with calls_log.open("a", encoding="utf-8") as log:  # the zygote starts a kill's clock on it
            log.write(f"{request.model}\n")
        try:
            return covering_reply(request)
        except Exception as exc:
            odd.append(f"{exc!r} {request.model} {request.headers} {json.dumps(request.body)[:3000]}")
            raise

    with FakeGemini() as fake:
        fake.responder = logged_reply
        with Memory.open(home, background=False) as mem:  # the app's side: the user keeps chatting
            mem.update_settings(gemini_base_url=fake.url)
            for session in sessions:
                mem.append(session, [summary_message(n) for n in range(SUMMARY_FILL)])
            zygote = Zygote(tmp_path / "summary.log")
            try:
                armed_s = 0.0
                for round_no in range(SUMMARY_ROUNDS):
                    session = sessions[round_no % SUMMARY_SESSIONS]
                    acks = tmp_path / f"acks-summary-{round_no}"
                    asked = len(calls_log.read_text().splitlines()) if calls_log.exists() else 0
                    result = zygote.run(
                        job="summarize",
                        home=str(home),
                        session=session,
                        acks=str(acks),
                        # The clock starts at the run's first Gemini request (the decision model's), so
                        # the kill lands among the calls, the summary.json writes and the cursor writes.
                        arm_file=str(calls_log),
                        after_lines=asked + 1,
                        delay=120 if round_no < CALIBRATION else rng.uniform(0.0, 1.1) * armed_s,
                    )
                    if not result["killed"] and round_no > 0 and result["armed_s"] is not None:
                        armed_s = result["armed_s"]  # the first child also writes .pyc files: not timed
                    if result["killed"]:
                        kills += 1
                    else:
                        assert result["status"] == 0 and acks.read_text() == "done\n", result
                        finished += 1
                    high, cursor = summary_state(home, session)
                    # Killed after summary.json was saved and before its cursor was: in a session's first
                    # run, the cursor is still the one saying "nothing summarized yet".
                    if high is not None and cursor < high:
                        between += 1
                        first += cursor < 0
                    more = [summary_message(n) for n in range(count[session], count[session] + 2)]
                    mem.append(session, more)
                    count[session] += 2
                completed = 0
                for session in sessions:  # a re-run of every session completes
                    acks = tmp_path / f"acks-summary-final-{session}"
                    result = zygote.run(
                        job="summarize", home=str(home), session=session, acks=str(acks), delay=120
                    )
                    assert not result["killed"] and result["status"] == 0, result
                    assert acks.read_text() == "done\n"
                    completed += 1
            finally:
                zygote.close()
            calls = len(fake.calls())
    assert odd == []
    checked = 0
    with Memory.open(home, background=False) as mem:  # opens without manual repair
        for session in sessions:
            high, cursor = summary_state(home, session)
            last = count[session] - 1
            assert high == last, f"{session}: the summary covers up to {high}, not {last}"
            assert cursor == last
            assert mem.summaries.cursor(session) == format_local(T0 + last * SECOND)
            assert mem.summaries.load(session).current_discussion.description == f"covered 0 to {last}"
            checked += count[session]
    leftover = list((home / ".store" / "tmp").glob("*.tmp"))
    if leftover:  # summary files half-written by a kill go at the next open once they are old enough
        old = leftover[0].stat().st_mtime - 3600
        for path in leftover:
            os.utime(path, (old, old))
        Memory.open(home, background=False).close()
        assert list((home / ".store" / "tmp").glob("*.tmp")) == []
    print(
        f"\nsummary crash test: {kills} SIGKILLs survived ({finished} runs finished first; {between} kills "
        f"left summary.json ahead of its cursor, {first} of them in a first run); {completed} sessions "
        f"re-run to completion; "
        f"{checked} messages covered by the summaries without a gap; {calls} Gemini calls; "
        f"{len(leftover)} half-written temporary files cleaned"
    )
    assert kills >= 45

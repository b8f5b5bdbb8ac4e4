"""Privacy: owner-only files, temporary chats that are never archived, and forgetting a message."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from engine import Memory, Message
from engine.errors import NotFound
from tests.clirun import run_cli
from tests.leakcheck import assert_absent, files_containing

T0 = 1_700_000_000 * 1_000_000_000


def cli(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(
        home,
        *args,
        stdin=stdin,
        preexec_fn=lambda: os.umask(0o022),  # a usual desktop umask: files would be world-readable
    )


def wide_entries(home: Path) -> list[str]:
    """Every path under (and including) ``home`` that group or others may read, write or enter."""
    found = []
    for path in [home, *home.rglob("*")]:
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            continue
        if mode & 0o077:
            found.append(f"{path.relative_to(home.parent)} {stat.filemode(mode)}")
    return found


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_every_file_memtray_creates_is_owner_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    jsonl = tmp_path / "chat.jsonl"
    jsonl.write_text(
        "".join(
            f'{{"role":"{r}","content":"{r} {n} {"y" * 900}"}}\n'
            for n in range(6)
            for r in ("user", "assistant")
        )
    )
    steps = [
        ("config", "max_history_bytes", "4096"),
        ("import", "jsonl", str(jsonl), "--session", "cli-a"),  # compacted on the way
        ("export", "--session", "cli-a", "--format", "jsonl", "-o", str(home / "export.jsonl")),
        ("append", "--session", "priv-chat", "--role", "user", "--content", "off the record"),
    ]
    for step in steps:
        done = cli(home, *step)
        assert done.returncode == 0, (step, done.stderr)
    (home / "sessions" / "cli-a" / "history.json").write_text("[{broken")  # quarantined and rebuilt
    assert cli(home, "history", "--session", "cli-a").returncode == 0
    old = os.umask(0o022)
    try:
        with Memory.open(home) as mem:
            mem.append("py-session", [Message("user", "from python", T0)])
            mem.compact("cli-a")
    finally:
        os.umask(old)
    names = {p.name for p in home.rglob("*")}
    assert {"history.db", "memtray.log", "history.json", "export.jsonl"} <= names
    assert any(n.startswith("history.json.corrupt-") for n in names)
    assert any(n.endswith(".lock") for n in names)
    assert wide_entries(home) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_an_existing_world_readable_database_is_made_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Memory.open(home).close()
    db = home / ".store" / "history.db"
    os.chmod(db, 0o644)
    Memory.open(home).close()
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_a_temporary_chat_is_never_archived(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory.open(home) as mem:
        mem.update_settings(max_history_bytes=4096)
        stored = mem.append("priv-1", [Message("user", "secret plan zebracorn", T0)])
        assert stored[0].id is None and stored[0].session == "priv-1"
        for n in range(20):
            mem.append(
                "priv-1",
                [Message("user", f"q{n} " + "a" * 400, T0 + n), Message("assistant", "b" * 400, T0 + n)],
            )
        mem.append("cli-normal", [Message("user", "zebracorn elsewhere", T0)])
        history = mem.history("priv-1")
        assert 0 < len(history) < 41  # trimmed at the size limit, not archived
        assert all(m.id is None for m in history)
        with mem._store.read() as conn:
            for table in ("messages", "message_meta", "sessions"):
                count = conn.execute(
                    f"SELECT COUNT(*) FROM {table} WHERE {'id' if table == 'sessions' else 'session_id'} = 'priv-1'"
                ).scalar_one()
                assert count == 0, table
        hits = mem.search("zebracorn", match="keyword")
        assert [h.message.session for h in hits] == ["cli-normal"]
        info = {i.id: i for i in mem.sessions()}
        assert info["priv-1"].private and not info["cli-normal"].private
        mem.reset("priv-1")
        assert mem.history("priv-1") == []
    assert files_containing(home / ".store", "secret plan zebracorn") == []


def test_forgetting_a_message_removes_it_from_every_tier(tmp_path: Path) -> None:
    home = tmp_path / "home"
    secret = "my-unique-secret-quokkafig-42"

    class Recorder:
        def __init__(self) -> None:
            self.forgotten: list[tuple[str, int]] = []

        def messages_added(self, conn: object, messages: object) -> None: ...
        def session_compacted(self, session: str, start_id: int) -> None: ...
        def session_cleared(self, conn: object, session: str) -> None: ...
        def message_forgotten(self, conn: object, session: str, message_id: int) -> None:
            self.forgotten.append((session, message_id))

        def wait_idle(self, timeout: float | None) -> bool:
            return True

        def close(self) -> None: ...

    with Memory.open(home) as mem:
        recorder = Recorder()
        mem._log.listeners.append(recorder)  # type: ignore[arg-type]
        mem.update_settings(max_history_bytes=4096)
        ids = []
        for n in range(12):  # some of them compacted out of history.json, some still in it
            stored = mem.append(
                "cli-f",
                [
                    Message(
                        "user", f"question {n} {secret if n in (2, 10) else ''} " + "q" * 300, T0 + 2 * n
                    ),
                    Message("assistant", f"answer {n} " + "a" * 300, T0 + 2 * n + 1),
                ],
            )
            ids.append(stored[0].id)
        cut = mem.compaction_cut("cli-f")
        old_id, hot_id = ids[2], ids[10]
        assert old_id is not None and hot_id is not None and old_id < cut <= hot_id
        summary = home / "sessions" / "cli-f" / "summary.json"
        summary.write_text('{"key_decisions": ["mentions ' + secret + '"]}')
        (home / "sessions" / "cli-f" / ".summary_cursor").write_text("2024-01-01 00:00:00")
        before = [m.content for m in mem.history("cli-f")]

        forgotten = mem.forget_message(hot_id)
        assert secret in forgotten.content
        mem.forget_message(old_id)
        with pytest.raises(NotFound):
            mem.forget_message(old_id)

        after = [m.content for m in mem.history("cli-f")]
        assert after == [c for c in before if secret not in c]
        assert mem.search(secret.split("-")[3], match="keyword") == []  # quokkafig
        assert recorder.forgotten == [("cli-f", hot_id), ("cli-f", old_id)]
        assert not summary.exists() and not (home / "sessions" / "cli-f" / ".summary_cursor").exists()
        with mem._store.read() as conn:
            rows = conn.execute("SELECT content FROM messages WHERE session_id='cli-f'").all()
        assert len(rows) == 22 and not any(secret in r[0] for r in rows)
        ids_after = [m.id for m in mem.history("cli-f")]
        assert None not in ids_after and hot_id not in ids_after
        mem.append("cli-f", [Message("user", "later", T0 + 100)])  # the session still works
    assert_absent(home, secret)
    assert_absent(home, "quokkafig")


def test_the_gemini_key_appears_in_no_file_after_a_full_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Summaries, a chat turn with a tool call, verbose logs, errors: the key is in no file of the home."""
    from engine.chat import Chat
    from tests.fakegemini import FakeGemini

    key = "AIzaSyKnownTestKey-0123456789abcdefXYZ1"  # the shape of a real key: AIza + 35 characters
    home = tmp_path / "home"
    monkeypatch.setenv("GEMINI_API_KEY", key)
    with FakeGemini() as fake:
        assert cli(home, "config", "gemini_base_url", fake.url).returncode == 0
        assert cli(home, "config", "decision_model", "").returncode == 0
        for role, text in (("user", "plan the trip to Kyoto"), ("assistant", "May, two weeks")):
            assert (
                cli(home, "-v", "append", "--session", "cli-k", "--role", role, "--content", text).returncode
                == 0
            )
        fake.reply_json(
            {
                "key_decisions": ["Do: travel in May"],
                "past_discussions": [],
                "current_discussion": {
                    "topic": "trip",
                    "description": "d",
                    "perspectives": "p",
                    "direction": "x",
                },
            }
        )
        done = cli(home, "-v", "summarize", "--session", "cli-k")
        assert done.returncode == 0, done.stderr
        assert key not in done.stdout + done.stderr
        # The summary cursor is a time in whole seconds: a message of the same second as the last
        # summarized one counts as summarized, so this one is a second later.
        later = str(time.time_ns() + 2 * 10**9)
        appended = cli(
            home,
            "append",
            "--session",
            "cli-k",
            "--role",
            "user",
            "--content",
            "and Osaka",
            "--send-at",
            later,
        )
        assert appended.returncode == 0
        fake.reply_error(401, f"API key not valid: {key}")  # even when the service echoes it back
        failed = cli(home, "-v", "summarize", "--session", "cli-k")
        assert failed.returncode == 1 and "refused" in failed.stderr
        assert key not in failed.stdout + failed.stderr
        with Memory.open(home, background=False) as mem:
            mem.append("cli-k", [Message("user", "one more thing")])
            fake.reply_function_call(
                "chat_history", {"mode": "search", "keyword": "Kyoto", "match": "keyword"}
            )
            fake.reply_text("You planned Kyoto in May.")
            Chat(mem).send("cli-k", "where did we plan to go?")
        status = cli(home, "-v", "key", "status")
        assert key not in status.stdout + status.stderr
    assert fake.requests and all(r.headers.get("x-goog-api-key") == key for r in fake.requests)  # it was used
    assert_absent(home, key)


def _bytes_found(home: Path, markers: list[str]) -> dict[str, list[str]]:
    """Every marker found in any byte of any file under ``home`` (UTF-8), and where."""
    found: dict[str, list[str]] = {}
    for folder, _, names in os.walk(home):
        for name in names:
            path = Path(folder) / name
            if path.is_symlink():
                continue
            data = path.read_bytes()
            for marker in markers:
                if marker.encode("utf-8") in data:
                    found.setdefault(marker, []).append(str(path.relative_to(home)))
    return found


def _markers(tag: str, cjk: str) -> list[str]:
    """Unique words of one message: ASCII words, a CJK run and each of its bigrams (what the indexes keep)."""
    return [f"zq{tag}vorpal", f"xylo{tag}quench", cjk, *(cjk[i : i + 2] for i in range(len(cjk) - 1))]


def test_forget_reset_and_remove_leave_the_text_in_no_file_of_the_home(tmp_path: Path) -> None:
    """After forget, reset --all and remove (then close), no byte of any file under the home holds the
    text: not the database, its -wal/-shm, the FTS indexes (their segments are merged), the context index
    (the neighbours that quoted it are rewritten), the vectors, the logs or the session files."""
    home = tmp_path / "home"
    kept = "ordinary words stay searchable"
    forget_words = _markers("forget", "鑫龘靐齉爩")
    reset_words = _markers("reset", "麤灪籱饢驫")
    remove_words = _markers("remove", "鱻犇羴猋骉")
    with Memory.open(home) as mem:
        mem.update_settings(max_history_bytes=4096)  # some messages are compacted into the archive only
        forget_ids = []
        for session, words in (("cli-f", forget_words), ("cli-r", reset_words), ("cli-x", remove_words)):
            for n in range(14):
                secret = " ".join(words) if n in (2, 12) else ""
                stored = mem.append(
                    session,
                    [
                        Message("user", f"{kept} {n} {secret} " + "q" * 300, T0 + 2 * n),
                        Message("assistant", f"reply {n} " + "a" * 300, T0 + 2 * n + 1),
                    ],
                )
                if secret and session == "cli-f":
                    forget_ids.append(stored[0].id)
        assert mem.wait_idle(60)  # embedded: the vectors and the context index hold them too
        assert mem.compaction_cut("cli-f") > (forget_ids[0] or 0)
        before = _bytes_found(home, forget_words + reset_words + remove_words)
        assert set(before) == set(forget_words + reset_words + remove_words)  # the scan does see them
        for message_id in forget_ids:
            assert message_id is not None
            mem.forget_message(message_id)
        assert mem.search(forget_words[0], match="keyword") == []
        assert mem.search("searchable", match="keyword", session="cli-f")
    assert cli(home, "reset", "--session", "cli-r", "--all").returncode == 0
    assert cli(home, "remove", "--session", "cli-x").returncode == 0
    assert cli(home, "search", "searchable", "--session", "cli-f", "--match", "keyword").returncode == 0
    assert _bytes_found(home, forget_words + reset_words + remove_words) == {}


def test_a_key_of_no_known_shape_and_the_message_text_reach_no_file_when_the_service_echoes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An endpoint that repeats the request in its errors (body, key header, query): a key no redaction
    pattern knows and the message text are in no file of the home (the log included), nor on stderr."""
    from engine.chat import Chat
    from engine.errors import GeminiError
    from tests.fakegemini import FakeGemini, one_try_client

    key = "k3y_no_known_shape_0123"
    words = ["marmaladeowlplan", "quetzalbudgetline"]
    home = tmp_path / "home"
    monkeypatch.setenv("GEMINI_API_KEY", key)
    with FakeGemini() as fake:
        assert cli(home, "config", "gemini_base_url", fake.url).returncode == 0
        assert cli(home, "config", "decision_model", "").returncode == 0
        for role, content in (("user", f"the {words[0]} for May"), ("assistant", f"noted {words[1]}")):
            done = cli(home, "append", "--session", "cli-e", "--role", role, "--content", content)
            assert done.returncode == 0, done.stderr
        for status in (400, 403):
            fake.reply_echo_error(status)
            failed = cli(home, "summarize", "--session", "cli-e")
            assert failed.returncode == 1 and failed.stderr.count("\n") == 1, failed.stderr
            assert f"HTTP {status}" in failed.stderr
            for secret in (key, *words):
                assert secret not in failed.stdout + failed.stderr
        with Memory.open(home, background=False, client_factory=one_try_client) as mem:
            chat = Chat(mem, client_factory=one_try_client)
            for status in (400, 500):
                fake.reply_echo_error(status)
                with pytest.raises(GeminiError) as caught:
                    chat.send("cli-e", f"what about the {words[0]}?")
                assert key not in str(caught.value) and words[0] not in str(caught.value)
    assert len(fake.calls()) >= 4 and all(r.headers.get("x-goog-api-key") == key for r in fake.calls())
    for secret in (key, *words):
        assert_absent(home / "logs", secret)
    assert_absent(home, key)

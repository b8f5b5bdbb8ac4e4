"""Forget is final: a recorded intent finished after an interruption, a tombstone that keeps an import,
a transcript read again, a history.json archived again or a repair from bringing the message back, and
``memtray forget`` in the CLI (a retry says it is done)."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Memory, Message
from engine.cli import main
from engine.embedders.hashing import HashEmbedder
from engine.errors import AlreadyForgotten, NotFound
from engine.sessions import tombkeys
from tests import rawdb
from tests.engine.exportdata import gpt_linear, write_json
from tests.engine.transcriptdata import CC_SESSION, cc_prompt, cc_reply, text, write_jsonl

T0 = 1_700_000_000 * 1_000_000_000
SECRET = "my passport number is X1234567"


def cli(home: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--home", str(home), *argv])
    return code, out.getvalue(), err.getvalue()


def opened(home: Path) -> Memory:
    return Memory.open(home, background=False, embedder=HashEmbedder())


def everywhere(home: Path, words: str) -> list[str]:
    """The files of the home whose bytes hold ``words`` (the database's included)."""
    needle = words.encode()
    found = []
    for path in home.rglob("*"):
        if path.is_file() and needle in path.read_bytes():
            found.append(str(path.relative_to(home)))
    return found


def archived(home: Path, session: str) -> list[str]:
    with opened(home) as mem:
        return [m.content for m in mem.iter_archive(session)] if mem.exists(session) else []


def test_a_forgotten_chatgpt_message_stays_forgotten_when_the_export_is_imported_again(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    export = write_json(tmp_path / "conversations.json", [gpt_linear("c1", ["hello", SECRET, "ok", "bye"])])
    assert cli(home, "import", "chatgpt", str(export))[0] == 0
    with opened(home) as mem:
        target = next(m for m in mem.iter_archive("gpt-c1") if m.content == SECRET)
    code, out, err = cli(home, "forget", str(target.id))
    assert code == 0 and "forgot message" in out, err
    code, out, _ = cli(home, "import", "chatgpt", str(export))
    assert code == 0 and "1 forgotten earlier" in out, out
    assert archived(home, "gpt-c1") == ["hello", "ok", "bye"]
    assert everywhere(home, SECRET) == []  # the tombstone holds no text
    code, out, _ = cli(home, "forget", str(target.id))  # a retry says it is done
    assert code == 0 and "forgotten already" in out


def test_a_forgotten_claude_code_message_stays_forgotten_when_the_transcript_is_replaced(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    path = tmp_path / "projects" / "-home-u-app" / f"{CC_SESSION}.jsonl"
    lines = [cc_prompt(1, "first question"), cc_reply(2, [text(SECRET)]), cc_prompt(3, "thanks")]
    write_jsonl(path, lines)
    assert cli(home, "import", "claude-code", str(path))[0] == 0
    with opened(home) as mem:
        session = mem.sessions()[0].id
        target = next(m for m in mem.iter_archive(session) if m.content == SECRET)
        mem.forget_message(target.id or 0)
    snapshot = {
        "type": "file-history-snapshot",
        "messageId": "m-0",
        "snapshot": {},
        "isSnapshotUpdate": False,
    }
    write_jsonl(
        path, [snapshot, *lines, cc_reply(4, [text("you are welcome")])]
    )  # replaced: read whole again
    assert cli(home, "import", "claude-code", str(path))[0] == 0
    assert archived(home, session) == ["first question", "thanks", "you are welcome"]


def test_a_forgotten_session_stays_forgotten(tmp_path: Path) -> None:
    home = tmp_path / "home"
    export = write_json(tmp_path / "conversations.json", [gpt_linear("c2", ["alpha", SECRET])])
    assert cli(home, "import", "chatgpt", str(export))[0] == 0
    code, out, _ = cli(home, "forget", "--session", "gpt-c2")
    assert code == 0 and "forgot session gpt-c2: 2 archived messages" in out
    assert cli(home, "import", "chatgpt", str(export))[0] == 0
    assert archived(home, "gpt-c2") == []
    code, out, _ = cli(home, "forget", "--session", "gpt-c2")
    assert code == 0 and "forgotten already" in out
    code, _, err = cli(home, "forget", "--session", "never-was")
    assert code == 1 and "no session" in err
    code, _, err = cli(home, "forget")
    assert code == 1 and "one of the two" in err


class Killed(BaseException):
    """Stands for a kill inside the scrub (tests/e2e kills real processes)."""


@pytest.mark.parametrize("after", ["file", "rows", "scrub"])
def test_a_forget_interrupted_inside_the_scrub_is_finished_at_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: str
) -> None:
    home = tmp_path / "home"
    with opened(home) as mem:
        # one append: its rows are not yet confirmed in history.json when the forget starts
        stored = mem.append(
            "s",
            [
                Message("user", "keep me", T0),
                Message("assistant", SECRET, T0 + 1),
                Message("user", "after", T0 + 2),
            ],
        )
        (home / "sessions" / "s" / "summary.json").write_text(json.dumps({"current_discussion": SECRET}))
        target = stored[1].id or 0
        real_write, real_scrub = mem._log.files.write, mem._store.scrub

        def write(*args: object) -> int:
            size = real_write(*args)  # type: ignore[arg-type]
            if after == "file":
                raise Killed
            return size

        def scrub(*args: object) -> None:
            if after == "rows":
                raise Killed
            real_scrub(*args)  # type: ignore[arg-type]
            raise Killed

        monkeypatch.setattr(mem._log.files, "write", write)
        monkeypatch.setattr(mem._store, "scrub", scrub)
        with pytest.raises(Killed):
            mem.forget_message(target)
        monkeypatch.undo()
    with opened(home) as mem:  # the open finishes it
        assert [m.content for m in mem.history("s")] == ["keep me", "after"]  # nothing replayed twice
        assert [m.content for m in mem.iter_archive("s")] == ["keep me", "after"]
        with pytest.raises(AlreadyForgotten):
            mem.forget_message(target)
        with pytest.raises(NotFound):
            mem.forget_message(target + 100)
    assert everywhere(home, SECRET) == []


words = st.sampled_from(["ok", "yes", "no", "the plan", "密碼", "ok "])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    texts=st.lists(words, min_size=2, max_size=12),
    chosen=st.lists(st.integers(min_value=0, max_value=11), min_size=1, max_size=4, unique=True),
    timed=st.booleans(),
)
def test_forgotten_messages_never_come_back(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str], chosen: list[int], timed: bool
) -> None:
    """Forget some messages (texts repeat), then import the same export again, archive history.json again
    (an emptied database) and read again: every forgotten one stays gone, every other one stays once."""
    home = tmp_path_factory.mktemp("prop") / "home"
    folder = home.parent
    conversation = gpt_linear("p", texts)
    if not timed:
        for node in conversation["mapping"].values():
            if node["message"]:
                node["message"]["create_time"] = None
    export = write_json(folder / "conversations.json", [conversation])
    assert cli(home, "import", "chatgpt", str(export))[0] == 0
    with opened(home) as mem:
        rows = list(mem.iter_archive("gpt-p"))
        gone = [rows[i] for i in chosen if i < len(rows)]
        for row in gone:
            mem.forget_message(row.id or 0)
    kept = [m.content for m in rows if m not in gone]
    assert cli(home, "import", "chatgpt", str(export))[0] == 0
    assert archived(home, "gpt-p") == kept
    db = home / ".store" / "history.db"
    conn = rawdb.connect(db)
    conn.execute("DELETE FROM messages")  # an emptied archive: history.json is archived again at open
    conn.execute("DELETE FROM message_meta")
    conn.commit()
    conn.close()
    assert archived(home, "gpt-p") == kept
    assert cli(home, "import", "chatgpt", str(export))[0] == 0
    with opened(home) as mem:
        assert [m.content for m in mem.history("gpt-p")] == kept
        assert [m.content for m in mem.iter_archive("gpt-p")] == kept


def test_the_tombstone_key_lives_in_the_home_not_the_database(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with opened(home) as mem:
        stored = mem.append("s", [Message("user", SECRET, T0)])
        mem.forget_message(stored[0].id or 0)
        key = tombkeys.load_key(mem.paths, create=False)
    assert key is not None and len(key) == tombkeys.KEY_BYTES
    if os.name == "posix":  # owner-only; Windows has no such mode bits (its home folder is the user's)
        assert (home / ".store" / tombkeys.KEY_FILE).stat().st_mode & 0o077 == 0
    conn = rawdb.connect(home / ".store" / "history.db")
    digests = [str(d) for (d,) in conn.execute("SELECT digest FROM forgotten")]
    conn.close()
    assert digests == [tombkeys.digest(key, SECRET)]
    assert key not in (home / ".store" / "history.db").read_bytes() and everywhere(home, key.hex()) == []

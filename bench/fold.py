"""Where the folding for search (engine.textfold) costs least in a bulk import: three ways of indexing the
same messages, each in a fresh database, timed.

    python -m bench.fold [--messages 200000]

* ``none``: the triggers index the stored text (memtray before ``m011_unicode_fold``);
* ``sql function`` (what memtray does): the triggers index ``memtray_fold(content)``, a Python function
  SQLite calls, for a text holding a non-ASCII character (the word table once; the trigram table once
  more for its condition and once for a CJK row's value); a text of ASCII only as it is;
* ``sql function, every row``: the same for every text (no ASCII test);
* ``python column``: Python folds each text at insert into a second column ``folded``, which the
  triggers index (no call from SQLite; one more column stored).

The messages are ``bench.corpus``'s (half English, half zh-TW) with one in ten given text that folds
(full-width words, a decomposed accent, a zero-width space, full-width punctuation). Prints rows per
second (of wall time, and of the process's CPU time: the machine may be shared) and the database's
size of each.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
import unicodedata
from pathlib import Path

from bench.corpus import Corpus
from engine import cjk
from engine.sessions.schema import FOLDED_CONTENT, FTS_TABLES
from engine.textfold import SQL_FUNCTION, fold, sql_fold

TRI_WHEN = f"GLOB '{cjk.GLOB}'"
TRIGRAM = next(t for t in FTS_TABLES if t.name == "messages_tri")


WAYS = {
    # way: (the value indexed, the trigram table's condition), {row} standing for new or old
    "none": ("{row}.content", f"{{row}}.content {TRI_WHEN}"),
    "sql function": (FOLDED_CONTENT, TRIGRAM.only_where or ""),
    "sql function, every row": (
        f"{SQL_FUNCTION}({{row}}.content)",
        f"{SQL_FUNCTION}({{row}}.content) {TRI_WHEN}",
    ),
    "python column": ("{row}.folded", f"{{row}}.folded {TRI_WHEN}"),
}


def schema(way: str) -> list[str]:
    """The messages table and its word and trigram tables, indexing the way's value of each row."""
    value, when = WAYS[way]
    extra = ", folded TEXT NOT NULL" if way == "python column" else ""
    new, old = value.replace("{row}", "new"), value.replace("{row}", "old")
    return [
        f"CREATE TABLE messages (id INTEGER PRIMARY KEY, skey TEXT NOT NULL, content TEXT NOT NULL{extra})",
        "CREATE VIRTUAL TABLE messages_fts USING fts5(content, skey, content='messages', content_rowid='id', "
        "tokenize='porter unicode61 remove_diacritics 2')",
        "CREATE VIRTUAL TABLE messages_tri USING fts5(content, skey, content='messages', content_rowid='id', "
        "tokenize='trigram')",
        "INSERT INTO messages_fts(messages_fts, rank) VALUES ('automerge', 8)",
        "INSERT INTO messages_tri(messages_tri, rank) VALUES ('automerge', 8)",
        f"CREATE TRIGGER fts_ai AFTER INSERT ON messages BEGIN INSERT INTO messages_fts(rowid, content, skey) "
        f"VALUES (new.id, {new}, new.skey); END",
        f"CREATE TRIGGER tri_ai AFTER INSERT ON messages WHEN {when.replace('{row}', 'new')} BEGIN "
        f"INSERT INTO messages_tri(rowid, content, skey) VALUES (new.id, {new}, new.skey); END",
        f"CREATE TRIGGER fts_ad AFTER DELETE ON messages BEGIN INSERT INTO messages_fts(messages_fts, rowid, "
        f"content, skey) VALUES ('delete', old.id, {old}, old.skey); END",
    ]


def texts(count: int) -> list[str]:
    corpus = Corpus(seed=7)
    out = []
    for i in range(count):
        text = corpus.message()
        if i % 10 == 3:
            text = f"{text}，ＡＰＩ {unicodedata.normalize('NFD', 'brûlée')} pass\u200bword。"
        out.append(text)
    return out


def run(way: str, rows: list[str], folder: Path) -> tuple[float, float, int]:
    path = folder / f"{way.replace(' ', '-')}.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.create_function(SQL_FUNCTION, 1, sql_fold, deterministic=True)
    for sql in schema(way):
        conn.execute(sql)
    started, cpu = time.perf_counter(), time.process_time()
    batch = 20_000
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        conn.execute("BEGIN")
        if way == "python column":
            conn.executemany(
                "INSERT INTO messages(skey, content, folded) VALUES (?, ?, ?)",
                [(f"s{i % 100:07d}", t, fold(t)) for i, t in enumerate(chunk)],
            )
        else:
            conn.executemany(
                "INSERT INTO messages(skey, content) VALUES (?, ?)",
                [(f"s{i % 100:07d}", t) for i, t in enumerate(chunk)],
            )
        conn.execute("COMMIT")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return elapsed, cpu, path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    rows = texts(args.messages)
    started = time.perf_counter()
    for text in rows:
        fold(text)
    print(f"fold() alone over {len(rows):,} texts: {time.perf_counter() - started:.2f}s")
    print(f"{'way':24} {'rows/s':>10} {'seconds':>8} {'cpu s':>8} {'rows/cpu s':>11} {'db bytes':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for way in WAYS:
                folder = Path(tmp) / str(round_)
                folder.mkdir(exist_ok=True)
                elapsed, cpu, size = run(way, rows, folder)
                print(
                    f"{way:24} {len(rows) / elapsed:10,.0f} {elapsed:8.1f} {cpu:8.1f} {len(rows) / cpu:11,.0f} "
                    f"{size:12,}"
                )


if __name__ == "__main__":
    main()

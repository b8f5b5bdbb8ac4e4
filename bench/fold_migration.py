"""The time of migration ``m011_unicode_fold`` (the full-text indexes take the folded text) on a large home.

    python -m bench.fold_migration OLD_HOME [--work DIR] [--punctuated 0.5] [--spelled 0.01]

``OLD_HOME`` is a home made before ``m011`` (for instance ``bench.keyword``'s 1,000,000-message home built
with a memtray from before this migration). It is copied to ``--work``; in the copy, as the old engine
would have written them (its triggers index the stored text), a share of the CJK messages gain full-width
punctuation (``，`` and ``。``: the trigram table indexes them again) and a share of the English ones a
word that folds (full-width, decomposed, with a zero-width space: every index takes them again). Then the
copy is opened with today's engine, which migrates it: the time and the database's size are printed.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
import unicodedata
from pathlib import Path

from engine import Memory
from engine.search import migrations
from engine.textfold import fold

SPELLINGS = ("ＭＥＭＯＲＹ", unicodedata.normalize("NFD", "brûlée"), "pass\u200bword")


def plant(database: Path, punctuated: float, spelled: float) -> tuple[int, int]:
    """Rewrite a share of the messages as described in the module's docstring; return how many of each."""
    conn = sqlite3.connect(database)
    try:
        if conn.execute("SELECT 1 FROM migrations WHERE name = 'm011_unicode_fold'").fetchone():
            raise SystemExit(f"{database} is already migrated: give a home made before m011")
        cjk_every = round(1 / punctuated) if punctuated else 0
        word_every = round(1 / spelled) if spelled else 0
        cjk_rows: list[tuple[str, int]] = []
        word_rows: list[tuple[str, int]] = []
        for n, (row_id, content) in enumerate(conn.execute("SELECT id, content FROM messages")):
            if content.isascii():
                if word_every and n % word_every == 0:
                    word_rows.append((f"{content} {SPELLINGS[n % len(SPELLINGS)]}", row_id))
            elif cjk_every and n % cjk_every == 0:
                middle = len(content) // 2
                cjk_rows.append((f"{content[:middle]}，{content[middle:]}。", row_id))
        with conn:
            conn.executemany("UPDATE messages SET content = ? WHERE id = ?", cjk_rows + word_rows)
        return len(cjk_rows), len(word_rows)
    finally:
        conn.close()


def sizes(database: Path) -> str:
    """The file's size, and the bytes of its pages in use (the file keeps freed pages for reuse)."""
    conn = sqlite3.connect(database)
    try:
        pages, free, size = (
            conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "freelist_count", "page_size")
        )
    finally:
        conn.close()
    return f"{database.stat().st_size:,} bytes, {(pages - free) * size:,} in use"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old_home", type=Path)
    parser.add_argument(
        "--work", type=Path, default=None, help="where the copy goes (default: a temporary dir)"
    )
    parser.add_argument("--punctuated", type=float, default=0.5, help="share of CJK messages given ，and 。")
    parser.add_argument(
        "--spelled", type=float, default=0.01, help="share of English messages given a folding word"
    )
    parser.add_argument("--no-optimize", action="store_true", help="never merge a table's segments after it")
    args = parser.parse_args()
    if args.no_optimize:
        migrations.OPTIMIZE_SHARE = 2.0
    work = args.work or Path(tempfile.mkdtemp(prefix="fold-migration-"))
    home = work / "home"
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(args.old_home, home)
    database = home / ".store" / "history.db"
    started = time.perf_counter()
    punctuated, spelled = plant(database, args.punctuated, args.spelled)
    print(
        f"planted as the old engine wrote them: {punctuated:,} punctuated CJK, {spelled:,} folding words "
        f"({time.perf_counter() - started:.1f}s)"
    )
    print(f"history.db before: {sizes(database)}")
    started = time.perf_counter()
    with Memory.open(home, background=False) as mem:
        opened = time.perf_counter() - started
        hits = mem.search(fold(SPELLINGS[2]), match="keyword", limit=5)
    print(f"open with m011_unicode_fold: {opened:.1f}s")
    print(f"history.db after: {sizes(database)}; 'password' finds {len(hits)} of the planted")
    shutil.rmtree(work if args.work is None else home)


if __name__ == "__main__":
    main()

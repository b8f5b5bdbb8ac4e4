"""FTS5 tables: creating one (plain, or over a content table and kept in step by triggers), and the
commands that maintain it (rebuild, optimize, automerge).

An external-content table (:class:`ExternalFts`) stores only the index; its text stays in the source
table, and triggers on the source copy each insert, delete and update into the index. Which tables exist
depends on the local SQLite (its FTS5 and tokenizers), so :func:`ensure` is called at every open: it
creates the supported tables that are missing, and a store made without trigram search gains it later.

Table, column and trigger names are recorded in existing databases: what this module creates for a given
definition must never change.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.storage.sql import Connection

log = logging.getLogger("memtray.store")


@dataclass(frozen=True)
class ExternalFts:
    """An external-content FTS5 table over some columns of ``source``.

    Attributes:
        name: the FTS table; its triggers are ``<name>_ai``, ``<name>_ad`` and ``<name>_au`` (or
            ``<name>_aud`` and ``<name>_aui``, see ``update_of``).
        source: the content table.
        rowid: the source's integer key, the FTS rowid.
        columns: the indexed columns, in the FTS table's order.
        tokenizer: the FTS5 tokenizer.
        values: the SQL of each column's value, ``{row}`` standing for ``new``, ``old`` or the source
            table (None: the source column of the same name).
        only_where: index only the rows this SQL condition holds for, ``{row}`` as in ``values``
            (None: every row).
        update_of: True: one ``<name>_au`` trigger re-indexes a row when one of ``columns`` is updated.
            False: any update fires ``<name>_aud`` (remove the old row) and ``<name>_aui`` (add the new),
            each under its own row's ``only_where``.
        if_not_exists: create the triggers with ``IF NOT EXISTS`` (keep triggers left without their table
            instead of failing).
        automerge: FTS5's ``automerge`` option, set at every :func:`ensure` (None: SQLite's default).
    """

    name: str
    source: str
    rowid: str
    columns: tuple[str, ...]
    tokenizer: str
    values: tuple[str, ...] | None = None
    only_where: str | None = None
    update_of: bool = False
    if_not_exists: bool = False
    automerge: int | None = None

    @property
    def feature(self) -> str:
        """The tokenizer SQLite must support: ``trigram``, or ``unicode61`` (there whenever FTS5 is)."""
        return "trigram" if self.tokenizer == "trigram" else "unicode61"

    def row_values(self, row: str) -> str:
        """The columns' values for ``row`` (``new``, ``old`` or the source table), as SQL."""
        values = self.values or tuple(f"{{row}}.{column}" for column in self.columns)
        return ", ".join(value.replace("{row}", row) for value in values)


def create_table(
    conn: Connection,
    name: str,
    columns: Sequence[str],
    tokenizer: str,
    *,
    content: str | None = None,
    content_rowid: str | None = None,
    if_not_exists: bool = False,
) -> None:
    """``CREATE VIRTUAL TABLE name USING fts5(columns..., [content=, content_rowid=,] tokenize=)``."""
    options = f", content='{content}', content_rowid='{content_rowid}'" if content is not None else ""
    exists = "IF NOT EXISTS " if if_not_exists else ""
    conn.execute(
        f"CREATE VIRTUAL TABLE {exists}{name} USING fts5({', '.join(columns)}{options}, "
        f"tokenize='{tokenizer}')"
    )


def create_external(conn: Connection, table: ExternalFts) -> None:
    """Create ``table`` and its triggers, and index the source's rows."""
    name, src, cols = table.name, table.source, ", ".join(table.columns)
    create_table(conn, name, table.columns, table.tokenizer, content=src, content_rowid=table.rowid)
    where = table.only_where
    new_rows = f"WHEN {where.replace('{row}', 'new')} " if where else ""
    old_rows = f"WHEN {where.replace('{row}', 'old')} " if where else ""
    insert = f"INSERT INTO {name}(rowid, {cols}) VALUES (new.{table.rowid}, {table.row_values('new')});"
    delete = (
        f"INSERT INTO {name}({name}, rowid, {cols}) "
        f"VALUES ('delete', old.{table.rowid}, {table.row_values('old')});"
    )
    trigger = f"CREATE TRIGGER {'IF NOT EXISTS ' if table.if_not_exists else ''}{name}"
    conn.execute(f"{trigger}_ai AFTER INSERT ON {src} {new_rows}BEGIN {insert} END")
    conn.execute(f"{trigger}_ad AFTER DELETE ON {src} {old_rows}BEGIN {delete} END")
    if table.update_of:
        conn.execute(f"{trigger}_au AFTER UPDATE OF {cols} ON {src} BEGIN {delete} {insert} END")
    else:
        conn.execute(f"{trigger}_aud AFTER UPDATE ON {src} {old_rows}BEGIN {delete} END")
        conn.execute(f"{trigger}_aui AFTER UPDATE ON {src} {new_rows}BEGIN {insert} END")
    if where:
        conn.execute(
            f"INSERT INTO {name}(rowid, {cols}) SELECT {table.rowid}, {table.row_values(src)} "
            f"FROM {src} WHERE {where.replace('{row}', src)}"
        )
    else:
        rebuild(conn, name)
    if table.automerge is not None:
        set_automerge(conn, name, table.automerge)
    log.info("created full-text index %s (%s over %s: %s)", name, table.tokenizer, src, cols)


def ensure(conn: Connection, tables: Iterable[ExternalFts], supported: set[str]) -> list[str]:
    """Create the tables that are supported but missing (and fill them); return the names that exist.

    Args:
        supported: tokenizers the local SQLite accepts (see ``store.Features.tokenizers``).
    """
    present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    available = []
    for table in tables:
        if table.name in present:
            available.append(table.name)
            if table.automerge is not None:
                set_automerge(conn, table.name, table.automerge)
            continue
        if table.feature not in supported:
            continue
        create_external(conn, table)
        available.append(table.name)
    return available


def rebuild(conn: Connection, name: str) -> None:
    """Re-index an external-content table from its source."""
    conn.execute(f"INSERT INTO {name}({name}) VALUES ('rebuild')")


def optimize(conn: Connection, name: str) -> None:
    """Merge all of a table's index segments into one (no old segment keeps a deleted word)."""
    conn.execute(f"INSERT INTO {name}({name}) VALUES ('optimize')")


def set_automerge(conn: Connection, name: str, value: int) -> None:
    """Set FTS5's ``automerge`` (how many segments of a level are merged) unless it already has ``value``."""
    current = conn.execute(f"SELECT v FROM {name}_config WHERE k = 'automerge'").scalar()
    if current != value:
        conn.execute(f"INSERT INTO {name}({name}, rank) VALUES ('automerge', {value})")

"""Generic SQLite and file plumbing: the store, the migration runner, FTS5 tables, atomic files, locks.

Nothing here knows a domain table: the parts that own tables pass their migrations in (see
:mod:`engine.database`).
"""

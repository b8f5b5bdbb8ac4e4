"""``memtray repair``: what puts a damaged or emptied database right, above the database it rebuilds.

- :mod:`engine.repair.rebuild`: the check and the repair (move the damaged file aside, salvage, rebuild
  through :func:`engine.database.open_store`, restore each session's history.json);
- :mod:`engine.repair.salvage`: reading back what a damaged SQLite file still holds, row by row;
- :mod:`engine.repair.emptied`: a missing or emptied database found without opening (creating) it.

The archive's own restore at open (:meth:`engine.sessions.log.SessionLog.restore_emptied`) stays in the
session log, below: it needs only :func:`engine.sessions.archive.archive_empty` and
:func:`engine.sessions.folders.sessions_with_history`.
"""

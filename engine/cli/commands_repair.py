"""CLI command: repair (rebuild a damaged database from what can still be read)."""

from __future__ import annotations

import argparse
import logging

from engine.cli.output import write
from engine.logs import configure
from engine.paths import Paths
from engine.repair.emptied import Emptied, describe


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "repair",
        help="check the database; if it is damaged, move it aside and rebuild it",
        description="Check the memory database. If it is damaged, move it aside (history.db.corrupt-<time>), "
        "salvage the messages that can still be read, and restore every session's recent messages from its "
        "history.json. Archived messages on damaged pages cannot be recovered. Close the tray app first.",
    )
    p.add_argument("--check", action="store_true", help="only check; change nothing")
    p.set_defaults(handler=cmd_repair)


def cmd_repair(args: argparse.Namespace) -> int:
    paths = Paths.resolve(getattr(args, "home", None))
    configure(paths.logs_dir, console_level=logging.INFO if args.verbose else logging.ERROR)
    from engine.repair.rebuild import check, repair

    lost = describe(paths)  # before anything opens (and so creates) the database
    if args.check:
        problem = lost.sentence(paths.database) if lost else check(paths)
        write(problem or "the memory database is fine")
        return 1 if problem else 0
    if lost:
        return _restore(paths, lost)
    report = repair(paths)
    if not report.damaged:
        write("the memory database is fine; nothing to repair")
        return 0
    assert report.moved_to is not None
    write(f"the damaged database was moved aside to {report.moved_to}")
    if report.expected_exact:
        of = str(report.expected)
    else:
        of = f"at most {report.expected}" if report.expected else "an unknown number of"
    write(
        f"rebuilt: {report.salvaged} of {of} archived messages salvaged from it, {report.restored} restored "
        f"from the history.json of {report.sessions} session(s); {report.settings} settings and "
        f"{report.error_records} error-memory records read back"
    )
    if report.lost or not report.expected_exact:
        missing = (
            str(report.lost)
            if report.expected_exact
            else (f"up to {report.lost}" if report.expected else "some")
        )
        write(
            f"{missing} archived messages were on damaged pages: those compacted out of history.json could not "
            "be recovered"
        )
    else:
        write("every archived message was read back")
    write("the vectors will be rebuilt in the background")
    if report.unreadable:
        write(f"history.json unreadable too, not restored: {', '.join(report.unreadable)}")
    return 0


def _restore(paths: Paths, lost: Emptied) -> int:
    """A missing or emptied database: opening the memory archives every history.json again."""
    from engine.memory import Memory

    with Memory.open(paths.home, background=False) as mem:
        restored = sum(info.archived_messages + info.hot_messages for info in mem.sessions())
    write(
        f"the memory database was {lost.state}: {restored} messages of {len(lost.sessions)} session(s) "
        "were archived again from their history.json"
    )
    write("messages compacted out of history.json before could not be recovered; the vectors will be rebuilt")
    return 0

"""CLI commands on the error memory: ``memtray errors remember|search|read|list|forget|purge``."""

from __future__ import annotations

import argparse

from engine.cli.output import open_memory, write, write_json
from engine.clock import format_local
from engine.errormemory import ErrorRecord
from engine.errormemory.service import MAX_LIMIT
from engine.errors import InvalidInput


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("errors", help="the error memory: tool errors and their fixes")
    sub = parser.add_subparsers(title="errors commands", metavar="COMMAND", required=True)

    p = sub.add_parser("remember", help="remember a tool error and what was done about it")
    p.add_argument("--tool", required=True, help="the tool that failed")
    p.add_argument("--symptom", required=True, help="what went wrong")
    p.add_argument("--action", required=True, help="what was done")
    p.add_argument("--outcome", required=True, metavar="resolved|failed|abandoned")
    p.add_argument("--cause", default="", help="why it went wrong")
    p.add_argument("--keyword", action="append", default=[], metavar="K", help="a keyword (repeatable)")
    p.add_argument("--json", action="store_true", help="print the stored record as JSON")
    p.set_defaults(handler=cmd_remember)

    p = sub.add_parser("search", help="records related to an error text or keywords, newest first")
    p.add_argument("query", help="error text or keywords ('' with --tool: that tool's newest)")
    p.add_argument("--tool", default=None, help="only this tool's records")
    p.add_argument("--limit", type=int, default=4, help=f"at most this many (1-{MAX_LIMIT}, default 4)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_search)

    p = sub.add_parser("read", help="one record by a unique id prefix (at least 8 hex characters)")
    p.add_argument("id_prefix", metavar="ID_PREFIX")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_read)

    p = sub.add_parser("list", help="every live record, newest first")
    p.add_argument("--tool", default=None, help="only this tool's records")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("forget", help="delete one record by a unique id prefix")
    p.add_argument("id_prefix", metavar="ID_PREFIX")
    p.set_defaults(handler=cmd_forget)

    p = sub.add_parser("purge", help="delete expired records now")
    p.set_defaults(handler=cmd_purge)


def summary_line(record: ErrorRecord) -> str:
    """``<id 12>  <tool>  <outcome>  <symptom> -> <action>`` on one line."""

    def short(text: str, width: int) -> str:
        flat = " ".join(text.split())
        return flat if len(flat) <= width else flat[: width - 1] + "…"

    return (
        f"{record.id[:12]}  {record.tool_name}  {record.outcome}  "
        f"{short(record.symptom, 70)} -> {short(record.action, 70)}"
    )


def details(record: ErrorRecord) -> str:
    lines = [
        f"id:        {record.id}",
        f"tool:      {record.tool_name}",
        f"outcome:   {record.outcome}",
        f"keywords:  {', '.join(record.keywords)}",
        f"symptom:   {record.symptom}",
    ]
    if record.cause:
        lines.append(f"cause:     {record.cause}")
    lines += [
        f"action:    {record.action}",
        f"created:   {format_local(record.created_at)}",
        f"expires:   {format_local(record.expires_at)}",
    ]
    return "\n".join(lines)


def cmd_remember(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.errors.remember(
            args.tool, args.symptom, args.action, args.outcome, cause=args.cause, keywords=args.keyword
        )
    if args.json:
        write_json(result.record.to_json())
    else:
        verb = "refreshed existing" if result.refreshed else "remembered"
        write(f"{verb} error {result.record.id}")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= MAX_LIMIT:
        raise InvalidInput(f"--limit must be between 1 and {MAX_LIMIT}, not {args.limit}")
    with open_memory(args) as mem:
        records = mem.errors.search(args.query, tool_name=args.tool, limit=args.limit)
    if args.json:
        write_json([r.to_json() for r in records])
        return 0
    if not records:
        write("no matching error records")
    for record in records:
        write(summary_line(record))
    return 0


def cmd_read(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        record = mem.errors.read(args.id_prefix)
    if args.json:
        write_json(record.to_json())
    else:
        write(details(record))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        records = mem.errors.records(tool_name=args.tool, limit=10_000)
    if args.json:
        write_json([r.to_json() for r in records])
        return 0
    if not records:
        write("no error records")
    for record in records:
        write(summary_line(record))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        record = mem.errors.forget(args.id_prefix)
    write(f"forgot error {record.id}")
    return 0


def cmd_purge(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        deleted = mem.errors.purge()
    write(f"purged {deleted} expired error record{'' if deleted == 1 else 's'}")
    return 0

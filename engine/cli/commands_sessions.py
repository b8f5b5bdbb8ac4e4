"""CLI commands on sessions: sessions, append, history, compact, reset, remove."""

from __future__ import annotations

import argparse
import sys

from engine.cli.output import message_json, message_line, open_memory, write, write_json
from engine.clock import format_local
from engine.errors import GeminiError, InvalidInput
from engine.messages import MAX_CONTENT_CHARS, Message


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("sessions", help="list sessions, the latest message first")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the N most recent")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_sessions)

    p = commands.add_parser("title", help="show a session's title, or give it one ('' resets it)")
    p.add_argument("--session", required=True)
    p.add_argument("title", nargs="?", default=None, help="the new title; leave out to show the current one")
    p.set_defaults(handler=cmd_title)

    p = commands.add_parser("append", help="append one message to a session (creating it)")
    p.add_argument("--session", required=True)
    p.add_argument("--role", required=True, choices=["user", "assistant"])
    p.add_argument(
        "--content",
        required=True,
        help=f"the text (at most {MAX_CONTENT_CHARS:,} characters); '-' reads it from standard input",
    )
    p.add_argument(
        "--send-at",
        default=None,
        metavar="TIME",
        help="Unix time in seconds, ms, µs or ns, told apart by size as imports do; 1990 to 2200 "
        "(default: now)",
    )
    p.add_argument("--sender", default="")
    p.add_argument("--json", action="store_true", help="print the stored message as JSON")
    p.set_defaults(handler=cmd_append)

    p = commands.add_parser("history", help="the hot history.json of a session, oldest first")
    p.add_argument("--session", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_history)

    p = commands.add_parser("compact", help="compact history.json now if it is over the size limit")
    p.add_argument("--session", required=True)
    p.set_defaults(handler=cmd_compact)

    p = commands.add_parser("reset", help="clear a session's history and archive (keeps its summary)")
    p.add_argument("--session", required=True)
    p.add_argument("--all", action="store_true", help="also delete the summary and its cursor")
    p.add_argument(
        "--skip-summary",
        action="store_true",
        help="do not bring the summary up to date first (it normally is)",
    )
    p.set_defaults(handler=cmd_reset)

    p = commands.add_parser("remove", help="delete a session entirely (error memory is kept)")
    p.add_argument("--session", required=True)
    p.set_defaults(handler=cmd_remove)


def cmd_sessions(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        infos = mem.sessions(limit=args.limit, with_files=args.json)
    if args.json:
        write_json(
            [
                {
                    "id": i.id,
                    "title": i.title,
                    "titleSource": i.title_source,
                    "firstMessageAt": i.first_message_at,
                    "lastMessageAt": i.last_message_at,
                    "lastActivity": i.last_activity,
                    "hotMessages": i.hot_messages,
                    "archivedMessages": i.archived_messages,
                    "historyBytes": i.history_bytes,
                    "summaryUpdated": i.summary_updated,
                    "temporary": i.temporary,
                }
                for i in infos
            ]
        )
        return 0
    lines = [
        f"{i.id}\t{format_local(i.last_activity) if i.last_activity else '-'}\t{i.total_messages} messages\t"
        f"{i.title or '(no title)'}"
        for i in infos
    ]
    write("\n".join(lines) if lines else "no sessions yet")  # one write: 100,000 lines are one string
    return 0


def cmd_title(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        if args.title is None:
            write(mem.session_info(args.session).title or "(no title)")
            return 0
        stored = mem.set_title(args.session, args.title)
    write(stored or "(title reset: the first message is shown)")
    return 0


def read_stdin_text() -> str:
    """Standard input as text, read no further than one message can be (UTF-8 takes at most 4 bytes a
    character): an endless input (``/dev/zero``) costs 4 MB, not all memory.

    Raises:
        InvalidInput: longer than a message may be, or not UTF-8.
    """
    data = sys.stdin.buffer.read(4 * MAX_CONTENT_CHARS + 1)
    if len(data) > 4 * MAX_CONTENT_CHARS:
        raise InvalidInput(
            f"standard input is longer than a message may be ({MAX_CONTENT_CHARS:,} characters); nothing was stored"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"standard input is not UTF-8 text (byte {exc.start}); nothing was stored"
        ) from None


def send_at_ns(text: str) -> int:
    """``--send-at`` as Unix ns, read as the imports read a time (:func:`engine.importers.records.epoch_ns`).

    Raises:
        InvalidInput: not a number, or not a time a message can have (before 1990, after 2200).
    """
    from engine.importers.records import BadTime, epoch_ns  # here: `memtray --help` loads no importer

    try:
        value: int | float = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise InvalidInput(
                f"--send-at {text[:40]!r} is not a Unix time (seconds, ms, µs or ns)"
            ) from None
    try:
        return epoch_ns(value)
    except BadTime as exc:
        reason = str(exc).removeprefix("message with ")
        raise InvalidInput(f"--send-at {text[:40]}: {reason}; nothing was stored") from None


def cmd_append(args: argparse.Namespace) -> int:
    content = read_stdin_text() if args.content == "-" else args.content
    send_at = None if args.send_at is None else send_at_ns(args.send_at)
    with open_memory(args) as mem:
        send_at = mem.clock() if send_at is None else send_at
        stored = mem.append(args.session, [Message(args.role, content, send_at, args.sender)])
    if args.json:
        write_json(message_json(stored[0]))
    else:
        write(f"appended message {stored[0].id if stored[0].id is not None else '(no text: not archived)'}")
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        messages = mem.history(args.session)
    if args.json:
        write_json([message_json(m) for m in messages])
    else:
        if messages:
            write("\n".join(message_line(m) for m in messages))
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.compact(args.session)
    if result.trimmed:
        write(
            f"compacted {result.session}: {result.trimmed} messages moved to the archive, {result.kept} kept "
            f"({result.bytes_before:,} -> {result.bytes_after:,} bytes, {result.seconds:.2f}s)"
        )
    else:
        write(f"nothing to compact in {result.session}: history.json is {result.bytes_before:,} bytes")
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    """Reset a session; like the app, first bring its summary up to date (a failed summary aborts)."""
    with open_memory(args) as mem:
        mem.history(args.session)  # SessionNotFound before any Gemini call
        if args.all or args.skip_summary:
            result = mem.reset(args.session, include_summary=args.all)
        elif mem.summaries.status().active:
            try:
                result = mem.summaries.reset_with_summary(args.session)
            except GeminiError as exc:
                raise GeminiError(
                    f"{exc}; nothing was reset (use --skip-summary to reset without updating the summary)"
                ) from exc
        else:
            result = mem.reset(args.session)
            write(f"note: the summary was not updated first ({mem.summaries.status().message})")
    kept = "summary kept" if result.summary_kept else "summary deleted"
    write(
        f"reset {result.session}: {result.messages_deleted} archived messages deleted, {kept}, error memory kept"
    )
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.remove(args.session)
    write(f"removed {result.session}: {result.messages_deleted} archived messages deleted, error memory kept")
    return 0

"""CLI command: search."""

from __future__ import annotations

import argparse
import sys

from engine.cli.output import hit_json, hit_line, open_memory, passage_line, write, write_json
from engine.clock import TIME_RANGES
from engine.errors import InvalidInput
from engine.messages import MessageFilter
from engine.search.hits import MATCHES, SCOPES, Hit
from engine.search.snippets import snippet_terms
from engine.timewords import parse_bound


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("search", help="search the memory (keyword, semantic or hybrid)")
    p.add_argument("query")
    p.add_argument("--session", default=None, help="one session (default: all)")
    p.add_argument("--match", choices=MATCHES, default="hybrid")
    p.add_argument("--scope", choices=SCOPES, default="all")
    p.add_argument("--time-range", choices=sorted(TIME_RANGES), default=None)
    p.add_argument("--since", default=None, help="only from then on: YYYY-MM-DD, ISO, or words ('yesterday')")
    p.add_argument(
        "--until", default=None, help="up to then, inclusive: YYYY-MM-DD, ISO, or words ('June 2025')"
    )
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_search)


def cmd_search(args: argparse.Namespace) -> int:
    """Search and print at once: the vectors rank what is embedded, keywords find the rest. When some
    messages are not embedded yet, one line on stderr says how many are (this process does not embed:
    the tray app or ``memtray daemon`` does, newest first); without hits, "no matches" on stderr. A long
    message shows the part around the query's words (``--json``: all of it)."""
    with open_memory(args) as mem:
        now = mem.clock()
        since = parse_bound("--since", args.since, end=False, now_ns=now, local=True) if args.since else 0
        until = parse_bound("--until", args.until, end=True, now_ns=now, local=True) if args.until else None
        if until is not None and since > until:
            raise InvalidInput("--since is after --until: no time is in that range")
        result = mem.search_with_coverage(
            args.query,
            session=args.session,
            match=args.match,
            scope=args.scope,
            time_range=args.time_range,
            limit=args.limit,
            where=MessageFilter(since=since, until=until),
        )
        if result.coverage is not None and not result.coverage.complete:
            sys.stderr.write(
                f"memtray: {result.coverage.describe()}; the rest are found by keyword until the tray app "
                "or `memtray daemon` has embedded them\n"
            )
        _print_hits(list(result.hits), snippet_terms(args.query), as_json=args.json)
        # An archive index the search found damaged or out of date is rebuilt now (the results are out
        # already) rather than left to the exit, so the next search finds it.
        sys.stdout.flush()
        mem.semantic.finish_rebuilds()
    return 0


def _print_hits(hits: list[Hit], terms: list[str], *, as_json: bool) -> None:
    if as_json:
        write_json([hit_json(h) for h in hits])
        return
    if not hits:
        sys.stderr.write("no matches\n")
    for hit in hits:
        write(hit_line(hit, terms))
        passage = passage_line(hit)
        if passage is not None:
            write(passage)

"""CLI command: search."""

from __future__ import annotations

import argparse
import sys

from engine.cli.output import hit_json, message_line, open_memory, write, write_json
from engine.clock import TIME_RANGES
from engine.search.pipeline import MATCHES, SCOPES, Hit

WAIT_FOR_VECTORS_S = 30.0
"""Semantic and hybrid searches first wait this long for messages still queued for embedding."""
WAIT_FOR_INDEX_S = 300.0
"""After printing, they wait up to this long for an archive index rebuild they scheduled (if any)."""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("search", help="search the memory (keyword, semantic or hybrid)")
    p.add_argument("query")
    p.add_argument("--session", default=None, help="one session (default: all)")
    p.add_argument("--match", choices=MATCHES, default="hybrid")
    p.add_argument("--scope", choices=SCOPES, default="all")
    p.add_argument("--time-range", choices=sorted(TIME_RANGES), default=None)
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_search)


def cmd_search(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        idle = args.match == "keyword" or mem.wait_idle(timeout=WAIT_FOR_VECTORS_S)
        if not idle:
            sys.stderr.write("memtray: some messages are still being embedded; results may miss them\n")
        hits = mem.search(
            args.query,
            session=args.session,
            match=args.match,
            scope=args.scope,
            time_range=args.time_range,
            limit=args.limit,
        )
        _print_hits(hits, as_json=args.json)
        if idle and mem.semantic.status().rebuilding:
            # The search found an archive index damaged or out of date and scheduled its rebuild: finish
            # it (the results are out already) rather than race the exit, so the next search finds it.
            sys.stdout.flush()
            if not mem.wait_idle(timeout=WAIT_FOR_INDEX_S):
                sys.stderr.write(
                    "memtray: the archive index is still being rebuilt; a later search finishes it\n"
                )
    return 0


def _print_hits(hits: list[Hit], *, as_json: bool) -> None:
    if as_json:
        write_json([hit_json(h) for h in hits])
        return
    if not hits:
        write("no matches")
    for hit in hits:
        write(f"{hit.message.session}\t{hit.source}\t{hit.score:.3f}\t{message_line(hit.message)}")

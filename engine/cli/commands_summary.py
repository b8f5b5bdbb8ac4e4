"""CLI commands of the summarizer: summarize, context, key set|delete|status, daemon."""

from __future__ import annotations

import argparse
import getpass
import logging
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from types import FrameType

from engine.cli.output import open_memory, write, write_error, write_json
from engine.errors import InvalidInput
from engine.llm.keys import Keys

log = logging.getLogger("memtray.cli")

TICK_S = 30.0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("summarize", help="summarize now: one session, or every pending one")
    p.add_argument("--session", default=None)
    p.add_argument("--key-stdin", action="store_true", help="read a Gemini key for this run only from stdin")
    p.set_defaults(handler=cmd_summarize)

    p = commands.add_parser("context", help="what the LLM would get from the memory this turn")
    p.add_argument("--session", required=True)
    p.add_argument("--request", default="", help="the user's request (for the relevance filter)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_context)

    p = commands.add_parser("key", help="the Gemini API key in the OS keyring")
    p.add_argument("action", choices=["set", "delete", "status"])
    p.set_defaults(handler=cmd_key)

    p = commands.add_parser("daemon", help="run the summary scheduler without the tray app")
    p.add_argument("--key-stdin", action="store_true", help="read a Gemini key for this run only from stdin")
    p.add_argument("--now", action="store_true", help="also run once at start")
    p.set_defaults(handler=cmd_daemon)


def read_secret(prompt: str = "Gemini API key: ") -> str:
    """A secret from a hidden prompt (a terminal) or the first line of stdin (a pipe); never echoed."""
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    return sys.stdin.readline().strip()


def _keys(args: argparse.Namespace) -> Keys:
    keys = Keys()
    if getattr(args, "key_stdin", False):
        value = read_secret()
        if not value.strip():
            raise InvalidInput("no key on standard input")
        keys.use_for_this_run(value)
    return keys


def cmd_summarize(args: argparse.Namespace) -> int:
    keys = _keys(args)
    with open_memory(args, keys) as mem:
        if args.session is not None:
            results = [mem.summaries.generate(args.session)]
        else:
            status = mem.summaries.status()
            if not status.has_key:
                from engine.errors import NoApiKey

                raise NoApiKey(status.message)
            results = mem.summaries.run_pending()
            failed = mem.summaries.status().last_errors
            for session, message in failed:
                write_error(f"memtray: {session}: {message}")
        if not results:
            write("nothing to summarize")
        for r in results:
            if r.bootstrapped:
                write(f"{r.session}: cursor set to {r.cursor or '-'} (existing summary, no call)")
            elif not r.considered:
                write(f"{r.session}: nothing new since {r.cursor or 'the start'}")
            else:
                write(
                    f"{r.session}: {r.considered} new messages, {r.dropped_exchanges} noise exchanges "
                    f"dropped, {r.chunks} chunks merged; cursor {r.cursor}"
                )
        return 1 if args.session is None and mem.summaries.status().last_errors else 0


def cmd_context(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        context = mem.turn_context(args.session, args.request)
    if args.json:
        write_json(context.to_json())
        return 0
    write("[system]\n" + context.system_guidance + "\n")
    for message in context.messages:
        write(f"[{message.role}]\n{message.content}\n")
    if args.request:
        write(f"[user]\n{args.request}")
    return 0


def cmd_key(args: argparse.Namespace) -> int:
    keys = Keys()
    if args.action == "status":
        status = keys.status()
        write(status.message)
        if status.secure_store:
            write(f"keyring: {status.backend}")
        return 0 if status.available else 1
    if args.action == "delete":
        removed = keys.delete()
        write("the Gemini key was deleted from the keyring" if removed else "no Gemini key was stored")
        return 0
    keys.backend()  # say "no secure store" before asking for the key
    value = read_secret()
    backend = keys.set(value)
    write(f"the Gemini key is stored in the keyring ({backend})")
    return 0


def cmd_daemon(args: argparse.Namespace) -> int:
    keys = _keys(args)
    stop = threading.Event()

    def _on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("daemon stopping (signal %d)", signum)
        stop.set()

    previous = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memtray-summary")
    store_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memtray-store")
    try:
        from engine.jobs import add_maintenance
        from engine.summary.scheduler import SummaryScheduler

        with open_memory(args, keys) as mem:
            scheduler = SummaryScheduler(mem.summaries.run_pending, executor, enabled=mem.summaries.enabled)
            add_maintenance(scheduler.scheduler, mem, store_worker.submit)
            store_worker.submit(mem.cleanup_temp_sessions)
            status = mem.summaries.status()
            write(f"memtray daemon: {status.message}; next run at {scheduler.next_run():%H:%M}")
            sys.stdout.flush()
            if args.now:
                scheduler.submit()
            while not stop.is_set():
                scheduler.tick()
                idle = scheduler.idle_seconds()
                stop.wait(max(0.5, min(TICK_S, idle if idle is not None else TICK_S)))
            executor.shutdown(wait=True, cancel_futures=True)
            store_worker.shutdown(wait=True, cancel_futures=True)
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
        store_worker.shutdown(wait=False, cancel_futures=True)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    write("memtray daemon: stopped")
    return 0

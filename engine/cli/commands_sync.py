"""CLI commands of sync through a shared folder: sync enable|now|status|disable (:mod:`engine.sync`)."""

from __future__ import annotations

import argparse
import getpass
import sys

from engine.cli.output import open_memory, write, write_json
from engine.clock import format_local
from engine.errors import InvalidInput


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "sync",
        help="keep this memory in step with your other devices through a synced folder",
        description="Sync through a folder that Syncthing, Dropbox, OneDrive, iCloud Drive, Nextcloud, a "
        "network share or a USB stick keeps in step. Each device writes only its own encrypted files there.",
    )
    actions = p.add_subparsers(title="actions", metavar="ACTION", dest="sync_action", required=True)
    enable = actions.add_parser("enable", help="use FOLDER (the first device sets the passphrase)")
    enable.add_argument("folder", metavar="FOLDER")
    enable.add_argument("--device", metavar="NAME", help="this device's name (default: the host name)")
    enable.add_argument(
        "--passphrase-stdin", action="store_true", help="read the passphrase from stdin (for scripts)"
    )
    enable.set_defaults(handler=cmd_enable)
    now = actions.add_parser("now", help="write what is new here, apply what the other devices wrote")
    now.add_argument(
        "--passphrase-stdin", action="store_true", help="read the passphrase for this run only from stdin"
    )
    now.set_defaults(handler=cmd_now)
    status = actions.add_parser(
        "status", help="devices seen, what is applied from each and when, what is pending, the folder watch"
    )
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=cmd_status)
    disable = actions.add_parser("disable", help="stop syncing (the folder's files stay)")
    disable.set_defaults(handler=cmd_disable)


def _passphrase(args: argparse.Namespace, *, confirm: bool) -> str:
    if args.passphrase_stdin or not sys.stdin.isatty():
        value = sys.stdin.readline().rstrip("\r\n")
    else:
        value = getpass.getpass("sync passphrase: ")
        if confirm and getpass.getpass("again: ") != value:
            raise InvalidInput("the two passphrases differ")
    if not value:
        raise InvalidInput("no passphrase given")
    return value


def cmd_enable(args: argparse.Namespace) -> int:
    from pathlib import Path

    from engine.sync import crypto

    folder = Path(args.folder).expanduser()
    first = folder.is_dir() and crypto.read_config(folder.resolve()) is None
    passphrase = _passphrase(args, confirm=first)
    with open_memory(args) as mem:
        status = mem.sync.enable(folder, passphrase, args.device)
        write(f"sync enabled: {status.folder} (this device: {status.name}, {status.device})")
        if status.devices:
            write(f"{len(status.devices)} other device(s) found there; run `memtray sync now` to apply them")
        if not mem.sync.keys.get_stored(mem.sync.folder_id):
            write(
                "no secure keyring: the key is held for this run only; pass --passphrase-stdin to `sync now`"
            )
    return 0


def cmd_now(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        if args.passphrase_stdin:
            mem.sync.unlock_for_this_run(_passphrase(args, confirm=False))
        report = mem.sync.now()
    write(report.describe())
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        status = mem.sync.status()
    if args.json:
        write_json(status.to_json())
        return 0
    if not status.enabled:
        write(f"sync is off (this device: {status.device}); `memtray sync enable FOLDER` turns it on")
        return 0
    write(f"folder: {status.folder}")
    write(
        f"this device: {status.name} ({status.device}); {status.written} segments written, "
        f"{status.unsent} messages not yet sent; key: {status.key}"
    )
    write(f"last sync: {format_local(status.last_sync) if status.last_sync else 'never'}")
    if status.watching:
        write("folder watch: on (another device's segments are applied within seconds; every minute too)")
    elif status.watch_error:
        write(f"folder watch: off ({status.watch_error}); the tray app or daemon syncs every minute")
    else:
        write("folder watch: off (no tray app or `memtray daemon` runs for this home: `memtray sync now`)")
    for d in status.devices:
        when = f"last applied {format_local(d.applied_at)}" if d.applied_at else "nothing applied yet"
        write(
            f"  {d.name or '?'} ({d.device}): {d.applied} of {d.written} segments applied, {d.pending} pending; "
            f"{when}"
        )
    if not status.devices:
        write("  no other device has written to the folder yet")
    return 0


def cmd_disable(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        was = mem.sync.disable()
    write("sync disabled (the folder's files stay)" if was else "sync was not enabled")
    return 0

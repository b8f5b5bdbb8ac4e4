"""The tray app's command line: its options, and ``memtray --quit``, which asks the running app to quit.

Kept free of QtWidgets and of the app itself, so that ``memtray --quit`` starts and knocks in a fraction
of the time the app takes to import: the quit it asks for is measured from when the command is typed.
"""

from __future__ import annotations

import argparse
import logging
import sys

from PySide6.QtCore import QCoreApplication

from desktop.single import QUIT, SingleInstance
from engine import Paths, configure_logging

log = logging.getLogger("memtray.desktop.app")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The tray app's options (``--home``, ``-v``, ``--quit``, ``--search``); others are left alone."""
    parser = argparse.ArgumentParser(prog="memtray", add_help=False)
    parser.add_argument("--home")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--quit", action="store_true")
    parser.add_argument("--search", action="store_true")
    args, _rest = parser.parse_known_args(argv)
    return args


def request_quit(paths: Paths) -> int:
    """``memtray --quit``: ask the memtray running for ``paths.home`` to quit; 0 if it heard, 1 if none runs."""
    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    knocker = SingleInstance(paths.home, paths.store_dir / "app.lock", app)
    if knocker.notify_running(message=QUIT):
        log.info("asked the memtray running for %s to quit", paths.home)
        return 0
    sys.stderr.write(f"memtray: no memtray is running for {paths.home}\n")  # the command line: English
    return 1


def quit_running(argv: list[str]) -> int:
    """``memtray [--home H] [-v] --quit``: logging set up as the app does it, then :func:`request_quit`."""
    args = parse_args(argv)
    paths = Paths.resolve(args.home)
    configure_logging(paths.logs_dir, console_level=logging.INFO if args.verbose else logging.WARNING)
    return request_quit(paths)

"""The ``memtray`` command: the CLI when a command is given, else the tray app.

Kept free of Qt imports so that every CLI command starts fast and works on machines without a display.
"""

from __future__ import annotations

import multiprocessing
import sys


def main(argv: list[str] | None = None) -> int:
    """Run ``memtray``; return the exit status."""
    multiprocessing.freeze_support()  # the frozen app runs its worker processes (big imports) through here
    args = list(sys.argv[1:] if argv is None else argv)
    from engine.cli import wants_gui

    if wants_gui(args):
        if "--quit" in args:  # no window to show: a quick knock on the running app's door
            from desktop.command import quit_running

            return quit_running(args)
        from desktop.app import run

        return run(args)
    from engine.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())

"""The ``memtray`` command line (without Qt): parse, run one command, turn errors into one line.

Output goes to stdout; errors go to stderr as one line with a non-zero exit status (1 for an error the
user can act on, 2 for a usage mistake). A fault of the environment that reaches here as an ``OSError``
(a read-only or full disk, a file where a folder should be) is such an error, said in words
(:func:`engine.storage.diskerrors.storage_error`). A bug is logged with its traceback and reported as one
``internal error`` line (exit 1); the tests treat that line as a failure.
"""

from __future__ import annotations

import logging
import sys

from engine.cli.output import utf8_streams
from engine.cli.parser import build_parser, wants_gui
from engine.cli.visible import visible
from engine.errors import EngineError
from engine.logs import hide_secrets
from engine.storage.diskerrors import storage_error

log = logging.getLogger("memtray.cli")

__all__ = ["main", "wants_gui"]


def main(argv: list[str] | None = None) -> int:
    """Run one CLI command; return the exit status."""
    utf8_streams()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage mistake (2, already explained on stderr)
        return exc.code if isinstance(exc.code, int) else 2
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args) or 0)
    except EngineError as exc:
        sys.stderr.write(f"memtray: {visible(hide_secrets(str(exc)))}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("memtray: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the environment, not a bug: the disk, the permissions, the home's shape
        sys.stderr.write(f"memtray: {visible(hide_secrets(str(storage_error(exc, 'its files'))))}\n")
        return 1
    except Exception as exc:  # a bug: one line for the user, the traceback in the log
        if logging.getLogger("memtray").handlers:  # else logging's last resort would print the traceback
            log.exception("internal error in %s", getattr(args, "handler", None))
        sys.stderr.write(
            f"memtray: internal error ({type(exc).__name__}: {visible(hide_secrets(str(exc)))}); this is a bug, see the log\n"
        )
        return 1

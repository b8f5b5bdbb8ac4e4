"""The ``memtray`` command line (without Qt): parse, run one command, turn errors into one line.

Output goes to stdout; errors go to stderr as one line with a non-zero exit status (1 for an error the
user can act on, 2 for a usage mistake). A traceback means a bug.
"""

from __future__ import annotations

import logging
import sys

from engine.cli.parser import build_parser
from engine.errors import EngineError

log = logging.getLogger("memtray.cli")


def main(argv: list[str] | None = None) -> int:
    """Run one CLI command; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(handler(args) or 0)
    except EngineError as exc:
        sys.stderr.write(f"memtray: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("memtray: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0

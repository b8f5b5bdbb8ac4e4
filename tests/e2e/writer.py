"""A writer process for the crash and concurrency tests.

``python -m tests.e2e.writer HOME SESSION PREFIX COUNT [MAX_BYTES]`` appends COUNT user/assistant pairs
(``PREFIX-<n>-q`` / ``PREFIX-<n>-a``) and prints ``ack <n>`` after each append returns.
"""

from __future__ import annotations

import sys

from engine import Memory, Message


def main() -> None:
    home, session, prefix, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with Memory.open(home, background=False) as mem:
        if len(sys.argv) > 5:
            mem.update_settings(max_history_bytes=int(sys.argv[5]))
        for n in range(count):
            now = mem.clock()
            mem.append(
                session,
                [
                    Message("user", f"{prefix}-{n}-q " + "x" * 300, now),
                    Message("assistant", f"{prefix}-{n}-a " + "y" * 300, now + 1),
                ],
            )
            sys.stdout.write(f"ack {n}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

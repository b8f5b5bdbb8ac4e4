"""The frozen program's entry point: PyInstaller runs this file as ``__main__`` (see ``memtray.spec``).

It is the console script ``memtray = desktop.launcher:main`` as a file: no command starts the tray app,
a command runs the CLI.
"""

from __future__ import annotations

import sys

from desktop.launcher import main

if __name__ == "__main__":
    sys.exit(main())

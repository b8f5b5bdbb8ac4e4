"""The tests of Windows-only code against Windows itself: collected on Windows only (``make windows-test``
runs them under Wine), so they neither run nor skip elsewhere."""

from __future__ import annotations

import os

collect_ignore_glob = [] if os.name == "nt" else ["test_*.py"]

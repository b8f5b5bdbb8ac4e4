"""``memtray mcp``: the memory as a Model Context Protocol server over stdio.

:func:`engine.mcpserver.server.serve` runs it; :mod:`engine.mcpserver.tools` holds its tools as plain
functions (the MCP SDK is imported only by the server module).
"""

from __future__ import annotations

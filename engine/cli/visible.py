"""Stored text made safe for a terminal: what the CLI's human output and its ``--json`` do with it.

Stored text comes from anywhere (an imported export, an agent, a model): printed raw, an escape sequence in
it would act on the user's terminal (OSC 52 writes the clipboard, OSC 8 plants a link, CSI 2J clears the
screen, a C1 control does the same in one character, a bidi override makes text read backwards).

- :func:`visible` (human output) shows each such character instead of sending it: C0 controls and DEL
  in caret notation (``^[`` for ESC, ``^G``, ``^M``, ``^?``), C1 controls as ``\\x9b``, and the bidi
  controls, the line and paragraph separators and lone surrogates as ``\\u202e``. Newline and tab stay.
- :func:`json_text` (``--json``) keeps the exact text: JSON already escapes C0 controls, and DEL and the
  other characters above are written as ``\\uXXXX`` escapes, which decode to the same text.
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 controls but tab and newline, and DEL; C1 controls; bidi marks, embeddings, overrides and isolates;
# line and paragraph separators; lone surrogates.
_C0 = "\x00-\x08\x0b-\x1f\x7f"
_OTHERS = "\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff"
_UNSAFE = re.compile(f"[{_C0}{_OTHERS}]")
_UNSAFE_IN_JSON = re.compile(f"[\x7f{_OTHERS}]")  # JSON escapes the C0 controls, not DEL


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every character that would act on a terminal shown instead (see the module docstring)."""
    return _UNSAFE.sub(_shown, text)


def json_text(value: Any) -> str:
    """``value`` as indented JSON that keeps every text exact and sends nothing a terminal acts on."""
    dumped = json.dumps(value, ensure_ascii=False, indent=2)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)

"""Secret redaction: API keys, tokens, passwords and private keys replaced by ``[REDACTED:<kind>]``.

The summarizer and the Gemini embedder call :func:`redact` on message text before it leaves the machine
(when the ``redact_secrets`` setting is on, the default). The archive keeps the original text: it never
leaves the laptop, and the user may need the key they pasted.

Each pattern is anchored on a vendor prefix or an explicit ``name=``/``name:`` assignment, so ordinary
prose and code (``sk-learn``, ``the password is weak``, ``-----BEGIN PUBLIC KEY-----``) is left alone.
Only the secret is replaced; the text around it (``password=``, ``Bearer``) stays for context. The
secrets memtray itself uses (its Gemini key, whatever its shape: :func:`engine.logs.register_secret`) are
replaced first, as ``[REDACTED:key_in_use]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.logs import hide_secrets

__all__ = ["KINDS", "Finding", "find", "redact"]

_START = r"(?<![A-Za-z0-9_\-])"  # not inside a longer word or token
_END = r"(?![A-Za-z0-9_\-])"


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    group: int = 0  # the group that is the secret (0: the whole match)


_PATTERNS: tuple[_Pattern, ...] = (
    _Pattern(
        "private_key",
        re.compile(
            r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY((?: BLOCK)?)-----"
            r".*?(?:-----END \1PRIVATE KEY\2-----|\Z)",
            re.DOTALL,
        ),
    ),
    _Pattern(
        "jwt", re.compile(_START + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}" + _END)
    ),
    _Pattern("anthropic_key", re.compile(_START + r"sk-ant-[A-Za-z0-9_\-]{20,}" + _END)),
    _Pattern("openai_key", re.compile(_START + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}" + _END)),
    _Pattern("google_api_key", re.compile(_START + r"AIza[0-9A-Za-z_\-]{35}" + _END)),
    _Pattern(
        "github_token",
        re.compile(_START + r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})" + _END),
    ),
    _Pattern("aws_access_key", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])")),
    _Pattern(
        "aws_secret_key",
        re.compile(
            r"(?i)aws_?secret(?:_?access)?_?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
    ),
    _Pattern("slack_token", re.compile(_START + r"xox[abposr]-[A-Za-z0-9\-]{10,}" + _END)),
    _Pattern("bearer_token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"), 1),
    _Pattern(
        "password",
        re.compile(
            r"(?i)\b(?:password|passwd|passphrase|pwd|client_secret|secret_key|api_?key|access_?token|auth_?token)"
            r"[\"']?\s*[:=]\s*"
            r"(?!\[REDACTED|(?:None|null|nil|true|false|undefined)\b|os\.|process\.env|getenv|[$<{*])"
            r"(\"[^\"\n]{3,}\"|'[^'\n]{3,}'|[^\s\"',;]{4,})"
        ),
        1,
    ),
)

KINDS: tuple[str, ...] = tuple(p.kind for p in _PATTERNS)
"""Every kind of secret :func:`redact` knows, as it appears in ``[REDACTED:<kind>]``."""


@dataclass(frozen=True)
class Finding:
    """One secret found in a text: its kind and where it is (``text[start:end]``)."""

    kind: str
    start: int
    end: int


def find(text: str) -> list[Finding]:
    """The secrets in ``text``, in order, without overlaps (an earlier, longer pattern wins)."""
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []
    for pattern in _PATTERNS:
        for match in pattern.regex.finditer(text):
            start, end = match.span(pattern.group)
            if start < 0 or any(start < e and s < end for s, e in taken):
                continue
            found.append(Finding(pattern.kind, start, end))
            taken.append((start, end))
    found.sort(key=lambda f: f.start)
    return found


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``; text without secrets is unchanged."""
    text = hide_secrets(text)
    findings = find(text)
    if not findings:
        return text
    parts: list[str] = []
    last = 0
    for finding in findings:
        parts.append(text[last : finding.start])
        parts.append(f"[REDACTED:{finding.kind}]")
        last = finding.end
    parts.append(text[last:])
    return "".join(parts)

"""ChatGPT's inline citation and entity markers, rendered as text or removed.

ChatGPT writes markers into message text with Private Use Area characters: a group
``U+E200 NAME (U+E202 ARG)* U+E201`` (``cite``, ``filecite``, ``entity``, ``link_title``, ``url``,
``navlist``, ``image_group``, ``genui`` …), a highlighted span ``U+E203 prose U+E204``, and a bare anchor
``U+E202 turn0search0``. Older exports cite as ``【4:0†source】`` (2023's browsing also lists each one in
``metadata.citations``: ``{start_ix, end_ix, metadata: {title, url}}``, or ``start_idx``/``end_idx``); pasted text carries
``citeturn0search0`` and ``:contentReference[oaicite:2]{index=2}``. In this order:

0. a ``【…】`` marker that ``metadata.citations`` places (by ``start_ix``/``end_ix``) becomes a Markdown
   link to its page, `` ([title](url))``;
1. a group listed in the message's ``metadata.content_references`` becomes that reference's ``alt`` text,
   or a Markdown link to its first item (``utm_source=chatgpt.com`` dropped), or nothing;
2. ``entity`` becomes its label (element 1 of its JSON list), ``link_title`` its label, ``url`` its label
   as a link when the target is http(s);
3. every other complete group is removed;
4. highlights keep their prose; bare anchors, the name of a group left open, and any stray U+E200–U+E206
   character are removed;
5. ``【…†…】``, ``citeturn…`` and ``:contentReference[…]{…}`` are removed.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_ANY = re.compile(r"[\ue200-\ue206【]|turn\d|:contentReference\[")
_GROUP = re.compile(r"\ue200([^\ue201\ue202]*)((?:\ue202[^\ue201\ue202]*)*)\ue201")
_HIGHLIGHT = re.compile(r"\ue203(.*?)\ue204", re.DOTALL)
_BARE = re.compile(r"\ue202turn\d+[a-z_]+\d+")
_OPENING = re.compile(r"\ue200[a-z_]*")
_STRAY = re.compile(r"[\ue200-\ue206]")
_LENTICULAR = re.compile(r"【[^【】\n]*†[^【】\n]*】")
_PASTED = re.compile(
    r"\b(?:cite|filecite|navlist|i)?(?:turn\d+(?:search|news|view|file|image|fetch|forecast|video|ref|product)\d+)+"
)
_CONTENT_REFERENCE = re.compile(r":contentReference\[oaicite:\d+\]\{index=\d+\}")
_TRACKING = ("utm_source", "chatgpt.com")
_SPACE = re.compile(r"[\s()]")
MAX_CITATIONS = 1000
"""At most this many entries of ``metadata.citations`` are read per message."""


def clean(text: str, metadata: dict[str, Any] | None = None) -> str:
    """``text`` with its markers rendered (references, entities, links) or removed."""
    if not _ANY.search(text):
        return text
    text = _cited(text, metadata)
    for matched, replacement in _references(metadata):
        text = text.replace(matched, replacement)
    text = _GROUP.sub(_render_group, text)
    text = _HIGHLIGHT.sub(r"\1", text)
    text = _BARE.sub("", text)
    text = _OPENING.sub("", text)  # a group left open: its name goes with it
    text = _STRAY.sub("", text)
    text = _LENTICULAR.sub("", text)
    text = _CONTENT_REFERENCE.sub("", text)
    return _PASTED.sub("", text)


def _cited(text: str, metadata: dict[str, Any] | None) -> str:
    """``text`` with each ``【…】`` marker placed by ``metadata.citations`` replaced by a link to its page."""
    citations = metadata.get("citations") if isinstance(metadata, dict) else None
    if not isinstance(citations, list):
        return text
    spans: dict[int, tuple[int, str]] = {}
    for citation in citations[:MAX_CITATIONS]:
        if not isinstance(citation, dict):
            continue
        start = citation.get("start_ix", citation.get("start_idx"))
        end = citation.get("end_ix", citation.get("end_idx"))
        if not (type(start) is int and type(end) is int and 0 <= start < end <= len(text)):
            continue
        if not (text[start] == "【" and text[end - 1] == "】"):
            continue  # only a marker is replaced, never ordinary text
        page = citation.get("metadata")
        page = page if isinstance(page, dict) else {}
        url, title = page.get("url"), page.get("title")
        if isinstance(url, str) and url.startswith(("http://", "https://")) and not _SPACE.search(url):
            shown = " ".join(title.split()) if isinstance(title, str) and title.strip() else url
            spans[start] = (end, f" ([{shown}]({untrack(url)}))")
    last = len(text) + 1
    for start in sorted(spans, reverse=True):
        end, link = spans[start]
        if end <= last:  # overlapping spans: the later one is kept
            text = text[:start] + link + text[end:]
            last = start
    return text


def _references(metadata: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(marker text, its rendering) for each usable ``content_references`` entry, longest marker first."""
    refs = metadata.get("content_references") if isinstance(metadata, dict) else None
    if not isinstance(refs, list):
        return []
    found: dict[str, str] = {}
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        matched = ref.get("matched_text")
        if not isinstance(matched, str) or (not _STRAY.search(matched) and "【" not in matched):
            continue  # only a marker is replaced, never ordinary text
        found.setdefault(matched, _reference_text(ref))
    return sorted(found.items(), key=lambda item: -len(item[0]))


def _reference_text(ref: dict[str, Any]) -> str:
    alt = ref.get("alt")
    if isinstance(alt, str) and alt.strip():
        return _untrack_links(alt)
    items = ref.get("items")
    first = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
    url = first.get("url")
    label = first.get("title") or first.get("attribution")
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        shown = label if isinstance(label, str) and label.strip() else url
        return f" ([{shown}]({untrack(url)}))"
    return ""


def _render_group(found: re.Match[str]) -> str:
    name = found.group(1)
    args = found.group(2).split("\ue202")[1:]
    if name == "entity" and args:
        try:
            value = json.loads(args[0])
        except (ValueError, RecursionError):
            return ""
        if isinstance(value, list) and len(value) > 1 and isinstance(value[1], str):
            return value[1]
        return ""
    if name == "link_title" and args:
        return args[0]
    if name == "url" and args:
        label, target = args[0], args[1] if len(args) > 1 else ""
        if target.startswith(("http://", "https://")):
            return f"[{label or target}]({untrack(target)})"
        return label
    return ""


_LINK_TARGET = re.compile(r"\]\((https?://[^)\s]+)\)")


def _untrack_links(text: str) -> str:
    return _LINK_TARGET.sub(lambda m: f"]({untrack(m.group(1))})", text)


def untrack(url: str) -> str:
    """``url`` without ChatGPT's ``utm_source=chatgpt.com`` query parameter."""
    if "utm_source" not in url:
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if (k, v) != _TRACKING]
    return urlunsplit(parts._replace(query=urlencode(query)))

"""Properties of the bounds and cleaning every Gemini reply gets (engine/summary/untrusted.py) and of the
escaped JSON that carries the summary back to a model."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.logs import register_secret
from engine.summary.parse import parse_reply
from engine.summary.untrusted import MAX_DEPTH, as_data_json, clean, too_deep

UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff\ud800-\udfff]"
)
ANY_TEXT = st.text(
    alphabet=st.characters(exclude_categories=()), max_size=300
)  # surrogates and controls included
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=30,
)


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    return 0


def nest(value: Any, levels: int) -> Any:
    for i in range(levels):
        value = [value] if i % 2 else {"k": value}
    return value


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.integers(0, 40))
def test_the_nesting_scan_agrees_with_the_parsed_depth(value: Any, extra: int) -> None:
    nested = nest(value, extra)
    text = json.dumps(nested)
    assert too_deep(text) == (depth(nested) > MAX_DEPTH)
    assert too_deep(json.dumps({"s": "[[[[{{{{" * 10, "v": nested})) == (depth(nested) + 1 > MAX_DEPTH)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, st.integers(1, 400))
def test_clean_text_is_safe_bounded_and_encodable(text: str, limit: int) -> None:
    cleaned = clean(text, limit)
    assert len(cleaned) <= limit and not UNSAFE.search(cleaned)
    cleaned.encode("utf-8")  # no lone surrogate left


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcXYZ-_\x1b\u200b\u202e \n", min_size=0, max_size=40))
def test_a_registered_secret_never_survives_cleaning_even_split_by_invisible_characters(noise: str) -> None:
    secret = "hostile-secret-5f1e2d3c4b"
    register_secret(secret)
    split = "\u200b".join(secret[:10]) + "\x1b" + secret[10:]
    for text in (noise + secret + noise, noise + split + noise):
        assert secret not in clean(text, 10_000)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["key_decisions", "topic", "x"]), ANY_TEXT, max_size=3))
def test_the_data_json_decodes_to_the_same_text_and_no_line_of_it_is_free_text(value: dict[str, str]) -> None:
    for indent in (None, 2):
        dumped = as_data_json(value, indent)
        assert json.loads(dumped) == value
        assert "`" not in dumped and "<" not in dumped and ">" not in dumped
        body = [line.strip() for line in dumped.splitlines()]
        assert all(line[:1] in ('"', "{", "}", "") for line in body), dumped


@settings(max_examples=100, deadline=None)
@given(st.integers(MAX_DEPTH + 1, 5000))
def test_a_reply_nested_past_the_bound_is_refused_without_recursion(levels: int) -> None:
    reply = '{"key_decisions": ' + "[" * levels + "]" * levels + ', "current_discussion": {}}'
    assert parse_reply(reply) is None

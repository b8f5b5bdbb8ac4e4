"""Error records: the error-class classifier, keyword normalisation and tagging, ids, and input checks."""

from __future__ import annotations

import hashlib

import pytest

from engine.errormemory.records import (
    MAX_KEYWORDS,
    MAX_TEXT_BYTES,
    check,
    classify,
    dedupe_key,
    normalise_keywords,
    record_id,
    tagged_keywords,
)
from engine.errors import InvalidInput


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "unknown"),
        ("  \n ", "unknown"),
        ("tool not exist: fetch", "tool_not_exist"),
        ("Tool not found", "tool_not_exist"),
        ("unsupported tool x", "tool_not_exist"),
        ("url is required", "required_param"),
        ("invalid argument", "invalid_param"),
        ("request TIMEOUT", "timeout"),
        ("context deadline exceeded", "timeout"),
        ("401 Unauthorized", "permission"),
        ("403 forbidden", "permission"),
        ("permission denied", "permission"),
        ("access denied", "permission"),
        ("no result", "no_result"),
        ("no data", "no_result"),
        ("file not found", "no_result"),
        ("empty result", "no_result"),
        ("segfault", "other"),
        # the first rule wins
        ("required field invalid", "required_param"),
        ("invalid: not found", "invalid_param"),
    ],
)
def test_classify(text: str, expected: str) -> None:
    assert classify(text) == expected


def test_keywords_are_trimmed_lowered_deduplicated_in_order() -> None:
    assert normalise_keywords([" Net ", "", "HTTP", "net", "  "]) == ["net", "http"]


def test_error_type_keyword_is_added() -> None:
    assert tagged_keywords(["Timeout"], "request timeout", "") == ["timeout", "error_type:timeout"]
    assert tagged_keywords(["x"], "disk on fire", "") == ["x", "error_type:other"]
    # the class comes from symptom + "\n" + cause
    assert tagged_keywords([], "it broke", "access denied") == ["error_type:permission"]
    # not duplicated when the caller already gave it
    assert tagged_keywords(["error_type:timeout"], "timeout", "") == ["error_type:timeout"]


def test_id_is_sha256_of_tool_and_decimal_ns() -> None:
    assert record_id("fetch_page", 123) == hashlib.sha256(b"fetch_page123").hexdigest()
    assert len(record_id("t", 1)) == 64


def test_dedupe_key_ignores_case_and_spacing_of_symptom_and_action() -> None:
    assert dedupe_key("t", "Request  timeout\n", "Retry") == dedupe_key("t", "request timeout", "retry")
    assert dedupe_key("t", "a", "b") != dedupe_key("u", "a", "b")
    assert dedupe_key("t", "a", "b") != dedupe_key("t", "a", "c")


def test_check_normalises_a_good_write() -> None:
    draft = check("fetch_page", " timeout ", " retry ", "Resolved", None, ["A", "a"])
    assert (draft.symptom, draft.action, draft.outcome, draft.cause) == ("timeout", "retry", "resolved", "")
    assert draft.keywords == ("a", "error_type:timeout")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"outcome": "fixed"}, "outcome must be one of"),
        ({"outcome": None}, "outcome must be one of"),
        ({"tool_name": ""}, "tool_name must not be empty"),
        ({"tool_name": "  "}, "tool_name must not be empty"),
        ({"tool_name": "two words"}, "tool_name must not contain spaces"),
        ({"tool_name": "t" * 129}, "tool_name is too long"),
        ({"symptom": ""}, "symptom must not be empty"),
        ({"symptom": 5}, "symptom must be text"),
        ({"action": " "}, "action must not be empty"),
        ({"symptom": "x" * (MAX_TEXT_BYTES + 1)}, "symptom is too long"),
        ({"cause": "é" * (MAX_TEXT_BYTES // 2 + 1)}, "cause is too long"),
        ({"action": "bad \ud800 surrogate"}, "action is not valid Unicode"),
        ({"symptom": "nul \x00 inside"}, "must not contain NUL"),
        ({"keywords": "timeout"}, "keywords must be a list"),
        ({"keywords": ["k"] * (MAX_KEYWORDS + 1)}, "too many keywords"),
        ({"keywords": ["k" * 201]}, "keyword is too long"),
        ({"keywords": [3]}, "keyword must be text"),
    ],
)
def test_check_rejects_bad_input(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "tool_name": "fetch_page",
        "symptom": "timeout",
        "action": "retry",
        "outcome": "resolved",
        "cause": "",
        "keywords": [],
    }
    args.update(kwargs)
    with pytest.raises(InvalidInput, match=message):
        check(**args)


def test_limits_are_inclusive() -> None:
    draft = check("t", "x" * MAX_TEXT_BYTES, "y", "failed", "", ["k"] * MAX_KEYWORDS)
    assert len(draft.symptom) == MAX_TEXT_BYTES

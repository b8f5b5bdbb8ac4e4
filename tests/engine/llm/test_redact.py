"""The redaction pass: every kind of secret is replaced, and near-misses are left alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.llm.redact import KINDS, find, redact

# Built by concatenation so that secret scanners do not flag this file.
GOOGLE = "AIza" + "SyD3xQ7bN1kP9vL2mR5tW8yZ0aC4eG6iJ1o"
OPENAI = "sk-" + "proj-" + "Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh"
OPENAI_OLD = "sk-" + "a" * 20 + "T3BlbkFJ" + "b" * 20
ANTHROPIC = "sk-ant-" + "api03-" + "Zx9" * 20 + "-AA"
GITHUB = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0" + "x" * 60
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aumG4S0K3Bh8GbKk4aOoD0xJ3c\n"
    "q1w2e3r4t5y6u7i8o9p0==\n"
    "-----END RSA PRIVATE KEY-----"
)

CASES = [
    (f"my gemini key is {GOOGLE}, thanks", GOOGLE, "google_api_key"),
    (f"OPENAI_API_KEY={OPENAI}", OPENAI, None),  # caught as openai_key or as an assignment
    (f"old style {OPENAI_OLD}.", OPENAI_OLD, "openai_key"),
    (f"claude: {ANTHROPIC}", ANTHROPIC, "anthropic_key"),
    (f"git clone https://{GITHUB}@github.com/x/y", GITHUB, "github_token"),
    (f"token {GITHUB_PAT}", GITHUB_PAT, "github_token"),
    (f"aws_access_key_id = {AWS_ID}", AWS_ID, "aws_access_key"),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "aws_secret_key"),
    (f'"AWS_SECRET_KEY": "{AWS_SECRET}"', AWS_SECRET, "aws_secret_key"),
    (f"SLACK_TOKEN: {SLACK}", SLACK, None),
    (f"slack says {SLACK} ok", SLACK, "slack_token"),
    (f"cookie {JWT} expired", JWT, "jwt"),
    (
        "curl -H 'Authorization: Bearer abcdef0123456789ABCDEF.xyz' https://x",
        "abcdef0123456789ABCDEF.xyz",
        None,
    ),
    ("password=hunter2hunter2", "hunter2hunter2", "password"),
    ("passwd: s3cr3t!!", "s3cr3t!!", "password"),
    ('db = connect(user="a", password="correct horse battery")', "correct horse battery", "password"),
    ("PWD = 'tr0ub4dor&3'", "tr0ub4dor&3", "password"),
    (f"here:\n{PEM}\nend", "MIIEowIBAAKCAQEA1c7", "private_key"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n(rest cut)",
        "b3BlbnNzaC1rZXktdjEAAAA",
        "private_key",
    ),
]


@pytest.mark.parametrize(("text", "secret", "kind"), CASES)
def test_secrets_are_redacted(text: str, secret: str, kind: str | None) -> None:
    out = redact(text)
    assert secret not in out
    assert "[REDACTED:" in out
    if kind is not None:
        assert f"[REDACTED:{kind}]" in out


def test_only_the_secret_is_replaced() -> None:
    assert redact("password=hunter2hunter2 ok") == "password=[REDACTED:password] ok"
    assert redact(f"use {GOOGLE} here") == "use [REDACTED:google_api_key] here"
    assert (
        redact("Authorization: Bearer abcdef0123456789ABCDEF")
        == "Authorization: Bearer [REDACTED:bearer_token]"
    )
    assert redact(f"a {PEM} b") == "a [REDACTED:private_key] b"


def test_several_secrets_in_one_text() -> None:
    text = f"{GOOGLE} and {GITHUB} and password: opensesame and {AWS_ID}"
    out = redact(text)
    for secret in (GOOGLE, GITHUB, "opensesame", AWS_ID):
        assert secret not in out
    assert [f.kind for f in find(text)] == ["google_api_key", "github_token", "password", "aws_access_key"]


NEAR_MISSES = [
    "I use sk-learn and scikit-learn for this task-manager",
    "the risk-assessment-of-the-year-2024 report",  # 'sk-' inside a word
    "AIza is how the key starts, AIzaShort is too short",
    "ghp_short is not a token",
    "AKIA1234 is too short; AKIAIOSFODNN7EXAMPLEXX is too long",
    "xoxb- alone, xox-nothing",
    "eyJhbGciOi.not.a.jwt",
    "The bearer of bad news; Bearer tokens are sent in a header",
    "the password is weak, change your password: now",
    "password reset link; passwd(5) man page; password = None; password=os.environ['PW']",
    "password: ${DB_PASSWORD}; password=<your password>; password: ***",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----",
    "commit 3f2a9c1e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a39 fixed it",
    "uuid 123e4567-e89b-12d3-a456-426614174000 and sha256 " + "ab" * 32,
    "我的密碼是秘密 (no assignment, no key)",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_are_left_alone(text: str) -> None:
    assert redact(text) == text
    assert find(text) == []


def test_every_kind_is_exercised() -> None:
    seen = {kind for text, _, kind in CASES if kind} | {"openai_key", "slack_token", "bearer_token"}
    assert seen == set(KINDS)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_redaction_never_fails_and_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=100, deadline=None)
@given(
    st.text(max_size=80),
    st.sampled_from([GOOGLE, OPENAI, ANTHROPIC, GITHUB, AWS_ID, SLACK, JWT]),
    st.text(max_size=80),
)
def test_a_key_between_spaces_is_always_redacted(before: str, key: str, after: str) -> None:
    assert key not in redact(f"{before} {key} {after}")


def test_a_key_in_use_is_redacted_whatever_its_shape() -> None:
    from engine.llm.keys import Keys

    key = "k3y_unit_test_" + "no_shape_42"
    assert redact(f"echo: {key}") == f"echo: {key}"  # no pattern knows it...
    assert Keys(environ={"GEMINI_API_KEY": key}).get() == key  # ...until it is handed out
    assert redact(f"echo: {key}.") == "echo: [REDACTED:key_in_use]."


def test_the_log_filter_hides_a_key_in_use_in_lines_and_tracebacks(tmp_path: object) -> None:
    import logging
    from pathlib import Path

    from engine.logs import configure, register_secret
    from engine.paths import Paths

    key = "zz-" + "another_odd_key_77"
    register_secret(key)
    folder = Paths(Path(str(tmp_path))).logs_dir
    configure(folder, console_level=None)
    log = logging.getLogger("memtray.test")
    log.warning("the service said: bad key %s", key)
    try:
        raise RuntimeError(f"refused {key}")
    except RuntimeError:
        log.exception("failed")
    for handler in logging.getLogger("memtray").handlers:
        handler.flush()
    text = Paths(Path(str(tmp_path))).log_file.read_text()  # the file the app names in its first line
    assert "bad key [REDACTED:key_in_use]" in text and "RuntimeError: refused [REDACTED:key_in_use]" in text
    assert key not in text
    configure(folder, console_level=None)  # leave a fresh handler for other tests


def test_short_values_are_not_registered() -> None:
    from engine.logs import hide_secrets, register_secret

    register_secret("abc")
    assert hide_secrets("abc abc") == "abc abc"

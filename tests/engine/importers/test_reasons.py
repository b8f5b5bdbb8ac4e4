"""Every reason an importer counts a skipped record by is a constant of engine/importers/reasons.py, so
the lists that read those constants (the desktop's translations) know every reason there is."""

from __future__ import annotations

import ast
from pathlib import Path

from engine.importers import claude_code, codex, reasons
from tests.engine.transcriptdata import claude_code_lines, codex_legacy_lines, codex_lines, write_jsonl

IMPORTERS = Path(reasons.__file__).parent
COUNTING = ("skip", "broken", "BadTime")
"""The calls that take a reason first: ``Tally.skip``, ``Tally.broken``, ``BadTime``."""


def _is_constant(node: ast.expr) -> bool:
    """``reasons.NAME`` of a reason that exists."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "reasons"
        and getattr(reasons, node.attr, None) in (*reasons.REASONS, *reasons.TEMPLATES)
    )


def written_reasons() -> list[tuple[str, int, str]]:
    """Each reason given to a counting call in the importers' source: (file, line, how it is written).

    The counting calls take it first; ``report.with_skipped({reason: n})`` and ``skipped={reason: n}``
    take it as a key."""
    found = []
    for path in sorted(IMPORTERS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in COUNTING and node.args:
                found.append((path.name, node.lineno, ast.unparse(node.args[0])))
            counts = [*node.args[:1]] if name == "with_skipped" else []
            counts += [k.value for k in node.keywords if k.arg == "skipped"]
            for value in counts:
                if isinstance(value, ast.Dict):
                    found += [(path.name, node.lineno, ast.unparse(k)) for k in value.keys if k is not None]
    return found


def test_the_importers_count_only_by_the_listed_reasons() -> None:
    written = written_reasons()
    assert len(written) > 60  # the reader really read the importers
    assert ("watch.py", "reasons.WATCHED_FOLDER_MISSING") in {(w, t) for w, _, t in written}  # keys too
    wrong = []
    for where, line, text in written:
        node = ast.parse(text, mode="eval").body
        if _is_constant(node):
            continue
        if (  # reasons.fill(reasons.TEMPLATE, value)
            isinstance(node, ast.Call)
            and ast.unparse(node.func) == "reasons.fill"
            and _is_constant(node.args[0])
            and getattr(reasons, node.args[0].attr) in reasons.TEMPLATES  # type: ignore[attr-defined]
        ):
            continue
        if text in ("str(exc)", "reason"):  # a BadTime's own reason; a loop over listed reasons
            continue
        wrong.append(f"{where}:{line}: {text}")
    assert not wrong, "count by a constant of engine/importers/reasons.py:\n" + "\n".join(wrong)


def test_the_lists_hold_every_constant_and_tell_templates_apart() -> None:
    constants = {v for k, v in vars(reasons).items() if k.isupper() and isinstance(v, str)}
    assert constants == {*reasons.REASONS, *reasons.TEMPLATES}
    assert len(reasons.REASONS) == len(set(reasons.REASONS))
    assert all("{value}" in t for t in reasons.TEMPLATES) and not any("{" in r for r in reasons.REASONS)
    assert reasons.template_of("user message") == (reasons.ROLE_MESSAGE, "user")
    assert reasons.template_of("non-text message (code)") == (reasons.NON_TEXT_MESSAGE, "code")
    assert reasons.template_of(reasons.BROKEN_MESSAGE) is None  # listed as it is, not "broken" + " message"
    assert reasons.template_of("something else") is None
    assert reasons.fill(reasons.TOO_LONG, "1,000") == "message longer than 1,000 characters"


def test_what_real_transcripts_skip_is_listed(tmp_path: Path) -> None:
    claude = write_jsonl(tmp_path / "cc" / "s.jsonl", claude_code_lines())
    new = write_jsonl(tmp_path / "codex" / "rollout-2025-01-01T00-00-00-new.jsonl", codex_lines())
    old = write_jsonl(tmp_path / "legacy" / "rollout-2025-01-01T00-00-00-old.jsonl", codex_legacy_lines())
    skipped: dict[str, int] = {}
    for result in (claude_code.read(claude), codex.read(new), codex.read(old)):
        for session in result.sessions:
            skipped.update(session.skipped)
        skipped.update(result.skipped)
    assert len(skipped) >= 10, skipped
    unknown = [r for r in skipped if r not in reasons.REASONS and reasons.template_of(r) is None]
    assert not unknown, unknown

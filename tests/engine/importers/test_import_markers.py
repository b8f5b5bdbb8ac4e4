"""ChatGPT's citation and entity markers (U+E200–U+E206, 【…†…】, pasted forms) rendered or removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.importers import chatgpt
from engine.importers.chatgpt_markers import clean, untrack
from tests.engine.exportdata import T0, gpt_conversation, gpt_message, write_json

CITE = "\ue200cite\ue202turn0search1\ue201"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (f"Go on Tuesday.{CITE}", "Go on Tuesday."),
        ("Two sources.\ue200cite\ue202turn0search0\ue202turn0news3\ue201", "Two sources."),
        ("See the file.\ue200filecite\ue202turn0file0\ue202L8-L13\ue201", "See the file."),
        ('Visit \ue200entity\ue202["city","Lisbon","capital of Portugal"]\ue201 in May.', "Visit Lisbon in May."),
        ("Open \ue200link_title\ue202Open Site\ue202search1\ue201 now", "Open Open Site now"),
        ("Read \ue200url\ue202the docs\ue202https://example.org/a?utm_source=chatgpt.com\ue201.",
         "Read [the docs](https://example.org/a)."),
        ("Read \ue200url\ue202the docs\ue202file://x\ue201.", "Read the docs."),
        ("\ue200navlist\ue202News\ue202Headline\ue202turn0news14\ue202turn0news15\ue201Done", "Done"),
        ('\ue200image_group\ue202{"query":["x"]}\ue201Pictures', "Pictures"),
        ("\ue203A model optimized for speed.\ue204 \ue200cite\ue202turn0search3\ue201", "A model optimized for speed. "),
        ("Older anchor\ue202turn0search0 form", "Older anchor form"),
        ("Unterminated \ue200cite\ue202turn0search0 group", "Unterminated  group"),
        ("The hours are 9–5【4:0†source】.", "The hours are 9–5."),
        ("Lines【12†L3-L5】 here", "Lines here"),
        ("Pasted.citeturn0search0turn0search1 text", "Pasted. text"),
        ("Pasted iturn0image0turn0image1 pictures", "Pasted  pictures"),
        ("Copied:contentReference[oaicite:2]{index=2} text", "Copied text"),
        ("Plain text with 【brackets】 and turn 5 stays", "Plain text with 【brackets】 and turn 5 stays"),
    ],
)  # fmt: skip
def test_markers(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_content_references_render_their_alt_or_a_link() -> None:
    metadata = {
        "content_references": [
            {"matched_text": CITE, "alt": "([example.org](https://example.org/?utm_source=chatgpt.com))"},
            {"matched_text": "\ue200cite\ue202turn0search2\ue201", "alt": "",
             "items": [{"title": "Hours", "url": "https://example.org/hours", "attribution": "example.org"}]},
            {"matched_text": " ", "alt": "must never replace ordinary text"},
        ]
    }  # fmt: skip
    text = f"Go on Tuesday.{CITE} Open at 9.\ue200cite\ue202turn0search2\ue201"

    assert clean(text, metadata) == (
        "Go on Tuesday.([example.org](https://example.org/)) Open at 9. ([Hours](https://example.org/hours))"
    )


def test_untrack_keeps_other_query_parameters() -> None:
    assert untrack("https://e.org/p?a=1&utm_source=chatgpt.com&b=2") == "https://e.org/p?a=1&b=2"
    assert untrack("https://e.org/p?utm_source=news") == "https://e.org/p?utm_source=news"


def test_markers_are_cleaned_on_import(tmp_path: Path) -> None:
    reply = gpt_message("assistant", [f"Go on Tuesday.{CITE}"], T0 + 1, content_references=[{
        "matched_text": CITE, "type": "grouped_webpages", "alt": "([example.org](https://example.org/))",
        "items": [{"title": "Hours", "url": "https://example.org/", "attribution": "example.org"}]}])  # fmt: skip
    conversation = gpt_conversation(
        "c-cite",
        [("root", None, None), ("n1", "root", gpt_message("user", ["Which day?"], T0)), ("n2", "n1", reply)],
        "n2",
    )

    [session] = chatgpt.read(write_json(tmp_path / "conversations.json", [conversation]), None).sessions

    assert [m.content for m in session.messages] == [
        "Which day?",
        "Go on Tuesday.([example.org](https://example.org/))",
    ]

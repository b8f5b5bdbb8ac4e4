"""A segment's JSON in slices: the same bytes as one ``json.dumps``, the same value as one ``json.loads``,
whatever the texts hold; odd layouts are read the plain way, and broken text is still an error."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.sync import jsonslices

PAD = " " * (70 * 1024)  # past the size where reading in slices starts


def segment(count: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    tricky = ['"messages":[', "],[", "\\", '"', "上個月", "\ud800", "\n", "😀"]
    rows = [
        [
            f"gid-{i:08d}",
            f"s-{i // 7}",
            "user",
            "".join(rng.choice(tricky) for _ in range(rng.randint(0, 30))),
            i,
            "",
        ]
        for i in range(count)
    ]
    return {
        "format": "memtray-sync-segment",
        "version": 1,
        "schema": "m014_forget_records",
        "device": "0123456789abcdef",
        "seq": 3,
        "written_at": 5,
        "messages": rows,
        "titles": {"messages": '"messages":[1]'},
        "changes": [{"kind": "forget", "session": "s-1", "keys": ["k"], "gids": []}],
        "errors": [],
    }


@pytest.mark.parametrize("count", [0, 1, jsonslices.ROWS_PER_SLICE, jsonslices.ROWS_PER_SLICE + 1, 5_003])
def test_the_same_bytes_and_the_same_value_as_one_call(count: int) -> None:
    data = segment(count, seed=count)
    text = jsonslices.dumps(data)
    assert text == json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert jsonslices.loads(text) == json.loads(text) == data


@pytest.mark.parametrize(
    "text",
    [
        '{"schema":"\\"messages\\":[1,2]","messages":[[1],[2]]}' + PAD,  # the opening inside a string first
        '{"a":{"messages":[1,2]},"messages":[[1],[2]]}' + PAD,  # nested first
        '{"messages":[[1], [2]] , "b": 2}' + PAD,  # not compact
        '{"messages":[]}' + PAD,
        '[{"messages":[[1]]}]' + PAD,  # not an object
    ],
)
def test_other_layouts_are_read_the_plain_way(text: str) -> None:
    assert jsonslices.loads(text) == json.loads(text)


@pytest.mark.parametrize(
    "text", ['{"messages":[[1],[2]' + PAD, '{"messages":[[1],[2]],' + PAD, '{"messages":[[1],[2' + PAD]
)
def test_broken_text_is_an_error(text: str) -> None:
    with pytest.raises(ValueError):
        jsonslices.loads(text)

"""Token ids line by line: what a tokenizer's baseline pins."""

from __future__ import annotations

import json

import pytest

from cws_bench.regression.tokens import (
    TokenIds,
    compare_token_ids,
    record_token_ids,
)
from cws_bench.segmenters import get_segmenter


def test_ids_survive_json_and_an_edit_is_refused():
    ids = TokenIds(((5, 6), (), (7,)))
    again = TokenIds.from_dict(json.loads(json.dumps(ids.to_dict())))
    assert again == ids and again.checksum == ids.checksum and again.tokens == 3
    edited = ids.to_dict()
    edited["lines"][2] = [8]
    with pytest.raises(ValueError, match="edited or cut short"):
        TokenIds.from_dict(edited)
    with pytest.raises(ValueError, match="whole numbers"):
        TokenIds.from_dict({"lines": [["5"]], "checksum": ids.checksum})


def test_changed_lines_are_counted_and_shown():
    old = TokenIds(((1, 2), (3,), (4,)))
    new = TokenIds(((1, 2), (3, 9), (5,)))
    change = compare_token_ids(old, new, examples=1)
    assert (change.lines, change.changed) == (3, 2)
    assert change.examples == ((2, (3,), (3, 9)),)
    assert change.to_dict()["examples"] == [{"line": 2, "old": [3], "new": [3, 9]}]
    with pytest.raises(ValueError, match="not the same corpus"):
        compare_token_ids(old, TokenIds(((1, 2),)))


def test_a_real_vocabulary_gives_ids_and_a_word_segmenter_none():
    pytest.importorskip("tiktoken", reason="tiktoken is not installed (the subword extra)")
    lines = ["今天上午", "", "北京市"]
    ids = record_token_ids(get_segmenter("tokenizer-cl100k"), lines)
    assert ids is not None
    assert ids.lines[1] == () and len(ids.lines) == 3
    # cl100k: 今 天 上 午 are one token each (see tests/segmenters/test_llm_tokenizers.py).
    assert len(ids.lines[0]) == 4
    assert record_token_ids(get_segmenter("fmm", words=["北京"]), lines) is None

"""score_sentences refuses strings where it expects lists of words."""

from __future__ import annotations

import pytest

from cws_bench.scoring import score_sentences


def test_a_sentence_given_as_a_string_is_a_type_error():
    # Read character by character, "结婚 的" would score a recall of 1.0 against "结 婚 的".
    with pytest.raises(TypeError, match=r"gold sentence 1 is a str \('结婚 的'\): split it first"):
        score_sentences(["结婚 的"], [["结", "婚", "的"]])
    with pytest.raises(TypeError, match="pred sentence 2 is a str"):
        score_sentences([["结婚", "的"], ["好"]], [["结婚", "的"], "好"])


def test_the_whole_side_given_as_a_string_is_a_type_error():
    with pytest.raises(TypeError, match="takes gold as a list of sentences"):
        score_sentences("结婚 的", [["结婚", "的"]])


def test_split_lines_score_as_the_documented_fix_says():
    result = score_sentences(
        [line.split() for line in ["结婚 的"]], [line.split() for line in ["结 婚 的"]]
    )
    assert (result.recall, result.precision) == (0.5, 1 / 3)
    assert score_sentences([("结婚", "的")], [("结婚", "的")]).f1 == 1.0  # tuples are fine

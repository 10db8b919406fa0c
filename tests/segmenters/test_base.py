"""Tests of cws_bench/segmenters/base.py: the protocol and the lossless-join check."""

from __future__ import annotations

from pathlib import Path

import pytest

from cws_bench.errors import CwsBenchError, SegmenterError
from cws_bench.segmenters.base import (
    Segmenter,
    SegmenterOutputError,
    TrainingData,
    check_segmentation,
    plain_options,
)


class Scripted(Segmenter):
    """Returns what a function of the batch returns, and records what it was given."""

    name = "scripted"
    kind = "dictionary"

    def __init__(self, function) -> None:
        super().__init__()
        self.function = function
        self.batches: list[list[str]] = []

    def _segment(self, lines: list[str]) -> list[list[str]]:
        self.batches.append(list(lines))
        return self.function(lines)


def characters(lines: list[str]) -> list[list[str]]:
    return [[c for c in line] for line in lines]


# ---------------------------------------------------------------------------
# what passes, and how it is cleaned


@pytest.mark.parametrize(
    ("line", "words", "expected"),
    [
        ("结婚的和尚", ["结婚", "的", "和尚"], ["结婚", "的", "和尚"]),
        # jieba returns the spaces as tokens: whitespace-only tokens are dropped
        (
            "他说 Hello World 了",
            ["他", "说", " ", "Hello", " ", "World", " ", "了"],
            ["他", "说", "Hello", "World", "了"],
        ),
        # the ideographic space and a tab are whitespace too
        ("我们\u3000是\t学生", ["我们", "\u3000", "是", "\t", "学生"], ["我们", "是", "学生"]),
        # the segmenter may leave the whitespace out altogether
        ("  我们  是 ", ["我们", "是"], ["我们", "是"]),
        # empty tokens are dropped
        ("我们", ["", "我们", ""], ["我们"]),
        # a tuple or a generator of words is fine
        ("我们是", ("我们", "是"), ["我们", "是"]),
    ],
)
def test_accepted_outputs(line, words, expected):
    assert check_segmentation("demo", [line], [words]) == [expected]


def test_generator_of_words_is_accepted():
    assert check_segmentation("demo", ["我们是"], [(w for w in ["我们", "是"])]) == [["我们", "是"]]


@pytest.mark.parametrize(
    ("line", "words", "detail"),
    [
        # a dropped character
        ("他说了", ["他", "说"], "at character 3, input '他说了', words give '他说'"),
        # a normalised character (full-width digit to ASCII)
        ("１９９８年", ["1998", "年"], "at character 1"),
        # a word holding whitespace
        ("New York 很大", ["New York", "很", "大"], "word 'New York' contains whitespace"),
        ("很大", ["很 ", "大"], "word '很 ' contains whitespace"),
        # an added character
        ("我们", ["我们", "。"], "at character 3"),
    ],
)
def test_rejected_outputs_name_the_adapter_and_line(line, words, detail):
    with pytest.raises(SegmenterOutputError) as caught:
        check_segmentation("demo", ["好", line], [["好"], words])
    error = caught.value
    assert error.segmenter == "demo"
    assert error.index == 1
    assert str(error).startswith("segmenter demo: line 2 of the batch: ")
    if detail is not None:
        assert detail in error.detail


def test_a_word_across_the_inputs_space_is_accepted():
    # "他说OK" joined equals the line without whitespace: accepted by design, because
    # whitespace is a boundary the segmenter may ignore; it is dropped from the output.
    assert check_segmentation("demo", ["他说 OK"], [["他说OK"]]) == [["他说OK"]]


def test_a_different_number_of_lines_is_an_error():
    with pytest.raises(SegmenterError, match="returned 1 segmented line for a batch of 2"):
        check_segmentation("demo", ["我", "你"], [["我"]])


def test_non_string_words_and_a_string_instead_of_words():
    with pytest.raises(SegmenterOutputError, match="returned a int where a word"):
        check_segmentation("demo", ["我们"], [["我", 1]])
    with pytest.raises(SegmenterOutputError, match="returned a string where a list"):
        check_segmentation("demo", ["我们"], ["我们"])


# ---------------------------------------------------------------------------
# Segmenter.segment


def test_blank_lines_are_not_sent_and_come_back_empty():
    segmenter = Scripted(characters)
    assert segmenter.segment(["我们", "", "  \u3000", "是"]) == [["我", "们"], [], [], ["是"]]
    assert segmenter.batches == [["我们", "是"]]
    assert segmenter.segment(["", " "]) == [[], []]
    assert segmenter.batches[-1] == ["我们", "是"]  # nothing was sent


def test_error_index_refers_to_the_callers_batch_when_blank_lines_were_skipped():
    segmenter = Scripted(lambda lines: [[line[:1]] for line in lines])
    with pytest.raises(SegmenterOutputError) as caught:
        segmenter.segment(["", "", "我", "我们"])
    assert caught.value.index == 3
    assert "line 4 of the batch" in str(caught.value)


def test_a_crashing_library_becomes_a_segmenter_error():
    def crash(lines):
        raise ZeroDivisionError("division by zero")

    with pytest.raises(SegmenterError, match="failed on a batch of 1 line: ZeroDivisionError"):
        Scripted(crash).segment(["我们"])


def test_a_cws_bench_error_passes_through():
    def refuse(lines):
        raise CwsBenchError("no model")

    with pytest.raises(CwsBenchError, match=r"^no model$"):
        Scripted(refuse).segment(["我们"])


def test_segment_takes_a_list_not_a_string():
    with pytest.raises(TypeError):
        Scripted(characters).segment("我们")


def test_overriding_segment_is_refused():
    with pytest.raises(TypeError, match="implement _segment"):

        class Sneaky(Segmenter):  # pragma: no cover - the class statement itself fails
            def segment(self, lines):
                return lines

            def _segment(self, lines):
                return lines


def test_not_trainable_by_default():
    segmenter = Scripted(characters)
    assert not segmenter.trainable
    with pytest.raises(SegmenterError, match="cannot be trained"):
        segmenter.train([["我们"]])
    with pytest.raises(SegmenterError, match="no model to save"):
        segmenter.save("x")


def test_metadata_is_json_safe():
    import json

    segmenter = Scripted(characters)
    segmenter.trained_on = TrainingData("pd1998:train", "pd1998", "train", "ab", 3)
    data = segmenter.metadata()
    assert json.loads(json.dumps(data)) == data
    assert data["kind"] == "dictionary"
    assert data["trained_on"]["corpus"] == "pd1998"


# ---------------------------------------------------------------------------
# TrainingData and options


def test_training_data_round_trip_and_overlap():
    data = TrainingData("pd1998:train", "pd1998", "train", "abcd", 10)
    assert TrainingData.from_dict(data.to_dict() | {"future": 1}) == data
    assert data.overlaps("pd1998", "train")
    assert not data.overlaps("pd1998", "test")
    assert not data.overlaps("sighan2005-pku", "train")
    assert data.overlaps("my-copy", "test", checksum="abcd")
    assert not TrainingData("a word list").overlaps("pd1998", "train")


def test_plain_options():
    assert plain_options({"path": Path("a/b"), "x": None, "pair": (1, 2)}) == {
        "path": "a/b",
        "pair": [1, 2],
    }

"""Tests of cws_bench/segmenters/as_tokenizers.py: text to tokens by name, and text-level
generation scores."""

from __future__ import annotations

import dataclasses

import pytest

from cws_bench.errors import CwsBenchError
from cws_bench.segmenters.as_tokenizers import (
    Tokenizer,
    compare_tokenizers,
    generation_scores,
    get_tokenizer,
)


class FakeSegmenter:
    """A stand-in with the segmenter interface: splits after every '的'."""

    name = "split-after-de"
    version = "1"

    def segment(self, lines):
        out = []
        for line in lines:
            words, word = [], ""
            for char in line:
                word += char
                if char == "的":
                    words.append(word)
                    word = ""
            out.append([*words, word] if word else words)
        return out


def test_builtin_and_callable_tokenizers():
    assert get_tokenizer("char")(["猫 吃鱼"]) == [["猫", "吃", "鱼"]]
    assert get_tokenizer("space")(["猫 吃鱼"]) == [["猫", "吃鱼"]]
    assert get_tokenizer("space")(["猫 吃\u3000鱼"]) == [["猫", "吃", "鱼"]]  # U+3000 too
    upper = get_tokenizer(lambda text: text.upper().split())
    assert upper(["a b"]) == [["A", "B"]]
    with pytest.raises(ValueError, match="not one string"):
        get_tokenizer("char")("猫")


def test_a_segmenter_object_is_a_batch_tokenizer():
    tokenizer = get_tokenizer(FakeSegmenter())
    assert tokenizer.signature == "split-after-de-1"
    # whitespace the segmenter keeps is not a token
    assert tokenizer(["我的 猫的鱼"]) == [["我的", "猫的", "鱼"]]
    scores = generation_scores(["我的猫的鱼"], [["我的猫的鱼"]], tokenizer=FakeSegmenter())
    assert scores.tokenizer == "split-after-de-1"
    assert scores.exact_match == 1.0


def test_the_tokenizer_changes_the_scores():
    predictions = ["我们 在 北京大学 学习"]
    references = [["我们 在 北京 大学 学习"]]
    table = compare_tokenizers(predictions, references, tokenizers=["char", "space"])
    by_name = {row.tokenizer: row for row in table.rows}
    assert by_name["char"].f1 == 1.0
    assert by_name["space"].f1 == 2 * 3 / (4 + 5)
    frame = table.to_frame()
    assert list(frame.index) == ["char", "space"]
    assert frame.loc["space", "items"] == 1


def test_multi_reference_texts():
    scores = generation_scores(["猫吃鱼"], [["狗叫", "猫吃鱼"]], metrics=["em"])
    assert scores.exact_match == 1.0 and scores.references == 2
    with pytest.raises(ValueError, match="wrap a single reference"):
        generation_scores(["猫吃鱼"], ["猫吃鱼"])


def _registry_segmenter(name: str):
    """Build a registered segmenter, or skip while the registry or its adapter is missing."""
    try:
        from cws_bench.segmenters import get_segmenter
    except ImportError as e:
        pytest.skip(f"the segmenter registry is not importable yet: {e}")
    try:
        return get_segmenter(name)
    except ImportError as e:
        pytest.skip(f"the {name} adapter is not in the registry yet: {e}")


def test_a_segmenter_by_name():
    segmenter = _registry_segmenter("jieba")
    tokenizer = get_tokenizer("jieba")
    assert isinstance(tokenizer, Tokenizer)
    assert tokenizer.name == "jieba"
    assert tokenizer.version == segmenter.version
    lines = ["我们在北京大学学习", "猫吃鱼"]
    assert tokenizer(lines) == segmenter.segment(lines)
    scores = generation_scores(lines, [[line] for line in lines], tokenizer="jieba")
    assert scores.exact_match == 1.0 and scores.f1 == 1.0
    assert scores.tokenizer.startswith("jieba-")


def test_default_tokenizers_are_the_buildable_segmenters(monkeypatch):
    """char and space, then each installed segmenter that builds without options.

    The registry is cut down to three entries (building every segmenter took
    half a minute): one that builds, one that needs a word list, one not installed.
    """
    import cws_bench.segmenters as segmenters

    _registry_segmenter("jieba")
    wanted = {"jieba", "fmm"}
    infos = [info for info in segmenters.list_segmenters() if info.name in wanted]
    missing = dataclasses.replace(infos[0], name="not-here", available=False, install="pip x")
    monkeypatch.setattr(segmenters, "list_segmenters", lambda: [*infos, missing])
    table = compare_tokenizers(
        ["我们在北京大学学习"], [["我们 在 北京 大学 学习"]], metrics=["em", "f1"]
    )
    names = [row.tokenizer.rsplit("-", 1)[0] for row in table.rows]
    assert names == ["char", "space", "jieba"]
    # fmm needs a word list: skipped, with the reason; not-here is not installed
    assert "dictionary" in table.skipped["fmm"]
    assert table.skipped["not-here"] == "not installed (pip x)"
    by_name = dict(zip(names, table.rows))
    assert by_name["char"].f1 == 1.0
    assert by_name["space"].f1 == 0.0  # one unsegmented "word" against five
    assert 0.0 <= by_name["jieba"].f1 <= 1.0


def test_an_unknown_segmenter_is_a_clear_error():
    _registry_segmenter("jieba")
    with pytest.raises(CwsBenchError, match="no-such-segmenter"):
        get_tokenizer("no-such-segmenter")


def test_characters_of_a_stuttering_answer():
    corpus = generation_scores(["猫猫猫吃鱼鱼鱼"], [["猫 吃鱼"]], tokenizer="char", metrics=["f1"])
    assert (corpus.precision, corpus.recall, corpus.f1) == (3 / 7, 1.0, 0.6)


def test_the_newer_metrics_through_text():
    """Pooled ROUGE, ROUGE-W/S/SU, rougeLsum and weighted scores reach the text level."""
    from cws_bench.metrics.generation import rouge_lsum, rouge_n, weighted_token_f1

    best = generation_scores(["猫吃鱼"], [["猫吃鱼", "狗叫"]], metrics=["rouge"])
    pooled = generation_scores(
        ["猫吃鱼"], [["猫吃鱼", "狗叫"]], metrics=["rouge"], multi_reference="pooled"
    )
    assert best.rouge1 == 1.0
    refs = [list("猫吃鱼"), list("狗叫")]
    assert pooled.rouge1 == rouge_n(list("猫吃鱼"), refs, multi_reference="pooled").fscore
    scores = generation_scores(
        ["猫吃鱼。狗叫"],
        [["猫吃了鱼。狗在叫"]],
        metrics=["rouge-w", "rouge-s", "rouge-su", "rouge-lsum", "weighted"],
        weights={"猫": 2.0},
    )
    lsum = rouge_lsum(
        [list("猫吃鱼。"), list("狗叫")], [[list("猫吃了鱼。"), list("狗在叫")]]
    ).fscore
    assert scores.rougeLsum == lsum
    assert scores.weighted_f1 == weighted_token_f1(
        list("猫吃鱼。狗叫"), [list("猫吃了鱼。狗在叫")], weights={"猫": 2.0}
    )
    assert {"rougeW", "rougeS", "rougeSU"} <= set(scores.to_dict())
    assert "rougeW" not in best.to_dict()  # newer metrics only when asked for
    with pytest.raises(ValueError, match="need weights"):
        generation_scores(["猫"], [["猫"]], metrics=["weighted"])

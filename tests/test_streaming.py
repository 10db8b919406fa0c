"""The streaming metric equals score_sentences however the data is batched or merged."""

from __future__ import annotations

import pickle
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench import score_sentences
from cws_bench.errors import CwsBenchError, LineCountMismatchError
from cws_bench.scoring.streaming import SegmentationMetric

CHARS = "结婚的和尚未都应该好好考虑一下人生大事ab1"
words = st.text(alphabet=CHARS, min_size=1, max_size=4)
sentence = st.lists(words, min_size=0, max_size=6)


@st.composite
def pairs_and_cuts(draw: st.DrawFn) -> tuple[list[list[str]], list[list[str]], list[int]]:
    """Gold and predicted sentences (mostly the same text, sometimes not) and batch cuts."""
    gold = draw(st.lists(sentence, min_size=0, max_size=12))
    pred = []
    for words_ in gold:
        text = "".join(words_)
        if len(text) > 1 and draw(st.booleans()):
            cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=len(text) - 1)))
            bounds = [0, *cuts, len(text)]
            pred.append([text[a:b] for a, b in pairwise(bounds)])
        else:
            pred.append(draw(sentence))
    cuts = sorted(draw(st.sets(st.integers(0, len(gold)), max_size=5)))
    return gold, pred, cuts


def batches(items: list, cuts: list[int]) -> list[list]:
    bounds = [0, *cuts, len(items)]
    return [items[a:b] for a, b in pairwise(bounds)]


def same_result(streamed, whole, *, same_gold_checksum: bool = True) -> None:
    assert streamed.counts == whole.counts
    assert streamed.sighan == whole.sighan
    assert streamed.to_dict() | {"signature": None} == whole.to_dict() | {"signature": None}
    assert streamed.warnings == whole.warnings
    assert streamed.mismatches == whole.mismatches
    if same_gold_checksum:
        assert streamed.signature == whole.signature
    else:
        assert streamed.signature.gold is None
        assert streamed.signature.dictionary == whole.signature.dictionary


DICTIONARY = {"结婚", "的", "和", "尚未", "都", "应该", "人生", "大事"}


@settings(max_examples=150, deadline=None)
@given(data=pairs_and_cuts(), method=st.sampled_from(["interval", "sighan"]))
def test_any_batching_equals_score_sentences(data, method) -> None:
    gold, pred, cuts = data
    metric = SegmentationMetric(dictionary=DICTIONARY, method=method)
    for g, p in zip(batches(gold, cuts), batches(pred, cuts)):
        metric.add_batch(predictions=p, references=g)
    whole = score_sentences(gold, pred, dictionary=DICTIONARY, method=method)
    same_result(metric.compute(), whole)
    assert metric.sentences_seen == len(gold)


@settings(max_examples=100, deadline=None)
@given(data=pairs_and_cuts(), method=st.sampled_from(["interval", "sighan"]))
def test_merged_parts_equal_the_whole(data, method) -> None:
    """One metric per batch (as in several processes), pickled and merged in order."""
    gold, pred, cuts = data
    parts = []
    for g, p in zip(batches(gold, cuts), batches(pred, cuts)):
        part = SegmentationMetric(dictionary=DICTIONARY, method=method)
        part.add_batch(predictions=p, references=g)
        parts.append(pickle.loads(pickle.dumps(part)))
    total = SegmentationMetric(dictionary=DICTIONARY, method=method)
    for part in parts:
        total += part
    whole = score_sentences(gold, pred, dictionary=DICTIONARY, method=method)
    same_result(total.compute(), whole, same_gold_checksum=False)


def test_strings_are_words_separated_by_whitespace() -> None:
    metric = SegmentationMetric()
    metric.add_batch(predictions=["结婚  的\u3000和尚"], references=[["结婚", "的", "和", "尚"]])
    result = metric.compute()
    # 结婚 and 的 are right, 和尚 is one gold word split: P 2/3, R 2/4.
    assert (result.counts.correct, result.counts.pred, result.counts.gold) == (2, 3, 4)


def test_the_worked_example_of_the_literature() -> None:
    gold = "结婚 的 和 尚未 结婚 的 都 应该 好好 考虑 一下 人生 大事"
    pred = "结婚 的 和尚 未结婚 的 都 应该 好好考虑 一下 人生大事"
    words = {"结婚", "尚未", "的", "和", "青年", "都", "应该", "好好考虑", "自己", "人生", "大事"}
    metric = SegmentationMetric(dictionary=words)
    metric.add(prediction=pred, reference=gold)
    r = metric.compute()
    scores = (r.precision, r.recall, r.f1, r.oov_recall, r.iv_recall)
    assert [round(100 * x, 2) for x in scores] == [60.0, 46.15, 52.17, 33.33, 50.0]


@pytest.mark.parametrize(
    ("predictions", "references", "message"),
    [
        ("结婚 的", ["结婚 的"], "predictions is one string"),
        (["结婚 的"], "结婚 的", "references is one string"),
        ([["结婚", 1]], [["结婚"]], r"predictions\[0\] is a list"),
        ([None], [["结婚"]], r"predictions\[0\] is a NoneType"),
        (5, [["结婚"]], "must be a sequence of sentences"),
    ],
)
def test_wrong_shapes_are_type_errors(predictions, references, message) -> None:
    with pytest.raises(TypeError, match=message):
        SegmentationMetric().add_batch(predictions=predictions, references=references)


def test_unequal_batches_are_refused_and_change_nothing() -> None:
    metric = SegmentationMetric()
    with pytest.raises(LineCountMismatchError):
        metric.add_batch(predictions=["a", "b"], references=["a"])
    assert metric.sentences_seen == 0
    assert metric.compute().counts.gold == 0


def test_metrics_set_up_differently_do_not_merge() -> None:
    with pytest.raises(CwsBenchError, match="set up differently"):
        SegmentationMetric(method="sighan").merge(SegmentationMetric())
    with pytest.raises(CwsBenchError, match="set up differently"):
        SegmentationMetric(dictionary={"a"}).merge(SegmentationMetric(dictionary={"b"}))


def test_reset_and_compute_twice() -> None:
    metric = SegmentationMetric(normalize="width")
    metric.add(prediction="ＡＢ 的", reference="AB 的")
    first = metric.compute()
    assert metric.compute() == first
    assert first.f1 == 1.0
    metric.reset()
    assert metric.compute().counts.sentences == 0


def test_mismatched_text_warning_keeps_line_numbers_across_batches() -> None:
    metric = SegmentationMetric()
    metric.add_batch(predictions=["结婚 的"], references=["结婚 的"])
    metric.add_batch(predictions=["结 的"], references=["结婚 的"])
    result = metric.compute()
    assert [m.line for m in result.mismatches] == [2]
    assert "1 line holds different characters" in result.warnings[0]


def test_readme_example_runs_as_shown(capsys) -> None:
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "SCORING.md"
    section = page.read_text(encoding="utf-8").split("### In a training or evaluation loop", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    expected = code.rsplit("# ", 1)[1].strip()
    exec(compile(code, "docs/SCORING.md", "exec"), {})
    assert capsys.readouterr().out.strip() == expected

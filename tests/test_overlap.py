"""Test sentences found elsewhere: in the training split, in another corpus' test set."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora.overlap import group_test_sets, normalized_text, sentence_overlap


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_overlap_counts_exact_and_normalised_texts():
    test = [["我们", "是"], ["“ＩＢＭ”", "公司"], ["……"], ["新", "句子"], []]
    train = [["我们是"], ["IBM", "公司", "。"], ["……"], ["旧", "句子"]]
    o = sentence_overlap(test, train)
    # the empty line is no sentence; word boundaries do not matter; "……" is exact
    assert (o.sentences, o.exact, o.normalized) == (4, 2, 3)
    assert normalized_text("Ａ，Ｂ　ｃ") == "ABc"
    # Traditional against Simplified only with the conversion
    assert sentence_overlap(["我們來了"], ["我们来了"]).normalized == 0
    assert sentence_overlap(["我們來了"], ["我们来了"], convert="t2s").normalized == 1


def test_a_normaliser_is_built_once_per_conversion_not_per_sentence(monkeypatch):
    """Building one loads OpenCC's tables: per sentence it was most of a bake-off's time."""
    import cws_bench.text.normalize

    built = []
    original = cws_bench.text.normalize.get_normalizer

    def counting(spec):
        built.append(spec)
        return original(spec)

    monkeypatch.setattr(cws_bench.text.normalize, "get_normalizer", counting)
    test = [f"第{i}句話。" for i in range(50)]
    other = [f"第{i}句话" for i in range(0, 100, 2)]
    for _ in range(2):
        assert sentence_overlap(test, other, convert="t2s").normalized == 25
        assert sentence_overlap(test, other).normalized == 0
        assert group_test_sets({"a": test, "b": other}) == {"a": "a", "b": "b"}
    assert len(built) <= 2, built  # at most once for t2s and once for none


def test_groups_are_closed_and_named_by_their_first_member():
    groups = group_test_sets(
        {"a": ["一二", "三四"], "b": ["五六", "七八"], "c": ["三四", "五六", "一二"]},
        threshold=0.5,
    )
    assert groups == {"a": "a", "b": "b", "c": "a"}
    groups = group_test_sets({"a": ["一二", "三四"], "b": ["一二", "七八"]})
    assert groups == {"a": "a", "b": "b"}  # half is not more than half


def test_corpora_info_reports_test_sentences_in_training_data(tmp_path, monkeypatch):
    # pd1998 from a copy: line n is a test line iff n % 10 == 0; line 20 repeats line 3
    lines = [f"1998010{n % 10}-01-001-{n:03d}/m  句子/n  {n}/m" for n in range(1, 21)]
    lines[19] = lines[2].split("  ", 1)[0].replace("003", "020") + "  " + lines[2].split("  ", 1)[1]
    (tmp_path / "199801.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("CWS_BENCH_PD1998", str(tmp_path))
    result = invoke("corpora", "info", "pd1998", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["overlaps"] == [
        {"with": "pd1998:train", "sentences": 2, "exact": 1, "normalized": 1}
    ]
    text = invoke("corpora", "info", "pd1998")
    assert re.search(r"in pd1998:train +1 \(50\.0%\) exact, 1 \(50\.0%\) after norm", text.stdout)


def test_udc_test_is_mostly_ud_gsdsimp_test(shared_corpora):
    result = invoke(
        "corpora", "info", "udc", "--overlap-with", "ud-zh-gsdsimp",
        "--data-dir", shared_corpora, "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    overlaps = {o["with"]: o for o in json.loads(result.stdout)["overlaps"]}
    assert overlaps["ud-zh-gsdsimp:test"] == {
        "with": "ud-zh-gsdsimp:test",
        "sentences": 500,
        "exact": 1,
        "normalized": 453,
    }
    assert overlaps["udc:train"]["normalized"] == 0

"""Tests of cws_bench/run/comparison.py and ``cws-bench score GOLD PRED1 PRED2 ...``."""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import cws_bench
from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.comparison import compare
from cws_bench.run.config import load_config
from cws_bench.scoring import score_files, score_sentences
from cws_bench.segmenters import get_segmenter
from cws_bench.text.io import iter_lines

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"
DATA = Path(__file__).resolve().parent / "data"

# Three systems of the bake-off below, as (label, adapter, options).
SYSTEMS = [
    ("fmm", "fmm", {"lexicon": str(SAMPLE_DICT)}),
    ("bmm", "bmm", {"lexicon": str(SAMPLE_DICT)}),
    ("jieba", "jieba", {}),
]


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def bakeoff_and_outputs(tmp_path_factory):
    """A bake-off of SYSTEMS on the sample corpus, and each system's output as a file."""
    pytest.importorskip("jieba")
    folder = tmp_path_factory.mktemp("compare")
    segmenters = "".join(
        f"""
        [[segmenters]]
        name = "{adapter}"
        label = "{label}"
        options = {{ {", ".join(f'{k} = "{v}"' for k, v in options.items())} }}
        """
        for label, adapter, options in SYSTEMS
    )
    body = textwrap.dedent(
        f"""
        name = "compare"
        seed = 7
        resamples = 300

        [[corpora]]
        name = "sample"
        split = "test"
        dictionary = "{SAMPLE_DICT}"
        """
    ) + textwrap.dedent(segmenters)
    (folder / "bakeoff.toml").write_text(body, encoding="utf-8")
    config = load_config(folder / "bakeoff.toml")
    result = run_bakeoff(config, output_dir=folder / "out", jobs=1, write=False, use_cache=False)
    raw = list(iter_lines(SAMPLE / "raw.txt"))
    outputs = {}
    for label, adapter, options in SYSTEMS:
        path = folder / f"{label}.txt"
        words = get_segmenter(adapter, **options).segment(raw)
        path.write_text("".join(" ".join(w) + "\n" for w in words), encoding="utf-8")
        outputs[label] = path
    return result, outputs


def test_numbers_equal_a_bakeoffs_on_the_same_outputs_and_seed(bakeoff_and_outputs):
    result, outputs = bakeoff_and_outputs
    report = compare(SAMPLE / "gold.txt", outputs, dictionary=SAMPLE_DICT, seed=7, resamples=300)
    for pair in result.pairs:
        row = report.row(pair.segmenter)
        for key in ("precision", "recall", "f1", "oov_recall", "iv_recall", "correct_words"):
            assert row.result.to_dict()[key] == pair.scores[key], key
        assert row.intervals == pair.intervals
    ours = {(c.a, c.b): c for c in report.comparisons}
    assert len(ours) == len(result.comparisons) == 3
    for theirs in result.comparisons:
        mine = ours[(theirs.a, theirs.b)]
        assert (mine.difference, mine.interval, mine.p_value, mine.significant) == (
            theirs.difference,
            theirs.interval,
            theirs.p_value,
            theirs.significant,
        )
    # The same through the command line (JSON keeps full precision), and with
    # the registered corpus as GOLD.
    out = invoke("score", "sample:test", *outputs.values(), "--dict", SAMPLE_DICT,
                 "--confidence", "--paired", "--seed", 7, "--resamples", 300,
                 "--format", "json")  # fmt: skip
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    by_name = {Path(s["name"]).stem: s for s in data["systems"]}
    for pair in result.pairs:
        assert by_name[pair.segmenter]["intervals"] == {
            k: v.to_dict() for k, v in pair.intervals.items()
        }
    assert sorted(c["p_value"] for c in data["comparisons"]) == sorted(
        c.p_value for c in result.comparisons
    )


def test_sentences_and_files_give_the_same_report(bakeoff_and_outputs, tmp_path):
    _, outputs = bakeoff_and_outputs
    gold = [line.split() for line in iter_lines(SAMPLE / "gold.txt")]
    from_files = compare(SAMPLE / "gold.txt", outputs, resamples=100)
    mixed = {
        "fmm": [line.split() for line in iter_lines(outputs["fmm"])],
        "bmm": outputs["bmm"],
        "jieba": outputs["jieba"],
    }
    from_sentences = cws_bench.compare(gold, mixed, resamples=100)
    assert [r.name for r in from_files.rows] == [r.name for r in from_sentences.rows]
    for a, b in zip(from_files.rows, from_sentences.rows):
        assert a.result.counts == b.result.counts
        assert a.intervals == b.intervals
        assert a.beats == b.beats
    assert [replace(c, corpus="gold") for c in from_files.comparisons] == list(
        from_sentences.comparisons
    )


def test_baseline_tests_every_system_against_it_only(bakeoff_and_outputs):
    _, outputs = bakeoff_and_outputs
    report = compare(SAMPLE / "gold.txt", outputs, baseline="jieba", resamples=200)
    assert {(c.a, c.b) for c in report.comparisons} == {("fmm", "jieba"), ("bmm", "jieba")}
    letters = {row.name: row.letter for row in report.rows}
    for row in report.rows:
        for beaten in row.beats:
            name = next(n for n, letter in letters.items() if letter == beaten)
            assert "jieba" in (row.name, name)
    with pytest.raises(CwsBenchError, match="baseline 'nope' is not one of the systems"):
        compare(SAMPLE / "gold.txt", outputs, baseline="nope")


def test_rows_are_ranked_with_letters_and_beats_from_significant_tests():
    gold = [["结婚", "的", "和", "尚未", "结婚", "的"]] * 30
    good = gold
    bad = [["结婚的", "和尚", "未", "结婚的"]] * 30
    report = compare(gold, {"bad": bad, "good": good}, resamples=200)
    assert [(r.letter, r.name) for r in report.rows] == [("a", "good"), ("b", "bad")]
    assert report.rows[0].beats == ("b",)
    assert report.rows[1].beats == ()
    (test,) = report.comparisons
    assert (test.a, test.b, test.significant) == ("bad", "good", True)
    assert test.difference == pytest.approx(
        score_sentences(gold, bad).f1 - score_sentences(gold, good).f1
    )


def test_without_statistics_only_scores():
    gold = [["我们", "是"]] * 3
    report = compare(gold, {"x": gold}, confidence=False, paired=False)
    assert report.rows[0].intervals == {}
    assert report.comparisons == ()
    with pytest.raises(CwsBenchError, match="scores whole files"):
        compare(gold, {"x": gold}, method="conll18")
    sighan = compare(gold, {"x": gold}, method="sighan", confidence=False, paired=False)
    assert sighan.rows[0].result.sighan is not None


# ---------------------------------------------------------------------------
# Renderings

GOLD = [["结婚", "的", "和", "尚未", "结婚", "的"], ["都", "应该", "好好", "考虑"]] * 10
SYSTEMS_FOR_LATEX = {
    "mine_v2 & co": GOLD,
    "50%_split": [[c for w in s for c in w] for s in GOLD],
    "merged": [["".join(s)] for s in GOLD],
}


def test_latex_is_compile_shaped_and_matches_the_stored_file():
    report = compare(GOLD, SYSTEMS_FOR_LATEX, dictionary={"结婚", "的", "都"}, resamples=200)
    latex = report.to_latex()
    # Balanced environments, escaped specials outside commands.
    begins = re.findall(r"\\begin\{(\w+)\}", latex)
    ends = re.findall(r"\\end\{(\w+)\}", latex)
    assert begins == ["table", "tabular"]
    assert ends == ["tabular", "table"]
    assert latex.count("{") == latex.count("}")
    assert "mine\\_v2 \\& co" in latex
    assert "50\\%\\_split" in latex
    for line in latex.splitlines()[5:-4]:
        if line.startswith(("a ", "b ", "c ")):
            assert line.endswith("\\\\")
            assert line.count(" & ") == 7  # letter, system, R, P, F, F CI, R_oov, R_iv
    expected = (DATA / "compare_expected.tex").read_text(encoding="utf-8")
    assert latex + "\n" == expected


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "markdown", "latex"])
def test_every_format_through_the_cli(write, fmt):
    gold = write("gold.txt", "我们 是 学生\n我们 是\n" * 5)
    a = write("a.txt", "我们 是 学生\n我们 是\n" * 5)
    b = write("b.txt", "我们是 学生\n我们 是\n" * 5)
    result = invoke("score", gold, a, b, "--paired", "--confidence", "--format", fmt)
    assert result.exit_code == 0, result.output
    report = compare(gold, [a, b])
    assert result.stdout == report.render(fmt) + "\n"
    if fmt == "csv":
        rows = result.stdout.splitlines()
        assert rows[0].startswith("system,letter,precision,precision_low,precision_high")
        assert len(rows) == 3


def test_cli_errors_for_options_of_one_prediction(write):
    gold = write("gold.txt", "我们 是\n")
    for extra in (("--format", "sighan"), ("--details", "x.csv"), ("--strict",)):
        result = invoke("score", gold, gold, gold.with_name("gold.txt"), *extra)
        assert result.exit_code == 2
    pred = write("pred.txt", "我们 是\n")
    result = invoke("score", gold, pred, "--format", "sighan", "--paired")
    assert result.exit_code == 2
    assert "one prediction" in result.output


def test_a_single_prediction_still_scores_as_before(write):
    gold = write("gold.txt", "我们 是 学生\n")
    pred = write("pred.txt", "我们 是学生\n")
    data = json.loads(invoke("score", gold, pred, "--format", "json").stdout)
    assert data["f1"] == score_files(gold, pred).f1


def test_output_file_is_written_atomically_with_what_stdout_shows(write, tmp_path):
    gold = write("gold.txt", "我们 是 学生\n")
    pred = write("pred.txt", "我们 是学生\n")
    for args in ((pred,), (pred, gold, "--format", "latex")):
        shown = invoke("score", gold, *args).stdout
        target = tmp_path / "out.txt"
        result = invoke("score", gold, *args, "-o", target)
        assert result.exit_code == 0, result.output
        assert result.stdout == ""
        assert target.read_text("utf-8") == shown
    result = invoke("score", gold, pred, "-o", tmp_path / "no" / "such" / "out.txt")
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert not list((tmp_path).glob(".out.txt.*"))


def test_paired_tests_are_holm_corrected_as_the_bakeoffs():
    """Every two of several systems is many tests; letters use corrected p-values."""
    from cws_bench.metrics.significance import adjust_p_values

    report = compare(GOLD, SYSTEMS_FOR_LATEX, resamples=200)
    raw = [c.p_value for c in report.comparisons]
    assert [c.adjusted_p_value for c in report.comparisons] == list(adjust_p_values(raw))
    assert all(c.significant == (c.adjusted_p_value < 0.05) for c in report.comparisons)
    assert "after Holm–Bonferroni correction" in report.settings()
    plain = compare(GOLD, SYSTEMS_FOR_LATEX, resamples=200, correction="none")
    assert [c.adjusted_p_value for c in plain.comparisons] == raw
    assert "not corrected" in plain.settings()


def test_a_label_that_is_markdown_stays_text_in_the_markdown_table(tmp_path):
    # A prediction file named like a link must not become a live link (or a new cell).
    gold = tmp_path / "gold.txt"
    gold.write_text("结婚 的\n和 尚未\n", encoding="utf-8")
    first = tmp_path / "a.txt"
    first.write_text("结婚 的\n和尚 未\n", encoding="utf-8")
    link = tmp_path / "[x](javascript:1)"
    link.write_text("结 婚 的\n和 尚未\n", encoding="utf-8")
    systems = {"a": first, "[x](javascript:1)": link}
    table = compare(gold, systems, confidence=False, paired=False).to_markdown()
    assert "| \\[x\\](javascript:1) |" in table
    assert "[x](javascript" not in table

"""The paired test, alpha, max-T and the minimum detectable effect, as settings of
``score`` and ``bakeoff`` (issue 44): each checked against the library's functions,
which tests/metrics/ check against scipy, statsmodels and reference loops."""

from __future__ import annotations

import json
import statistics
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.metrics.significance import (
    approximate_randomization_test,
    fscore_statistic,
    maxt_adjusted_p_values,
    minimum_detectable_effect,
    paired_bootstrap_test,
)
from cws_bench.results.model import (
    Comparison,
    Interval,
    PairResult,
    detectable_differences,
    judge_comparisons,
)
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.comparison import bootstrap_statistics
from cws_bench.run.config import load_config
from cws_bench.scoring import score_files
from cws_bench.scoring.per_sentence import sentence_rows
from cws_bench.segmenters import get_segmenter
from cws_bench.text.io import iter_lines

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, Path]:
    """Three real segmentations of the sample corpus: fmm's, bmm's and the stored one."""
    folder = tmp_path_factory.mktemp("outputs")
    raw = list(iter_lines(SAMPLE / "raw.txt"))
    found = {"stored": SAMPLE / "pred.txt"}
    for name in ("fmm", "bmm"):
        words = get_segmenter(name, lexicon=str(SAMPLE_DICT)).segment(raw)
        path = folder / f"{name}.txt"
        path.write_text("".join(" ".join(w) + "\n" for w in words), encoding="utf-8")
        found[name] = path
    return found


def counts_of(path: Path) -> np.ndarray:
    result = score_files(SAMPLE / "gold.txt", path, per_line=True)
    return np.asarray(sentence_rows(result), dtype=np.float64)


# ---------------------------------------------------------------------------
# score --paired --test permutation, --alpha


def test_score_runs_approximate_randomization(outputs):
    a, b = outputs["stored"], outputs["fmm"]
    args = ("score", SAMPLE / "gold.txt", a, b, "--paired", "--test", "permutation")
    result = invoke(*args, "--resamples", 500, "--seed", 3, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["test"] == "permutation" and data["alpha"] == 0.05
    (comparison,) = data["comparisons"]
    first, second = (outputs[name] for name in ("stored", "fmm"))
    expected = approximate_randomization_test(
        counts_of(first), counts_of(second), fscore_statistic(), n_resamples=500, seed=3
    )
    assert comparison["p_value"] == expected.p_value
    assert comparison["difference"] == pytest.approx(expected.difference, abs=1e-15)
    bootstrap = paired_bootstrap_test(
        counts_of(first), counts_of(second), fscore_statistic(), n_resamples=500, seed=3
    )  # the SE of the difference is the bootstrap's, whichever the test
    assert comparison["standard_error"] == bootstrap.standard_error
    assert comparison["mde"] == pytest.approx(minimum_detectable_effect(bootstrap.standard_error))
    assert data["detectable"]["mde"] == comparison["mde"]
    text = invoke(*args, "--resamples", 500, "--seed", 3).stdout
    assert "paired permutation (randomization) tests of F1" in text
    # the number of shuffles and the seed are in the signature
    assert "test:permutation|shuffles:500" in text and "seed:3" in text
    assert "cannot be told apart (alpha 0.05, power 0.8)" in text
    bootstrap = invoke("score", SAMPLE / "gold.txt", a, b, "--paired").stdout
    assert "test:" not in bootstrap and "shuffles:" not in bootstrap  # as before


def test_score_alpha_is_a_setting_checked_up_front(outputs):
    gold, a, b = SAMPLE / "gold.txt", outputs["stored"], outputs["bmm"]
    loose = invoke("score", gold, a, b, "--paired", "--alpha", 0.9, "--format", "json")
    assert loose.exit_code == 0, loose.output
    data = json.loads(loose.stdout)
    (comparison,) = data["comparisons"]
    assert data["alpha"] == 0.9
    assert comparison["significant"] == (comparison["adjusted_p_value"] < 0.9)
    assert comparison["mde"] == pytest.approx(
        minimum_detectable_effect(comparison["standard_error"], alpha=0.9)
    )
    assert "p < 0.9 after" in invoke("score", gold, a, b, "--paired", "--alpha", 0.9).stdout
    for bad in ("0", "1", "1.5", "-0.1", "x"):
        refused = invoke("score", gold, a, b, "--paired", "--alpha", bad)
        assert refused.exit_code == 2
        assert "--alpha" in refused.output and "Traceback" not in refused.output


def test_the_bakeoff_statistics_run_the_chosen_test():
    rng = np.random.default_rng(9)
    gold = rng.integers(2, 30, 60)
    counts = {
        name: np.stack([rng.binomial(gold, p), gold, gold], axis=1)
        for name, p in (("x", 0.9), ("y", 0.85), ("z", 0.8))
    }
    pairs = [("x", "y"), ("x", "z"), ("y", "z")]
    _, tests = bootstrap_statistics(
        "c", counts, pairs, resamples=400, seed=4, test="permutation", alpha=0.01
    )
    for (a, b), comparison in zip(pairs, tests):
        expected = approximate_randomization_test(
            counts[a], counts[b], fscore_statistic(), n_resamples=400, seed=4
        )
        assert comparison.p_value == expected.p_value
        assert comparison.significant == (expected.p_value < 0.01)
        bootstrap = paired_bootstrap_test(
            counts[a], counts[b], fscore_statistic(), n_resamples=400, seed=4
        )
        assert comparison.mde == minimum_detectable_effect(bootstrap.standard_error, alpha=0.01)
        np.testing.assert_array_equal(comparison.null, expected.null)
    with pytest.raises(ValueError, match="test must be one of"):
        bootstrap_statistics("c", counts, pairs, resamples=10, seed=1, test="t")


# ---------------------------------------------------------------------------
# A bake-off with test = "permutation", correction = "maxt", alpha = 0.2

BAKEOFF = f"""
    name = "settings"
    seed = 5
    resamples = 300
    timeout = 300
    test = "permutation"
    correction = "maxt"
    alpha = 0.2

    [[corpora]]
    name = "sample"
    dictionary = "{SAMPLE_DICT}"

    [[segmenters]]
    name = "fmm"
    options = {{ lexicon = "{SAMPLE_DICT}" }}

    [[segmenters]]
    name = "bmm"
    options = {{ lexicon = "{SAMPLE_DICT}" }}

    [[segmenters]]
    name = "file"
    label = "stored"
    options = {{ path = "{SAMPLE / "pred.txt"}" }}
"""


def write(folder: Path, body: str) -> Path:
    path = folder / "bakeoff.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("settings")
    config = load_config(write(folder, BAKEOFF))
    return folder, run_bakeoff(config, output_dir=folder / "out", jobs=1)


def test_the_bakeoff_takes_test_alpha_and_maxt_from_its_toml(run):
    folder, result = run
    assert result.settings["test"] == "permutation" and result.settings["alpha"] == 0.2
    assert len(result.comparisons) == 3
    family = list(result.comparisons)
    adjusted = maxt_adjusted_p_values([c.difference for c in family], [c.null for c in family])
    assert [c.adjusted_p_value for c in family] == list(adjusted)
    assert all(c.significant == (c.adjusted_p_value < 0.2) for c in family)
    assert all(a >= c.p_value for a, c in zip(adjusted, family))
    for pair in result.pairs:
        assert "|seed:5|resamples:300|test:permutation|shuffles:300" in pair.signature
    data = json.loads((folder / "out" / "results.json").read_text("utf-8"))
    mdes = [c["mde"] for c in data["comparisons"]]
    assert all(m > 0 for m in mdes)
    assert data["settings"]["detectable"]["sample"]["mde"] == statistics.median(mdes)
    assert data["settings"]["detectable"] == detectable_differences(result.comparisons)
    assert all("null" not in c for c in data["comparisons"])
    markdown = (folder / "out" / "leaderboard.md").read_text("utf-8")
    assert "paired permutation (approximate randomization) tests" in markdown
    assert "p \\< 0.2 after Westfall–Young step-down max-T correction" in markdown
    assert "On sample, differences under" in markdown and "F points cannot be told" in markdown
    assert "cannot be told apart (alpha 0.2, power 0.8; median of 3 pairs" in markdown
    html = (folder / "out" / "report.html").read_text("utf-8")
    assert "Paired permutation (approximate randomization) comparisons of F1" in html
    assert "On sample, differences under" in html


def test_the_bakeoff_command_overrides_test_and_alpha(run, tmp_path):
    folder, _ = run
    out = tmp_path / "out"
    config = folder / "bakeoff.toml"
    result = invoke("bakeoff", config, "-o", out, "--quiet", "--alpha", 0.01, "--test", "bootstrap")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text("utf-8"))
    assert data["settings"]["alpha"] == 0.01 and data["settings"]["test"] == "bootstrap"
    assert data["config"]["alpha"] == 0.01
    assert "test:permutation" not in json.dumps(data["pairs"])
    assert "cannot be told apart (alpha 0.01" in result.stdout
    refused = invoke("bakeoff", config, "-o", out, "--quiet", "--alpha", 2)
    assert refused.exit_code == 2 and "--alpha" in refused.output


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("alpha = 0.2", "alpha = 1.5", "alpha must be a number more than 0 and less than 1"),
        ("alpha = 0.2", "alpha = 0", "alpha must be a number more than 0 and less than 1"),
        ("alpha = 0.2", 'alpha = "0.05"', "alpha must be a number more than 0 and less than 1"),
        ('test = "permutation"', 'test = "t"', "test must be one of bootstrap, permutation"),
    ],
)
def test_a_bad_alpha_or_test_in_the_toml_is_refused_up_front(tmp_path, old, new, message):
    path = write(tmp_path, BAKEOFF.replace(old, new))
    with pytest.raises(CwsBenchError, match=message):
        load_config(path)
    result = invoke("bakeoff", path, "-o", tmp_path / "out", "--quiet")
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


def test_maxt_keeps_a_stored_runs_adjusted_p_values_and_refuses_without_them():
    pairs = [PairResult("c", name, name, "open", "ok") for name in ("a", "b")]
    stored = Comparison("c", "a", "b", "f1", 0.01, Interval(0, 0.02), 0.03, True, 0.03)
    (kept,) = judge_comparisons(pairs, [stored], alpha=0.05, correction="maxt")
    assert kept.adjusted_p_value == 0.03 and kept.significant
    bare = Comparison("c", "a", "b", "f1", 0.01, Interval(0, 0.02), 0.03, True)
    with pytest.raises(ValueError, match=r"results.json does not keep"):
        judge_comparisons(pairs, [bare], alpha=0.05, correction="maxt")

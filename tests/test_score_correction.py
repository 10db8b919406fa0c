"""``score --paired --correction`` (issue 44): the family-wise correction of a bake-off
(holm by default, bonferroni, fdr_bh, maxt, none) on several systems' paired tests,
checked against statsmodels' ``multipletests`` on the uncorrected p-values."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli

GOLD_LINES = 120


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A gold file and four predictions that merge or split its words at different rates."""
    folder = tmp_path_factory.mktemp("correction")
    rng = random.Random(3)
    words = ["中国", "人民", "银行", "今天", "发布", "了", "新", "的", "政策", "经济", "发展"]
    gold = [[rng.choice(words) for _ in range(rng.randint(4, 14))] for _ in range(GOLD_LINES)]
    (folder / "gold.txt").write_text("".join(" ".join(s) + "\n" for s in gold), "utf-8")
    names = []
    for name, rate in (("s1", 0.02), ("s2", 0.05), ("s3", 0.06), ("s4", 0.12)):
        lines = []
        for sentence in gold:
            out: list[str] = []
            for word in sentence:
                if out and rng.random() < rate:
                    out[-1] += word  # merged with the word before
                elif len(word) > 1 and rng.random() < rate:
                    out += list(word)  # split into characters
                else:
                    out.append(word)
            lines.append(" ".join(out) + "\n")
        (folder / f"{name}.txt").write_text("".join(lines), "utf-8")
        names.append(str(folder / f"{name}.txt"))
    return str(folder / "gold.txt"), names


def _scored(files, *options):
    gold, preds = files
    result = CliRunner().invoke(
        cli,
        ["score", gold, *preds, "--paired", "--format", "json", "--resamples", "500", *options],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_the_correction_equals_statsmodels(files, method):
    multitest = pytest.importorskip("statsmodels.stats.multitest", reason="the oracle")
    data = _scored(files, "--correction", method)
    comparisons = data["comparisons"]
    assert len(comparisons) == 6 and data["correction"] == method
    raw = [c["p_value"] for c in comparisons]
    expected = multitest.multipletests(raw, method=method)[1]
    assert [c["adjusted_p_value"] for c in comparisons] == pytest.approx(list(expected))
    assert [c["significant"] for c in comparisons] == [p < 0.05 for p in expected]


def test_holm_is_the_default_and_none_leaves_the_p_values(files):
    assert _scored(files) == _scored(files, "--correction", "holm")
    plain = _scored(files, "--correction", "none")
    assert [c["adjusted_p_value"] for c in plain["comparisons"]] == [
        c["p_value"] for c in plain["comparisons"]
    ]


def test_maxt_stays_at_or_under_bonferroni(files):
    maxt = _scored(files, "--correction", "maxt")["comparisons"]
    bonferroni = _scored(files, "--correction", "bonferroni")["comparisons"]
    assert all(c["p_value"] <= c["adjusted_p_value"] for c in maxt)
    assert all(
        m["adjusted_p_value"] <= b["adjusted_p_value"] + 1e-12 for m, b in zip(maxt, bonferroni)
    )
    assert any(m["adjusted_p_value"] < b["adjusted_p_value"] for m, b in zip(maxt, bonferroni))


def test_the_table_says_which_correction(files):
    gold, preds = files
    result = CliRunner().invoke(
        cli, ["score", gold, *preds, "--paired", "--resamples", "200", "--correction", "fdr_bh"]
    )
    assert result.exit_code == 0, result.output
    assert "Benjamini" in result.output
    wrong = CliRunner().invoke(cli, ["score", gold, *preds, "--paired", "--correction", "bh2"])
    assert wrong.exit_code == 2 and "Traceback" not in wrong.output
    assert "'holm', 'bonferroni', 'fdr_bh', 'maxt', 'none'" in wrong.output

"""Hand-checked worked examples of the metrics, through the API and the CLI."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.metrics.classification import (
    accuracy_score,
    f1_score,
    precision_recall_fscore_from_counts,
)
from cws_bench.metrics.generation import perplexity, rouge_n
from cws_bench.metrics.impurity import split_criteria

TENNIS = """outlook,temperature,humidity,windy,play
sunny,hot,high,false,no
sunny,hot,high,true,no
overcast,hot,high,false,yes
rainy,mild,high,false,yes
rainy,cool,normal,false,yes
rainy,cool,normal,true,no
overcast,cool,normal,true,yes
sunny,mild,high,false,no
sunny,cool,normal,false,yes
rainy,mild,normal,false,yes
sunny,mild,normal,true,yes
overcast,mild,high,true,yes
overcast,hot,normal,false,yes
rainy,mild,high,true,no
"""


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_f_beta_at_p_0_8_and_r_0_4():
    # 4 correct of 5 predicted (P = 0.8) and of 10 actual (R = 0.4)
    half = precision_recall_fscore_from_counts(4, 5, 10, beta=0.5)
    two = precision_recall_fscore_from_counts(4, 5, 10, beta=2.0)
    assert (half.precision, half.recall) == (0.8, 0.4)
    assert round(half.fscore, 6) == 0.666667
    assert round(two.fscore, 6) == 0.444444


def test_perplexity_of_a_half_and_a_quarter():
    assert round(perplexity([math.log(0.5), math.log(0.25)]), 6) == 2.828427
    assert perplexity([-1.0, -2.0], base=2) == pytest.approx(2**1.5, abs=1e-15)


def test_cat_dog_confusion_matrix():
    # [[20, 5], [18, 57]]: rows true cat, dog; columns predicted cat, dog
    y_true = ["cat"] * 25 + ["dog"] * 75
    y_pred = ["cat"] * 20 + ["dog"] * 5 + ["cat"] * 18 + ["dog"] * 57
    assert accuracy_score(y_true, y_pred) == 0.77
    assert f1_score(y_true, y_pred, average="micro") == pytest.approx(0.77, abs=1e-15)
    weighted = f1_score(y_true, y_pred, average="weighted")
    assert round(weighted, 4) == 0.7828
    assert weighted != pytest.approx(0.77)


def test_pooled_rouge_n():
    references = [list("猫吃鱼"), list("狗叫")]
    assert rouge_n(list("猫吃鱼"), references, multi_reference="pooled").recall == 0.6
    assert rouge_n(list("猫吃鱼"), references).recall == 1.0


def test_play_tennis_api_and_cli(write):
    path = write("tennis.csv", TENNIS)
    import pandas as pd

    criteria = split_criteria(pd.read_csv(io.StringIO(TENNIS), dtype=str), "play")
    assert round(criteria.entropy, 6) == 0.940286
    outlook = criteria.features[0]
    assert round(outlook.information_gain, 6) == 0.246750
    assert round(outlook.gain_ratio, 6) == 0.156428
    data = json.loads(
        invoke("metrics", "impurity", path, "--target", "play", "--format", "json").stdout
    )
    assert data == json.loads(json.dumps(criteria.to_dict()))
    text = invoke("metrics", "impurity", path, "--target", "play").stdout
    assert "entropy 0.940286 bits" in text
    assert "outlook" in text and "0.246750" in text and "0.156428" in text
    rows = list(csv.DictReader(io.StringIO(
        invoke("metrics", "impurity", path, "--target", "play", "--format", "csv").stdout
    )))  # fmt: skip
    assert [row["feature"] for row in rows] == ["outlook", "temperature", "humidity", "windy"]
    assert float(rows[0]["gain_ratio"]) == outlook.gain_ratio
    markdown = invoke(
        "metrics", "impurity", path, "--target", "play", "--feature", "windy", "--format",
        "markdown",
    ).stdout  # fmt: skip
    assert "| feature | values |" in markdown and "| windy | 2 |" in markdown
    assert "outlook" not in markdown
    missing = invoke("metrics", "impurity", path, "--target", "plays")
    assert missing.exit_code == 2
    assert "no column 'plays'" in missing.stderr


def test_subcommands_are_named_after_modules_and_classify_stays():
    listing = invoke("metrics", "--help").stdout
    for name in ("classification", "generation", "ranking", "impurity", "throughput"):
        assert f"  {name} " in listing
    assert "  classify " not in listing  # an alias, not listed twice
    assert invoke("metrics", "classify", "--help").exit_code == 0

"""Tests of cws_bench/metrics/impurity.py: the play-tennis table, exact fractions, scikit-learn."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.metrics.classification import UndefinedMetricWarning
from cws_bench.metrics.impurity import (
    conditional_entropy,
    entropy,
    entropy_from_counts,
    gain_ratio,
    gini_gain,
    gini_impurity,
    information_gain,
    split_criteria,
    split_information,
)

TOLERANCE = 1e-9

# Quinlan (1986), "Induction of Decision Trees", Table 1: 14 Saturday mornings.
ROWS = [
    # outlook, temperature, humidity, windy, play
    ("sunny", "hot", "high", "false", "no"),
    ("sunny", "hot", "high", "true", "no"),
    ("overcast", "hot", "high", "false", "yes"),
    ("rain", "mild", "high", "false", "yes"),
    ("rain", "cool", "normal", "false", "yes"),
    ("rain", "cool", "normal", "true", "no"),
    ("overcast", "cool", "normal", "true", "yes"),
    ("sunny", "mild", "high", "false", "no"),
    ("sunny", "cool", "normal", "false", "yes"),
    ("rain", "mild", "normal", "false", "yes"),
    ("sunny", "mild", "normal", "true", "yes"),
    ("overcast", "mild", "high", "true", "yes"),
    ("overcast", "hot", "normal", "false", "yes"),
    ("rain", "mild", "high", "true", "no"),
]
PLAY_TENNIS = {
    name: [row[i] for row in ROWS]
    for i, name in enumerate(["outlook", "temperature", "humidity", "windy", "play"])
}


def test_play_tennis_table_is_the_classic_one():
    assert all(len(column) == 14 for column in PLAY_TENNIS.values())
    assert Counter(PLAY_TENNIS["play"]) == {"yes": 9, "no": 5}


def test_play_tennis_information_gain():
    play = PLAY_TENNIS["play"]
    assert round(entropy(play), 3) == 0.940
    gains = {
        f: round(information_gain(PLAY_TENNIS[f], play), 3) for f in PLAY_TENNIS if f != "play"
    }
    # Quinlan (1986): outlook 0.246, temperature 0.029, humidity 0.151, windy 0.048 bits
    assert gains == {"outlook": 0.247, "temperature": 0.029, "humidity": 0.152, "windy": 0.048}
    assert round(information_gain(PLAY_TENNIS["outlook"], play), 2) == 0.25
    # the literature's 0.246 is 0.940 - 0.694, each rounded first
    assert round(entropy(play), 3) - round(
        conditional_entropy(PLAY_TENNIS["outlook"], play), 3
    ) == (pytest.approx(0.246, abs=1e-12))
    assert information_gain(PLAY_TENNIS["outlook"], play) == pytest.approx(0.2467498, abs=1e-7)


def test_play_tennis_gain_ratio_and_gini():
    play = PLAY_TENNIS["play"]
    outlook = PLAY_TENNIS["outlook"]
    # Quinlan (1993), C4.5: split info of outlook 1.577, gain ratio 0.156
    assert round(split_information(outlook), 3) == 1.577
    assert round(gain_ratio(outlook, play), 3) == 0.156
    # Gini of 9 yes / 5 no is 0.459; outlook leaves 5/14·0.48 + 0 + 5/14·0.48 = 0.343
    assert round(gini_impurity(play), 3) == 0.459
    assert gini_gain(outlook, play) == pytest.approx(
        float(1 - Fraction(81 + 25, 196) - Fraction(5, 14) * Fraction(12, 25) * 2), abs=TOLERANCE
    )
    assert round(gini_gain(outlook, play), 3) == 0.116


def test_split_criteria_of_the_whole_table():
    criteria = split_criteria(PLAY_TENNIS, "play")
    assert [f.feature for f in criteria.features] == ["outlook", "temperature", "humidity", "windy"]
    assert criteria.best("information_gain") == "outlook"
    assert criteria.best("gain_ratio") == "outlook"
    assert criteria.best("gini_gain") == "outlook"
    assert criteria.items == 14
    outlook = criteria.features[0]
    assert outlook.values == 3
    assert outlook.information_gain == information_gain(PLAY_TENNIS["outlook"], PLAY_TENNIS["play"])
    frame = criteria.to_frame()
    assert frame.loc["humidity", "values"] == 2
    assert criteria.to_dict()["features"][3]["feature"] == "windy"
    pandas = pytest.importorskip("pandas")
    from_frame = split_criteria(pandas.DataFrame(PLAY_TENNIS), "play")
    assert from_frame == criteria
    with pytest.raises(ValueError, match="criterion"):
        criteria.best("chi2")


def test_a_constant_feature():
    assert information_gain(["a"] * 4, ["x", "y", "x", "y"]) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="gain ratio"):
        assert gain_ratio(["a"] * 4, ["x", "y", "x", "y"]) == 0.0
    assert math.isnan(gain_ratio(["a"] * 4, ["x", "y", "x", "y"], zero_division=math.nan))
    assert split_criteria({"f": ["a", "a"], "y": ["x", "y"]}, "y").features[0].gain_ratio is None


def test_bad_input():
    with pytest.raises(ValueError, match="no items"):
        information_gain([], [])
    with pytest.raises(ValueError, match="3 values but target has 2"):
        information_gain(["a", "b", "c"], ["x", "y"])
    with pytest.raises(ValueError, match="no column 'class'"):
        split_criteria(PLAY_TENNIS, "class")
    with pytest.raises(ValueError, match="base"):
        entropy(["a"], base=1.0)
    with pytest.raises(ValueError, match="undefined"):
        entropy_from_counts([0, 0])


# ---------------------------------------------------------------------------
# Properties: exact fractions and scikit-learn

COLUMNS = st.integers(1, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from("abcd"), min_size=n, max_size=n),
        st.lists(st.sampled_from("xyz"), min_size=n, max_size=n),
    )
)


def exact_gini(labels) -> Fraction:
    n = len(labels)
    return 1 - sum(Fraction(c, n) ** 2 for c in Counter(labels).values())


@settings(deadline=None, max_examples=300)
@given(columns=COLUMNS, base=st.sampled_from([2.0, math.e, 10.0]))
def test_against_scikit_learn_and_exact_fractions(columns, base):
    sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle")
    scipy_stats = pytest.importorskip("scipy.stats")
    feature, target = columns
    # information gain is the mutual information (scikit-learn gives it in nats)
    expected_gain = sklearn_metrics.mutual_info_score(target, feature) / math.log(base)
    assert information_gain(feature, target, base=base) == pytest.approx(
        max(expected_gain, 0.0), abs=TOLERANCE
    )
    expected_entropy = scipy_stats.entropy(list(Counter(target).values()), base=base)
    assert entropy(target, base=base) == pytest.approx(expected_entropy, abs=TOLERANCE)
    assert conditional_entropy(feature, target, base=base) == pytest.approx(
        expected_entropy - expected_gain, abs=TOLERANCE
    )
    # Gini gain against exact rational arithmetic
    n = len(target)
    groups = {}
    for value, label in zip(feature, target):
        groups.setdefault(value, []).append(label)
    expected_gini_gain = exact_gini(target) - sum(
        Fraction(len(g), n) * exact_gini(g) for g in groups.values()
    )
    assert gini_gain(feature, target) == pytest.approx(float(expected_gini_gain), abs=TOLERANCE)
    assert gini_impurity(target) == pytest.approx(float(exact_gini(target)), abs=TOLERANCE)
    # the gain ratio does not depend on the base
    if len(set(feature)) > 1:
        assert gain_ratio(feature, target, base=base) == pytest.approx(
            gain_ratio(feature, target), abs=TOLERANCE
        )


def test_gini_of_the_root_matches_a_scikit_learn_tree():
    tree = pytest.importorskip("sklearn.tree", reason="scikit-learn is the oracle")
    play = PLAY_TENNIS["play"]
    outlook = PLAY_TENNIS["outlook"]
    model = tree.DecisionTreeClassifier(criterion="gini", max_depth=1, random_state=0)
    # one binary feature: is the outlook overcast?
    features = [[float(value == "overcast")] for value in outlook]
    model.fit(features, play)
    root, left, right = model.tree_.impurity[:3]
    assert gini_impurity(play) == pytest.approx(root, abs=TOLERANCE)
    split = ["overcast" if value == "overcast" else "other" for value in outlook]
    counts = model.tree_.n_node_samples
    weighted = counts[1] / counts[0] * left + counts[2] / counts[0] * right
    assert gini_gain(split, play) == pytest.approx(root - weighted, abs=TOLERANCE)


@pytest.mark.parametrize(
    ("header", "argv", "message"),
    [
        ("outlook,play", ["--target", "play", "--feature", "play"], "'play' is also a feature"),
        (
            "outlook,play",
            ["--target", "play", "--feature", "outlook", "--feature", "outlook"],
            "given twice",
        ),
        ("outlook,outlook,play", ["--target", "play"], "column 'outlook' is named twice"),
    ],
    ids=["the target as a feature", "a feature twice", "a column name twice"],
)
def test_the_command_refuses_a_target_feature_or_a_column_named_twice(
    tmp_path, header, argv, message
):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    width = header.count(",") + 1
    table = tmp_path / "t.csv"
    table.write_text(header + "\n" + ",".join(["a"] * width) + "\n", encoding="utf-8")
    run = CliRunner().invoke(cli, ["metrics", "impurity", str(table), *argv])
    assert run.exit_code == 2, run.output
    assert message in run.output
    assert "Traceback" not in run.output

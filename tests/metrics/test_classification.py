"""Tests of cws_bench/metrics/classification.py: worked examples and scikit-learn as the oracle."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.metrics import classification as ours
from cws_bench.metrics.classification import (
    UndefinedMetricWarning,
    accuracy_score,
    classification_report,
    confusion_matrix,
    f1_score,
    precision_recall_fscore_from_counts,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
    roc_curves,
)


class Oracle:
    """A scikit-learn module imported when a test first uses it: not while every xdist
    worker collects this module (importing scikit-learn takes seconds), and only the
    tests that compare with it skip where it is not installed."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attribute: str):
        if attribute.startswith("_"):
            # pytest probes every module attribute while collecting (`__wrapped__`,
            # `_mock_name`, ...): no scikit-learn name starts with "_" that a test uses.
            raise AttributeError(attribute)
        module = pytest.importorskip(self.name, reason="scikit-learn is the test oracle")
        return getattr(module, attribute)


sklearn_metrics = Oracle("sklearn.metrics")
sklearn_preprocessing = Oracle("sklearn.preprocessing")

TOLERANCE = 1e-9

CATS_DOGS_TRUE = ["cat"] * 25 + ["dog"] * 75
CATS_DOGS_PRED = ["cat"] * 20 + ["dog"] * 5 + ["cat"] * 18 + ["dog"] * 57


def close(a, b) -> bool:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0, atol=TOLERANCE, equal_nan=True))


ORACLE = settings(deadline=None, max_examples=150)
"""Hypothesis settings for oracle comparisons: the oracles' own speed varies."""


def integer_support(report: str) -> str:
    """scikit-learn prints support as ``1.0`` when no reported label has a true positive; ``1``."""
    lines = []
    for line in report.split("\n"):
        field = line[-9:]
        if line.strip() and field.strip().endswith(".0"):
            line = line[:-9] + f"{int(float(field)):>9}"
        lines.append(line)
    return "\n".join(lines)


def quiet(function, *args, **kwargs):
    """Call a metric with its warnings silenced (undefined values are checked separately)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# ---------------------------------------------------------------------------
# The worked example: 25 cats and 75 dogs


def test_cats_and_dogs():
    assert confusion_matrix(CATS_DOGS_TRUE, CATS_DOGS_PRED).tolist() == [[20, 5], [18, 57]]
    scores = precision_recall_fscore_support(CATS_DOGS_TRUE, CATS_DOGS_PRED, labels=["cat", "dog"])
    assert scores.precision.round(2).tolist() == [0.53, 0.92]
    assert scores.recall.round(2).tolist() == [0.80, 0.76]
    assert scores.fscore.round(2).tolist() == [0.63, 0.83]
    assert scores.support.tolist() == [25, 75]
    assert accuracy_score(CATS_DOGS_TRUE, CATS_DOGS_PRED) == 0.77
    # exact fractions behind the rounded figures
    assert scores.precision[0] == 20 / 38
    assert scores.fscore[0] == 2 * 20 / (25 + 38)


def test_a_classifier_that_always_says_dog():
    pred = ["dog"] * 100
    assert accuracy_score(CATS_DOGS_TRUE, pred) == 0.75
    with pytest.warns(UndefinedMetricWarning, match="Precision is ill-defined"):
        cat = precision_recall_fscore_support(
            CATS_DOGS_TRUE, pred, average="binary", pos_label="cat"
        )
    assert (cat.precision, cat.recall, cat.fscore) == (0.0, 0.0, 0.0)
    # zero_division=1.0 makes the undefined precision 1, but F stays 0: tp + fp + fn > 0.
    cat = precision_recall_fscore_support(
        CATS_DOGS_TRUE, pred, average="binary", pos_label="cat", zero_division=1.0
    )
    assert (cat.precision, cat.recall, cat.fscore) == (1.0, 0.0, 0.0)


def test_a_classifier_that_always_says_cat():
    pred = ["cat"] * 100
    cat = precision_recall_fscore_support(CATS_DOGS_TRUE, pred, average="binary", pos_label="cat")
    assert (cat.precision, cat.recall, cat.fscore) == (0.25, 1.0, 0.4)
    assert accuracy_score(CATS_DOGS_TRUE, pred) == 0.25


def test_report_text_of_the_worked_example():
    report = classification_report(CATS_DOGS_TRUE, CATS_DOGS_PRED)
    assert str(report) == sklearn_metrics.classification_report(CATS_DOGS_TRUE, CATS_DOGS_PRED)
    assert report.accuracy == 0.77
    frame = report.to_frame()
    assert list(frame.index) == ["cat", "dog", "accuracy", "macro avg", "weighted avg"]
    assert frame.loc["dog", "support"] == 75
    assert math.isnan(frame.loc["accuracy", "precision"])
    assert report.to_dict()["accuracy"] == 0.77
    assert report.to_dict()["cat"]["f1-score"] == 40 / 63


# ---------------------------------------------------------------------------
# From counts (used by the segmentation scorer)


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((3, 5, 4), (0.6, 0.75, 6 / 9)),
        ((0, 0, 4), (0.0, 0.0, 0.0)),
        ((0, 4, 0), (0.0, 0.0, 0.0)),
        ((0, 0, 0), (0.0, 0.0, 0.0)),
        ((4, 4, 4), (1.0, 1.0, 1.0)),
    ],
)
def test_from_counts(counts, expected):
    assert tuple(precision_recall_fscore_from_counts(*counts, zero_division=0.0)) == expected


@ORACLE
@given(
    tp=st.integers(0, 30),
    fp=st.integers(0, 30),
    fn=st.integers(0, 30),
    beta=st.sampled_from([0.0, 0.5, 1.0, 2.0, math.inf]),
    zero_division=st.sampled_from([0.0, 1.0, math.nan]),
)
def test_from_counts_matches_sklearn(tp, fp, fn, beta, zero_division):
    y_true = [1] * tp + [0] * fp + [1] * fn + [0]
    y_pred = [1] * tp + [1] * fp + [0] * fn + [0]
    expected = quiet(
        sklearn_metrics.precision_recall_fscore_support,
        y_true,
        y_pred,
        beta=beta,
        average="binary",
        zero_division=zero_division,
    )[:3]
    got = precision_recall_fscore_from_counts(
        tp, tp + fp, tp + fn, beta=beta, zero_division=zero_division
    )
    assert close(got, expected)


def test_the_segmentation_scorer_uses_this_module():
    from cws_bench import scoring
    from cws_bench.scoring import scores as scores_module

    assert scores_module.precision_recall_fscore_from_counts is precision_recall_fscore_from_counts
    scores = scoring.score_counts(
        scoring.SegCounts(gold=4, pred=5, correct=3), has_dictionary=False
    )
    assert (scores.precision, scores.recall, scores.f1) == tuple(
        precision_recall_fscore_from_counts(3, 5, 4)
    )


def test_from_counts_rejects_bad_input():
    with pytest.raises(ValueError, match="inconsistent"):
        precision_recall_fscore_from_counts(5, 4, 6)
    with pytest.raises(ValueError, match="beta"):
        precision_recall_fscore_from_counts(1, 2, 2, beta=-1.0)
    with pytest.raises(ValueError, match="zero_division"):
        precision_recall_fscore_from_counts(0, 0, 0, zero_division=0.5)


def test_from_counts_warns_only_when_asked():
    with pytest.warns(UndefinedMetricWarning):
        precision_recall_fscore_from_counts(0, 0, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        precision_recall_fscore_from_counts(0, 0, 3, zero_division=0.0)


# ---------------------------------------------------------------------------
# Labels against scikit-learn

LABEL_SETS = [["a", "b", "c", "d"], [0, 1], [0, 1, 2], ["x", "y"]]


@st.composite
def label_pairs(draw, min_size: int = 0):
    alphabet = draw(st.sampled_from(LABEL_SETS))
    n = draw(st.integers(min_size, 25))
    y_true = draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n))
    y_pred = draw(st.lists(st.sampled_from(alphabet), min_size=n, max_size=n))
    return alphabet, y_true, y_pred


ZERO_DIVISIONS = st.sampled_from(["warn", 0.0, 1.0, math.nan])


@settings(ORACLE, max_examples=300)
@given(
    data=label_pairs(min_size=1),
    average=st.sampled_from([None, "micro", "macro", "weighted", "binary"]),
    beta=st.sampled_from([0.0, 0.5, 1.0, 2.0, math.inf]),
    zero_division=ZERO_DIVISIONS,
    choose_labels=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_precision_recall_fscore_support_matches_sklearn(
    data, average, beta, zero_division, choose_labels, seed
):
    alphabet, y_true, y_pred = data
    rng = np.random.default_rng(seed)
    present = sorted(set(y_true) | set(y_pred))
    labels = None
    if choose_labels:
        size = int(rng.integers(1, len(alphabet) + 1))
        labels = [alphabet[i] for i in rng.permutation(len(alphabet))[:size]]
    pos_label = present[int(rng.integers(len(present)))] if average == "binary" else 1
    options = {
        "beta": beta,
        "labels": labels,
        "average": average,
        "zero_division": zero_division,
        "pos_label": pos_label,
    }
    try:
        expected = quiet(sklearn_metrics.precision_recall_fscore_support, y_true, y_pred, **options)
    except ValueError:
        with pytest.raises(ValueError, match=r"labels|pos_label"):
            quiet(precision_recall_fscore_support, y_true, y_pred, **options)
        return
    with warnings.catch_warnings(record=True) as ours_caught:
        warnings.simplefilter("always")
        got = precision_recall_fscore_support(y_true, y_pred, **options)
    with warnings.catch_warnings(record=True) as theirs_caught:
        warnings.simplefilter("always")
        sklearn_metrics.precision_recall_fscore_support(y_true, y_pred, **options)
    for ours_value, theirs_value in zip(got[:3], expected[:3]):
        assert close(ours_value, theirs_value)
    if average is None:
        assert got.support.tolist() == expected[3].tolist()
    else:
        assert got.support is None and expected[3] is None

    def undefined(caught):
        return any(
            issubclass(w.category, Warning) and "ill-defined" in str(w.message) for w in caught
        )

    assert undefined(ours_caught) == undefined(theirs_caught)


@settings(ORACLE, max_examples=100)
@given(data=label_pairs(min_size=1), zero_division=ZERO_DIVISIONS)
def test_wrappers_match_sklearn(data, zero_division):
    _, y_true, y_pred = data
    for ours_function, theirs_function in [
        (precision_score, sklearn_metrics.precision_score),
        (recall_score, sklearn_metrics.recall_score),
        (f1_score, sklearn_metrics.f1_score),
    ]:
        for average in ("micro", "macro", "weighted"):
            expected = quiet(
                theirs_function, y_true, y_pred, average=average, zero_division=zero_division
            )
            got = quiet(ours_function, y_true, y_pred, average=average, zero_division=zero_division)
            assert close(got, expected)
    got = quiet(ours.fbeta_score, y_true, y_pred, beta=0.5, average="macro")
    assert close(got, quiet(sklearn_metrics.fbeta_score, y_true, y_pred, beta=0.5, average="macro"))


@ORACLE
@given(
    data=label_pairs(min_size=1),
    normalize=st.sampled_from([None, "true", "pred", "all"]),
    choose_labels=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_confusion_matrix_and_accuracy_match_sklearn(data, normalize, choose_labels, seed):
    alphabet, y_true, y_pred = data
    labels = None
    if choose_labels:
        rng = np.random.default_rng(seed)
        size = int(rng.integers(1, len(alphabet) + 1))
        labels = [alphabet[i] for i in rng.permutation(len(alphabet))[:size]]
    try:
        expected = quiet(
            sklearn_metrics.confusion_matrix, y_true, y_pred, labels=labels, normalize=normalize
        )
    except ValueError:
        with pytest.raises(ValueError, match="at least one label"):
            confusion_matrix(y_true, y_pred, labels=labels, normalize=normalize)
        return
    got = confusion_matrix(y_true, y_pred, labels=labels, normalize=normalize)
    assert close(got, expected)
    assert accuracy_score(y_true, y_pred) == sklearn_metrics.accuracy_score(y_true, y_pred)
    assert accuracy_score(y_true, y_pred, normalize=False) == sklearn_metrics.accuracy_score(
        y_true, y_pred, normalize=False
    )


@ORACLE
@given(
    data=label_pairs(min_size=1),
    digits=st.integers(1, 5),
    zero_division=ZERO_DIVISIONS,
    choose_labels=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_classification_report_matches_sklearn(data, digits, zero_division, choose_labels, seed):
    alphabet, y_true, y_pred = data
    labels = None
    if choose_labels:
        rng = np.random.default_rng(seed)
        size = int(rng.integers(1, len(alphabet) + 1))
        labels = sorted(alphabet[i] for i in rng.permutation(len(alphabet))[:size])
    options = {"labels": labels, "zero_division": zero_division}
    expected_text = quiet(
        sklearn_metrics.classification_report, y_true, y_pred, digits=digits, **options
    )
    expected_dict = quiet(
        sklearn_metrics.classification_report, y_true, y_pred, output_dict=True, **options
    )
    report = quiet(classification_report, y_true, y_pred, **options)
    normalised = integer_support(expected_text)
    if normalised != expected_text:
        # the one stated exception: only where no reported label has a true positive
        reported = labels if labels is not None else set(y_true) | set(y_pred)
        assert not any(t == p and t in reported for t, p in zip(y_true, y_pred))
    assert report.to_text(digits=digits) == normalised
    got_dict = report.to_dict()
    assert list(got_dict) == list(expected_dict)
    for key, value in expected_dict.items():
        if isinstance(value, dict):
            assert close(list(got_dict[key].values()), list(value.values()))
        else:
            assert close(got_dict[key], value)


def test_report_text_is_scikit_learns_but_for_the_stated_exception():
    """The report is scikit-learn's text on 400 random cases, except float supports.

    scikit-learn prints supports as floats (``2.0``) only where no reported
    label has a true positive; ours prints ``2``. Any other difference fails.
    """
    import random

    rng = random.Random(21)
    exceptions = 0
    for _ in range(400):
        alphabet = rng.choice(LABEL_SETS)
        n = rng.randint(1, 25)
        y_true = [rng.choice(alphabet) for _ in range(n)]
        y_pred = [rng.choice(alphabet) for _ in range(n)]
        labels = None
        if rng.random() < 0.3:
            labels = sorted(rng.sample(list(alphabet), rng.randint(1, len(alphabet))))
        options = {"labels": labels, "zero_division": rng.choice(["warn", 0.0, 1.0, math.nan])}
        digits = rng.randint(1, 5)
        expected = quiet(
            sklearn_metrics.classification_report, y_true, y_pred, digits=digits, **options
        )
        got = quiet(classification_report, y_true, y_pred, **options).to_text(digits=digits)
        if got != expected:
            reported = labels if labels is not None else set(y_true) | set(y_pred)
            assert not any(t == p and t in reported for t, p in zip(y_true, y_pred))
            assert got == integer_support(expected)
            exceptions += 1
    assert exceptions > 0  # the exception does occur in random data


def test_report_with_target_names_and_beta():
    report = classification_report(
        ["a", "b", "b"], ["a", "a", "b"], target_names=["Alpha", "Beta"], beta=2.0
    )
    assert [row.name for row in report.classes] == ["Alpha", "Beta"]
    assert "f2-score" in report.to_text()
    assert list(report.to_frame().columns) == ["precision", "recall", "f2-score", "support"]
    with pytest.raises(ValueError, match="1 target name;"):
        classification_report(["a", "b"], ["a", "b"], target_names=["x"])


def test_invalid_arguments():
    with pytest.raises(ValueError, match="3 labels but y_pred has 2"):
        accuracy_score(["a", "b", "c"], ["a", "b"])
    with pytest.raises(ValueError, match="average"):
        precision_score(["a"], ["a"], average="samples")
    with pytest.raises(ValueError, match="more than two labels"):
        f1_score(["a", "b", "c"], ["a", "b", "c"])
    with pytest.raises(ValueError, match="pos_label='z'"):
        f1_score(["a", "b"], ["a", "b"], pos_label="z")
    with pytest.raises(ValueError, match="cannot be ordered"):
        accuracy_score(["a", 1], ["a", 1])
    with pytest.raises(ValueError, match="not one string"):
        accuracy_score("ab", "ab")
    with pytest.raises(ValueError, match="zero_division"):
        precision_score([1], [1], zero_division=2.0)
    with pytest.raises(ValueError, match="at least one label"):
        confusion_matrix(["a"], ["a"], labels=["z"])


def test_pos_label_is_ignored_with_a_warning_when_averaging():
    with pytest.warns(UserWarning, match="ignored"):
        f1_score(["a", "b"], ["a", "b"], average="macro", pos_label="a")


# ---------------------------------------------------------------------------
# Curves against scikit-learn


@st.composite
def binary_scores(draw):
    n = draw(st.integers(1, 30))
    y_true = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    # few distinct values, so that ties occur
    y_score = draw(
        st.lists(
            st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.7, 0.9, 1.0, -2.0]), min_size=n, max_size=n
        )
    )
    return y_true, y_score


@settings(ORACLE, max_examples=300)
@given(data=binary_scores(), drop_intermediate=st.booleans())
def test_roc_and_pr_curves_match_sklearn(data, drop_intermediate):
    y_true, y_score = data
    expected = quiet(
        sklearn_metrics.roc_curve, y_true, y_score, drop_intermediate=drop_intermediate
    )
    got = quiet(ours.roc_curve, y_true, y_score, drop_intermediate=drop_intermediate)
    for a, b in zip(got, expected):
        assert close(a, b)
    expected = quiet(
        sklearn_metrics.precision_recall_curve, y_true, y_score, drop_intermediate=drop_intermediate
    )
    got = quiet(ours.precision_recall_curve, y_true, y_score, drop_intermediate=drop_intermediate)
    for a, b in zip(got, expected):
        assert close(a, b)
    assert close(
        quiet(ours.average_precision_score, y_true, y_score),
        quiet(sklearn_metrics.average_precision_score, y_true, y_score),
    )
    assert close(
        quiet(ours.roc_auc_score, y_true, y_score),
        quiet(sklearn_metrics.roc_auc_score, y_true, y_score),
    )


def test_curves_with_string_labels_and_pos_label():
    y_true = ["spam", "ham", "spam", "ham", "spam"]
    y_score = [0.9, 0.2, 0.4, 0.5, 0.8]
    got = ours.roc_curve(y_true, y_score, pos_label="spam")
    expected = sklearn_metrics.roc_curve(y_true, y_score, pos_label="spam")
    for a, b in zip(got, expected):
        assert close(a, b)
    assert ours.average_precision_score(y_true, y_score, pos_label="spam") == pytest.approx(
        sklearn_metrics.average_precision_score(y_true, y_score, pos_label="spam"), abs=TOLERANCE
    )
    with pytest.raises(ValueError, match="pos_label"):
        ours.roc_curve(y_true, y_score)


@st.composite
def multiclass_scores(draw):
    k = draw(st.integers(3, 5))
    n = draw(st.integers(k, 40))
    y_true = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    y_true[:k] = range(k)  # every class occurs
    raw = draw(
        st.lists(
            st.lists(st.sampled_from([1, 2, 3, 5, 8]), min_size=k, max_size=k),
            min_size=n,
            max_size=n,
        )
    )
    y_score = np.array(raw, dtype=np.float64)
    return y_true, y_score / y_score.sum(axis=1, keepdims=True)


@settings(ORACLE, max_examples=60)
@given(data=multiclass_scores())
def test_multiclass_auc_and_average_precision_match_sklearn(data):
    y_true, y_score = data
    for average in ("micro", "macro", "weighted", None):
        expected = sklearn_metrics.roc_auc_score(
            y_true, y_score, multi_class="ovr", average=average
        )
        assert close(ours.roc_auc_score(y_true, y_score, average=average), expected)
        expected = sklearn_metrics.average_precision_score(y_true, y_score, average=average)
        assert close(ours.average_precision_score(y_true, y_score, average=average), expected)
    for average in ("macro", "weighted"):
        expected = sklearn_metrics.roc_auc_score(
            y_true, y_score, multi_class="ovo", average=average
        )
        got = ours.roc_auc_score(y_true, y_score, multi_class="ovo", average=average)
        assert close(got, expected)


@settings(ORACLE, max_examples=100)
@given(data=multiclass_scores())
def test_roc_curves_micro_and_macro(data):
    y_true, y_score = data
    curves = roc_curves(y_true, y_score)
    classes = sorted(set(y_true))
    indicator = sklearn_preprocessing.label_binarize(y_true, classes=classes)
    # micro: the ROC curve of all (item, class) decisions pooled, as scikit-learn's example
    expected = sklearn_metrics.roc_curve(indicator.ravel(), y_score.ravel())
    for a, b in zip(curves.micro, expected):
        assert close(a, b)
    assert close(curves.micro.area, ours.roc_auc_score(y_true, y_score, average="micro"))
    # macro: every class's TPR interpolated at the union of the FPRs, then averaged
    per_class = [
        sklearn_metrics.roc_curve(indicator[:, j], y_score[:, j]) for j in range(len(classes))
    ]
    grid = np.unique(np.concatenate([fpr for fpr, _, _ in per_class]))
    mean_tpr = np.mean([np.interp(grid, fpr, tpr) for fpr, tpr, _ in per_class], axis=0)
    assert close(curves.macro_false_positive_rate, grid)
    assert close(curves.macro_true_positive_rate, mean_tpr)
    assert close(curves.macro_area, sklearn_metrics.auc(grid, mean_tpr))
    for curve, (fpr, tpr, thresholds) in zip(curves.per_class, per_class):
        assert close(curve.false_positive_rate, fpr)
        assert close(curve.true_positive_rate, tpr)
        assert close(curve.thresholds, thresholds)


def test_auc_of_one_class_is_undefined():
    with pytest.warns(UndefinedMetricWarning, match="Only one class"):
        assert math.isnan(ours.roc_auc_score([1, 1, 1], [0.1, 0.2, 0.3]))
    with pytest.warns(UndefinedMetricWarning, match="No negative samples"):
        curve = ours.roc_curve([1, 1], [0.3, 0.4])
    assert np.isnan(curve.false_positive_rate).all()


def test_auc_checks_its_input():
    with pytest.raises(ValueError, match="neither increasing nor decreasing"):
        ours.auc([0, 1, 0.5], [0, 1, 1])
    assert ours.auc([1, 0.5, 0], [1, 1, 0]) == 0.75
    with pytest.raises(ValueError, match="at least 2 points"):
        ours.auc([0], [1])
    with pytest.raises(ValueError, match="columns"):
        ours.roc_auc_score(["a", "b", "c"], np.ones((3, 2)))


def test_curve_to_dict_is_json_safe():
    import json

    curve = ours.roc_curve([0, 1, 1], [0.2, 0.6, 0.9])
    data = curve.to_dict()
    assert data["thresholds"][0] is None
    assert data["auc"] == 1.0
    json.dumps(data, allow_nan=False)
    curves = roc_curves(["a", "b", "c", "a"], np.eye(3)[[0, 1, 2, 0]])
    json.dumps(curves.to_dict(), allow_nan=False)


def test_plots_draw_every_curve():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y_true = [0, 1, 2, 0, 1, 2, 0]
    y_score = np.array(
        [
            [0.6, 0.3, 0.1],
            [0.2, 0.5, 0.3],
            [0.1, 0.2, 0.7],
            [0.3, 0.4, 0.3],
            [0.5, 0.4, 0.1],
            [0.2, 0.3, 0.5],
            [0.7, 0.2, 0.1],
        ]
    )
    ax = roc_curves(y_true, y_score).plot()
    labels = [line.get_label() for line in ax.get_lines()]
    assert sum(label.startswith("micro-average") for label in labels) == 1
    assert sum(label.startswith("macro-average") for label in labels) == 1
    assert len([label for label in labels if "AUC" in label]) == 5
    plt.close(ax.figure)
    ax = ours.precision_recall_curve([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.3]).plot(label="model")
    assert ax.get_lines()[0].get_label() == "model (AP = 1.000)"
    plt.close(ax.figure)

"""Classification metrics: confusion matrix, P/R/F-beta, accuracy, reports, ROC and PR curves.

Every function here gives scikit-learn's numbers on the inputs scikit-learn
accepts (``tests/metrics/test_classification.py`` compares them on random
inputs), with scikit-learn's names, argument order and ``zero_division``
rules. Labels are any hashable, orderable values (strings, integers); the
label order is sorted unless ``labels`` fixes it.

Precision, recall and F-beta are computed from counts, so a caller with
additive counts (the segmentation scorer sums them per sentence, file and
shard) gets exactly the numbers it would get from labels:
:func:`precision_recall_fscore_from_counts`.

Undefined values (Notes, as in scikit-learn): precision is undefined for a
label that is never predicted, recall for a label that never occurs, and
F-beta only when the label neither occurs nor is predicted (F-beta is written
in raw counts, ``(1 + b²)·tp / (b²·(tp + fn) + tp + fp)``, so it is 0.0, not
undefined, when precision or recall is undefined but the other count is not
zero). Each takes the ``zero_division`` value: ``"warn"`` (0.0 with an
:class:`UndefinedMetricWarning`), 0.0, 1.0 or nan; averages ignore nan.
ROC AUC is undefined (nan, with a warning) when only one class occurs.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike

from cws_bench.display.formats import render_in
from cws_bench.display.tables import markdown_table, spreadsheet_safe
from cws_bench.display.units import plural
from cws_bench.metrics.counts import PrecisionRecallF, precision_recall_fscore_from_counts
from cws_bench.metrics.undefined import (
    UndefinedMetricWarning,
    ZeroDivision,
    check_zero_division,
    warn_undefined,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "AVERAGES",
    "ClassScores",
    "ClassificationReport",
    "PrecisionRecallCurve",
    "PrecisionRecallF",
    "PrecisionRecallFSupport",
    "RocCurve",
    "RocCurves",
    "UndefinedMetricWarning",
    "accuracy_score",
    "auc",
    "average_precision_score",
    "classification_report",
    "confusion_matrix",
    "f1_score",
    "fbeta_score",
    "precision_recall_curve",
    "precision_recall_fscore_from_counts",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "render_confusion",
    "roc_auc_score",
    "roc_curve",
    "roc_curves",
]

Average = Literal["binary", "micro", "macro", "weighted"] | None
AVERAGES: tuple[str | None, ...] = ("binary", "micro", "macro", "weighted", None)
"""The values of ``average`` for precision, recall and F-beta."""

_CURVE_AVERAGES = ("micro", "macro", "weighted", None)


# ---------------------------------------------------------------------------
# Labels


def _as_list(values: ArrayLike | Iterable[Hashable], name: str) -> list[Any]:
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be a sequence of labels, not one string")
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {values.shape}")
        return values.tolist()
    if hasattr(values, "tolist"):  # pandas Series and the like
        return list(values.tolist())
    return list(cast("Iterable[Any]", values))


def _sorted(labels: Iterable[Hashable]) -> list[Any]:
    labels = list(labels)
    try:
        return sorted(labels)
    except TypeError as e:
        kinds = sorted({type(label).__name__ for label in labels})
        raise ValueError(
            f"labels of different types cannot be ordered ({', '.join(kinds)}); "
            "use one type, e.g. all strings"
        ) from e


def _check_targets(
    y_true: ArrayLike | Iterable[Hashable], y_pred: ArrayLike | Iterable[Hashable]
) -> tuple[list[Any], list[Any], list[Any]]:
    """Both label lists and the sorted labels present in either."""
    true = _as_list(y_true, "y_true")
    pred = _as_list(y_pred, "y_pred")
    if len(true) != len(pred):
        raise ValueError(f"y_true has {len(true)} labels but y_pred has {len(pred)}")
    return true, pred, _sorted(set(true) | set(pred))


def _encode(values: list[Any], index: dict[Any, int]) -> np.ndarray:
    """Indices of ``values`` in ``index``; -1 for a value not in it."""
    get = index.get
    return np.fromiter((get(v, -1) for v in values), dtype=np.intp, count=len(values))


def _label_counts(
    true: list[Any], pred: list[Any], labels: Sequence[Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """True positives, predicted and actual counts of each label in ``labels``."""
    index = {label: i for i, label in enumerate(dict.fromkeys(labels))}
    k = len(index)
    t = _encode(true, index)
    p = _encode(pred, index)
    hit = (t == p) & (t >= 0)
    tp = np.bincount(t[hit], minlength=k)
    pred_sum = np.bincount(p[p >= 0], minlength=k)
    true_sum = np.bincount(t[t >= 0], minlength=k)
    order = [index[label] for label in labels]
    return tp[order], pred_sum[order], true_sum[order]


# ---------------------------------------------------------------------------
# Confusion matrix and accuracy


def confusion_matrix(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    normalize: Literal["true", "pred", "all"] | None = None,
) -> np.ndarray:
    """Confusion matrix: row ``i`` is the true label ``labels[i]``, column ``j`` the predicted one.

    Args:
        labels: the labels and their order; items whose true or predicted
            label is not among them are left out. Default: every label that
            occurs, sorted.
        normalize: divide by row sums (``"true"``), column sums (``"pred"``)
            or the total (``"all"``); an empty row or column gives zeros.

    Returns:
        An integer array of shape (n_labels, n_labels), float if normalised.

    Raises:
        ValueError: the lengths differ, ``labels`` is empty or holds no
            true label, or ``normalize`` is not one of the choices.

    Example:
        >>> y_true = ["cat"] * 25 + ["dog"] * 75
        >>> y_pred = ["cat"] * 20 + ["dog"] * 5 + ["cat"] * 18 + ["dog"] * 57
        >>> confusion_matrix(y_true, y_pred).tolist()
        [[20, 5], [18, 57]]
    """
    true, pred, present = _check_targets(y_true, y_pred)
    if labels is None:
        labels = present
    else:
        labels = _as_list(labels, "labels")
        if not labels:
            raise ValueError("labels must contain at least one label")
        if not set(labels) & set(true):
            raise ValueError("at least one label in labels must occur in y_true")
    if normalize not in ("true", "pred", "all", None):
        raise ValueError(f'normalize must be "true", "pred", "all" or None, got {normalize!r}')
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    t = _encode(true, index)
    p = _encode(pred, index)
    keep = (t >= 0) & (p >= 0)
    matrix = np.bincount(t[keep] * k + p[keep], minlength=k * k).reshape(k, k)
    if normalize is None:
        return matrix
    axis = {"true": 1, "pred": 0, "all": None}[normalize]
    with np.errstate(all="ignore"):
        return np.nan_to_num(matrix / matrix.sum(axis=axis, keepdims=True))


def accuracy_score(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    *,
    normalize: bool = True,
) -> float:
    """Fraction (or, with ``normalize=False``, number) of items whose label is right.

    Raises:
        ValueError: the lengths differ, or the input is empty and ``normalize`` is true.

    Example:
        >>> accuracy_score(["cat", "dog", "dog"], ["cat", "cat", "dog"])
        0.6666666666666666
        >>> accuracy_score(["cat", "dog", "dog"], ["cat", "cat", "dog"], normalize=False)
        2.0
    """
    true, pred, _ = _check_targets(y_true, y_pred)
    correct = sum(1 for t, p in zip(true, pred) if t == p)
    if not normalize:
        return float(correct)
    if not true:
        raise ValueError("accuracy of no items is undefined: y_true is empty")
    return correct / len(true)


# ---------------------------------------------------------------------------
# Precision, recall, F-beta


class PrecisionRecallFSupport(NamedTuple):
    """Precision, recall, F-beta and support: arrays per label, or floats and None when averaged."""

    precision: np.ndarray | float
    recall: np.ndarray | float
    fscore: np.ndarray | float
    support: np.ndarray | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: lists per label, or floats (and support None) when averaged."""

        def plain(value: Any) -> Any:
            return value.tolist() if hasattr(value, "tolist") else value

        return {name: plain(getattr(self, name)) for name in self._fields}


def _divide(
    numerator: np.ndarray,
    denominator: np.ndarray,
    zero_division: ZeroDivision,
    warn: bool,
    what: str,
    why: str,
) -> np.ndarray:
    """``numerator / denominator``, and ``zero_division`` (with scikit-learn's warning) at 0."""
    mask = denominator == 0
    safe = np.where(mask, 1, denominator).astype(np.float64)
    result = np.asarray(numerator, dtype=np.float64) / safe
    if not mask.any():
        return result
    result[mask] = check_zero_division(zero_division)
    if warn and zero_division == "warn":
        where = "due to" if result.shape[0] == 1 else "in labels with"
        warn_undefined(
            f"{what} is ill-defined and being set to 0.0 {where} {why}. Use `zero_division` "
            "parameter to control this behavior.",
            stacklevel=5,
        )
    return result


def _nanaverage(values: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Average ignoring nan; an all-zero weight vector gives the plain mean (as scikit-learn)."""
    mask = np.isnan(values)
    if mask.all():  # no value, or only nan
        return math.nan
    values = values[~mask]
    if weights is None:
        return float(np.mean(values))
    weights = weights[~mask]
    if weights.sum() == 0:
        return float(np.mean(values))
    return float(np.average(values, weights=weights))


def _set_wise_labels(
    present: list[Any], average: Average, labels: Sequence[Hashable] | None, pos_label: Hashable
) -> list[Any]:
    """The labels to score, as scikit-learn's ``_check_set_wise_labels`` picks them."""
    if average not in AVERAGES:
        raise ValueError(
            f"average must be one of 'binary', 'micro', 'macro', 'weighted' or None, "
            f"got {average!r}"
        )
    if average == "binary":
        if len(present) > 2:
            raise ValueError(
                "the targets have more than two labels but average='binary'; "
                "choose average='micro', 'macro', 'weighted' or None"
            )
        if pos_label not in present and len(present) >= 2:
            raise ValueError(
                f"pos_label={pos_label!r} is not a valid label: it should be one of {present}"
            )
        return [pos_label]
    if pos_label not in (None, 1):
        warnings.warn(
            f"pos_label={pos_label!r} is ignored when average != 'binary' (got {average!r}); "
            "use labels=[pos_label] to score a single class",
            UserWarning,
            stacklevel=4,
        )
    return present if labels is None else _as_list(labels, "labels")


_WARN_ALL = ("precision", "recall", "f-score")


def _precision_recall_fscore(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    beta: float,
    labels: Sequence[Hashable] | None,
    pos_label: Hashable,
    average: Average,
    zero_division: ZeroDivision,
    warn_for: tuple[str, ...],
) -> PrecisionRecallFSupport:
    check_zero_division(zero_division)
    if not beta >= 0:
        raise ValueError(f"beta must be >= 0, got {beta!r}")
    true, pred, present = _check_targets(y_true, y_pred)
    chosen = _set_wise_labels(present, average, labels, pos_label)
    tp, pred_sum, true_sum = _label_counts(true, pred, chosen)
    if average == "micro":
        tp, pred_sum, true_sum = (np.array([x.sum()]) for x in (tp, pred_sum, true_sum))
    precision = _divide(
        tp, pred_sum, zero_division, "precision" in warn_for, "Precision", "no predicted samples"
    )
    recall = _divide(tp, true_sum, zero_division, "recall" in warn_for, "Recall", "no true samples")
    if math.isinf(beta):
        fscore = recall.copy()
    elif beta == 0:
        fscore = precision.copy()
    else:
        # F-beta in raw counts: (1 + b²)·tp / (b²·(tp + fn) + (tp + fp)).
        beta2 = beta * beta
        fscore = _divide(
            (1 + beta2) * tp.astype(np.float64),
            beta2 * true_sum.astype(np.float64) + pred_sum,
            zero_division,
            "f-score" in warn_for,
            "F-score",
            "no true nor predicted samples",
        )
    if average is None:
        return PrecisionRecallFSupport(precision, recall, fscore, true_sum)
    weights = true_sum if average == "weighted" else None
    p, r, f = (_nanaverage(values, weights) for values in (precision, recall, fscore))
    return PrecisionRecallFSupport(p, r, f, None)


def precision_recall_fscore_support(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    *,
    beta: float = 1.0,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable = 1,
    average: Average = None,
    zero_division: ZeroDivision = "warn",
) -> PrecisionRecallFSupport:
    """Precision, recall, F-beta and support of each label, or their average.

    For one label, ``precision = tp / (tp + fp)``, ``recall = tp / (tp + fn)``,
    ``F-beta = (1 + b²)·tp / ((1 + b²)·tp + b²·fn + fp)`` and ``support =
    tp + fn``.

    Args:
        beta: weight of recall against precision (0 gives precision, inf recall).
        labels: the labels to score and their order (default: all, sorted).
            Labels that never occur score per ``zero_division``.
        pos_label: the positive label when ``average="binary"``.
        average: None (one value per label), ``"binary"`` (the positive
            label only; at most two labels), ``"micro"`` (from the summed
            counts), ``"macro"`` (unweighted mean over labels) or
            ``"weighted"`` (mean weighted by support).
        zero_division: the value of an undefined metric (module docstring).

    Returns:
        PrecisionRecallFSupport; ``support`` is None when averaged.

    Raises:
        ValueError: different lengths, an unknown ``average``, or
            ``"binary"`` with more than two labels or a ``pos_label`` absent
            from two present labels.

    Example:
        >>> y_true = ["cat"] * 25 + ["dog"] * 75
        >>> y_pred = ["cat"] * 20 + ["dog"] * 5 + ["cat"] * 18 + ["dog"] * 57
        >>> scores = precision_recall_fscore_support(y_true, y_pred)
        >>> scores.precision.round(2).tolist(), scores.fscore.round(2).tolist()
        ([0.53, 0.92], [0.63, 0.83])
        >>> scores.support.tolist()
        [25, 75]
    """
    return _precision_recall_fscore(
        y_true, y_pred, beta, labels, pos_label, average, zero_division, _WARN_ALL
    )


def precision_score(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable = 1,
    average: Average = "binary",
    zero_division: ZeroDivision = "warn",
) -> np.ndarray | float:
    """Precision ``tp / (tp + fp)``; arguments as in :func:`precision_recall_fscore_support`.

    Example:
        >>> precision_score(["cat", "dog", "dog"], ["cat", "cat", "dog"], pos_label="cat")
        0.5
    """
    return _precision_recall_fscore(
        y_true, y_pred, 1.0, labels, pos_label, average, zero_division, ("precision",)
    ).precision


def recall_score(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable = 1,
    average: Average = "binary",
    zero_division: ZeroDivision = "warn",
) -> np.ndarray | float:
    """Recall ``tp / (tp + fn)``; arguments as in :func:`precision_recall_fscore_support`.

    Example:
        >>> recall_score(["cat", "dog", "dog"], ["cat", "cat", "dog"], pos_label="dog")
        0.5
    """
    return _precision_recall_fscore(
        y_true, y_pred, 1.0, labels, pos_label, average, zero_division, ("recall",)
    ).recall


def fbeta_score(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    *,
    beta: float,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable = 1,
    average: Average = "binary",
    zero_division: ZeroDivision = "warn",
) -> np.ndarray | float:
    """F-beta; arguments as in :func:`precision_recall_fscore_support`.

    Example:
        >>> round(fbeta_score(["a", "b", "b"], ["a", "a", "b"], beta=2.0, pos_label="a"), 4)
        0.8333
    """
    return _precision_recall_fscore(
        y_true, y_pred, beta, labels, pos_label, average, zero_division, ("f-score",)
    ).fscore


def f1_score(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable = 1,
    average: Average = "binary",
    zero_division: ZeroDivision = "warn",
) -> np.ndarray | float:
    """F1, the harmonic mean of precision and recall; arguments as in :func:`fbeta_score`.

    Example:
        >>> f1_score(["cat", "cat", "dog"], ["cat", "dog", "dog"], average="macro")
        0.6666666666666666
    """
    return _precision_recall_fscore(
        y_true, y_pred, 1.0, labels, pos_label, average, zero_division, ("f-score",)
    ).fscore


# ---------------------------------------------------------------------------
# Report


@dataclass(frozen=True, slots=True)
class ClassScores:
    """One row of a classification report."""

    name: str
    precision: float
    recall: float
    fscore: float
    support: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict in field order."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class ClassificationReport:
    """Per-label scores and their averages, rendered as text, a dict or a DataFrame.

    ``averages`` holds the ``micro avg`` (shown as ``accuracy`` when every
    label is scored, because micro-averaged F-beta is then the accuracy),
    ``macro avg`` and ``weighted avg`` rows. :meth:`render` writes one of :attr:`FORMATS`.
    """

    FORMATS: ClassVar[tuple[str, ...]] = ("text", "json", "csv", "markdown")

    classes: tuple[ClassScores, ...]
    averages: tuple[ClassScores, ...]
    accuracy: float | None
    beta: float = 1.0

    @property
    def fscore_name(self) -> str:
        """The F column's name: ``f1-score`` or e.g. ``f0.5-score``."""
        return f"f{self.beta:g}-score"

    def _rows(self) -> list[tuple[str, dict[str, Any]]]:
        """Each label's and average's name and its precision, recall, F and support."""
        names = ("precision", "recall", self.fscore_name, "support")
        return [
            (row.name, dict(zip(names, (row.precision, row.recall, row.fscore, row.support))))
            for row in (*self.classes, *self.averages)
        ]

    def to_dict(self) -> dict[str, Any]:
        """scikit-learn's ``output_dict`` layout: a dict per row, ``accuracy`` a number."""
        return {n: v[self.fscore_name] if n == "accuracy" else v for n, v in self._rows()}

    def to_frame(self) -> pd.DataFrame:
        """One row per label and average; the accuracy row has no precision or recall."""
        import pandas as pd

        rows = self._rows()
        for name, values in rows:
            if name == "accuracy":
                values.update(precision=math.nan, recall=math.nan)
        names = pd.Index([name for name, _ in rows], name="label")
        return pd.DataFrame([values for _, values in rows], index=names)

    def to_text(self, *, digits: int = 2) -> str:
        """The report as scikit-learn prints it, with ``digits`` decimals.

        Character for character scikit-learn's text, with one exception: when
        no reported label has a true positive, scikit-learn prints every
        support as a float (``2.0``); here supports are always whole numbers
        (``2``). ``tests/metrics/test_classification.py`` checks both on
        random inputs.
        """
        headers = ["precision", "recall", self.fscore_name, "support"]
        names = [row.name for row in self.classes]
        width = max([*(len(name) for name in names), len("weighted avg"), digits])
        lines = [f"{'':>{width}s} " + "".join(f" {h:>9}" for h in headers), ""]
        for rows in (self.classes, self.averages):
            for row in rows:
                values = [f"{v:.{digits}f}" for v in (row.precision, row.recall, row.fscore)]
                if rows is self.averages and row.name == "accuracy":
                    values[:2] = ["", ""]
                cells = "".join(f" {v:>9}" for v in (*values, row.support))
                lines.append(f"{row.name:>{width}s} {cells}")
            lines.append("")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def render(
        self,
        fmt: str,
        *,
        digits: int = 2,
        confusion: tuple[Sequence[str], Sequence[Sequence[int]]] | None = None,
    ) -> str:
        """The report in ``fmt`` (``text``, ``json``, ``csv`` or ``markdown``), no final newline.

        Args:
            digits: decimals of the text and Markdown tables.
            confusion: (labels, matrix) of :func:`confusion_matrix`, shown after
                the report (text, Markdown) or under ``confusion_matrix`` (JSON);
                CSV has the report only.
        """

        def as_json() -> str:
            data = self.to_dict()
            if confusion is not None:
                names, matrix = confusion
                data["confusion_matrix"] = {
                    "labels": list(names),
                    "matrix": [list(r) for r in matrix],
                }
            return json.dumps(data, ensure_ascii=False, indent=2)

        def as_csv() -> str:
            frame = self.to_frame()
            frame.index = frame.index.map(spreadsheet_safe)
            return str(frame.to_csv(lineterminator="\n")).rstrip("\n")

        def as_text() -> str:
            text = self.to_text(digits=digits).rstrip("\n")
            if confusion is not None:
                text += "\n\n" + render_confusion(*confusion)
            return text

        def as_markdown() -> str:
            return self.to_markdown(digits=digits, confusion=confusion)

        return render_in(fmt, dict(zip(self.FORMATS, (as_text, as_json, as_csv, as_markdown))))

    def to_markdown(
        self,
        *,
        digits: int = 2,
        confusion: tuple[Sequence[str], Sequence[Sequence[int]]] | None = None,
    ) -> str:
        """The report as a Markdown table (and the confusion matrix as a second one)."""
        frame = self.to_frame()
        header = ["label", *(str(c) for c in frame.columns)]
        body = [
            [
                str(label),
                *("" if v != v else f"{v:.{digits}f}" for v in row[:-1]),
                f"{int(row[-1]):,}",
            ]
            for label, row in zip(frame.index, frame.itertuples(index=False))
        ]
        text = markdown_table(header, body)
        if confusion is not None:
            names, matrix = confusion
            text += "\n\n" + markdown_table(
                ["true \\ pred", *names],
                [[n, *(f"{x:,}" for x in r)] for n, r in zip(names, matrix)],
            )
        return text


def render_confusion(labels: Sequence[str], matrix: Sequence[Sequence[int]]) -> str:
    """A confusion matrix as aligned text: rows are true labels, columns predicted ones.

    >>> print(render_confusion(["a", "b"], [[2, 0], [1, 1000]]))
    true \\ pred      a      b
    a                2      0
    b                1  1,000
    """
    corner = "true \\ pred"
    first = max(len(corner), *(len(label) for label in labels))
    width = max(*(len(f"{x:,}") for row in matrix for x in row), *(len(x) for x in labels))
    lines = [f"{corner:<{first}}" + "".join(f"  {label:>{width}}" for label in labels)]
    for label, row in zip(labels, matrix):
        lines.append(f"{label:<{first}}" + "".join(f"  {x:>{width},}" for x in row))
    return "\n".join(lines)


def classification_report(
    y_true: ArrayLike | Iterable[Hashable],
    y_pred: ArrayLike | Iterable[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    target_names: Sequence[str] | None = None,
    beta: float = 1.0,
    zero_division: ZeroDivision = "warn",
) -> ClassificationReport:
    """Precision, recall, F-beta and support per label, with micro, macro and weighted averages.

    ``str(report)`` (or ``report.to_text(digits=...)``) is scikit-learn's
    text report, character for character; ``report.to_frame()`` is a pandas
    DataFrame and ``report.to_dict()`` scikit-learn's ``output_dict``.

    Args:
        labels: the labels to report and their order (default: all, sorted).
        target_names: display names of ``labels``, in the same order.
        beta: the F-beta to report (1 gives F1).
        zero_division: the value of an undefined metric (module docstring).

    Raises:
        ValueError: different lengths, or ``target_names`` of the wrong length.

    Example:
        >>> y_true = ["cat"] * 25 + ["dog"] * 75
        >>> y_pred = ["cat"] * 20 + ["dog"] * 5 + ["cat"] * 18 + ["dog"] * 57
        >>> print(classification_report(y_true, y_pred))
                      precision    recall  f1-score   support
        <BLANKLINE>
                 cat       0.53      0.80      0.63        25
                 dog       0.92      0.76      0.83        75
        <BLANKLINE>
            accuracy                           0.77       100
           macro avg       0.72      0.78      0.73       100
        weighted avg       0.82      0.77      0.78       100
        <BLANKLINE>
    """
    true, pred, present = _check_targets(y_true, y_pred)
    chosen = present if labels is None else _as_list(labels, "labels")
    micro_is_accuracy = labels is None or set(chosen) >= set(present)
    if target_names is not None and len(target_names) != len(chosen):
        raise ValueError(
            f"{plural(len(chosen), 'label')} but {plural(len(target_names), 'target name')}; "
            "pass labels=... in the order of target_names"
        )
    names = [str(name) for name in (target_names if target_names is not None else chosen)]

    def scores(average: Average) -> PrecisionRecallFSupport:
        return _precision_recall_fscore(
            true, pred, beta, chosen, None, average, zero_division, _WARN_ALL
        )

    classes = tuple(
        ClassScores(name, float(p), float(r), float(f), int(s))
        for name, p, r, f, s in zip(names, *cast("tuple[np.ndarray, ...]", scores(None)))
    )
    total = sum(row.support for row in classes)
    averages = []
    for average in ("micro", "macro", "weighted"):
        name = "accuracy" if average == "micro" and micro_is_accuracy else f"{average} avg"
        precision, recall, fscore, _ = scores(average)
        averages.append(ClassScores(name, float(precision), float(recall), float(fscore), total))
    accuracy = averages[0].fscore if micro_is_accuracy else None
    return ClassificationReport(classes, tuple(averages), accuracy, beta)


# ---------------------------------------------------------------------------
# Curves


def _scores(y_score: ArrayLike, n: int, ndim: int = 1) -> np.ndarray:
    """``y_score`` checked: ``ndim`` dimensions (a score per item, or a column per label)."""
    score = np.asarray(y_score, dtype=np.float64)
    shape, rows = ("be one-dimensional here, got shape", "scores")
    if ndim == 2:
        shape, rows = ("have shape (n_items, n_labels), got", "rows")
    if score.ndim != ndim:
        raise ValueError(f"y_score must {shape} {score.shape}")
    if score.shape[0] != n:
        raise ValueError(f"y_true has {n} labels but y_score has {score.shape[0]} {rows}")
    if not np.isfinite(score).all():
        raise ValueError("y_score holds nan or infinite values")
    return score


def _positive_mask(true: list[Any], pos_label: Hashable | None) -> np.ndarray:
    """The items whose label is the positive one (scikit-learn's pos_label rules)."""
    classes = _sorted(set(true))
    if pos_label is None:
        if len(classes) > 2:
            raise ValueError(
                f"y_true has {len(classes)} labels; pass pos_label= to pick the positive one"
            )
        if not any(set(classes) <= allowed for allowed in ({0, 1}, {-1, 1}, {0}, {-1}, {1})) or any(
            isinstance(c, str) for c in classes
        ):
            raise ValueError(
                f"y_true takes values in {classes} and pos_label is not given: make y_true "
                "take values in {0, 1} or {-1, 1}, or pass pos_label"
            )
        pos_label = 1
    return np.fromiter((t == pos_label for t in true), dtype=bool, count=len(true))


def _binary_counts(
    positive: np.ndarray, score: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """False and true positives when predicting positive at each distinct score (descending)."""
    if positive.shape[0] == 0:
        raise ValueError("y_true is empty")
    order = np.argsort(-score, kind="stable")
    score = score[order]
    positive = positive[order]
    distinct = np.flatnonzero(np.diff(score))
    ends = np.r_[distinct, positive.shape[0] - 1]
    tps = np.cumsum(positive, dtype=np.float64)[ends]
    fps = 1 + ends - tps
    return fps, tps, score[ends]


def _to_list(array: np.ndarray) -> list[float | None]:
    return [float(x) if math.isfinite(x) else None for x in array.tolist()]


def _curve_dict(curve: RocCurve | PrecisionRecallCurve, **area: float) -> dict[str, Any]:
    """A curve's arrays as JSON-safe lists, by field name, then its area."""
    return {name: _to_list(values) for name, values in zip(curve._fields, curve)} | area


def _axes(ax: Axes | None) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(5, 5))[1]


class RocCurve(NamedTuple):
    """A receiver operating characteristic curve; unpacks like scikit-learn's triple."""

    false_positive_rate: np.ndarray
    true_positive_rate: np.ndarray
    thresholds: np.ndarray

    @property
    def area(self) -> float:
        """Area under the curve (trapezoidal rule)."""
        return auc(self.false_positive_rate, self.true_positive_rate)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe lists; the first threshold (+inf) becomes None."""
        return _curve_dict(self, auc=self.area)

    def plot(self, ax: Axes | None = None, *, label: str | None = None) -> Axes:
        """Draw the curve (and the chance diagonal) with matplotlib; return the Axes."""
        ax = _axes(ax)
        text = f"AUC = {self.area:.3f}" if label is None else f"{label} (AUC = {self.area:.3f})"
        ax.plot(self.false_positive_rate, self.true_positive_rate, label=text)
        _finish_roc_axes(ax)
        return ax


def _finish_axes(ax: Axes, x: str, y: str, legend: Literal["lower right", "lower left"]) -> None:
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.legend(loc=legend)


def _finish_roc_axes(ax: Axes) -> None:
    ax.plot([0, 1], [0, 1], linestyle=":", color="grey", linewidth=1)
    _finish_axes(ax, "false positive rate", "true positive rate", "lower right")


def auc(x: ArrayLike, y: ArrayLike) -> float:
    """Area under a curve of points ``(x, y)`` by the trapezoidal rule.

    Raises:
        ValueError: fewer than two points, different lengths, or ``x``
            neither non-decreasing nor non-increasing.

    Example:
        >>> auc([0.0, 0.5, 1.0], [0.0, 1.0, 1.0])
        0.75
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x has {x.shape[0]} points but y has {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"at least 2 points are needed for an area, got {x.shape[0]}")
    direction = 1.0
    dx = np.diff(x)
    if np.any(dx < 0):
        if np.all(dx <= 0):
            direction = -1.0
        else:
            raise ValueError("x is neither increasing nor decreasing")
    return float(direction * np.trapezoid(y, x))


def roc_curve(
    y_true: ArrayLike | Iterable[Hashable],
    y_score: ArrayLike,
    *,
    pos_label: Hashable | None = None,
    drop_intermediate: bool = True,
) -> RocCurve:
    """ROC curve of a binary problem: TPR against FPR as the threshold falls.

    The curve starts at (0, 0) with threshold +inf; each distinct score is a
    threshold (an item is predicted positive when its score is >= it).
    ``drop_intermediate`` drops points on a straight line, as scikit-learn does.

    Args:
        y_true: true labels; positive is ``pos_label`` (default 1, with labels
            in {0, 1} or {-1, 1}).
        y_score: a score per item, higher meaning more positive.
        drop_intermediate: drop collinear points that do not change the curve.

    Returns:
        RocCurve(false_positive_rate, true_positive_rate, thresholds). With
        no negatives (positives) the FPR (TPR) is nan, with an UndefinedMetricWarning.

    Example:
        >>> curve = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> curve.false_positive_rate.tolist(), curve.true_positive_rate.tolist()
        ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
        >>> curve.area
        0.75
    """

    true = _as_list(y_true, "y_true")
    positive = _positive_mask(true, pos_label)
    return _roc_points(positive, _scores(y_score, len(true)), drop_intermediate)


def _roc_points(positive: np.ndarray, score: np.ndarray, drop_intermediate: bool) -> RocCurve:
    fps, tps, thresholds = _binary_counts(positive, score)
    if drop_intermediate and fps.shape[0] > 2:
        keep = np.flatnonzero(np.r_[True, np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), True])
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    fps = np.r_[0.0, fps]
    tps = np.r_[0.0, tps]
    thresholds = np.r_[np.inf, thresholds]
    if fps[-1] <= 0:
        warn_undefined(
            "No negative samples in y_true: the false positive rate is undefined (nan)",
            stacklevel=4,
        )
        fpr = np.full(fps.shape, np.nan)
    else:
        fpr = fps / fps[-1]
    if tps[-1] <= 0:
        warn_undefined(
            "No positive samples in y_true: the true positive rate is undefined (nan)",
            stacklevel=4,
        )
        tpr = np.full(tps.shape, np.nan)
    else:
        tpr = tps / tps[-1]
    return RocCurve(fpr, tpr, thresholds)


class PrecisionRecallCurve(NamedTuple):
    """Precision and recall at each threshold; unpacks like scikit-learn's triple.

    ``precision`` and ``recall`` have one more point than ``thresholds``:
    the last point is (recall 0, precision 1), with no threshold.
    """

    precision: np.ndarray
    recall: np.ndarray
    thresholds: np.ndarray

    @property
    def average_precision(self) -> float:
        """Average precision: the step-function integral ``sum((R_n - R_{n-1}) * P_n)``."""
        return max(0.0, float(-np.sum(np.diff(self.recall) * self.precision[:-1])))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe lists."""
        return _curve_dict(self, average_precision=self.average_precision)

    def plot(self, ax: Axes | None = None, *, label: str | None = None) -> Axes:
        """Draw the curve as a step function with matplotlib; return the Axes."""
        ax = _axes(ax)
        text = f"AP = {self.average_precision:.3f}"
        ax.step(
            self.recall,
            self.precision,
            where="post",
            label=text if label is None else f"{label} ({text})",
        )
        _finish_axes(ax, "recall", "precision", "lower left")
        return ax


def precision_recall_curve(
    y_true: ArrayLike | Iterable[Hashable],
    y_score: ArrayLike,
    *,
    pos_label: Hashable | None = None,
    drop_intermediate: bool = False,
) -> PrecisionRecallCurve:
    """Precision-recall pairs at each distinct score threshold, recall decreasing.

    With no positive item, recall is 1 at every threshold (with a warning),
    as in scikit-learn; precision at a threshold with no predicted item is 0.

    Args:
        y_true: true labels; the positive is ``pos_label`` (default 1).
        y_score: a score per item, higher meaning more positive.
        drop_intermediate: keep only the first and last point of each run of
            equal true-positive counts.

    Example:
        >>> curve = precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> curve.precision.round(4).tolist()
        [0.5, 0.6667, 0.5, 1.0, 1.0]
        >>> curve.recall.tolist(), curve.thresholds.tolist()
        ([1.0, 1.0, 0.5, 0.5, 0.0], [0.1, 0.35, 0.4, 0.8])
    """

    true = _as_list(y_true, "y_true")
    positive = _positive_mask(true, pos_label)
    return _precision_recall_points(positive, _scores(y_score, len(true)), drop_intermediate)


def _precision_recall_points(
    positive: np.ndarray, score: np.ndarray, drop_intermediate: bool, stacklevel: int = 3
) -> PrecisionRecallCurve:
    fps, tps, thresholds = _binary_counts(positive, score)
    if drop_intermediate and fps.shape[0] > 2:
        keep = np.flatnonzero(np.r_[True, np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])), True])
        fps, tps, thresholds = fps[keep], tps[keep], thresholds[keep]
    predicted = tps + fps
    precision = np.divide(tps, predicted, out=np.zeros_like(tps), where=predicted != 0)
    if tps[-1] == 0:
        warnings.warn(
            "No positive class found in y_true, recall is set to one for all thresholds.",
            UserWarning,
            stacklevel=stacklevel,
        )
        recall = np.ones_like(tps)
    else:
        recall = tps / tps[-1]
    return PrecisionRecallCurve(
        np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], thresholds[::-1]
    )


def _binary_roc_auc(positive: np.ndarray, score: np.ndarray) -> float:
    if positive.all() or not positive.any():
        warn_undefined(
            "Only one class is present in y_true. ROC AUC score is not defined in that case.",
            stacklevel=4,
        )
        return math.nan
    return _roc_points(positive, score, True).area


def _binary_average_precision(positive: np.ndarray, score: np.ndarray) -> float:
    return _precision_recall_points(positive, score, False, stacklevel=5).average_precision


def _one_vs_rest(
    true: list[Any], y_score: ArrayLike, labels: Sequence[Hashable] | None
) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """Labels, indicator matrix (n_items, n_labels) and score matrix of a multiclass problem."""
    score = _scores(y_score, len(true), ndim=2)
    if labels is None:
        classes = _sorted(set(true))
        if len(classes) != score.shape[1]:
            raise ValueError(
                f"y_true has {len(classes)} labels but y_score has {score.shape[1]} columns; "
                "pass labels= to name the columns"
            )
    else:
        classes = _as_list(labels, "labels")
        if len(set(classes)) != len(classes):
            raise ValueError("labels must be unique")
        if classes != _sorted(classes):
            raise ValueError("labels must be sorted (the columns of y_score are in sorted order)")
        if len(classes) != score.shape[1]:
            raise ValueError(f"{len(classes)} labels but y_score has {score.shape[1]} columns")
        if set(true) - set(classes):
            raise ValueError("y_true holds labels that are not in labels")
    index = {label: i for i, label in enumerate(classes)}
    codes = _encode(true, index)
    indicator = np.zeros(score.shape, dtype=bool)
    indicator[np.arange(len(true)), codes] = True
    return classes, indicator, score


def _average_over_labels(
    binary_metric: Any, indicator: np.ndarray, score: np.ndarray, average: str | None
) -> np.ndarray | float:
    if average not in _CURVE_AVERAGES:
        raise ValueError(f"average must be 'micro', 'macro', 'weighted' or None, got {average!r}")
    if average == "micro":
        return binary_metric(indicator.ravel(), score.ravel())
    weights = None
    if average == "weighted":
        weights = indicator.sum(axis=0)
        if weights.sum() == 0:
            return 0.0
    per_label = np.array(
        [binary_metric(indicator[:, j], score[:, j]) for j in range(score.shape[1])]
    )
    if average is None:
        return per_label
    return float(np.average(per_label, weights=weights))


def roc_auc_score(
    y_true: ArrayLike | Iterable[Hashable],
    y_score: ArrayLike,
    *,
    average: Literal["micro", "macro", "weighted"] | None = "macro",
    labels: Sequence[Hashable] | None = None,
    multi_class: Literal["ovr", "ovo"] = "ovr",
) -> np.ndarray | float:
    """Area under the ROC curve, for two classes or several (one-vs-rest or one-vs-one).

    Two classes: ``y_score`` is one score per item for the greater label.
    Several classes: ``y_score`` has a column per label (sorted, or in the
    order of ``labels``). One-vs-rest (``"ovr"``) scores each label against
    the others: ``macro`` averages the per-label AUCs, ``weighted`` weighs
    them by support, ``micro`` is the AUC of all (item, label) decisions
    pooled. One-vs-one (``"ovo"``) averages the AUCs of every pair of labels
    (Hand & Till 2001), ``weighted`` by the pair's prevalence. Unlike
    scikit-learn, one-vs-rest does not require rows that sum to 1.

    Returns:
        The AUC (per label when ``average`` is None, one-vs-rest only); nan
        with an UndefinedMetricWarning when a label to score never occurs,
        or with two classes only one occurs.

    Example:
        >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        0.75
        >>> roc_auc_score(["a", "b", "c", "a"], [[0.8, 0.1, 0.1], [0.3, 0.6, 0.1],
        ...                                      [0.2, 0.2, 0.6], [0.4, 0.5, 0.1]])
        1.0
    """
    true = _as_list(y_true, "y_true")
    if np.ndim(y_score) == 1:
        classes = _sorted(set(true))
        if len(classes) > 2:
            raise ValueError(f"y_true has {len(classes)} labels: y_score needs a column per label")
        score = _scores(y_score, len(true))
        greater = classes[1] if len(classes) == 2 else None  # one class: no positive item
        positive = np.fromiter((t == greater for t in true), dtype=bool, count=len(true))
        return _binary_roc_auc(positive, score)
    classes, indicator, score = _one_vs_rest(true, y_score, labels)
    if multi_class == "ovr":
        return _average_over_labels(_binary_roc_auc, indicator, score, average)
    if multi_class != "ovo":
        raise ValueError(f"multi_class must be 'ovr' or 'ovo', got {multi_class!r}")
    if average not in ("macro", "weighted"):
        raise ValueError(f"average must be 'macro' or 'weighted' for one-vs-one, got {average!r}")
    pair_scores = []
    prevalence = []
    for a in range(len(classes)):
        for b in range(a + 1, len(classes)):
            mask = indicator[:, a] | indicator[:, b]
            a_true = _binary_roc_auc(indicator[mask, a], score[mask, a])
            b_true = _binary_roc_auc(indicator[mask, b], score[mask, b])
            pair_scores.append((a_true + b_true) / 2)
            prevalence.append(mask.mean())
    weights = np.array(prevalence) if average == "weighted" else None
    return float(np.average(np.array(pair_scores), weights=weights))


def average_precision_score(
    y_true: ArrayLike | Iterable[Hashable],
    y_score: ArrayLike,
    *,
    average: Literal["micro", "macro", "weighted"] | None = "macro",
    pos_label: Hashable = 1,
    labels: Sequence[Hashable] | None = None,
) -> np.ndarray | float:
    """Average precision: ``sum over thresholds of (R_n - R_{n-1}) * P_n``, no interpolation.

    Two classes: ``y_score`` is one score per item for ``pos_label``.
    Several classes: a column per label, averaged one-vs-rest as in
    :func:`roc_auc_score`.

    Example:
        >>> round(average_precision_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
        0.8333
    """
    true = _as_list(y_true, "y_true")
    if np.ndim(y_score) == 1:
        present = _sorted(set(true))
        if len(present) > 2:
            raise ValueError(f"y_true has {len(present)} labels: y_score needs a column per label")
        if len(present) == 2 and pos_label not in present:
            raise ValueError(
                f"pos_label={pos_label!r} is not a valid label: it should be one of {present}"
            )
        score = _scores(y_score, len(true))
        positive = np.fromiter((t == pos_label for t in true), dtype=bool, count=len(true))
        return _binary_average_precision(positive, score)
    if pos_label != 1:
        raise ValueError("pos_label is fixed to 1 for several classes; do not set it")
    _, indicator, score = _one_vs_rest(true, y_score, labels)
    return _average_over_labels(_binary_average_precision, indicator, score, average)


@dataclass(frozen=True, eq=False)
class RocCurves:
    """One-vs-rest ROC curves of several classes, with micro- and macro-averaged curves.

    The micro curve pools every (item, label) decision. The macro curve
    interpolates every class's TPR at the union of all classes' FPRs and
    averages them; its area can differ slightly from the mean of the
    per-class areas (which :func:`roc_auc_score` with ``average="macro"`` gives).
    """

    labels: tuple[Any, ...]
    per_class: tuple[RocCurve, ...]
    micro: RocCurve
    macro_false_positive_rate: np.ndarray
    macro_true_positive_rate: np.ndarray

    @property
    def macro_area(self) -> float:
        """Area under the interpolated macro-average curve."""
        return auc(self.macro_false_positive_rate, self.macro_true_positive_rate)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: each class's curve, the micro curve and the macro curve with areas."""
        return {
            "labels": [str(label) for label in self.labels],
            "per_class": {str(label): c.to_dict() for label, c in zip(self.labels, self.per_class)},
            "micro": self.micro.to_dict(),
            "macro": {
                "false_positive_rate": _to_list(self.macro_false_positive_rate),
                "true_positive_rate": _to_list(self.macro_true_positive_rate),
                "auc": self.macro_area,
            },
        }

    def plot(self, ax: Axes | None = None) -> Axes:
        """Draw every class, the micro and the macro curve; return the Axes."""
        ax = _axes(ax)
        for label, curve in zip(self.labels, self.per_class):
            ax.plot(
                curve.false_positive_rate,
                curve.true_positive_rate,
                linewidth=1,
                label=f"{label} (AUC = {curve.area:.3f})",
            )
        micro = ("micro", self.micro.false_positive_rate, self.micro.true_positive_rate)
        macro = ("macro", self.macro_false_positive_rate, self.macro_true_positive_rate)
        for name, fpr, tpr in (micro, macro):
            area = f"AUC = {auc(fpr, tpr):.3f}"
            ax.plot(fpr, tpr, linestyle="--", linewidth=2, label=f"{name}-average ({area})")
        _finish_roc_axes(ax)
        return ax


def roc_curves(
    y_true: ArrayLike | Iterable[Hashable],
    y_score: ArrayLike,
    *,
    labels: Sequence[Hashable] | None = None,
    drop_intermediate: bool = True,
) -> RocCurves:
    """One-vs-rest ROC curves of every class of a multiclass problem, plus micro and macro curves.

    Args:
        y_score: shape (n_items, n_labels), a column per label (sorted, or
            in the order of ``labels``).
        labels: the labels of the columns.
        drop_intermediate: as in :func:`roc_curve`.

    Example:
        >>> curves = roc_curves(["a", "b", "c", "a"], [[0.8, 0.1, 0.1], [0.3, 0.6, 0.1],
        ...                                           [0.2, 0.2, 0.6], [0.4, 0.5, 0.1]])
        >>> curves.labels, [c.area for c in curves.per_class], curves.macro_area
        (('a', 'b', 'c'), [1.0, 1.0, 1.0], 1.0)
    """
    true = _as_list(y_true, "y_true")
    classes, indicator, score = _one_vs_rest(true, y_score, labels)
    per_class = tuple(
        roc_curve(indicator[:, j], score[:, j], pos_label=True, drop_intermediate=drop_intermediate)
        for j in range(len(classes))
    )
    micro = roc_curve(
        indicator.ravel(), score.ravel(), pos_label=True, drop_intermediate=drop_intermediate
    )
    grid = np.unique(np.concatenate([c.false_positive_rate for c in per_class]))
    mean_tpr = np.zeros_like(grid)
    for c in per_class:
        mean_tpr += np.interp(grid, c.false_positive_rate, c.true_positive_rate)
    mean_tpr /= len(per_class)
    return RocCurves(tuple(classes), per_class, micro, grid, mean_tpr)

"""Impurity and split criteria of decision trees: entropy, information gain, gain ratio, Gini.

For a categorical feature ``X`` and class labels ``Y`` over the same items:

- entropy ``H(Y) = -sum_c p(c) log p(c)`` (Shannon 1948), in bits by default;
- conditional entropy ``H(Y|X) = sum_v p(v) H(Y | X = v)``;
- information gain ``IG = H(Y) - H(Y|X)``, ID3's criterion (Quinlan 1986),
  which equals the mutual information ``I(X; Y)``;
- split information ``H(X)`` and gain ratio ``IG / H(X)``, C4.5's criterion
  (Quinlan 1993), which stops many-valued features from winning by being
  many-valued;
- Gini impurity ``G(Y) = 1 - sum_c p(c)^2`` and Gini gain ``G(Y) - sum_v
  p(v) G(Y | X = v)``, CART's criterion (Breiman et al. 1984).

:func:`split_criteria` computes them all for every feature of a table (a
mapping of column name to values, or a pandas DataFrame). Features are
categorical: every distinct value is one branch.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from cws_bench.display.formats import Renderable
from cws_bench.display.tables import csv_table, markdown_table, text_table
from cws_bench.display.units import plural
from cws_bench.metrics.undefined import ZeroDivision, check_zero_division, warn_undefined

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CRITERIA",
    "FeatureSplit",
    "SplitCriteria",
    "conditional_entropy",
    "entropy",
    "entropy_from_counts",
    "gain_ratio",
    "gini_gain",
    "gini_impurity",
    "information_gain",
    "split_criteria",
    "split_information",
]

CRITERIA = ("information_gain", "gain_ratio", "gini_gain")
"""The split criteria :meth:`SplitCriteria.best` can rank by (ID3, C4.5, CART)."""


def _values(values: Iterable[Hashable], name: str) -> list[Hashable]:
    if isinstance(values, str):
        raise ValueError(f"{name} must be a sequence of values, not one string")
    if hasattr(values, "tolist"):  # numpy arrays, pandas Series
        return list(values.tolist())
    return list(values)


def _pair(feature: Iterable[Hashable], target: Iterable[Hashable]) -> tuple[list, list]:
    x = _values(feature, "feature")
    y = _values(target, "target")
    if len(x) != len(y):
        raise ValueError(f"feature has {plural(len(x), 'value')} but target has {len(y)}")
    if not y:
        raise ValueError("no items: the criteria of an empty set are undefined")
    return x, y


def _check_base(base: float) -> None:
    if not base > 1:
        raise ValueError(f"base must be > 1, got {base!r}")


def entropy_from_counts(counts: Iterable[int], *, base: float = 2.0) -> float:
    """Entropy of a distribution given by counts: ``-sum (c/n) log (c/n)``; zero counts add 0.

    Raises:
        ValueError: a negative count, all counts zero, or a base <= 1.

    Example:
        >>> round(entropy_from_counts([9, 5]), 4), entropy_from_counts([1, 1, 0])
        (0.9403, 1.0)
    """
    _check_base(base)
    values = list(counts)
    if any(c < 0 for c in values):
        raise ValueError("counts must be >= 0")
    total = sum(values)
    if total == 0:
        raise ValueError("entropy of no items is undefined")
    log = math.log2 if base == 2 else (lambda v: math.log(v) / math.log(base))
    result = -math.fsum(c / total * log(c / total) for c in values if c)
    return result + 0.0  # -0.0 -> 0.0


def entropy(target: Iterable[Hashable], *, base: float = 2.0) -> float:
    """Entropy of the class distribution of ``target`` (bits by default; ``base=math.e`` for nats).

    Example:
        >>> round(entropy(["yes"] * 9 + ["no"] * 5), 4)
        0.9403
    """
    y = _values(target, "target")
    return entropy_from_counts(Counter(y).values(), base=base)


def _within_branches(
    x: list[Hashable], y: list[Hashable], impurity: Callable[[Iterable[int]], float]
) -> float:
    """``sum_v p(v) impurity(y | x = v)`` over the feature's values ``v``."""
    branches: dict[Hashable, Counter[Hashable]] = defaultdict(Counter)
    for value, label in zip(x, y):
        branches[value][label] += 1
    n = len(y)
    return math.fsum(sum(c.values()) / n * impurity(c.values()) for c in branches.values())


def conditional_entropy(
    feature: Iterable[Hashable], target: Iterable[Hashable], *, base: float = 2.0
) -> float:
    """``H(target | feature)``: the entropy left in ``target`` once ``feature`` is known.

    Example:
        >>> conditional_entropy(["a", "a", "b", "b"], ["x", "y", "x", "x"])
        0.5
    """
    x, y = _pair(feature, target)
    _check_base(base)
    return _within_branches(x, y, lambda counts: entropy_from_counts(counts, base=base))


def information_gain(
    feature: Iterable[Hashable], target: Iterable[Hashable], *, base: float = 2.0
) -> float:
    """ID3's information gain ``H(target) - H(target | feature)`` (the mutual information).

    Example:
        >>> information_gain(["a", "a", "b", "b"], ["x", "y", "x", "x"])
        0.31127812445913283
    """
    x, y = _pair(feature, target)
    gain = entropy(y, base=base) - conditional_entropy(x, y, base=base)
    return max(gain, 0.0)  # rounding can give -1e-17 for an uninformative feature


def split_information(feature: Iterable[Hashable], *, base: float = 2.0) -> float:
    """C4.5's split information: the entropy of the feature's own values.

    Example:
        >>> round(split_information(["sunny"] * 5 + ["overcast"] * 4 + ["rain"] * 5), 4)
        1.5774
    """
    return entropy(_values(feature, "feature"), base=base)


def gain_ratio(
    feature: Iterable[Hashable],
    target: Iterable[Hashable],
    *,
    base: float = 2.0,
    zero_division: ZeroDivision = "warn",
) -> float:
    """C4.5's gain ratio: information gain over split information.

    A feature with one value has split information 0; its gain ratio is
    undefined and takes ``zero_division`` (the base cancels out otherwise).

    Example:
        >>> gain_ratio(["a", "a", "b", "b"], ["x", "y", "x", "x"])
        0.31127812445913283
    """
    x, y = _pair(feature, target)
    check_zero_division(zero_division)
    split = split_information(x, base=base)
    if split == 0:
        if zero_division == "warn":
            warn_undefined("gain ratio is ill-defined for a feature with one value; set to 0.0")
        return check_zero_division(zero_division)
    return information_gain(x, y, base=base) / split


def _gini(counts: Iterable[int]) -> float:
    values = list(counts)
    total = sum(values)
    return 1.0 - math.fsum((c / total) ** 2 for c in values)


def gini_impurity(target: Iterable[Hashable]) -> float:
    """CART's Gini impurity ``1 - sum_c p(c)^2``: the chance two random draws disagree.

    Raises:
        ValueError: no items.

    Example:
        >>> round(gini_impurity(["yes"] * 9 + ["no"] * 5), 4)
        0.4592
    """
    y = _values(target, "target")
    if not y:
        raise ValueError("Gini impurity of no items is undefined")
    return _gini(Counter(y).values())


def gini_gain(feature: Iterable[Hashable], target: Iterable[Hashable]) -> float:
    """CART's impurity decrease: ``G(target) - sum_v p(v) G(target | feature = v)``.

    Example:
        >>> gini_gain(["a", "a", "b", "b"], ["x", "y", "x", "x"])
        0.125
    """
    x, y = _pair(feature, target)
    return max(gini_impurity(y) - _within_branches(x, y, _gini), 0.0)


@dataclass(frozen=True, slots=True)
class FeatureSplit:
    """Every criterion for splitting on one feature.

    Attributes:
        values: how many distinct values (branches) it has.
        conditional_entropy: ``H(target | feature)``.
        information_gain: ID3's criterion.
        split_information: the entropy of the feature's values.
        gain_ratio: C4.5's criterion (None when split information is 0).
        gini_gain: CART's criterion.
    """

    feature: str
    values: int
    conditional_entropy: float
    information_gain: float
    split_information: float
    gain_ratio: float | None
    gini_gain: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict in field order."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class SplitCriteria(Renderable):
    """The split criteria of every feature of a table, for one target column.

    Attributes:
        features: one FeatureSplit per feature, in table order.
        base: the logarithm base of the entropies.
    """

    target: str
    items: int
    entropy: float
    gini_impurity: float
    features: tuple[FeatureSplit, ...]
    base: float = 2.0

    def best(self, criterion: str = "information_gain") -> str:
        """The feature that maximises ``criterion`` (ties: the first in table order).

        Raises:
            ValueError: an unknown criterion, or no feature.
        """
        if criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {', '.join(CRITERIA)}, got {criterion!r}")
        scored = [(getattr(f, criterion), f.feature) for f in self.features]
        scored = [(value, name) for value, name in scored if value is not None]
        if not scored:
            raise ValueError("no feature to split on")
        best = max(value for value, _ in scored)
        return next(name for value, name in scored if value == best)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: the target's figures and one dict per feature."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "features"}
        return {**data, "features": [f.to_dict() for f in self.features]}

    def to_frame(self) -> pd.DataFrame:
        """One row per feature, one column per criterion."""
        import pandas as pd

        return pd.DataFrame([f.to_dict() for f in self.features]).set_index("feature")

    def __str__(self) -> str:
        """The command line's table."""
        return self.render("text")

    def __repr__(self) -> str:
        return (
            f"SplitCriteria(target={self.target!r}, items={self.items}, "
            f"features={len(self.features)})"
        )

    # Rendering: what ``cws-bench metrics impurity`` prints, one method per format.

    # :meth:`render` (Renderable) writes one of FORMATS: ``name`` (the table's file name)
    # starts the text format's first line; ``digits`` are the decimals of text and Markdown.
    FORMATS: ClassVar[tuple[str, ...]] = ("text", "json", "csv", "markdown")

    def to_csv(self) -> str:
        rows: list[list[Any]] = [
            [f.feature, f.values, *(getattr(f, n) for n in SHOWN_CRITERIA)] for f in self.features
        ]
        return csv_table(["feature", "values", *SHOWN_CRITERIA], rows)

    def to_markdown(self, *, digits: int = 6) -> str:
        summary, header, body = self._table(digits)
        return f"{summary}\n\n{markdown_table(header, body)}"

    def to_text(self, *, name: str = "data", digits: int = 6) -> str:
        summary, header, body = self._table(digits)
        return f"{name}: {summary}\n{text_table(header, body)}"

    def _table(self, digits: int) -> tuple[str, list[str], list[list[str]]]:
        header = ["feature", "values", *SHOWN_CRITERIA]

        def number(value: float | None) -> str:
            return "--" if value is None else f"{value:.{digits}f}"

        body = [
            [f.feature, str(f.values), *(number(getattr(f, n)) for n in SHOWN_CRITERIA)]
            for f in self.features
        ]
        base = self.base
        unit = "bits" if base == 2 else ("nats" if abs(base - math.e) < 1e-12 else f"base {base:g}")
        summary = (
            f"{self.target}: {plural(self.items, 'row')}, entropy {number(self.entropy)} {unit}, "
            f"Gini index {number(self.gini_impurity)}"
        )
        return summary, header, body


SHOWN_CRITERIA = (
    "conditional_entropy",
    "information_gain",
    "split_information",
    "gain_ratio",
    "gini_gain",
)
"""The criteria columns of the rendered tables, in order."""


def split_criteria(
    table: Mapping[str, Sequence[Hashable]] | pd.DataFrame,
    target: str,
    *,
    features: Sequence[str] | None = None,
    base: float = 2.0,
) -> SplitCriteria:
    """Entropy, information gain, gain ratio and Gini gain of every feature of a table.

    Args:
        table: column name -> values (a dict of lists, or a pandas DataFrame).
        target: the name of the class column.
        features: the columns to score (default: every column but the target).
        base: the logarithm base (2 for bits).

    Raises:
        ValueError: the target or a feature is not a column, or columns differ in length.

    Example:
        >>> table = {"outlook": ["sunny", "sunny", "rain", "rain"],
        ...          "play": ["no", "no", "yes", "no"]}
        >>> criteria = split_criteria(table, "play")
        >>> criteria.best(), round(criteria.features[0].information_gain, 4)
        ('outlook', 0.3113)
    """
    columns = [str(c) for c in table]
    twice = sorted({c for c in columns if columns.count(c) > 1})
    if twice:
        raise ValueError(f"column {twice[0]!r} is named twice; give each column its own name")
    if target not in columns:
        raise ValueError(f"no column {target!r}; the columns are {', '.join(columns)}")
    chosen = [c for c in columns if c != target] if features is None else list(features)
    if target in chosen:
        raise ValueError(f"the target {target!r} is also a feature: a feature predicts the target")
    repeated = sorted({c for c in chosen if chosen.count(c) > 1})
    if repeated:
        raise ValueError(f"feature {repeated[0]!r} is given twice")
    for name in chosen:
        if name not in columns:
            raise ValueError(f"no column {name!r}; the columns are {', '.join(columns)}")
    y = _values(table[target], target)
    rows = []
    for name in chosen:
        x = _values(table[name], name)
        if len(x) != len(y):
            raise ValueError(
                f"column {name!r} has {plural(len(x), 'value')} but {target!r} has {len(y)}"
            )
        split = split_information(x, base=base) if x else 0.0
        gain = information_gain(x, y, base=base)
        rows.append(
            FeatureSplit(
                feature=name,
                values=len(set(x)),
                conditional_entropy=conditional_entropy(x, y, base=base),
                information_gain=gain,
                split_information=split,
                gain_ratio=gain / split if split else None,
                gini_gain=gini_gain(x, y),
            )
        )
    return SplitCriteria(
        target=target,
        items=len(y),
        entropy=entropy(y, base=base),
        gini_impurity=gini_impurity(y),
        features=tuple(rows),
        base=base,
    )

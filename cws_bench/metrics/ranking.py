"""Ranking metrics for retrieval runs: AP and MAP, RR and MRR, hit rate, P@k, R@k, CG, DCG, NDCG.

Per query, ``judgements`` maps each judged document to its relevance grade
(an integer; the qrels of one query) and ``ranking`` is the run for that
query: either the documents in rank order, or a mapping of document to
score, ranked as trec_eval ranks them (score descending, ties broken by
document id descending). A document is relevant when its grade is at least
``relevance_level`` (default 1); unjudged documents are not relevant.
``k`` cuts the ranking after ``k`` documents (None: the whole ranking).

Over a run, :func:`evaluate_run` averages each metric over the queries of
the qrels; a query of the qrels that the run lacks scores 0 (trec_eval's
``-c``), a query of the run that the qrels lack is left out and reported.

The definitions are trec_eval's and ranx's (``tests/metrics/test_ranking.py``
compares with ranx on random runs):

- ``precision@k = relevant in the top k / k``; ``recall@k = relevant in the
  top k / R``, with ``R`` the number of relevant documents of the query;
- average precision ``AP@k = (1/R) · sum over relevant ranks i <= k of
  precision@i`` (Buckley & Voorhees; trec_eval's ``map_cut``);
- reciprocal rank ``1 / rank of the first relevant document`` (0 if none in
  the top k); hit rate 1 if some relevant document is in the top k;
- cumulative gain ``CG@k = sum over i <= k of grade_i``, with no discount
  (Järvelin & Kekäläinen 2002);
- ``DCG@k = sum over i <= k of gain(grade_i) / log2(i + 1)``; ``NDCG@k =
  DCG@k / IDCG@k``, the ideal DCG of the judged grades sorted descending.
  The names say the gain, as ranx's do: ``dcg`` and ``ndcg`` use the grade
  itself (Järvelin & Kekäläinen 2002; trec_eval's ``ndcg`` and ranx's
  ``ndcg``), ``dcg_burges`` and ``ndcg_burges`` use ``2^grade - 1``
  (Burges et al. 2005; ranx's ``ndcg_burges``). In the functions,
  ``gain="linear"`` (the default) or ``gain="exponential"``.

A grade below ``relevance_level`` counts as 0 in CG, DCG and NDCG (ranx's
convention).

Undefined values: recall, AP and NDCG of a query with no relevant document
divide by zero and take ``zero_division`` ("warn": 0.0 with an
UndefinedMetricWarning, as ranx's and trec_eval's 0).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from cws_bench.display.formats import Renderable
from cws_bench.display.tables import csv_table, markdown_table, text_table
from cws_bench.display.units import Units, plural, units
from cws_bench.metrics.undefined import ZeroDivision, check_zero_division, warn_undefined

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_METRICS",
    "RANKING_METRICS",
    "REPORT_FORMATS",
    "RankingReport",
    "average_precision",
    "cumulative_gain",
    "dcg",
    "evaluate_run",
    "hit_rate",
    "kendall_tau",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg",
    "parse_metric",
    "precision_at_k",
    "rank_documents",
    "recall_at_k",
    "reciprocal_rank",
]

Judgements = Mapping[str, int]
Ranking = Sequence[str] | Mapping[str, float]
Gain = Literal["exponential", "linear"]


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's τ-b of two scorings of the same items (scipy.stats.kendalltau's default).

    ``(C - D) / sqrt((n0 - n1) (n0 - n2))`` over the ``n0`` pairs of items: ``C``
    concordant, ``D`` discordant, ``n1`` and ``n2`` tied in ``x`` and in ``y``.
    None when it is undefined (fewer than two items, or one scoring all ties).

    >>> kendall_tau([1, 2, 3], [10, 20, 30]), kendall_tau([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    >>> round(kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]), 6)
    0.666667
    """
    if len(x) != len(y):
        raise ValueError(f"kendall_tau: {len(x)} and {len(y)} values")
    n = len(x)
    concordant = discordant = tied_x = tied_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0:
                tied_x += 1
            if dy == 0:
                tied_y += 1
            if dx and dy:
                if (dx > 0) == (dy > 0):
                    concordant += 1
                else:
                    discordant += 1
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    if denominator == 0:
        return None
    return (concordant - discordant) / denominator


def rank_documents(scores: Mapping[str, float]) -> list[str]:
    """Documents by score descending, ties by document id descending (trec_eval's order).

    Example:
        >>> rank_documents({"d1": 0.5, "d2": 0.9, "d3": 0.5})
        ['d2', 'd3', 'd1']
    """
    return [
        doc for doc, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)
    ]


def _ranked(ranking: Ranking) -> list[str]:
    if isinstance(ranking, str):
        raise ValueError("ranking must be a list of document ids or a mapping of id to score")
    if isinstance(ranking, Mapping):
        return rank_documents(ranking)
    documents = list(ranking)
    if len(set(documents)) != len(documents):
        twice = next(doc for i, doc in enumerate(documents) if doc in documents[:i])
        raise ValueError(f"document {twice!r} is ranked twice")
    return documents


def _cut(documents: list[str], k: int | None) -> list[str]:
    if k is None:
        return documents
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer or None, got {k!r}")
    return documents[:k]


def _relevant(judgements: Judgements, relevance_level: int) -> set[str]:
    return {doc for doc, grade in judgements.items() if grade >= relevance_level}


def _undefined(zero_division: ZeroDivision, what: str) -> float:
    value = check_zero_division(zero_division)
    if zero_division == "warn":
        warn_undefined(
            f"{what} is ill-defined for a query with no relevant document; set to 0.0", stacklevel=4
        )
    return value


def precision_at_k(
    judgements: Judgements, ranking: Ranking, *, k: int, relevance_level: int = 1
) -> float:
    """Relevant documents in the top ``k``, over ``k`` (a short ranking still divides by ``k``).

    Example:
        >>> precision_at_k({"d1": 1, "d3": 2}, ["d1", "d2", "d3"], k=2)
        0.5
    """
    top = _cut(_ranked(ranking), k)
    relevant = _relevant(judgements, relevance_level)
    return sum(doc in relevant for doc in top) / k


def recall_at_k(
    judgements: Judgements,
    ranking: Ranking,
    *,
    k: int | None = None,
    relevance_level: int = 1,
    zero_division: ZeroDivision = "warn",
) -> float:
    """Relevant documents in the top ``k``, over all relevant documents of the query.

    Example:
        >>> recall_at_k({"d1": 1, "d3": 2, "d9": 1}, ["d1", "d2", "d3"], k=2)
        0.3333333333333333
    """
    check_zero_division(zero_division)
    top = _cut(_ranked(ranking), k)
    relevant = _relevant(judgements, relevance_level)
    if not relevant:
        return _undefined(zero_division, "recall")
    return sum(doc in relevant for doc in top) / len(relevant)


def hit_rate(
    judgements: Judgements, ranking: Ranking, *, k: int | None = None, relevance_level: int = 1
) -> float:
    """1.0 if a relevant document is in the top ``k``, else 0.0.

    Example:
        >>> ranking = ["d1", "d2", "d3"]
        >>> hit_rate({"d3": 1}, ranking, k=2), hit_rate({"d3": 1}, ranking, k=3)
        (0.0, 1.0)
    """
    relevant = _relevant(judgements, relevance_level)
    return float(any(doc in relevant for doc in _cut(_ranked(ranking), k)))


def reciprocal_rank(
    judgements: Judgements, ranking: Ranking, *, k: int | None = None, relevance_level: int = 1
) -> float:
    """1 / the rank of the first relevant document in the top ``k``; 0.0 if there is none.

    Example:
        >>> reciprocal_rank({"d3": 1}, ["d1", "d2", "d3"])
        0.3333333333333333
    """
    relevant = _relevant(judgements, relevance_level)
    for rank, doc in enumerate(_cut(_ranked(ranking), k), start=1):
        if doc in relevant:
            return 1 / rank
    return 0.0


def average_precision(
    judgements: Judgements,
    ranking: Ranking,
    *,
    k: int | None = None,
    relevance_level: int = 1,
    zero_division: ZeroDivision = "warn",
) -> float:
    """Average precision: precision at each relevant rank in the top ``k``, summed, over ``R``.

    Relevant documents the ranking misses add 0, so ``R`` counts every
    relevant document of the query.

    Example:
        >>> average_precision({"d1": 1, "d3": 1}, ["d1", "d2", "d3"])  # (1/1 + 2/3) / 2
        0.8333333333333333
    """
    check_zero_division(zero_division)
    relevant = _relevant(judgements, relevance_level)
    if not relevant:
        return _undefined(zero_division, "average precision")
    hits = 0
    total = 0.0
    for rank, doc in enumerate(_cut(_ranked(ranking), k), start=1):
        if doc in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)


def _gain(grade: int, gain: Gain) -> float:
    if gain == "exponential":
        return 2.0**grade - 1
    if gain == "linear":
        return float(grade)
    raise ValueError(f"gain must be 'exponential' or 'linear', got {gain!r}")


def cumulative_gain(
    judgements: Judgements, ranking: Ranking, *, k: int | None = None, relevance_level: int = 1
) -> float:
    """Cumulative gain: the sum of the grades of the top ``k`` documents, with no discount.

    A document below ``relevance_level`` (or unjudged) adds 0.

    Example:
        >>> cumulative_gain({"d1": 3, "d2": 1, "d3": 2}, ["d2", "d9", "d1", "d3"], k=3)
        4.0
    """
    grades = [judgements.get(doc, 0) for doc in _cut(_ranked(ranking), k)]
    return float(sum(g for g in grades if g >= relevance_level))


def _dcg(grades: Iterable[int], gain: Gain) -> float:
    return sum(
        _gain(grade, gain) / math.log2(rank + 1) for rank, grade in enumerate(grades, start=1)
    )


def dcg(
    judgements: Judgements,
    ranking: Ranking,
    *,
    k: int | None = None,
    relevance_level: int = 1,
    gain: Gain = "linear",
) -> float:
    """Discounted cumulative gain: ``sum over ranks i <= k of gain(grade_i) / log2(i + 1)``.

    A document below ``relevance_level`` (or unjudged) has gain 0. The gain
    is the grade (``linear``, ranx's and trec_eval's ``dcg``) or ``2^grade -
    1`` (``exponential``, ranx's ``dcg_burges``).

    Example:
        >>> dcg({"d1": 3, "d2": 1}, ["d1", "d2"])  # 3/1 + 1/log2(3)
        3.6309297535714578
        >>> dcg({"d1": 3, "d2": 1}, ["d1", "d2"], gain="exponential")  # 7/1 + 1/log2(3)
        7.630929753571458
    """
    grades = [judgements.get(doc, 0) for doc in _cut(_ranked(ranking), k)]
    return _dcg((g if g >= relevance_level else 0 for g in grades), gain)


def ndcg(
    judgements: Judgements,
    ranking: Ranking,
    *,
    k: int | None = None,
    relevance_level: int = 1,
    gain: Gain = "linear",
    zero_division: ZeroDivision = "warn",
) -> float:
    """Normalised DCG: DCG@k over the DCG@k of the ideal ranking of the judged documents.

    ``gain`` as in :func:`dcg`: the default linear gain is ranx's and
    trec_eval's ``ndcg``, ``exponential`` is ranx's ``ndcg_burges``.

    Example:
        >>> round(ndcg({"d1": 3, "d2": 1, "d3": 2}, ["d2", "d1", "d3"], k=2), 4)
        0.6788
        >>> round(ndcg({"d1": 3, "d2": 1, "d3": 2}, ["d2", "d1", "d3"], k=2,
        ...            gain="exponential"), 4)
        0.6091
    """
    check_zero_division(zero_division)
    ideal_grades = sorted((g for g in judgements.values() if g >= relevance_level), reverse=True)
    if not ideal_grades:
        return _undefined(zero_division, "NDCG")
    ideal = _dcg(ideal_grades[:k] if k is not None else ideal_grades, gain)
    actual = dcg(judgements, ranking, k=k, relevance_level=relevance_level, gain=gain)
    if ideal == 0:  # linear gain of grade-0 documents with relevance_level <= 0
        return _undefined(zero_division, "NDCG")
    return actual / ideal


# ---------------------------------------------------------------------------
# Over a run

RANKING_METRICS: dict[str, Callable[..., float]] = {
    "map": average_precision,
    "mrr": reciprocal_rank,
    "hit_rate": hit_rate,
    "precision": precision_at_k,
    "recall": recall_at_k,
    "cg": cumulative_gain,
    "dcg": dcg,
    "dcg_burges": dcg,
    "ndcg": ndcg,
    "ndcg_burges": ndcg,
}
"""Metric names for :func:`evaluate_run` (``name`` or ``name@k``) and the per-query function.

``dcg``/``ndcg`` have linear gain, ``dcg_burges``/``ndcg_burges`` exponential
gain, as ranx names them.
"""

_GAINS: dict[str, Gain] = {
    "dcg": "linear",
    "ndcg": "linear",
    "dcg_burges": "exponential",
    "ndcg_burges": "exponential",
}

DEFAULT_METRICS = ("map", "mrr", "ndcg@10", "hit_rate@10", "precision@10", "recall@100")
"""What :func:`evaluate_run` computes when not told."""

_METRIC = re.compile(r"^([a-z_]+)(?:@(\d+))?$")
_NEEDS_K = {"precision"}
_TAKES_ZERO_DIVISION = {"map", "recall", "ndcg", "ndcg_burges"}


def parse_metric(name: str) -> tuple[str, int | None]:
    """Split ``"ndcg@10"`` into ``("ndcg", 10)``; ``"map"`` into ``("map", None)``.

    Raises:
        ValueError: an unknown metric, a bad ``@k``, or precision without ``@k``.

    Example:
        >>> parse_metric("ndcg@10"), parse_metric("mrr")
        (('ndcg', 10), ('mrr', None))
    """
    match = _METRIC.match(name.strip())
    if match is None or match.group(1) not in RANKING_METRICS:
        raise ValueError(
            f"unknown ranking metric {name!r}; use one of {', '.join(RANKING_METRICS)}, "
            "optionally with @k (e.g. ndcg@10)"
        )
    base, k = match.group(1), match.group(2)
    cut = int(k) if k is not None else None
    if cut == 0:
        raise ValueError(f"{name}: k must be at least 1")
    if base in _NEEDS_K and cut is None:
        raise ValueError(f"{base} needs a cut-off, e.g. {base}@10")
    return base, cut


@dataclass(frozen=True)
class RankingReport(Renderable):
    """Per-query and mean scores of a run, rendered by :meth:`render` in one of
    :attr:`FORMATS` (``per_query``: also every query's scores; ``run``, ``qrels``: the
    names the text format's first line gives the inputs; ``scale``, ``digits``: how
    text and Markdown print fractions, :mod:`cws_bench.display.units`).

    Attributes:
        means: metric -> mean over the evaluated queries.
        per_query: query -> metric -> score, queries in qrels order.
        missing_queries: queries of the qrels with no ranking (scored as empty rankings).
        unjudged_queries: queries of the run with no judgements (left out).
    """

    FORMATS: ClassVar[tuple[str, ...]] = ("text", "json", "csv", "markdown")

    metrics: tuple[str, ...]
    means: Mapping[str, float]
    per_query: Mapping[str, Mapping[str, float]] = field(repr=False)
    missing_queries: tuple[str, ...] = ()
    unjudged_queries: tuple[str, ...] = ()
    relevance_level: int = 1

    def __str__(self) -> str:
        """The command line's table (:meth:`to_text`)."""
        return self.to_text()

    def __repr__(self) -> str:
        means = ", ".join(f"{name}={self.means[name]:.4f}" for name in self.metrics)
        return f"RankingReport({means}, queries={len(self.per_query)})"

    @property
    def queries(self) -> int:
        """The number of queries averaged over."""
        return len(self.per_query)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: settings, means, counts, per-query scores."""
        return {
            "metrics": list(self.metrics),
            "means": dict(self.means),
            "queries": self.queries,
            "missing_queries": list(self.missing_queries),
            "unjudged_queries": list(self.unjudged_queries),
            "relevance_level": self.relevance_level,
            "per_query": {q: dict(scores) for q, scores in self.per_query.items()},
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per query, one column per metric."""
        import pandas as pd

        return pd.DataFrame.from_dict(
            {q: dict(s) for q, s in self.per_query.items()},
            orient="index",
            columns=list(self.metrics),
        ).rename_axis("query")

    # Rendering: what ``cws-bench metrics ranking`` prints, one method per format.

    def to_json(self, *, per_query: bool = False) -> str:
        """:meth:`to_dict` as indented JSON (``per_query`` left out unless asked for)."""
        data = self.to_dict()
        if not per_query:
            del data["per_query"]
        return json.dumps(data, ensure_ascii=False, indent=2)

    def to_csv(self, *, per_query: bool = False) -> str:
        """A ``mean`` row (and one row per query) of raw values, one column per metric."""
        return csv_table(["query", *self.metrics], self._rows(per_query, lambda _, value: value))

    def _rows(self, per_query: bool, cell: Callable[[str, float], Any]) -> list[list[Any]]:
        """The ``mean`` row (and one row per query): the name, then ``cell`` of each metric."""
        queries = [("mean", self.means), *(self.per_query.items() if per_query else ())]
        return [[query, *(cell(n, s[n]) for n in self.metrics)] for query, s in queries]

    def to_markdown(
        self, *, per_query: bool = False, scale: str | None = None, digits: int | None = None
    ) -> str:
        """A Markdown table of the means (and every query); fractions in % unless ``scale``."""
        unit = units(scale, digits)
        rows = self._rows(per_query, lambda name, value: _shown(name, value, unit))
        return markdown_table(["query", *self.metrics], rows)

    def to_text(
        self,
        *,
        per_query: bool = False,
        run: str = "run",
        qrels: str = "qrels",
        scale: str | None = None,
        digits: int | None = None,
    ) -> str:
        """The means one a line (in %, sums of gains as they are), then every query's."""
        unit = units(scale, digits)
        width = max(len(name) for name in self.metrics)
        raw = [name for name in self.metrics if name.split("@")[0] in GAIN_SUMS]
        note = f"; {', '.join(raw)} as sums of gains" if raw else ""
        queries = plural(self.queries, "query", "queries")
        lines = [f"{run} against {qrels}: {queries} ({unit.label}{note})"]
        lines += [
            f"  {name:<{width}}  {_shown(name, self.means[name], unit):>7}" for name in self.metrics
        ]
        if per_query:
            lines.append("")
            rows = self._rows(True, lambda name, value: _shown(name, value, unit))[1:]
            lines.append(text_table(["query", *self.metrics], rows))
        return "\n".join(lines)


REPORT_FORMATS: tuple[str, ...] = RankingReport.FORMATS
"""The formats :meth:`RankingReport.render` writes."""

GAIN_SUMS = frozenset({"cg", "dcg", "dcg_burges"})
"""Ranking metrics that are sums of gains, not fractions: shown as they are, not in %."""


def _shown(name: str, value: float, unit: Units | None = None) -> str:
    """A metric's value as the reports show it: fractions in ``unit`` (default %), sums of
    gains with 4 decimals."""
    if name.split("@")[0] in GAIN_SUMS:
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return (unit or Units()).score(value)


def _check_qrels(qrels: Mapping[str, Judgements]) -> None:
    if not isinstance(qrels, Mapping):
        raise ValueError("qrels must map each query id to {document id: grade}")
    for query, judgements in qrels.items():
        if not isinstance(judgements, Mapping):
            raise ValueError(f"qrels[{query!r}] must map document ids to grades")


def evaluate_run(
    qrels: Mapping[str, Judgements],
    run: Mapping[str, Ranking],
    *,
    metrics: Iterable[str] = DEFAULT_METRICS,
    relevance_level: int = 1,
    zero_division: ZeroDivision = "warn",
) -> RankingReport:
    """Every metric for every query of the qrels, and their means.

    Args:
        qrels: query -> document -> grade.
        run: query -> ranking (documents in order, or document -> score).
        metrics: names such as ``map``, ``mrr@10``, ``ndcg@10``,
            ``ndcg_burges@10``, ``hit_rate@5``, ``precision@10``,
            ``recall@100``, ``cg@10``, ``dcg@5``.
        relevance_level: the lowest grade that counts as relevant.
        zero_division: recall, AP and NDCG of a query with no relevant document.

    Raises:
        ValueError: an unknown metric name, malformed qrels, or no query to evaluate.

    Example:
        >>> qrels = {"q1": {"d1": 1, "d3": 2}, "q2": {"d2": 1}}
        >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": ["d1", "d2"]}
        >>> report = evaluate_run(qrels, run, metrics=["map", "mrr"])
        >>> report.means
        {'map': 0.6666666666666666, 'mrr': 0.75}
    """
    check_zero_division(zero_division)
    _check_qrels(qrels)
    names = list(dict.fromkeys(m.strip() for m in metrics))
    if not names:
        raise ValueError("no metric chosen")
    parsed = {name: parse_metric(name) for name in names}
    if not qrels:
        raise ValueError("the qrels hold no query")
    per_query: dict[str, dict[str, float]] = {}
    missing = []
    for query, judgements in qrels.items():
        ranking = run.get(query)
        if ranking is None:
            missing.append(query)
            ranking = []
        documents = _ranked(ranking)
        scores = {}
        for name, (base, k) in parsed.items():
            options: dict[str, Any] = {"k": k, "relevance_level": relevance_level}
            if base in _TAKES_ZERO_DIVISION:
                options["zero_division"] = zero_division
            if base in _GAINS:
                options["gain"] = _GAINS[base]
            scores[name] = RANKING_METRICS[base](judgements, documents, **options)
        per_query[query] = scores
    means = {
        name: math.fsum(s[name] for s in per_query.values()) / len(per_query) for name in names
    }
    unjudged = tuple(q for q in run if q not in qrels)
    return RankingReport(tuple(names), means, per_query, tuple(missing), unjudged, relevance_level)


def mean_average_precision(
    qrels: Mapping[str, Judgements],
    run: Mapping[str, Ranking],
    *,
    k: int | None = None,
    relevance_level: int = 1,
    zero_division: ZeroDivision = "warn",
) -> float:
    """MAP: average precision averaged over the queries of the qrels (see :func:`evaluate_run`).

    Example:
        >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
        >>> mean_average_precision(qrels, {"q1": ["d1"], "q2": ["d1", "d2"]})
        0.75
    """
    name = "map" if k is None else f"map@{k}"
    report = evaluate_run(
        qrels, run, metrics=[name], relevance_level=relevance_level, zero_division=zero_division
    )
    return report.means[name]


def mean_reciprocal_rank(
    qrels: Mapping[str, Judgements],
    run: Mapping[str, Ranking],
    *,
    k: int | None = None,
    relevance_level: int = 1,
) -> float:
    """MRR: reciprocal rank averaged over the queries of the qrels (see :func:`evaluate_run`).

    Example:
        >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
        >>> mean_reciprocal_rank(qrels, {"q1": ["d1"], "q2": ["d1", "d2"]})
        0.75
    """
    name = "mrr" if k is None else f"mrr@{k}"
    return evaluate_run(qrels, run, metrics=[name], relevance_level=relevance_level).means[name]

"""The picture across corpora, computed once: F1 by corpus, each row's means and worst corpus.

Every mean, rank and "worst corpus" across corpora that a report shows comes from
:func:`across_corpora` (:meth:`cws_bench.results.model.BakeoffResult.across_corpora`);
the reports only render it. A contaminated cell (``PairResult.contaminated``) is shown
and marked, but counts in no mean, no column order, no "worst corpus" and no fall-off
from news.

This module reads the pairs through their attributes only (:class:`_Pair`), so it needs
nothing of :mod:`cws_bench.results.model`, which imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "DomainMatrix",
    "DomainRow",
    "FallOff",
    "across_corpora",
    "distinct_mean",
    "falloff_rows",
    "is_news",
]


class _Pair(Protocol):
    """What this module reads of a :class:`~cws_bench.results.model.PairResult`."""

    @property
    def corpus(self) -> str: ...
    @property
    def segmenter(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def scores(self) -> Mapping[str, Any]: ...
    @property
    def contaminated(self) -> bool: ...
    @property
    def exclusion(self) -> str | None: ...


def is_news(domain: str | None) -> bool:
    """Whether a corpus' domain is news.

    >>> is_news("news"), is_news("news (Hong Kong)"), is_news("news, Wikipedia (translated)")
    (True, True, False)
    """
    return bool(domain) and (domain == "news" or domain.startswith("news ("))  # type: ignore[union-attr]


def distinct_mean(f1: Mapping[str, float], test_sets: Mapping[str, str]) -> float | None:
    """The mean F1 over distinct test sets: corpora of one test set averaged first.

    >>> round(distinct_mean({"gsd": 0.8, "gsdsimp": 0.9, "pku": 0.6}, {"gsdsimp": "gsd"}), 6)
    0.725
    >>> distinct_mean({}, {}) is None
    True
    """
    groups: dict[str, list[float]] = {}
    for corpus, value in f1.items():
        groups.setdefault(test_sets.get(corpus, corpus), []).append(value)
    if not groups:
        return None
    means = [sum(values) / len(values) for values in groups.values()]
    return sum(means) / len(means)


@dataclass(frozen=True)
class DomainRow:
    """One segmenter across the corpora: F1 per corpus label, its means and worst corpus.

    Attributes:
        f1: corpus label -> F1, every scored cell (contaminated ones too: they are shown).
        excluded: corpus label -> why that cell counts in nothing
            (:attr:`~cws_bench.results.model.PairResult.exclusion`: ``trained on this
            data``, ``its dictionary saw the test data``).
        test_sets: corpus label -> its test set's group (the run's
            ``settings["corpus_test_sets"]``): corpora of one test set (a
            converted copy, a release in the other script, an older release)
            count once in :attr:`mean`.
        common: the corpora where every row of the matrix has a counted score.
    """

    segmenter: str
    f1: dict[str, float]
    excluded: dict[str, str] = field(default_factory=dict)
    test_sets: dict[str, str] = field(default_factory=dict)
    common: tuple[str, ...] = ()

    @property
    def counted(self) -> dict[str, float]:
        """The cells the means and the worst corpus count: every scored one not excluded.

        >>> row = DomainRow("snownlp", {"pd1998": 0.96, "sample": 0.91}, {"pd1998": "trained"})
        >>> row.counted, row.mean, row.worst
        ({'sample': 0.91}, 0.91, ('sample', 0.91))
        """
        return {c: v for c, v in self.f1.items() if c not in self.excluded}

    @property
    def mean(self) -> float | None:
        """The mean F1 over the distinct test sets of :attr:`counted` (None: none counted)."""
        return distinct_mean(self.counted, self.test_sets)

    @property
    def common_mean(self) -> float | None:
        """The mean F1 over the distinct test sets of the shared corpora (:attr:`common`)."""
        return distinct_mean({c: self.f1[c] for c in self.common}, self.test_sets)

    @property
    def worst(self) -> tuple[str, float] | None:
        """The counted corpus with the lowest F1, and that F1 (None: none counted)."""
        return _lowest(self.counted)


@dataclass(frozen=True)
class DomainMatrix:
    """F1 of segmenters (rows) on corpora (columns), sorted as :func:`across_corpora` says."""

    corpora: list[str]
    rows: list[DomainRow]
    domains: dict[str, str] = field(default_factory=dict)

    @property
    def common(self) -> tuple[str, ...]:
        """The corpora where every row has a counted score (the shared mean's corpora)."""
        return self.rows[0].common if self.rows else ()

    def column_mean(self, corpus: str) -> float | None:
        """The mean F1 of the counted cells of one corpus (None: none counted)."""
        values = [row.counted[corpus] for row in self.rows if corpus in row.counted]
        return sum(values) / len(values) if values else None

    def excluded(self) -> list[tuple[str, str, str]]:
        """Every contaminated cell as (segmenter, corpus, why), in row and column order."""
        return [
            (row.segmenter, corpus, row.excluded[corpus])
            for row in self.rows
            for corpus in self.corpora
            if corpus in row.excluded
        ]

    def news(self) -> list[str]:
        """The news corpora (scored as written, not converted)."""
        return [c for c in self.corpora if is_news(self.domains.get(c)) and "+" not in c]


def across_corpora(
    pairs: Iterable[_Pair],
    *,
    test_sets: Mapping[str, str] | None = None,
    domains: Mapping[str, str] | None = None,
) -> DomainMatrix | None:
    """The F1 matrix of a bake-off's pairs, or None when fewer than two corpora were scored.

    Rows: the segmenters with more counted corpora first (means over different
    sets of corpora do not compare), then by mean F1, a row with no mean last.
    Columns: by the mean F1 of the counted cells of the segmenters counted on
    every corpus (all segmenters when none is). Contaminated cells are kept
    in :attr:`DomainRow.f1` and named in :attr:`DomainRow.excluded`, and
    count in none of these orders and means.

    ``test_sets`` and ``domains`` are the run's ``settings["corpus_test_sets"]`` and
    ``["corpus_domains"]``; pairs not scored are left out.
    """
    corpora: list[str] = []
    values: dict[str, dict[str, float]] = {}
    excluded: dict[str, dict[str, str]] = {}
    for pair in pairs:
        f1 = (pair.scores or {}).get("f1") if pair.status == "ok" else None
        if f1 is None:
            continue
        if pair.corpus not in corpora:
            corpora.append(pair.corpus)
        values.setdefault(pair.segmenter, {})[pair.corpus] = f1
        if pair.contaminated:
            why = pair.exclusion or "contaminated"
            excluded.setdefault(pair.segmenter, {})[pair.corpus] = why
    if len(corpora) < 2 or not values:
        return None
    groups = dict(test_sets or {})
    counted = {
        name: {c for c in f1 if c not in excluded.get(name, {})} for name, f1 in values.items()
    }
    common = tuple(c for c in corpora if all(c in cells for cells in counted.values()))
    rows = [
        DomainRow(name, f1, excluded.get(name, {}), groups, common) for name, f1 in values.items()
    ]
    # Means over different sets of corpora do not compare: the rows counted on
    # every corpus come first, then those counted on fewer (closed-track rows
    # run only where a corpus has training data; contaminated cells count
    # nowhere), each group by mean F1.
    rows.sort(
        key=lambda row: (
            -len(row.counted),
            row.mean is None,
            -(row.mean or 0.0),
            row.segmenter,
        )
    )
    complete = DomainMatrix(corpora, [r for r in rows if len(r.counted) == len(corpora)] or rows)
    order = {corpus: index for index, corpus in enumerate(corpora)}
    corpora.sort(key=lambda c: (-(complete.column_mean(c) or 0.0), order[c]))
    return DomainMatrix(corpora, rows, dict(domains or {}))


@dataclass(frozen=True)
class FallOff:
    """How a segmenter does off news: its mean F1 on news and each other corpus' difference."""

    segmenter: str
    news_f1: float
    drops: dict[str, float]
    test_sets: dict[str, str] = field(default_factory=dict)

    @property
    def mean_drop(self) -> float | None:
        """The mean difference over distinct test sets (:func:`distinct_mean`)."""
        return distinct_mean(self.drops, self.test_sets)

    @property
    def worst(self) -> tuple[str, float] | None:
        return _lowest(self.drops)


def _lowest(values: Mapping[str, float]) -> tuple[str, float] | None:
    """The corpus with the lowest value (ties: the first name), and that value; None: none."""
    if not values:
        return None
    corpus = min(values, key=lambda c: (values[c], c))
    return corpus, values[corpus]


def falloff_rows(matrix: DomainMatrix) -> list[FallOff]:
    """Per segmenter counted on news: F1 on each other counted corpus minus its mean F1 on news.

    Contaminated cells count neither as news nor as off news. Sorted by the
    mean difference, the segmenter that holds up best first.
    """
    news = matrix.news()
    rows = []
    for row in matrix.rows:
        counted = row.counted
        on_news = [counted[c] for c in news if c in counted]
        if not on_news:
            continue
        reference = sum(on_news) / len(on_news)
        drops = {c: f1 - reference for c, f1 in counted.items() if c not in news}
        if drops:
            rows.append(FallOff(row.segmenter, reference, drops, row.test_sets))
    rows.sort(key=lambda r: (-(r.mean_drop or 0.0), r.segmenter))
    return rows

"""Published figures, shown beside a run's own: the SIGHAN 2005 bakeoff's rows and the
figures segmenters' authors claim (:func:`load_claims`, read from
``cws_bench/data/claims.toml``, shown on the board beside the measured F).

The Second International Chinese Word Segmentation Bakeoff (Emerson 2005,
ACL Anthology I05-3017) published, for each of its four test sets, the
organisers' baseline (maximal matching with the training word list), their
topline (maximal matching with the test set's own word list) and every
submitted run, closed and open track. ``cws_bench/data/sighan2005_published.toml``
keeps the baseline, the topline and the best closed and open run of each
corpus, each with the table it was read from; :func:`load_published` reads and
checks it, and the reports (:mod:`cws_bench.reports.published`) show the rows
under the ``sighan2005-*`` leaderboards, marked as published, not run here.

The rows are shown only where they apply: the corpus label names a SIGHAN 2005
corpus *and* the gold scored has the published test set's word count (not a
training split, not a subset).

Why ``fmm`` scores above the published baseline (a matcher that falls back to one byte
of UTF-8 rebuilds it): :data:`BASELINE_EXPLANATION`, measured in docs/SIGHAN2005_PUBLISHED.md.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from cws_bench.display.units import Units
from cws_bench.errors import CwsBenchError

__all__ = [
    "BASELINE_EXPLANATION",
    "CLAIMS_FILE",
    "DATA_FILE",
    "METRICS",
    "TRACKS",
    "BaselineDifference",
    "Claim",
    "ClaimCheck",
    "PublishedResults",
    "PublishedRow",
    "baseline_differences",
    "check_claim",
    "load_claims",
    "load_published",
    "published_for",
]

DATA_FILE = "sighan2005_published.toml"
"""The data file, in ``cws_bench/data``."""

TRACKS = ("baseline", "topline", "closed", "open")
"""Kinds of published row, in the order the reports show them after sorting by F."""

METRICS = ("recall", "precision", "f1", "oov_rate", "oov_recall", "iv_recall")
"""The figures of a row, as the bakeoff's tables give them (R, P, F, OOV, R_oov, R_iv): the
data file's columns, each a registered score (:data:`cws_bench.score_registry.SCORES`)."""

_TEXTS = ("corpus", "track", "system", "site", "run", "table")
_ROW_KEYS = frozenset({*_TEXTS, "note", *METRICS})
_REQUIRED = frozenset(_ROW_KEYS - {"note"})

BASELINE_EXPLANATION = (
    "Why fmm differs from the published baseline: the published baseline recalls only the "
    "OOV words of one ASCII character (R_oov 0.059 PKU, 0.004 AS, 0.000 MSR and CityU), as a "
    "maximal matcher does that falls back to one byte of UTF-8 instead of one character (an "
    "unknown Chinese character is cut into broken bytes, never a word); such a matcher "
    "rebuilds the published baseline within 0.002 F on all four corpora. fmm falls back to "
    "one character, and with keep_runs=true (the default) never cuts a run of Latin letters "
    "and digits, so it scores higher. The mwseg.pl released in icwb2-data gives fmm's "
    "keep_runs=false figures on PKU (F 0.874), not the paper's."
)
"""Why the run's ``fmm`` rows score above the published baseline (see the module docstring)."""

ROUNDING = 0.0005
"""Half a unit of the third decimal: how far a printed figure may be from its value."""


@dataclass(frozen=True)
class PublishedRow:
    """One published result: a system's scores on a SIGHAN 2005 test set.

    Attributes:
        corpus: the cws-bench corpus name (``sighan2005-pku``); track: one of :data:`TRACKS`.
        system: what it is (``best closed``, ``maximal matching, training word list``).
        site: who ran it (a participating site with its ID in the paper, or ``organisers``).
        run: the run ID within the site (``b``), or ``""``.
        table: where in the source the figures are (``Table 11``).
        recall, precision, f1, oov_rate, oov_recall, iv_recall: the figures, as printed.
        citation, source_key, url: the source, its short citation (``Emerson 2005``) and
            where it is.
        note: anything else the source says about the row (a tie), or ``""``.
    """

    corpus: str
    track: str
    system: str
    site: str
    run: str
    table: str
    recall: float
    precision: float
    f1: float
    oov_rate: float
    oov_recall: float
    iv_recall: float
    citation: str
    source_key: str
    url: str
    note: str = ""

    @property
    def kind(self) -> str:
        """The row's kind in a table: ``baseline``, ``topline``, ``best closed``, ``best open``."""
        return f"best {self.track}" if self.track in ("closed", "open") else self.track

    @property
    def label(self) -> str:
        """The row's name in a table: the site and run, or what the organisers ran."""
        if self.site == "organisers":
            return f"{self.system} (organisers)"
        return self.site + (f", run {self.run}" if self.run else "")

    def figures(self) -> dict[str, float]:
        """The six figures by metric name."""
        return {name: getattr(self, name) for name in METRICS}


@dataclass(frozen=True)
class PublishedResults:
    """The published rows, with their source and the test-set sizes they apply to.

    Attributes:
        rows: every row, in file order.
        results_url: the bakeoff's official results page.
        test_words: per corpus name, the test set's word count as published.
    """

    rows: tuple[PublishedRow, ...]
    source_key: str
    citation: str
    url: str
    results_url: str
    test_words: dict[str, int]
    path: str

    def for_corpus(self, corpus: str) -> tuple[PublishedRow, ...]:
        """The rows of a corpus name, best F first (ties in file order)."""
        rows = [row for row in self.rows if row.corpus == corpus]
        return tuple(sorted(rows, key=lambda row: -row.f1))

    def baseline(self, corpus: str) -> PublishedRow | None:
        """The published baseline of a corpus, if any."""
        return next((r for r in self.rows if r.corpus == corpus and r.track == "baseline"), None)


def _fail(path: str, where: str, message: str) -> CwsBenchError:
    return CwsBenchError(
        f"{path}: {where}: {message}",
        "fix the row against its source (every figure as printed, three decimals)",
    )


def _check_row(path: str, index: int, table: Any, test_words: dict[str, int]) -> None:
    where = f"[[rows]] #{index}"
    if not isinstance(table, dict):
        raise _fail(path, where, "expected a table")
    where += f" ({table.get('corpus', '?')}, {table.get('track', '?')})"
    missing = sorted(_REQUIRED - table.keys())
    if missing:
        raise _fail(path, where, f"missing {', '.join(missing)}")
    unknown = sorted(table.keys() - _ROW_KEYS)
    if unknown:
        raise _fail(
            path, where, f"unknown {'key' if len(unknown) == 1 else 'keys'} {', '.join(unknown)}"
        )
    if table["corpus"] not in test_words:
        raise _fail(path, where, f"corpus {table['corpus']!r} has no test_words entry")
    if table["track"] not in TRACKS:
        raise _fail(path, where, f"track must be one of {', '.join(TRACKS)}")
    for key in ("system", "site", "run", "table", "note"):
        if key in table and not isinstance(table[key], str):
            raise _fail(path, where, f"{key} must be a string")
    for name in METRICS:
        value = table[name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(path, where, f"{name} must be a number, not {value!r}")
        if not 0.0 <= value <= 1.0:
            raise _fail(path, where, f"{name} {value} is not a fraction in [0, 1]")
    recall, precision, f1 = table["recall"], table["precision"], table["f1"]
    # Each printed figure is within ROUNDING of its value; F moves by at most
    # about one unit of P or R per unit, so 3 roundings bound the gap.
    expected = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    if abs(expected - f1) > 3 * ROUNDING + 1e-9:
        raise _fail(path, where, f"F {f1} is not 2PR/(P+R) = {expected:.4f} (a misread figure?)")
    oov = table["oov_rate"]
    mixed = oov * table["oov_recall"] + (1 - oov) * table["iv_recall"]
    if abs(mixed - recall) > 4 * ROUNDING + 1e-9:
        raise _fail(
            path,
            where,
            f"R {recall} is not OOV·R_oov + (1−OOV)·R_iv = {mixed:.4f} (a misread figure?)",
        )


def _read_toml(path: str | os.PathLike[str] | None, bundled: str) -> tuple[str, dict[str, Any]]:
    """A TOML file's name and content; None: the file ``bundled`` of ``cws_bench/data``."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    if path is None:
        resource = resources.files("cws_bench") / "data" / bundled
        name, text = str(resource), resource.read_text(encoding="utf-8")
    else:
        try:
            name, text = os.fspath(path), Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise CwsBenchError(f"{os.fspath(path)}: cannot read ({error.strerror})") from error
    try:
        return name, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CwsBenchError(f"{name}: not valid TOML ({error})") from error


def load_published(path: str | os.PathLike[str] | None = None) -> PublishedResults:
    """Read and check a file of published results (default: the bundled SIGHAN 2005 one).

    Every row is checked: its keys, its corpus and track, every figure a
    fraction, F equal to 2PR/(P+R) and R to OOV·R_oov + (1−OOV)·R_iv within
    the rounding of three printed decimals, so a misread cell is caught.

    Raises:
        CwsBenchError: the file cannot be read or parsed, or a row is wrong
            (the message names the file and the row).
    """
    return _bundled() if path is None else _load(path)


@cache
def _bundled() -> PublishedResults:
    return _load(None)


def _load(path: str | os.PathLike[str] | None) -> PublishedResults:
    name, data = _read_toml(path, DATA_FILE)
    source = data.get("source")
    if not isinstance(source, dict) or not all(
        isinstance(source.get(key), str) and source.get(key)
        for key in ("key", "citation", "url", "results_url")
    ):
        raise _fail(name, "[source]", "needs key, citation, url and results_url (strings)")
    test_words = data.get("test_words")
    if (
        not isinstance(test_words, dict)
        or not test_words
        or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in test_words.values()
        )
    ):
        raise _fail(name, "[test_words]", "needs a positive word count per corpus name")
    tables = data.get("rows")
    if not isinstance(tables, list) or not tables:
        raise _fail(name, "[[rows]]", "no rows")
    short, url, citation = source["key"], source["url"], " ".join(source["citation"].split())
    rows = []
    for index, table in enumerate(tables, start=1):
        _check_row(name, index, table, test_words)
        fields: dict[str, Any] = {key: table[key] for key in _TEXTS}
        fields.update((metric, float(table[metric])) for metric in METRICS)
        note = table.get("note", "")
        rows.append(PublishedRow(**fields, citation=citation, source_key=short, url=url, note=note))
    results_url = source["results_url"]
    return PublishedResults(tuple(rows), short, citation, url, results_url, dict(test_words), name)


def published_for(corpus: str, gold_words: int | None) -> tuple[PublishedRow, ...]:
    """The published rows that apply to a leaderboard (``sighan2005-pku``), best F first:
    ``()`` when the corpus is not a SIGHAN 2005 test set or the gold is not the whole
    published test set (``gold_words``, the gold words the run scored, is another count)."""
    published = load_published()
    expected = published.test_words.get(corpus)
    if expected is None or gold_words != expected:
        return ()
    return published.for_corpus(corpus)


@dataclass(frozen=True)
class BaselineDifference:
    """How one of the run's rows compares with the published baseline of its corpus.

    Attributes:
        method: how the run counted correct words (``interval`` or ``sighan``).
        keep_runs: the row's ``keep_runs`` option (None when not recorded).
        ours, published: the row's F and the published baseline's.
    """

    segmenter: str
    method: str
    keep_runs: bool | None
    ours: float
    published: float

    @property
    def difference(self) -> float:
        """Our F minus the published one."""
        return self.ours - self.published

    def sentence(self, units: Units | None = None) -> str:
        """One line for a report: the two F, their difference and what the row ran, in
        ``units`` (the report's; default percentages, as every table prints scores)."""
        unit = units or Units()
        runs = {True: "keep_runs=true; ", False: "keep_runs=false; ", None: ""}[self.keep_runs]
        name = self.segmenter if self.segmenter == "fmm" else f"{self.segmenter} (fmm)"
        return (
            f"{name}, {runs}{self.method} counting: F {unit.score(self.ours)} here, "
            f"{unit.score(self.published)} published, {unit.points(self.difference)}"
        )


def baseline_differences(corpus: str, pairs: Any) -> tuple[BaselineDifference, ...]:
    """The run's FMM rows (the corpus' scored :class:`~cws_bench.results.model.PairResult`
    whose adapter is ``fmm``, with an F, in order) against the published baseline of their
    corpus; ``()`` when it has none."""
    baseline = load_published().baseline(corpus)
    if baseline is None:
        return ()
    found = []
    for pair in pairs:
        f1 = pair.scores.get("f1")
        if pair.adapter != "fmm" or f1 is None or not math.isfinite(f1):
            continue
        info = pair.segmenter_info or {}
        # keep_runs is on unless the options say otherwise; unknown when none were recorded.
        keep_runs = (
            (info.get("options") or {}).get("keep_runs", True) if "options" in info else None
        )
        found.append(
            BaselineDifference(
                segmenter=pair.segmenter,
                method=str(pair.scores.get("method") or "interval"),
                keep_runs=keep_runs if isinstance(keep_runs, bool) else None,
                ours=float(f1),
                published=baseline.f1,
            )
        )
    return tuple(found)


CLAIMS_FILE = "claims.toml"
"""The segmenters' published figures, in ``cws_bench/data``."""

_CLAIM_KEYS = frozenset(
    {"segmenter", "corpus", "by", "source", "url", "where", "model", "method", "note"}
    | {"precision", "recall", "f1"}
)
_CLAIM_REQUIRED = ("segmenter", "corpus", "by", "source", "url", "where")


@dataclass(frozen=True)
class Claim:
    """A figure a segmenter's authors (or others) publish for it on a corpus.

    Attributes:
        segmenter: the registered segmenter it is about (the board's row).
        corpus: the cws-bench corpus name it maps to.
        f1: the F published, or derived from ``precision`` and ``recall`` when only
            they are (``derived``).
        precision, recall: as published, or None.
        derived: whether ``f1`` was computed here from P and R.
        by, source: who published it, and a short name of the source.
        url: where the source is (pinned to a commit where it is a repository).
        where: file, lines and table of the figure in the source.
        model, method, note: the model the figure is for, how the source counted, anything
            else (each ``""`` when not given).
    """

    segmenter: str
    corpus: str
    f1: float
    precision: float | None
    recall: float | None
    derived: bool
    by: str
    source: str
    url: str
    where: str
    model: str = ""
    method: str = ""
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def _claim(name: str, index: int, table: Any) -> Claim:
    where = f"[[claims]] #{index}"
    if not isinstance(table, dict):
        raise _fail(name, where, "not a table")
    unknown = sorted(set(table) - _CLAIM_KEYS)
    if unknown:
        raise _fail(
            name, where, f"unknown key {unknown[0]!r} (keys: {', '.join(sorted(_CLAIM_KEYS))})"
        )
    for key in _CLAIM_REQUIRED:
        if not isinstance(table.get(key), str) or not table[key]:
            raise _fail(name, where, f"needs {key} (a string)")
    figures: dict[str, float | None] = {}
    for key in ("precision", "recall", "f1"):
        value = table.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1
        ):
            raise _fail(name, where, f"{key} = {value!r}: a fraction between 0 and 1")
        figures[key] = None if value is None else float(value)
    p, r, f = figures["precision"], figures["recall"], figures["f1"]
    derived = False
    if f is None:
        if p is None or r is None:
            raise _fail(name, where, "needs f1, or both precision and recall")
        f, derived = (2 * p * r / (p + r) if p + r else 0.0), True
    elif p is not None and r is not None and p + r:
        expected = 2 * p * r / (p + r)
        if abs(expected - f) > 2 * ROUNDING:
            raise _fail(name, where, f"f1 {f} is not 2PR/(P+R) = {expected:.4f}")
    return Claim(
        **{key: table[key] for key in _CLAIM_REQUIRED},
        f1=f,
        precision=p,
        recall=r,
        derived=derived,
        **{key: table.get(key, "") for key in ("model", "method", "note")},
    )


def load_claims(path: str | os.PathLike[str] | None = None) -> tuple[Claim, ...]:
    """Read and check a file of claimed figures (default: the bundled ``claims.toml``).

    Raises:
        CwsBenchError: the file cannot be read or parsed, or a claim is wrong
            (the message names the file and the claim).
    """
    name, data = _read_toml(path, CLAIMS_FILE)
    unknown = sorted(set(data) - {"claims"})
    if unknown:
        raise _fail(name, f"[{unknown[0]}]", "unknown table (the file holds [[claims]] only)")
    tables = data.get("claims", [])
    if not isinstance(tables, list):
        raise _fail(name, "claims", "must be [[claims]] tables")
    return tuple(_claim(name, index, table) for index, table in enumerate(tables, start=1))


@dataclass(frozen=True)
class ClaimCheck:
    """A claim beside the figure measured here.

    Attributes:
        measured: the F measured here; low, high: its interval (None when the run has none).
    """

    claim: Claim
    measured: float
    low: float | None
    high: float | None

    @property
    def difference(self) -> float:
        """Measured minus claimed F."""
        return self.measured - self.claim.f1

    @property
    def covered(self) -> bool | None:
        """Whether the measured interval holds the claimed F (None without an interval)."""
        if self.low is None or self.high is None:
            return None
        return self.low <= self.claim.f1 <= self.high

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.claim.to_dict(),
            "claimed_f1": self.claim.f1,
            "measured_f1": self.measured,
            "measured_low": self.low,
            "measured_high": self.high,
            "difference": self.difference,
            "covered": self.covered,
        }


def check_claim(claim: Claim, pair: Any) -> ClaimCheck | None:
    """The claim beside a scored :class:`~cws_bench.results.model.PairResult`
    (its F and F interval), or None when the pair has no F."""
    f1 = pair.scores.get("f1") if pair.ok else None
    if f1 is None or not math.isfinite(f1):
        return None
    interval = pair.intervals.get("f1")
    return ClaimCheck(
        claim,
        float(f1),
        None if interval is None else interval.low,
        None if interval is None else interval.high,
    )

"""What every report shows, decided once: the ranking, the letters, the marks, the formats.

The Markdown and HTML renderers draw the same :class:`Board` objects (as
seqeval's reporters render the same rows), so the two can never disagree on
an order, a significance marker or a rounded number. Nothing here computes a
score: every figure is read from the :class:`~cws_bench.results.model.BakeoffResult`
and only rounded for display.

Significance follows ranx's comparison report: each scored segmenter of a
corpus gets a letter (``a`` for the first row), and each row lists the letters
of the segmenters of its own track it beats significantly in the paired
bootstrap of ``result.comparisons`` (``Comparison.significant``: corrected
for multiple comparisons by the run's ``correction``). Tracks are ranked
apart, as SIGHAN reports them, each with its own winner; a segmenter scored
on its own training data is shown and marked, but never wins and is in no
one's letters.
"""

from __future__ import annotations

import functools
import os
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from cws_bench.display.units import DEFAULT_SCALE, Units, format_p_value, plural, units
from cws_bench.metrics.defaults import DEFAULT_ALPHA, DEFAULT_CONFIDENCE
from cws_bench.results.model import BakeoffResult, Comparison, Interval, PairResult, group_warnings
from cws_bench.score_registry import Score, board_scores

__all__ = [
    "DETAILS",
    "MISSING",
    "Board",
    "BoardRow",
    "Column",
    "TrackWinner",
    "build_boards",
    "confidence_label",
    "counting",
    "counting_rule",
    "detail_columns",
    "detectable_line",
    "detectable_note",
    "excluded_note",
    "failure_text",
    "format_count",
    "format_interval",
    "format_p_value",
    "format_score",
    "format_seconds",
    "format_speed",
    "letters",
    "letters_corrected",
    "paired_test_name",
    "printed_in",
    "report_units",
    "resplit_table",
    "run_facts",
    "run_notes",
    "score_cells",
    "score_header",
    "seed_lines",
    "significance_method",
    "significance_note",
    "significantly_better",
    "track_verdict",
    "with_units",
]

MISSING = "—"
"""What a table shows for a value the result lacks (e.g. OOV figures without a dictionary)."""

_UNITS: ContextVar[Units | None] = ContextVar("cws_bench_report_units", default=None)


@contextmanager
def printed_in(scale: str | None = None, digits: int | None = None) -> Iterator[Units]:
    """Within the block, the report tables print scores in ``scale`` with ``digits`` decimals
    (:mod:`cws_bench.display.units`; default :data:`~cws_bench.display.units.DEFAULT_SCALE`,
    percentages with two decimals, as every command prints them).

    >>> with printed_in("fraction"):
    ...     format_score(0.96249)
    '0.962'
    """
    chosen = units(scale, digits, default=DEFAULT_SCALE)
    token = _UNITS.set(chosen)
    try:
        yield chosen
    finally:
        _UNITS.reset(token)


def with_units(render: Callable[..., str]) -> Callable[..., str]:
    """A report renderer that also takes ``scale`` and ``digits`` keyword arguments (how
    scores print; left out, the units of an enclosing :func:`printed_in`, else the default)."""

    @functools.wraps(render)
    def wrapped(*args: Any, scale: str | None = None, digits: int | None = None, **kw: Any) -> str:
        if scale is None and digits is None:
            return render(*args, **kw)
        with printed_in(scale, digits):
            return render(*args, **kw)

    return wrapped


def report_units() -> Units:
    """The units the report tables print scores in now (see :func:`printed_in`)."""
    return _UNITS.get() or Units(DEFAULT_SCALE)


def format_score(value: float | None) -> str:
    """A score as the tables print it: by default a percentage with two decimals.

    >>> format_score(0.96249), format_score(None)
    ('96.25', '—')
    """
    return report_units().score(value, missing=MISSING)


def format_interval(interval: Interval | None) -> str:
    """A confidence interval as ``[low, high]``.

    >>> format_interval(Interval(0.9512, 0.9587))
    '[95.12, 95.87]'
    """
    if interval is None:
        return MISSING
    return f"[{format_score(interval.low)}, {format_score(interval.high)}]"


def format_halfwidth(value: float | None) -> str:
    """A half-width as ``±0.41`` (points).

    >>> format_halfwidth(0.00412)
    '±0.41'
    """
    return MISSING if value is None else f"±{format_score(value)}"


def _plain(spec: str) -> Callable[[float | None], str]:
    """A formatter of a figure by the format ``spec``, :data:`MISSING` for None.

    >>> format_speed(412345.6), format_count(1234567), format_seconds(0.1234)
    ('412,346', '1,234,567', '0.12')
    >>> format_memory(153.26), format_memory(None)
    ('153.3', '—')
    """
    return lambda value: MISSING if value is None else format(value, spec)


format_speed = _plain(",.0f")
"""A rate (characters or words per second) rounded to a whole number, with thousands separators."""
format_count = _plain(",")
"""A count with thousands separators."""
format_seconds = _plain(".2f")
"""A duration in seconds with two decimals."""
format_memory = _plain(".1f")
"""Memory in MiB with one decimal."""


def format_difference(value: float) -> str:
    """A signed score difference (percentage points with two decimals by default).

    >>> format_difference(0.01234), format_difference(-0.002)
    ('+1.23', '-0.20')
    """
    return report_units().points(value, missing=MISSING)


def _methods(settings: Mapping[str, Any]) -> tuple[str, dict[str, list[str]]]:
    """The run's counting method, and every other method -> the corpora it counted."""
    method = settings.get("method") or "interval"
    others: dict[str, list[str]] = {}
    for corpus, counted in (settings.get("corpus_methods") or {}).items():
        if counted != method:
            others.setdefault(counted, []).append(corpus)
    return method, others


def counting(settings: dict[str, Any]) -> str:
    """How the run counted correct words, as captions say it (and the corpora counted
    otherwise, ``corpus_methods``).

    >>> counting({}), counting({"method": "sighan"})
    ('interval counting', 'sighan counting')
    >>> counting({"corpus_methods": {"sighan2005-pku": "sighan", "sighan2005-msr": "sighan"}})
    'interval counting; sighan counting on sighan2005-pku, sighan2005-msr'
    """
    method, others = _methods(settings)
    return "; ".join(
        [f"{method} counting", *(f"{m} counting on {', '.join(c)}" for m, c in others.items())]
    )


COUNTING_RULES = {
    "interval": "a word is correct when its character span is a gold word's",
    "sighan": "the official SIGHAN script's diff of each line's words: a word is correct "
    "when the diff leaves it unchanged",
}
"""What makes a word correct, per counting method, as the legends say it."""


def counting_rule(settings: dict[str, Any]) -> str:
    """What makes a word correct under the run's counting method.

    >>> counting_rule({})
    "a word is correct when its character span is a gold word's"
    """
    method, others = _methods(settings)
    rule = {m: COUNTING_RULES.get(m, f"as the {m} method counts") for m in [method, *others]}
    return "; ".join([rule[method], *(f"{m}: {rule[m]}" for m in sorted(others))])


def confidence_label(settings: dict[str, Any]) -> str:
    """The confidence level of a run's intervals as a percentage (95% when not recorded).

    >>> confidence_label({"confidence": 0.9}), confidence_label({})
    ('90%', '95%')
    """
    level = settings.get("confidence")
    return f"{(level if isinstance(level, int | float) else DEFAULT_CONFIDENCE) * 100:g}%"


def run_notes(settings: dict[str, Any]) -> list[str]:
    """The run's own notes (e.g. segmenters skipped as not installed), from ``settings["notes"]``.

    >>> run_notes({"notes": ["skipped thulac: not installed"]}), run_notes({})
    (['skipped thulac: not installed'], [])
    """
    notes = settings.get("notes")
    return [str(note) for note in notes] if isinstance(notes, list | tuple) else []


BOOKKEEPING_SETTINGS = ("jobs", "executor", "shard_chars", "shards", "loads")
"""Settings that say how a run was carried out, not what it computed: no number depends
on them (a merge keeps them per run, in ``settings["runs"]``)."""


def _execution(facts: dict[str, Any], pairs: Sequence[PairResult] | None) -> str:
    """How one run was carried out, in words: its pairs and shards, workers and loads."""
    parts = []
    total: Any
    cached: Any
    if pairs is not None:
        total, cached = len(pairs), sum(1 for p in pairs if p.cached)
    else:  # a merged run's counts
        total, cached = facts.get("pairs"), facts.get("cached_pairs")
    if isinstance(total, int) and isinstance(cached, int):
        if cached == total and total:
            parts.append(f"{cached} of {total} pairs from the cache")
        elif cached:
            parts.append(f"{total - cached} of {total} pairs run, {cached} from the cache")
        else:
            parts.append(plural(total, "pair") + " run")
    shards = facts.get("shards")
    if isinstance(shards, int) and shards > 0:
        jobs = facts.get("jobs")
        on = f" on {plural(jobs, 'worker')}" if isinstance(jobs, int) and jobs > 0 else ""
        size = facts.get("shard_chars")
        cut = f" of up to {format_count(size)} characters" if isinstance(size, int) else ""
        executor = facts.get("executor")
        by = f" ({executor})" if executor else ""
        parts.append(f"{plural(shards, 'shard')}{cut}{on}{by}")
    elif shards == 0:
        parts.append("nothing segmented")
    loads = facts.get("loads")
    if isinstance(loads, list | tuple) and loads:
        seconds = [load.get("seconds") for load in loads if isinstance(load, dict)]
        loading = sum((float(s) for s in seconds if isinstance(s, int | float)), 0.0)
        parts.append(f"{plural(len(loads), 'segmenter load')} ({format_seconds(loading)} s)")
    return ", ".join(parts)


def run_facts(result: BakeoffResult) -> list[tuple[str, str]]:
    """The Run section of the reports as (fact, text) rows, each value in words.

    What the run computed with (seed, resamples, ...), then what it did: pairs
    run or read from the cache, shards, workers and segmenter loads (one row
    per run for merged runs), then what the corpora are.
    """
    settings = result.settings
    rows: list[tuple[str, str]] = [("name", result.name)]
    if result.created:
        rows.append(("finished", result.created))
    rows.append(("wall time", f"{format_seconds(result.duration_s)} s"))
    corpora = {
        "corpus_domains": "corpus domains",
        "corpus_test_sets": "corpus test sets",
        "test_in_train": "test sentences in training data",
    }
    # detectable and resplits: under each corpus' table
    skip = {"notes", "runs", "seeds", "submissions", "detectable", "resplits", *corpora}
    for key, value in settings.items():
        if key not in skip and key not in BOOKKEEPING_SETTINGS:
            rows.append((str(key), _words(value)))
    runs = settings.get("runs")
    if isinstance(runs, list | tuple) and runs:
        for run in runs:
            if isinstance(run, dict):
                done = _execution(run, None)
                wall = run.get("duration_s")
                when = f"finished {run.get('created')}, " if run.get("created") else ""
                took = (
                    f"wall time {format_seconds(wall)} s" if isinstance(wall, int | float) else ""
                )
                rows.append(
                    (f"run {run.get('name', '')}", ", ".join(filter(None, [when + took, done])))
                )
    else:
        rows.append(("execution", _execution(settings, result.pairs) or MISSING))
        loads = settings.get("loads")
        if isinstance(loads, list | tuple) and loads:
            said = [
                f"{load.get('segmenter')} on {load.get('worker')}: "
                f"{format_seconds(load.get('seconds'))} s"
                for load in loads
                if isinstance(load, dict)
            ]
            rows.append(("segmenter loads", "; ".join(said)))
    rows += _submitted(settings.get("submissions"))
    cached = [f"{p.segmenter} on {p.corpus}" for p in result.pairs if p.cached]
    if cached and len(cached) < len(result.pairs):
        rows.append(("from the run cache", ", ".join(cached)))
    rows += [(label, _words(settings[key])) for key, label in corpora.items() if key in settings]
    return rows


def _submitted(entries: Any) -> list[tuple[str, str]]:
    """An organiser's submitted files, one row each: which row came when (the file's
    modification time), the run that scored it when runs were merged, and its SHA-256.

    >>> (row,) = _submitted([{"segmenter": "S01", "corpus": "pku", "path": "in/pku-S01.txt",
    ...                       "modified": "2026-12-06T05:37:32+00:00", "sha256": "1a2b" * 16}])
    >>> row[0]
    'submitted S01 on pku'
    >>> for part in row[1].split(", "): print(part)
    pku-S01.txt
    modified 2026-12-06T05:37:32+00:00
    SHA-256 1a2b1a2b1a2b…
    """
    rows = []
    for entry in entries if isinstance(entries, list | tuple) else ():
        if not isinstance(entry, dict):
            continue
        parts = [
            os.path.basename(str(entry.get("path", ""))),
            f"modified {entry['modified']}" if entry.get("modified") else "",
            f"scored by run {entry['run']}" if entry.get("run") else "",
            f"SHA-256 {str(entry['sha256'])[:12]}…" if entry.get("sha256") else "",
        ]
        label = f"submitted {entry.get('segmenter')} on {entry.get('corpus')}"
        rows.append((label, ", ".join(part for part in parts if part)))
    return rows


def _words(value: Any) -> str:
    """A setting's value in words: a mapping as ``key: value; ...``, a list joined."""
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_words(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple):
        return ", ".join(_words(v) for v in value) or "none"
    return str(value)


def letters(count: int) -> list[str]:
    """The first ``count`` row letters: ``a`` … ``z``, then ``A`` … ``Z``, then ``a1``, ``b1``, ….

    >>> letters(3), letters(54)[-2:]
    (['a', 'b', 'c'], ['a1', 'b1'])
    """
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    return [
        alphabet[i % len(alphabet)] + (str(i // len(alphabet)) if i >= len(alphabet) else "")
        for i in range(count)
    ]


def significantly_better(
    comparisons: Sequence[Comparison], corpus: str, first: str, second: str, metric: str = "f1"
) -> bool:
    """Whether ``first`` beats ``second`` on ``corpus`` by a significant paired test.

    A comparison is stored in one direction (``a`` against ``b``, with
    ``difference`` = a's score minus b's), so both directions are looked up.

    >>> c = Comparison("pd", "hmm", "fmm", "f1", 0.02, Interval(0.01, 0.03), 0.001, True)
    >>> significantly_better([c], "pd", "hmm", "fmm"), significantly_better([c], "pd", "fmm", "hmm")
    (True, False)
    """
    for c in comparisons:
        if c.corpus != corpus or c.metric != metric or not c.significant:
            continue
        if (c.a, c.b) == (first, second) and c.difference > 0:
            return True
        if (c.a, c.b) == (second, first) and c.difference < 0:
            return True
    return False


@dataclass(frozen=True)
class BoardRow:
    """One scored segmenter in a corpus' table.

    Attributes:
        pair: the result behind the row.
        letter: the row's significance letter.
        beats: letters of the segmenters this one beats significantly, in rank order
            (only segmenters of its own track; corrected for multiple comparisons
            when the run says so).
        notes: numbers of the corpus' notes (warnings) that concern this row.
        excluded: the segmenter was scored on its own training data: the row
            is shown and marked but never wins, and takes no part in the
            significance letters.
    """

    pair: PairResult
    letter: str
    beats: tuple[str, ...]
    notes: tuple[int, ...] = ()
    excluded: bool = False


@dataclass(frozen=True)
class TrackWinner:
    """Who wins one track of a corpus, as rows of its board.

    Attributes:
        track: ``closed`` or ``open``.
        row: the winner's row, or None when no eligible segmenter was scored.
        ties: the eligible rows the winner does not beat significantly.
        excluded: the track's rows scored on their own training data.
        tested: whether the winner was compared with any other eligible row.
    """

    track: str
    row: BoardRow | None
    ties: tuple[BoardRow, ...] = ()
    excluded: tuple[BoardRow, ...] = ()
    tested: bool = False


SIZES = {"sentences": "sentence", "characters": "character", "gold_words": "gold word"}
"""A corpus' size figures, each with the word that counts it."""


@dataclass(frozen=True)
class Board:
    """One corpus' leaderboard.

    Attributes:
        corpus: the corpus label.
        rows: the scored segmenters, track by track (closed first), best F1
            first within a track, rows scored on their own training data last
            in their track.
        failed: pairs that failed or timed out, in configuration order.
        notes: the warnings of the corpus' pairs, numbered from 1, as
            ``(who, warning)``: the same warning given to several segmenters
            is one note (``who`` lists them, or says every segmenter).
        comparisons: the corpus' F1 comparisons, in rank order of ``a`` then ``b``.
        tested: whether the run compared any two segmenters of this corpus.
        winners: who wins each track (closed first).
        dataset: the registered corpus the label stands for (``sighan2005-pku`` for a
            corpus labelled ``pku``), or None: the published rows belong to the data.
    """

    corpus: str
    rows: tuple[BoardRow, ...]
    failed: tuple[PairResult, ...]
    notes: tuple[tuple[str, str], ...]
    comparisons: tuple[Comparison, ...]
    tested: bool
    winners: tuple[TrackWinner, ...] = ()
    dataset: str | None = None

    @property
    def tracks(self) -> list[str]:
        """The tracks of the board, closed first."""
        return [winner.track for winner in self.winners]

    def is_winner(self, row: BoardRow) -> bool:
        """Whether a row is the winner of its track."""
        return any(winner.row is row for winner in self.winners)

    def corpus_size(self) -> dict[str, Any]:
        """Sentences, characters and gold words of the corpus, from its first scored pair."""
        if not self.rows:
            return {}
        scores = self.rows[0].pair.scores
        return {key: scores.get(key) for key in SIZES}

    def size_facts(
        self, keys: Sequence[str] = ("sentences", "characters", "gold_words")
    ) -> list[str]:
        """The corpus' size in words (``1,948 sentences``), of the ``keys`` it has."""
        size, names = self.corpus_size(), {"characters": "character", "gold_words": "gold word"}
        return [plural(size[k], names.get(k, "sentence")) for k in keys if size.get(k) is not None]

    def has_oov(self) -> bool:
        """Whether OOV figures exist (the corpus was scored with a dictionary)."""
        return any(row.pair.scores.get("oov_rate") is not None for row in self.rows)

    def family_sizes(self) -> dict[str, int]:
        """Per track, the number of comparisons corrected together (the family)."""
        track_of = {row.pair.segmenter: row.pair.track for row in self.rows}
        sizes: dict[str, int] = {}
        for c in self.comparisons:
            if c.adjusted_p_value is not None:
                track = track_of.get(c.a, "")
                sizes[track] = sizes.get(track, 0) + 1
        return sizes


def _board(result: BakeoffResult, corpus: str, metric: str) -> Board:
    ranked = result.leaderboard(corpus)
    scored = [p for p in ranked if p.ok]
    failed = tuple(p for p in result.pairs if p.corpus == corpus and not p.ok)
    names = letters(len(scored))
    letter_of = {p.segmenter: name for p, name in zip(scored, names)}
    notes: list[tuple[str, str]] = []
    note_numbers: dict[str, list[int]] = {}
    for note in group_warnings([*scored, *failed]):
        notes.append((note.who, note.text))
        if note.everyone:
            continue  # about the corpus: one note, no mark on every row
        for segmenter in note.segmenters:
            note_numbers.setdefault(segmenter, []).append(len(notes))
    comparisons = [c for c in result.comparisons if c.corpus == corpus and c.metric == metric]
    rows = tuple(
        BoardRow(
            pair=p,
            letter=letter_of[p.segmenter],
            beats=()
            if p.contaminated
            else tuple(
                letter_of[q.segmenter]
                for q in scored
                if q is not p
                and q.track == p.track
                and not q.contaminated
                and significantly_better(comparisons, corpus, p.segmenter, q.segmenter)
            ),
            notes=tuple(note_numbers.get(p.segmenter, ())),
            excluded=p.contaminated,
        )
        for p in scored
    )
    row_of = {row.pair.segmenter: row for row in rows}
    winners = tuple(
        TrackWinner(
            track=verdict.track,
            row=row_of[verdict.winner.segmenter] if verdict.winner is not None else None,
            ties=tuple(row_of[name] for name in verdict.ties),
            excluded=tuple(row_of[name] for name in verdict.excluded),
            tested=verdict.tested,
        )
        for verdict in result.winners(corpus)
    )
    rank = {p.segmenter: i for i, p in enumerate(scored)}
    comparisons.sort(key=lambda c: (rank.get(c.a, len(rank)), rank.get(c.b, len(rank))))
    return Board(
        corpus=corpus,
        rows=rows,
        failed=failed,
        notes=tuple(notes),
        comparisons=tuple(comparisons),
        tested=bool(comparisons),
        winners=winners,
        dataset=registered_corpus(result, corpus),
    )


def score_header(confidence: str, label: Callable[[Score], str]) -> list[str]:
    """The headers of a leaderboard's score columns (R, P, F, the dictionary's: :func:`board_scores
    <cws_bench.score_registry.board_scores>`, each ``label``-led), F's interval after F."""
    header = []
    for score in board_scores():
        header.append(label(score))
        if score.name == "f1":
            header.append(f"F {confidence} CI")
    return header


def score_cells(row: BoardRow, f1: Callable[[str], str] = str) -> list[str]:
    """A row's cells under :func:`score_header`; ``f1`` dresses its F."""
    cells = []
    for score in board_scores():
        value = format_score(row.pair.scores.get(score.name))
        if score.name == "f1":
            cells += [f1(value), format_interval(row.pair.intervals.get("f1"))]
        else:
            cells.append(value)
    return cells


def failure_text(pair: PairResult) -> str:
    """Why a pair failed, for a table's notes: the error without its hint (a hint speaks to
    whoever runs the command or writes the adapter, not to a reader of the proceedings).

    >>> failure_text(PairResult("c", "s", "file", "open", "failed",
    ...                         error="no line of f.txt segments line 5\\n  hint: an adapter must"))
    'no line of f.txt segments line 5'
    """
    return (pair.error or "no error message recorded").split("\n  hint:")[0].strip()


def registered_corpus(result: BakeoffResult, corpus: str) -> str | None:
    """The registered corpus name behind a corpus label of the run, or None (files)."""
    for spec in (result.config or {}).get("corpora") or ():
        if isinstance(spec, dict) and spec.get("label") == corpus:
            name = spec.get("name")
            return str(name) if name else None
    return None


def build_boards(result: BakeoffResult, *, metric: str = "f1") -> list[Board]:
    """One :class:`Board` per corpus, in configuration order; ``metric`` is the compared
    metric whose significance tests mark the rows."""
    return [_board(result, corpus, metric) for corpus in result.corpora()]


CORRECTION_NAMES = {
    "holm": "Holm–Bonferroni",
    "bonferroni": "Bonferroni",
    "fdr_bh": "Benjamini–Hochberg (false discovery rate)",
    "maxt": "Westfall–Young step-down max-T",
}
"""How the legends name each multiple-comparison correction."""


def letters_corrected(settings: dict[str, Any]) -> bool:
    """Whether a run's significance letters are corrected for multiple comparisons.

    >>> letters_corrected({"correction": "holm"}), letters_corrected({"correction": "none"})
    (True, False)
    """
    return settings.get("correction") in CORRECTION_NAMES


def significance_method(settings: dict[str, Any]) -> str:
    """How the run's letters were decided, for the legends.

    >>> significance_method({"alpha": 0.05, "correction": "holm"})
    'p < 0.05 after Holm–Bonferroni correction over the tests of each track'
    >>> significance_method({"alpha": 0.05})
    'p < 0.05, not corrected for multiple comparisons'
    """
    alpha = settings.get("alpha", DEFAULT_ALPHA)
    if letters_corrected(settings):
        name = CORRECTION_NAMES[settings["correction"]]
        return f"p < {alpha} after {name} correction over the tests of each track"
    return f"p < {alpha}, not corrected for multiple comparisons"


def detectable_line(
    corpus: str, summary: Mapping[str, Any], alpha: float, unit: Units | None = None
) -> str:
    """The sentence under a comparison table that says what its tests cannot see.

    ``summary`` is a corpus' :func:`~cws_bench.results.model.detectable_differences`;
    the scores are in ``unit`` (default: the report tables' units now).

    >>> from cws_bench.display.units import Units
    >>> one = {"mde": 0.0031, "low": 0.0031, "high": 0.0031, "pairs": 1}
    >>> detectable_line("pku", one, 0.05, Units("percent"))
    'On pku, differences under 0.31 F points cannot be told apart (alpha 0.05, power 0.8).'
    """
    unit = unit or report_units()
    size = unit.score(summary["mde"])
    what = (
        f"differences under {size} F points"
        if unit.scale == "percent"
        else (f"F differences under {size}")
    )
    text = f"On {corpus}, {what} cannot be told apart"
    spread = ""
    if summary["pairs"] > 1:
        spread = (
            f"; median of {summary['pairs']} pairs, "
            f"{unit.score(summary['low'])}–{unit.score(summary['high'])}"
        )
    return f"{text} (alpha {alpha:g}, power 0.8{spread})."


SEED_SCORES = (("f1", "F"), ("precision", "P"), ("recall", "R"), ("oov_recall", "OOV recall"))
"""The scores whose spread over seeds the line under a table gives (results.json has all)."""


def seed_lines(corpus: str, settings: Mapping[str, Any], unit: Units | None = None) -> list[str]:
    """The lines under a corpus' table for its rows run with several seeds (the run's
    ``seeds`` setting, :func:`~cws_bench.results.model.seed_summaries`): the row shows the
    mean; each line gives mean ± sd and min–max of F, P, R and OOV recall over the seeds.

    >>> from cws_bench.display.units import Units
    >>> f1 = {"mean": 0.91, "sd": 0.0141, "min": 0.9, "max": 0.92, "n": 2}
    >>> crf = {"seeds": [1, 2], "pairs": ["crf@seed1", "crf@seed2"], "scores": {"f1": f1}}
    >>> seed_lines("pku", {"seeds": {"pku": {"crf": crf}}}, Units("percent"))
    ['crf, 2 seeds (1, 2): F 91.00 ± 1.41 (90.00–92.00); seeds compared by a two-level bootstrap over seeds and sentences.']
    """  # noqa: E501
    unit = unit or report_units()
    lines = []
    for label, summary in ((settings.get("seeds") or {}).get(corpus) or {}).items():
        parts = []
        for key, name in SEED_SCORES:
            stats = summary["scores"].get(key)
            if stats is None:
                continue
            sd = "" if stats["sd"] is None else f" ± {unit.score(stats['sd'])}"
            low, high = unit.score(stats["min"]), unit.score(stats["max"])
            parts.append(f"{name} {unit.score(stats['mean'])}{sd} ({low}–{high})")
        seeds = ", ".join(str(seed) for seed in summary["seeds"])
        lines.append(
            f"{label}, {len(summary['seeds'])} seeds ({seeds}): {', '.join(parts)}; "
            "seeds compared by a two-level bootstrap over seeds and sentences."
        )
    return lines


RESPLIT_HEADER = ("a", "b", "standard split", "a better", "no difference", "b better")
"""The columns of the re-splits table under a corpus' comparisons."""


def resplit_table(
    corpus: str, settings: Mapping[str, Any]
) -> tuple[str, list[tuple[str, ...]]] | None:
    """What the reports say of a corpus' re-splits (the run's ``resplits`` setting,
    :mod:`cws_bench.run.resplits`): a sentence, then one row per pair of rows (a, b,
    the standard split's verdict, and on how many splits a beat b significantly, they
    did not differ, b beat a); or None (no re-splits, or this corpus has none).

    >>> pair = {"a": "fmm", "b": "hmm", "standard": "a", "n": 3,
    ...         "counts": {"a": 2, "none": 1, "b": 0}, "agree": 2}
    >>> zx = {"train": 2373, "test": 1394, "splits": ["zx@resplit1"] * 3,
    ...       "retrained": ["fmm", "hmm"], "failed": [], "pairs": [pair]}
    >>> text, rows = resplit_table("zx", {"resplits": {"n": 3, "seed": 7, "corpora": {"zx": zx}}})
    >>> text
    'Verdicts on 3 random re-splits of zx (2,373 training and 1,394 test sentences each, as the standard split; seed 7), fmm and hmm trained again on each: the standard verdict held on 2 of 3.'
    >>> rows
    [('fmm', 'hmm', 'fmm better', '2', '1', '0')]
    """  # noqa: E501
    found = settings.get("resplits") or {}
    data = (found.get("corpora") or {}).get(corpus)
    if not data:
        why = (found.get("skipped") or {}).get(corpus)
        return (f"No re-splits of {corpus}: {why}.", []) if why else None
    rows = []
    held = judged = 0
    for pair in data["pairs"]:
        standard = pair["standard"]
        said = {"a": f"{pair['a']} better", "b": f"{pair['b']} better", "none": "no difference"}
        counts = pair["counts"]
        rows.append(
            (
                pair["a"],
                pair["b"],
                said.get(standard, "not judged") if standard else "not judged",
                *(str(counts[key]) for key in ("a", "none", "b")),
            )
        )
        if standard:
            held += pair["agree"]
            judged += pair["n"]
    retrained = data["retrained"]
    names = ", ".join(retrained[:-1]) + " and " if len(retrained) > 1 else ""
    trained = (
        f", {names}{retrained[-1]} trained again on each" if retrained else ", no row trained on it"
    )
    text = (
        f"Verdicts on {plural(len(data['splits']), 'random re-split')} of {corpus} "
        f"({data['train']:,} training and {data['test']:,} test sentences each, as the "
        f"standard split; seed {found['seed']}){trained}: the standard verdict held on "
        f"{held:,} of {judged:,}."
    )
    if data.get("failed"):
        text += f" Not scored: {', '.join(data['failed'])}."
    return text, rows


def paired_test_name(settings: Mapping[str, Any]) -> str:
    """The run's paired test as the legends name it.

    >>> paired_test_name({}), paired_test_name({"test": "permutation"})
    ('paired bootstrap', 'paired permutation (approximate randomization)')
    """
    if settings.get("test", "bootstrap") == "permutation":
        return "paired permutation (approximate randomization)"
    return "paired bootstrap"


def detectable_note(corpus: str, settings: Mapping[str, Any]) -> str | None:
    """The line under a corpus' table that says the smallest difference its tests can
    tell apart (the run's ``detectable`` setting), or None (no comparison, older runs)."""
    summary = (settings.get("detectable") or {}).get(corpus)
    if not summary:
        return None
    return detectable_line(corpus, summary, float(settings.get("alpha", DEFAULT_ALPHA)))


def significance_note(board: Board, settings: dict[str, Any]) -> str | None:
    """The line under a corpus' table that says how its letters were decided, or None.

    >>> row = BoardRow(PairResult("c", "x", "x", "open", "ok"), "a", ())
    >>> board = Board("c", (row,), (), (), (), True, (TrackWinner("open", row),))
    >>> significance_note(board, {"alpha": 0.05, "correction": "holm"})
    'Better than: paired bootstrap tests of F within a track, p < 0.05 after Holm–Bonferroni correction over the tests of each track.'
    """  # noqa: E501
    if not board.tested:
        return None
    sizes = board.family_sizes()
    counted = ", ".join(
        f"{sizes[track]} in the {track} track" for track in board.tracks if sizes.get(track)
    )
    method = significance_method(settings)
    text = f"Better than: {paired_test_name(settings)} tests of F within a track, {method}"
    if counted and letters_corrected(settings):
        text += f" ({counted})"
    return text + "."


@dataclass(frozen=True)
class Column:
    """A column of a pair's secondary figures: its header and how a pair fills its cell."""

    header: str
    cell: Callable[[PairResult], str]


DETAILS: dict[str, Column] = {
    "recall_ci": Column("R {confidence} CI", lambda p: format_interval(p.intervals.get("recall"))),
    "sighan_recall": Column("C_r", lambda p: format_halfwidth(p.sighan_intervals.get("recall"))),
    "precision_ci": Column(
        "P {confidence} CI", lambda p: format_interval(p.intervals.get("precision"))
    ),
    "sighan_precision": Column(
        "C_p", lambda p: format_halfwidth(p.sighan_intervals.get("precision"))
    ),
    "boundary_precision": Column(
        "Boundary P", lambda p: format_score(p.scores.get("boundary_precision"))
    ),
    "boundary_recall": Column(
        "Boundary R", lambda p: format_score(p.scores.get("boundary_recall"))
    ),
    "boundary_f1": Column("Boundary F", lambda p: format_score(p.scores.get("boundary_f1"))),
    "gold_words": Column("Gold words", lambda p: format_count(p.scores.get("gold_words"))),
    "pred_words": Column("Predicted", lambda p: format_count(p.scores.get("pred_words"))),
    "correct_words": Column("Correct", lambda p: format_count(p.scores.get("correct_words"))),
    "words_per_s": Column("words/s", lambda p: format_speed(p.timing.get("words_per_s"))),
    "load_s": Column("load s", lambda p: format_seconds(p.timing.get("load_s"))),
    "train_s": Column("train s", lambda p: format_seconds(p.timing.get("train_s"))),
    "segment_s": Column("segment s", lambda p: format_seconds(p.timing.get("segment_s"))),
    "peak_memory_mib": Column("peak MiB", lambda p: format_memory(p.peak_memory_mib)),
}
"""The secondary figures of a pair that the reports may show, by name."""


def detail_columns(board: Board, names: Sequence[str], confidence: str) -> list[Column]:
    """The named detail columns that hold a value for some scored row of a board.

    A column the run did not fill for anyone (e.g. ``train s`` when nothing
    was trained) is left out rather than shown as a column of dashes.
    """
    columns = []
    for name in names:
        column = DETAILS[name]
        if any(column.cell(row.pair) != MISSING for row in board.rows):
            columns.append(Column(column.header.format(confidence=confidence), column.cell))
    return columns


def track_verdict(
    winner: TrackWinner,
    tracks: int,
    name: Callable[[str], str] = str,
    marks: Callable[[BoardRow], str] = lambda row: "",
    *,
    bold: str = "",
    untested: str = "no significance tests",
) -> str:
    """Who wins a track, in words, with no final stop; ``name`` writes a segmenter's name
    (Markdown: escaped), ``marks`` a row's note marks, ``bold`` goes around the winner's."""
    excluded = excluded_note(winner.excluded, lambda r: name(r.pair.segmenter) + marks(r))
    if winner.row is None:
        return f"no segmenter ranked{excluded}"
    row = winner.row
    text = (
        f"best F {bold}{name(row.pair.segmenter)}{bold}{marks(row)} ({format_score(row.pair.f1)})"
    )
    others = f"other {winner.track}-track segmenter" if tracks > 1 else "other segmenter"
    if not winner.tested:
        text += f"; {untested}" if winner.ties else ", the only one ranked"
    elif not winner.ties:
        text += f", significantly better than every {others}"
    else:
        ties = ", ".join(f"{name(r.pair.segmenter)} ({r.letter})" for r in winner.ties)
        text += f"; not significantly better than {ties}"
    return text + excluded


def excluded_note(rows: Sequence[BoardRow], name: Callable[[BoardRow], str]) -> str:
    """``" (a, b: trained on this data, not ranked)"`` for a track's rows that are never
    ranked, each reason once (:attr:`~cws_bench.results.model.PairResult.exclusion`);
    ``""`` for none.
    """
    if not rows:
        return ""
    reasons: dict[str, list[str]] = {}
    for row in rows:
        reasons.setdefault(row.pair.exclusion or "", []).append(name(row))
    said = "; ".join(f"{', '.join(names)}: {reason}" for reason, names in reasons.items())
    return f" ({said}, not ranked)"

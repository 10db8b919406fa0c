"""The scores, each declared once: every table, bound, comparison and report iterates them.

:data:`SCORES` maps a score's name to its :class:`Score` row: what the score is called
in each kind of table, whether it needs an OOV dictionary, its kind, which way is
better, and, for a score that is not one of :class:`~cws_bench.scoring.scores.SegScores`'
own fields, how it is computed from a set of counts. The order of the rows is the
order of the scores in ``results.json``, the CSV columns and every table (within a
kind: the word scores come before the word counts, the others after them).

This module imports nothing: the scorer, the result model, the reports, the
regression checks and the CLI all read it (docs/EXTENDING.md, "A score").

>>> [s.name for s in bounded_scores()][:3]
['precision', 'recall', 'f1']
>>> SCORES["iv_recall"].label, SCORES["iv_recall"].needs_dictionary
('IV recall', True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "KINDS",
    "SCORES",
    "Score",
    "board_scores",
    "bounded_scores",
    "compared_scores",
    "scores_of_kind",
]

KINDS = ("word", "oov", "boundary")
"""A score's kind: of the words, against the OOV dictionary, of the word boundaries."""


@dataclass(frozen=True)
class Score:
    """One score, as every table, bound and report shows it.

    Attributes:
        name: its key in ``results.json``, the CSV header, ``ScoreResult`` and
            ``PairScores`` (``iv_recall``); also the attribute read on ``SegScores``.
        label: its name in sentences and text tables (``IV recall``).
        short: its heading in narrow tables (``IV-R``: ``compare``'s table).
        board: its heading in the leaderboards' text and Markdown tables (``R_iv``),
            or ``""`` for a score the leaderboards leave out.
        markdown: its heading in the Markdown leaderboard, when not ``board``.
        latex: its heading in LaTeX tables, or ``""`` for none.
        html: its heading in report.html's leaderboards, or ``""`` for none.
        kind: one of :data:`KINDS`.
        needs_dictionary: None without an OOV dictionary (shown as ``--``).
        higher_is_better: True for a quality score (a regression bound may be put
            on it); None for a figure of the data (the OOV rate), never bounded.
        detail: left out of the summaries (``diff``'s score changes): a part of a
            score that is shown (boundary P and R beside boundary F1).
        unit: ``fraction`` (every score today: printed in the scale the user asks for).
        compute: for a score that is not a ``SegScores`` field, its value from a
            ``SegCounts`` (None when undefined); None for a field.
    """

    name: str
    label: str
    short: str
    kind: str
    board: str = ""
    markdown: str = ""
    latex: str = ""
    html: str = ""
    needs_dictionary: bool = False
    higher_is_better: bool | None = True
    detail: bool = False
    unit: str = "fraction"
    compute: Callable[[Any], float | None] | None = None

    def of(self, scores: Any) -> float | None:
        """The score's value on a ``SegScores`` (a field, or one of its computed ``extra``)."""
        if self.compute is None:
            value: float | None = getattr(scores, self.name)
            return value
        return scores.extra.get(self.name)


SCORES: dict[str, Score] = {
    score.name: score
    for score in (
        Score("precision", "precision", "P", "word", board="P", latex="P", html="P"),
        Score("recall", "recall", "R", "word", board="R", latex="R", html="R"),
        Score("f1", "F1", "F1", "word", board="F", latex="F", html="F1"),
        Score(
            "oov_rate",
            "OOV rate",
            "OOV rate",
            "oov",
            board="OOV",
            markdown="OOV rate",
            html="OOV rate",
            needs_dictionary=True,
            higher_is_better=None,
        ),
        Score(
            "oov_recall",
            "OOV recall",
            "OOV-R",
            "oov",
            board="R_oov",
            latex="R\\textsubscript{oov}",
            html="R_oov",
            needs_dictionary=True,
        ),
        Score(
            "iv_recall",
            "IV recall",
            "IV-R",
            "oov",
            board="R_iv",
            latex="R\\textsubscript{iv}",
            html="R_iv",
            needs_dictionary=True,
        ),
        Score("boundary_precision", "boundary precision", "BP", "boundary", detail=True),
        Score("boundary_recall", "boundary recall", "BR", "boundary", detail=True),
        Score("boundary_f1", "boundary F1", "BF1", "boundary", html="Boundary F1"),
    )
}
"""Every score by name, in the order results.json and every table give them."""


def scores_of_kind(*kinds: str) -> tuple[Score, ...]:
    """The scores of these kinds, in :data:`SCORES`' order.

    >>> [s.name for s in scores_of_kind("oov")]
    ['oov_rate', 'oov_recall', 'iv_recall']
    """
    return tuple(s for s in SCORES.values() if s.kind in kinds)


def bounded_scores() -> tuple[Score, ...]:
    """The scores a regression bound may be put on (``check --max-drop NAME=POINTS``)."""
    return tuple(s for s in SCORES.values() if s.higher_is_better)


def compared_scores() -> tuple[Score, ...]:
    """The scores ``diff`` compares with a gold: the bounded ones that are no detail.

    >>> [s.name for s in compared_scores()]
    ['precision', 'recall', 'f1', 'oov_recall', 'iv_recall', 'boundary_f1']
    """
    return tuple(s for s in bounded_scores() if not s.detail)


def board_scores(heading: str = "board") -> tuple[Score, ...]:
    """The score columns of the leaderboards, in SIGHAN's order (R, P, F, then the
    dictionary's, then the boundary F1 in report.html): the scores with a ``heading``
    (``board``, ``latex`` or ``html``).

    >>> [s.board for s in board_scores()]
    ['R', 'P', 'F', 'OOV', 'R_oov', 'R_iv']
    >>> [s.name for s in board_scores("latex")]
    ['recall', 'precision', 'f1', 'oov_recall', 'iv_recall']
    """
    shown = [s for s in SCORES.values() if getattr(s, heading)]
    # SIGHAN's tables give recall before precision; every other table P before R.
    order = {"recall": 0, "precision": 1}
    return tuple(sorted(shown, key=lambda s: order.get(s.name, 2)))

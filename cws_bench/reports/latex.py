"""``leaderboard.tex``: the bake-off's leaderboards as booktabs tables for a paper.

One ``table`` per corpus, as the Markdown has one table per corpus: tracks
are groups of rows separated by a rule (closed first), each ranked apart.
Within a track the best value of each column is bold (rows scored on their
own training data are in italics and never bold), the F1 bootstrap interval
is a column in brackets, and the letters of the segmenters a row beats
significantly are superscripts of its F. Every string from the result is
escaped. The file is a fragment to ``\\input``; it needs ``\\usepackage{booktabs}``.

The numbers are those of :mod:`cws_bench.reports.tables` (percentages with two
decimals by default, as every command prints them), so the LaTeX and Markdown always
agree; ``score --format latex`` shares the table's style (:func:`latex_score_columns`,
:func:`beaten_superscript`, :func:`unit_word`).
The escaping and the ``tabular`` skeleton are shared with
:meth:`cws_bench.run.comparison.ComparisonReport.to_latex`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from cws_bench.reports.published import published_latex
from cws_bench.reports.tables import (
    MISSING,
    Board,
    BoardRow,
    build_boards,
    confidence_label,
    counting,
    detectable_note,
    failure_text,
    format_interval,
    format_score,
    format_speed,
    paired_test_name,
    report_units,
    run_notes,
    seed_lines,
    significance_method,
    with_units,
)
from cws_bench.results.model import LEAKED, TRAINED_ON_IT, BakeoffResult, PairResult
from cws_bench.score_registry import board_scores

__all__ = [
    "LATEX_MISSING",
    "beaten_superscript",
    "escape_latex",
    "interval_header",
    "latex_score_columns",
    "render_latex",
    "tabular",
    "unit_word",
]

LATEX_MISSING = "--"
"""What a LaTeX cell shows for a missing value (an en dash)."""

_LATEX_SPECIAL = {
    "\\": "\\textbackslash{}",
    "&": "\\&",
    "%": "\\%",
    "$": "\\$",
    "#": "\\#",
    "_": "\\_",
    "{": "\\{",
    "}": "\\}",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
    "<": "\\textless{}",
    ">": "\\textgreater{}",
    "—": "--",
    "±": "$\\pm$",
    "|": "\\textbar{}",
    "\n": " ",
    "\r": " ",
}


def escape_latex(text: str) -> str:
    """Escape LaTeX's special characters (and line breaks) in text.

    >>> print(escape_latex("out_1.txt: 50% & more {x}"))
    out\\_1.txt: 50\\% \\& more \\{x\\}
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def latex_score_columns(has_dictionary: bool) -> list[tuple[str, str]]:
    """(score, header) of the score columns of every LaTeX table, in order (SIGHAN's R, P, F;
    the F interval follows F; the dictionary's scores only with one): ``leaderboard.tex``
    and ``score --format latex`` alike.

    >>> [key for key, _ in latex_score_columns(False)]
    ['recall', 'precision', 'f1']
    """
    shown = board_scores("latex")
    return [(s.name, s.latex) for s in shown if has_dictionary or not s.needs_dictionary]


def beaten_superscript(letters: Sequence[str]) -> str:
    """The letters of the rows a row's F beats, as an upright superscript (every LaTeX table).

    >>> print(beaten_superscript(["b", "c"]), repr(beaten_superscript([])))
    $^{\\mathrm{b,c}}$ ''
    """
    return f"$^{{\\mathrm{{{','.join(letters)}}}}}$" if letters else ""


def interval_header(confidence: str) -> str:
    """The header of the F interval column: ``F 95\\% CI``."""
    return f"F {escape_latex(confidence)} CI"


_RULES = frozenset({"\\midrule", "\\addlinespace"})


def tabular(
    align: str,
    header: Sequence[str],
    body: Sequence[str],
    caption: str,
    *,
    label: str | None = None,
    after: Sequence[str] = (),
) -> list[str]:
    """A floating booktabs table: ``header`` and ``body`` are rows already joined with ``&``.

    ``body`` may hold ``\\midrule`` or ``\\addlinespace`` lines (they get no line end). ``after`` is
    set under the tabular (notes), before the caption.
    """
    lines = [
        "\\begin{table}[t]",
        "\\centering",
        f"\\begin{{tabular}}{{{align}}}",
        "\\toprule",
        " & ".join(header) + " \\\\",
        "\\midrule",
    ]
    lines += [row if row in _RULES else row + " \\\\" for row in body]
    lines += ["\\bottomrule", "\\end{tabular}"]
    if after:
        lines += ["", "\\smallskip", "\\footnotesize", *(f"{line}\\par" for line in after)]
    lines.append(f"\\caption{{{caption}}}")
    if label:
        lines.append(f"\\label{{{label}}}")
    lines.append("\\end{table}")
    return lines


def shared_signature(pairs: Sequence[PairResult]) -> str:
    """The ``key:value`` items every pair's signature holds, in the first one's order: what
    the rows of one table were computed alike with (gold, dictionary, seed, resamples, ...).

    >>> a = PairResult("c", "x", "x", "open", "ok", signature="cws-bench:1|gold:ab|segmenter:x")
    >>> b = PairResult("c", "y", "y", "open", "ok", signature="cws-bench:1|gold:ab|segmenter:y")
    >>> shared_signature([a, b])
    'cws-bench:1|gold:ab'
    """
    signatures = [p.signature or p.scores.get("signature") or "" for p in pairs]
    signatures = [sig for sig in signatures if sig]
    if not signatures:
        return ""
    common = set(signatures[0].split("|")).intersection(*(sig.split("|") for sig in signatures))
    return "|".join(item for item in signatures[0].split("|") if item in common)


def unit_word(scale: str) -> str:
    """How every LaTeX caption names the unit of its scores: ``\\%`` or ``fractions``."""
    return "\\%" if scale == "percent" else "fractions"


def _cell(text: str) -> str:
    return LATEX_MISSING if text == MISSING else escape_latex(text)


# (header, value of a pair, format): the columns of a corpus' table after # and Segmenter.
_Column = tuple[str, Callable[[PairResult], float | None], Callable[[float | None], str]]


def _score(key: str) -> Callable[[PairResult], float | None]:
    return lambda p: p.scores.get(key)


def _columns(board: Board) -> list[_Column]:
    shown = latex_score_columns(board.has_oov())
    columns: list[_Column] = [(header, _score(key), format_score) for key, header in shown]
    if any(row.pair.timing.get("chars_per_s") is not None for row in board.rows):
        columns.append(("chars/s", lambda p: p.timing.get("chars_per_s"), format_speed))
    return columns


def _best(rows: Sequence[BoardRow], value: Callable[[PairResult], float | None]) -> float | None:
    present = [v for row in rows if not row.excluded for v in [value(row.pair)] if v is not None]
    return max(present) if present else None


def _name(row: BoardRow) -> str:
    name = escape_latex(row.pair.segmenter)
    if row.excluded:
        name = f"\\textit{{{name}}}"
    marks = ",".join(str(n) for n in row.notes)
    return name + (f"\\textsuperscript{{\\dag{{}}{marks}}}" if marks else "")


def _track_rows(board: Board, track: str, columns: Sequence[_Column]) -> list[str]:
    rows = [row for row in board.rows if row.pair.track == track]
    best = [_best(rows, value) for _, value, _ in columns]
    lines = []
    for row in rows:
        cells = [row.letter, _name(row)]
        for (header, value, fmt), top in zip(columns, best):
            number = value(row.pair)
            cell = _cell(fmt(number))
            if number is not None and top is not None and number == top and not row.excluded:
                cell = f"\\textbf{{{cell}}}"
            if header == "F":
                cell += beaten_superscript(row.beats)
                cells += [cell, _cell(format_interval(row.pair.intervals.get("f1")))]
            else:
                cells.append(cell)
        lines.append(" & ".join(cells))
    for pair in board.failed:
        if pair.track == track:
            status = f"\\multicolumn{{{len(columns) + 1}}}{{c}}{{{escape_latex(pair.status)}}}"
            lines.append(f" & {escape_latex(pair.segmenter)} & {status}")
    return lines


def _label(corpus: str) -> str:
    return "tab:cws-" + (re.sub(r"[^A-Za-z0-9]+", "-", corpus).strip("-").lower() or "corpus")


def _caption(board: Board, result: BakeoffResult) -> str:
    settings = result.settings
    facts = board.size_facts(("sentences", "gold_words"))
    text = f"Word segmentation on {escape_latex(board.corpus)}"
    if facts:
        text += f" ({', '.join(facts)})"
    text += (
        f": word recall, precision and F1 ({unit_word(report_units().scale)}, "
        f"{escape_latex(counting(settings))}), with the "
        f"{escape_latex(confidence_label(settings))} bootstrap interval of F"
    )
    oov = [row.pair.scores.get("oov_rate") for row in board.rows]
    oov_rate = next((v for v in oov if v is not None), None)
    if oov_rate is not None:
        text += (
            f"; OOV rate {format_score(oov_rate)}, R\\textsubscript{{oov}} and "
            "R\\textsubscript{iv} the recall of out- and in-vocabulary gold words"
        )
    text += ". "
    text += (
        "Tracks are ranked apart; the best value of each column within a track is bold. "
        if len(board.tracks) > 1
        else "The best value of each column is bold. "
    )
    if board.tested:
        text += (
            "Superscripts: the letters of the segmenters of the same track whose F the row "
            f"beats in a {paired_test_name(settings)} test, "
            f"{escape_latex(significance_method(settings))}. "
        )
    detectable = detectable_note(board.corpus, settings)
    if detectable:
        text += escape_latex(detectable) + " "
    for line in seed_lines(board.corpus, settings):  # a seeded row's spread over its seeds
        text += escape_latex(line) + " "
    reasons = {row.pair.exclusion for row in board.rows if row.excluded}
    if TRAINED_ON_IT in reasons:
        text += "Rows in italics were scored on their own training data and are not ranked. "
    if LEAKED in reasons:
        text += (
            "Rows in italics whose dictionary holds the test words the training words lack "
            "(a leak) are not ranked. "
        )
    return text.rstrip()


def _board_table(board: Board, result: BakeoffResult) -> list[str]:
    columns = _columns(board)
    header = ["", "Segmenter"]
    for name, _, _ in columns:
        header.append(name)
        if name == "F":
            header.append(interval_header(confidence_label(result.settings)))
    tracks = board.tracks or sorted({p.track for p in board.failed})
    width = len(header)
    body: list[str] = []
    for index, track in enumerate(tracks):
        if len(tracks) > 1:
            if index:
                body.append("\\midrule")
            title = escape_latex(track.capitalize())
            body.append(f"\\multicolumn{{{width}}}{{l}}{{\\textit{{{title} track}}}}")
        body += _track_rows(board, track, columns)
    notes = [
        f"\\dag{{}}{number} {escape_latex(who)}: {escape_latex(text)}"
        for number, (who, text) in enumerate(board.notes, start=1)
    ]
    notes += [
        f"{escape_latex(p.segmenter)} ({escape_latex(p.status)}): {escape_latex(failure_text(p))}"
        for p in board.failed
    ]
    shared = shared_signature([row.pair for row in board.rows])
    if shared:
        # under the table, as sacrebleu prints its signature under a score
        notes.append(f"Signature (all rows): \\texttt{{{escape_latex(shared)}}}")
    align = "cl" + "r" * (width - 2)
    return tabular(
        align, header, body, _caption(board, result), label=_label(board.corpus), after=notes
    )


@with_units
def render_latex(result: BakeoffResult) -> str:
    """The leaderboards of a bake-off as LaTeX: one booktabs ``table`` per corpus, a
    fragment to ``\\input`` (it needs ``\\usepackage{booktabs}``), ending in a newline."""
    lines = [
        f"% Leaderboard: {escape_latex(result.name)} (written by cws-bench).",
        "% Needs \\usepackage{booktabs}.",
    ]
    lines += [f"% Run note: {escape_latex(note)}" for note in run_notes(result.settings)]
    for board in build_boards(result):
        lines += ["", *_board_table(board, result)]
        # SIGHAN 2005 corpora: the published rows
        lines += published_latex(board, escape_latex, tabular, f"{_label(board.corpus)}-published")
    return "\n".join(lines) + "\n"

"""The board's site: a static folder that opens from the file system, and its data files.

:func:`write_board` writes, beside the bake-off's own reports:

- ``index.html``: the F heatmap (segmenter × corpus, with its colour scale),
  a sortable table of every segmenter's F on every corpus and its mean over
  the cells it is ranked in, the claimed figures beside the measured ones,
  and what is not on the board with why and how to add it;
- ``corpora/<corpus>.html``: the corpus' leaderboard by track, the claims
  about it and the published SIGHAN 2005 rows where they apply;
- ``segmenters/<segmenter>.html``: its version, licence, model checksum (or
  that it has none), claims and measured figures on every corpus;
- ``board.md``, ``board.csv``, ``board.json``: every number of the pages.

A row whose segmenter has seen the test data (``contaminated``: trained on
it, or a dictionary that leaked it) is shown, marked, and never ranked; its
cells count in no mean. The pages use report.html's stylesheet and Jinja
environment (:func:`cws_bench.reports.html.template_environment`) and the
charts' style (:mod:`cws_bench.reports.charts`); sorting is a few lines of
inline JavaScript, so nothing is fetched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cws_bench.display.tables import csv_table, markdown_lines
from cws_bench.display.tables import escape_markdown as esc
from cws_bench.reports import tables as fmt
from cws_bench.results.model import BakeoffResult, PairResult
from cws_bench.results.published import Claim, ClaimCheck, check_claim, published_for

__all__ = ["BOARD_FILES", "BoardCell", "board_cells", "render_board_markdown", "write_board"]

BOARD_FILES = ("index.html", "board.md", "board.csv", "board.json")
"""The board's files at the top of its folder (plus ``corpora/`` and ``segmenters/``)."""

TOKEN_COLUMNS = (
    ("straddling_share", "straddling", "score"),
    ("split_share", "words split", "score"),
    ("iv_split_share", "IV words split", "score"),
    ("oov_split_share", "OOV words split", "score"),
    ("tokens_per_word", "tokens per word", "ratio"),
    ("tokens_per_char", "tokens per char", "ratio"),
    ("renyi_efficiency", "Rényi efficiency", "ratio"),
)
"""The token figures the board shows (key in ``analysis["tokens"]``, label, printed as a
score in the board's unit or as a ratio); :mod:`cws_bench.analysis.tokens` defines them."""

TOKEN_FIGURES = tuple(key for key, _, _ in TOKEN_COLUMNS)

CSV_COLUMNS = (
    "segmenter",
    "corpus",
    "track",
    "status",
    "rank",
    "f1",
    "f1_low",
    "f1_high",
    "precision",
    "recall",
    "oov_recall",
    "boundary_f1",
    *TOKEN_FIGURES,
    "contaminated",
    "exclusion",
    "version",
    "model_checksum",
    "checksum_of",
    "signature",
    "claimed_f1",
    "claim_derived",
    "claim_by",
    "claim_source",
    "claim_url",
    "claim_where",
    "difference",
    "covered",
)


PARITY_CORPORA = ("ud-zh-gsd", "ud-zh-gsdsimp")
"""The parallel corpora of the Traditional/Simplified parity: the same sentences, in
Traditional (UD GSD) and in Simplified (UD GSDSimp) characters."""


@dataclass(frozen=True)
class BoardCell:
    """One (segmenter, corpus) pair of the board.

    Attributes:
        pair: the bake-off's row.
        rank: its place among the ranked rows of its corpus and track, or None
            (not scored, or contaminated: never ranked).
        checksum: the checksum of what the segmenter ran with (a model folder's,
            else its training data's or dictionary's), or None: not verified.
        checksum_of: what ``checksum`` is of (``model``, ``training data``), or ``""``.
        claims: the claims about this segmenter on this corpus, beside the measured F.
    """

    pair: PairResult
    rank: int | None
    checksum: str | None
    checksum_of: str
    claims: tuple[ClaimCheck, ...] = field(default_factory=tuple)

    @property
    def f1(self) -> float | None:
        value = self.pair.scores.get("f1") if self.pair.ok else None
        return None if value is None else float(value)

    @property
    def tokens(self) -> Mapping[str, Any] | None:
        """How its words cut the gold's (``analysis["tokens"]``), or None (not scored)."""
        figures = (self.pair.analysis or {}).get("tokens") if self.pair.ok else None
        return figures or None

    def value(self, column: str) -> float | None:
        """F (``f1``), a score, or a token figure of this cell; None when it has none."""
        if column == "f1":
            return self.f1
        if not self.pair.ok:
            return None
        found = self.pair.scores.get(column)
        if found is None:
            found = (self.tokens or {}).get(column)
        return None if found is None else float(found)

    @property
    def ranked(self) -> bool:
        return self.f1 is not None and not self.pair.contaminated


def _checksum(info: Mapping[str, Any]) -> tuple[str | None, str]:
    model = info.get("model")
    if isinstance(model, Mapping) and model.get("checksum"):
        return str(model["checksum"]), "model"
    trained = info.get("trained_on")
    if isinstance(trained, Mapping) and trained.get("checksum"):
        return str(trained["checksum"]), "training data"
    return None, ""


def board_cells(result: BakeoffResult, claims: Sequence[Claim] = ()) -> list[BoardCell]:
    """Every pair of the run with its rank, checksum and claims, in the run's order."""
    ranks: dict[tuple[str, str], int] = {}
    groups: dict[tuple[str, str], list[PairResult]] = {}
    for pair in result.pairs:
        if pair.ok and not pair.contaminated and pair.scores.get("f1") is not None:
            groups.setdefault((pair.corpus, pair.track), []).append(pair)
    for group in groups.values():
        group.sort(key=lambda p: (-float(p.scores["f1"]), p.segmenter))
        for place, pair in enumerate(group, start=1):
            ranks[(pair.corpus, pair.segmenter)] = place
    cells = []
    for pair in result.pairs:
        checksum, of = _checksum(pair.segmenter_info or {})
        found = [
            check_claim(claim, pair)
            for claim in claims
            if claim.segmenter == pair.adapter and claim.corpus == pair.corpus
        ]
        cells.append(
            BoardCell(
                pair,
                ranks.get((pair.corpus, pair.segmenter)),
                checksum,
                of,
                tuple(c for c in found if c is not None),
            )
        )
    return cells


def _mean(cells: Sequence[BoardCell], test_sets: Mapping[str, str]) -> float | None:
    """The mean F over the distinct test sets of the ranked cells (contaminated ones left out)."""
    from cws_bench.reports.domains import distinct_mean

    return distinct_mean(
        {c.pair.corpus: c.f1 for c in cells if c.ranked and c.f1 is not None}, dict(test_sets)
    )


@dataclass(frozen=True)
class _Board:
    """What every page and file of the board reads."""

    result: BakeoffResult
    cells: list[BoardCell]
    corpora: list[str]
    segmenters: list[str]
    means: dict[str, float | None]
    absent: list[dict[str, Any]]
    facts: dict[str, dict[str, Any]]

    token_columns = TOKEN_COLUMNS

    @property
    def counting(self) -> str:
        """How the cells were counted (the SIGHAN corpora by the official script's method)."""
        return fmt.counting(self.result.settings)

    def cell(self, segmenter: str, corpus: str) -> BoardCell | None:
        return next(
            (c for c in self.cells if c.pair.segmenter == segmenter and c.pair.corpus == corpus),
            None,
        )

    def row(self, segmenter: str) -> list[BoardCell | None]:
        """A segmenter's cell on each corpus (None: not run there)."""
        return [self.cell(segmenter, corpus) for corpus in self.corpora]

    def token_cells(self) -> list[BoardCell]:
        """The cells with token figures (tokenizers and word segmenters), by corpus, then
        boundary F."""
        cells = [c for c in self.cells if c.tokens]
        order = {corpus: i for i, corpus in enumerate(self.corpora)}
        return sorted(
            cells,
            key=lambda c: (order[c.pair.corpus], -(c.pair.scores.get("boundary_f1") or 0.0)),
        )

    def rank_agreement(self, column: str = "f1") -> list[dict[str, Any]]:
        """Kendall's τ-b between the rankings by ``column`` on every two corpora, over the
        segmenters ranked on both (at least three); high τ: one of the two would have
        ranked them alike."""
        from cws_bench.metrics.ranking import kendall_tau

        found = []
        values = {
            corpus: {
                c.pair.segmenter: value
                for c in self.cells
                if c.pair.corpus == corpus and c.ranked and (value := c.value(column)) is not None
            }
            for corpus in self.corpora
        }
        for i, first in enumerate(self.corpora):
            for second in self.corpora[i + 1 :]:
                common = sorted(set(values[first]) & set(values[second]))
                if len(common) < 3:
                    continue
                tau = kendall_tau(
                    [values[first][s] for s in common], [values[second][s] for s in common]
                )
                found.append({"corpora": [first, second], "segmenters": len(common), "tau": tau})
        return found

    def column_agreement(self) -> list[dict[str, Any]]:
        """For F, boundary F and each token figure: the mean and lowest τ of its rankings
        over every two corpora (:meth:`rank_agreement`), for the columns with any."""
        found = []
        for column, label in (
            ("f1", "F"),
            ("boundary_f1", "boundary F"),
            *((key, label) for key, label, _ in TOKEN_COLUMNS),
        ):
            taus = [item["tau"] for item in self.rank_agreement(column) if item["tau"] is not None]
            if taus:
                found.append(
                    {
                        "column": column,
                        "label": label,
                        "pairs": len(taus),
                        "mean_tau": sum(taus) / len(taus),
                        "lowest_tau": min(taus),
                    }
                )
        return found

    def parity(self) -> list[dict[str, Any]]:
        """Traditional/Simplified parity of each segmenter with cells on both
        :data:`PARITY_CORPORA`: its tokens on the Traditional sentences over its tokens on
        the Simplified ones (1: no premium for the script; above 1: Traditional costs
        more tokens)."""
        traditional, simplified = PARITY_CORPORA
        found = []
        for name in self.segmenters:
            cells = [self.cell(name, traditional), self.cell(name, simplified)]
            counts = [(c.tokens or {}).get("tokens") if c is not None else None for c in cells]
            if counts[0] is None or not counts[1]:
                continue
            found.append(
                {
                    "segmenter": name,
                    "tokens_traditional": counts[0],
                    "tokens_simplified": counts[1],
                    "parity": counts[0] / counts[1],
                }
            )
        return found

    def claim_checks(self) -> list[tuple[BoardCell, ClaimCheck]]:
        return [(cell, check) for cell in self.cells for check in cell.claims]


def _board(
    result: BakeoffResult,
    claims: Sequence[Claim],
    absent: Sequence[Any],
    facts: Mapping[str, Mapping[str, Any]],
) -> _Board:
    cells = board_cells(result, claims)
    corpora = result.corpora()
    test_sets = result.settings.get("corpus_test_sets") or {}
    means = {
        name: _mean([c for c in cells if c.pair.segmenter == name], test_sets)
        for name in result.segmenters()
    }
    # Rows: means over different sets of corpora do not compare, so the rows ranked on
    # more corpora come first (closed-track rows run only where there is training data),
    # each group by its mean F; the rows ranked nowhere last.
    ranked = {name: sum(c.ranked for c in cells if c.pair.segmenter == name) for name in means}
    segmenters = sorted(
        result.segmenters(), key=lambda s: (means[s] is None, -ranked[s], -(means[s] or 0.0))
    )
    return _Board(
        result,
        cells,
        corpora,
        segmenters,
        means,
        [dict(a) if isinstance(a, Mapping) else a.to_dict() for a in absent],
        {name: dict(value) for name, value in facts.items()},
    )


def _heatmap(board: _Board) -> str | None:
    """The F heatmap as inline SVG with its colour scale; contaminated cells marked ``*``."""
    import numpy as np

    from cws_bench.reports.charts import cell_text, cell_ticks, heatmap, new_chart, to_svg

    rows, corpora = board.segmenters, board.corpora
    data = np.full((len(rows), len(corpora)), np.nan)
    marks = np.zeros(data.shape, dtype=bool)
    statuses: dict[tuple[int, int], str] = {}
    for i, name in enumerate(rows):
        for j, corpus in enumerate(corpora):
            cell = board.cell(name, corpus)
            if cell is not None and cell.f1 is not None:
                data[i, j] = cell.f1 * 100
                marks[i, j] = cell.pair.contaminated
            elif cell is not None:
                statuses[(i, j)] = cell.pair.status  # failed, timeout, skipped
    if np.isnan(data).all():
        return None
    name = "board-heatmap"
    with new_chart(name, 2.6 + 0.7 * len(corpora), 1.3 + 0.34 * len(rows)) as figure:
        axes, low, high, _ = heatmap(figure, data, "F (%)")
        high = max(high, low + 1e-9)
        for i in range(len(rows)):
            for j in range(len(corpora)):
                value = data[i, j]
                if np.isnan(value):
                    text = statuses.get((i, j), "—")
                    cell_text(axes, i, j, text, fontsize=6 if text != "—" else 7)
                    continue
                mark = "*" if marks[i, j] else ""
                cell_text(axes, i, j, f"{value:.1f}{mark}", (value - low) / (high - low))
        cell_ticks(axes, corpora, rows)
        return to_svg(figure, name, "F of every segmenter on every corpus")


def page_name(name: str) -> str:
    """A page's file name for a corpus or segmenter name.

    >>> page_name("tokenizer-qwen2.5"), page_name("a/b c")
    ('tokenizer-qwen2.5.html', 'a_b_c.html')
    """
    return re.sub(r"[^\w.+-]+", "_", name) + ".html"


def _base(cell: BoardCell) -> dict[str, Any]:
    """A cell's columns before the claim's."""
    pair = cell.pair
    interval = pair.intervals.get("f1")
    tokens = cell.tokens or {}
    return {
        "segmenter": pair.segmenter,
        "corpus": pair.corpus,
        "track": pair.track,
        "status": pair.status,
        "rank": cell.rank,
        "f1": cell.f1,
        "f1_low": None if interval is None else interval.low,
        "f1_high": None if interval is None else interval.high,
        "precision": pair.scores.get("precision") if pair.ok else None,
        "recall": pair.scores.get("recall") if pair.ok else None,
        "oov_recall": pair.scores.get("oov_recall") if pair.ok else None,
        "boundary_f1": pair.scores.get("boundary_f1") if pair.ok else None,
        **{key: tokens.get(key) for key in TOKEN_FIGURES},
        "contaminated": pair.contaminated,
        "exclusion": pair.exclusion,
        "version": (pair.segmenter_info or {}).get("version"),
        "model_checksum": cell.checksum,
        "checksum_of": cell.checksum_of or None,
        "signature": pair.signature,
    }


def _claim_columns(check: ClaimCheck | None) -> dict[str, Any]:
    """A claim's columns of board.csv (none for a cell without a claim)."""
    if check is None:
        return {}
    fields = ("derived", "by", "source", "url", "where")
    return {
        "claimed_f1": check.claim.f1,
        **{f"claim_{name}": getattr(check.claim, name) for name in fields},
        "difference": check.difference,
        "covered": check.covered,
    }


def _json(board: _Board) -> str:
    result = board.result
    data = {
        "name": result.name,
        "created": result.created,
        "method": result.config.get("method", "interval"),
        "corpus_methods": result.settings.get("corpus_methods") or {},
        "corpora": board.corpora,
        "segmenters": [
            {"name": name, "mean_f1": board.means[name], **board.facts.get(name, {})}
            for name in board.segmenters
        ],
        "rows": [
            {**_base(cell), "claims": [check.to_dict() for check in cell.claims]}
            for cell in board.cells
        ],
        "rank_agreement": board.rank_agreement(),
        "column_agreement": board.column_agreement(),
        "parity": board.parity(),
        "absent": board.absent,
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _csv(board: _Board) -> str:
    rows = [  # one per cell and claim; a cell with no claim: one, the claim's columns empty
        {**_base(cell), **_claim_columns(check)}
        for cell in board.cells
        for check in cell.claims or (None,)
    ]
    return csv_table(CSV_COLUMNS, [[row.get(c) for c in CSV_COLUMNS] for row in rows]) + "\n"


def render_board_markdown(board: _Board) -> str:
    """board.md: the F table (segmenters × corpora), the claims and what is absent."""
    lines = [f"# The board: {board.result.name}", ""]
    lines.append(
        "F of each segmenter on each corpus (percent); `*`: trained on the test data or its "
        "dictionary saw it, never ranked and out of the mean."
    )
    lines.append("")
    rows = [
        [esc(name), fmt.format_score(board.means[name]), *map(_f_text, board.row(name))]
        for name in board.segmenters
    ]
    lines += _table(["segmenter", "mean F", *map(esc, board.corpora)], rows)
    checks = board.claim_checks()
    if checks:
        lines += ["", "## Claimed beside measured", ""]
        header = "segmenter|corpus|claimed F|by|measured F|interval|difference|covered|source"
        rows = [
            [
                esc(cell.pair.segmenter),
                esc(cell.pair.corpus),
                fmt.format_score(check.claim.f1) + (" (from P, R)" if check.claim.derived else ""),
                esc(check.claim.by),
                fmt.format_score(check.measured),
                fmt.format_interval(cell.pair.intervals.get("f1")),
                fmt.format_difference(check.difference),
                _covered(check.covered),
                f"[{esc(check.claim.source)}]({check.claim.url}), {esc(check.claim.where)}",
            ]
            for cell, check in checks
        ]
        lines += _table(header.split("|"), rows, "llrlrlrll")
    agreement = board.rank_agreement()
    if agreement:
        lines += ["", "## Would one corpus have sufficed?", ""]
        lines += ["Kendall's τ-b of the F rankings of two corpora (segmenters ranked on both):", ""]
        rows = []
        for item in agreement:
            tau = fmt.MISSING if item["tau"] is None else f"{item['tau']:.3f}"
            rows.append([" · ".join(map(esc, item["corpora"])), item["segmenters"], tau])
        lines += _table(["corpora", "segmenters", "τ"], rows)
    lines += _token_markdown(board)
    unverified = sorted({c.pair.segmenter for c in board.cells if c.checksum is None})
    if unverified:
        lines += ["", "No checksum (the model is not verified): " + ", ".join(unverified) + "."]
    if board.absent:
        lines += ["", "## Not on the board", ""]
        for item in board.absent:
            how = f" — {esc(item['how'])}" if item.get("how") else ""
            lines.append(f"- {item['kind']} `{item['name']}`: {esc(item['why'])}{how}")
    return "\n".join(lines) + "\n"


def _f_text(cell: BoardCell | None) -> str:
    """A cell's F as board.md shows it: ``*`` when contaminated, else why it has none."""
    if cell is None or cell.f1 is None:
        return fmt.MISSING if cell is None else cell.pair.status
    return fmt.format_score(cell.f1) + ("*" if cell.pair.contaminated else "")


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> list[str]:
    """A table of board.md: the first column left-aligned, the others right unless ``align``."""
    return markdown_lines(header, rows, align or None, style="plain")


def _token_value(cell: BoardCell, key: str, kind: str) -> str:
    value = cell.value(key)
    if kind == "score" or value is None:
        return fmt.format_score(value)
    return f"{value:.3f}"


def _token_markdown(board: _Board) -> list[str]:
    """board.md's sections on how tokens cut words: the figures of every cell, the
    Traditional/Simplified parity, and whether one corpus ranks each column as all do."""
    cells = board.token_cells()
    if not cells:
        return []
    lines = ["", "## How the tokens cut the gold's words", ""]
    lines.append(
        "Boundary F, the shares of straddling tokens and of split gold words in percent; "
        "tokens per word and per character and the Rényi efficiency (α = 2.5) as ratios."
    )
    rows = [
        [
            esc(cell.pair.segmenter),
            esc(cell.pair.corpus),
            fmt.format_score(cell.value("boundary_f1")),
            *(_token_value(cell, key, kind) for key, _, kind in TOKEN_COLUMNS),
        ]
        for cell in cells
    ]
    labels = ["boundary F", *(label for _, label, _ in TOKEN_COLUMNS)]
    lines += ["", *_table(["segmenter", "corpus", *labels], rows, "ll" + "r" * len(labels))]
    parity = board.parity()
    if parity:
        lines += ["", "## Traditional/Simplified parity", ""]
        lines.append(
            f"Tokens on {PARITY_CORPORA[0]} (Traditional) over tokens on the same sentences in "
            f"{PARITY_CORPORA[1]} (Simplified): 1, no premium for the script."
        )
        rows = []
        for item in parity:
            counts = (item["tokens_traditional"], item["tokens_simplified"])
            rows.append(
                [esc(item["segmenter"]), *(f"{n:,}" for n in counts), f"{item['parity']:.3f}"]
            )
        lines += ["", *_table(["segmenter", "Traditional", "Simplified", "parity"], rows)]
    columns = board.column_agreement()
    if columns:
        lines += ["", "## Would one corpus have sufficed, column by column?", ""]
        lines.append(
            "Kendall's τ-b of each column's rankings over every two corpora: the mean and "
            "the lowest; a low τ says one corpus would have ranked the segmenters otherwise."
        )
        rows = []
        for item in columns:
            taus = (item["mean_tau"], item["lowest_tau"])
            rows.append([esc(item["label"]), item["pairs"], *(f"{tau:.3f}" for tau in taus)])
        lines += ["", *_table(["column", "corpus pairs", "mean τ", "lowest τ"], rows)]
    return lines


def _covered(value: bool | None) -> str:
    return {True: "yes", False: "no", None: fmt.MISSING}[value]


def _write(path: Path, text: str) -> None:
    from cws_bench.text.io import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        handle.write(text)


def write_board(
    result: BakeoffResult,
    folder: str | Path,
    *,
    absent: Sequence[Any] = (),
    claims: Sequence[Claim] = (),
    facts: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[Path]:
    """Write the board's site and data files into ``folder``; return the files written.

    Args:
        result: the board's bake-off.
        folder: where (created if needed).
        absent: what is not on the board (:class:`~cws_bench.run.board.Absent`, or
            dicts with kind, name, why, how).
        claims: the published claims (:func:`~cws_bench.results.published.load_claims`).
        facts: per segmenter label, more to show on its page (``licence``, ``distribution``).

    Scores print in the units of an enclosing :func:`~cws_bench.reports.tables.printed_in`
    (percent by default); the CSV and JSON hold fractions.
    """
    from markupsafe import Markup

    from cws_bench.reports.html import template_environment

    board = _board(result, claims, absent, facts or {})
    target = Path(folder)
    environment = template_environment(page=page_name, covered=_covered)
    template = environment.get_template("board.html.j2")
    heatmap = _heatmap(board)
    written = []

    def page(path: Path, **context: Any) -> None:
        depth = "../" if path.parent != target else ""
        _write(path, template.render(board=board, root=depth, **context))
        written.append(path)

    page(target / "index.html", view="index", heatmap=Markup(heatmap) if heatmap else None)
    for corpus in board.corpora:
        cells = [c for c in board.cells if c.pair.corpus == corpus]
        cells.sort(
            key=lambda c: (
                c.pair.track != "closed",
                c.rank is None,
                c.rank or 0,
                -(c.f1 or 0.0),
                c.pair.segmenter,
            )
        )
        gold = next((c.pair.scores.get("gold_words") for c in cells if c.pair.ok), None)
        page(
            target / "corpora" / page_name(corpus),
            view="corpus",
            corpus=corpus,
            cells=cells,
            published=published_for(corpus, gold),
        )
    for name in board.segmenters:
        cells = [c for c in board.cells if c.pair.segmenter == name]
        page(target / "segmenters" / page_name(name), view="segmenter", name=name, cells=cells)
    for file, text in (
        ("board.md", render_board_markdown(board)),
        ("board.csv", _csv(board)),
        ("board.json", _json(board)),
    ):
        _write(target / file, text)
        written.append(target / file)
    return written

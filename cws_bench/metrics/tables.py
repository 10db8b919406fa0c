"""Plain tables the metric reports render themselves with: aligned text, Markdown, CSV.

:func:`escape_markdown` is the one Markdown escaping of cws-bench: the metric
tables, ``compare``'s table (``cws-bench score --format markdown``) and the
bake-off's leaderboard.md escape every label through it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["csv_table", "escape_markdown", "markdown_table", "percent", "text_table"]

_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def escape_markdown(text: str) -> str:
    r"""Escape text for Markdown: literal characters, one line.

    A label cannot become a link, emphasis, a heading or a new table cell:

    >>> escape_markdown("a|b *c*")
    'a\\|b \\*c\\*'
    >>> escape_markdown("[x](javascript:1)")
    '\\[x\\](javascript:1)'
    """
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def percent(value: float | None) -> str:
    """A fraction as a percentage with two decimals; ``--`` when undefined, ``nan`` for NaN.

    >>> percent(0.5), percent(None), percent(float("nan"))
    ('50.00', '--', 'nan')
    """
    if value is None:
        return "--"
    if math.isnan(value):
        return "nan"
    return f"{100 * value:.2f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub Markdown table; the first column left-aligned, the others right.

    >>> print(markdown_table(["name", "F1"], [["a|b", "1.00"]]))
    | name | F1 |
    | :-- | --: |
    | a\\|b | 1.00 |
    """
    cell = escape_markdown
    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("| " + " | ".join([":--", *("--:" for _ in header[1:])]) + " |")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to width, the first left-aligned, the others right, two spaces apart.

    >>> print(text_table(["name", "F1"], [["a", "100.00"]]))
      name      F1
      a     100.00
    """
    lines = [list(header), *(list(row) for row in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  "
        + line[0].ljust(widths[0])
        + "".join(f"  {cell:>{width}}" for cell, width in zip(line[1:], widths[1:]))
        for line in lines
    )


def csv_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """CSV with a header line, ``\\n`` line ends, no final newline."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().rstrip("\n")

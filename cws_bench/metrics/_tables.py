"""Plain tables the metric reports render themselves with: aligned text, Markdown, CSV."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cws_bench.metrics._units import percent

__all__ = ["csv_table", "markdown_table", "percent", "text_table"]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub Markdown table; the first column left-aligned, the others right.

    >>> print(markdown_table(["name", "F1"], [["a|b", "1.00"]]))
    | name | F1 |
    | :-- | --: |
    | a\\|b | 1.00 |
    """

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

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

"""Plain tables the metric reports render themselves with: aligned text, Markdown, CSV.

:func:`escape_markdown` is the one Markdown escaping of cws-bench: the metric
tables, ``compare``'s table (``cws-bench score --format markdown``) and the
bake-off's leaderboard.md escape every label through it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "csv_table",
    "escape_markdown",
    "markdown_lines",
    "markdown_table",
    "safe_record",
    "spreadsheet_safe",
    "text_table",
]

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


_RULES = {"l": ":--", "c": ":-:", "r": "--:"}
_PLAIN_RULES = {"l": "---", "r": "---:"}


def markdown_lines(
    header: Sequence[str],
    rows: Iterable[Sequence[Any]],
    align: str | None = None,
    *,
    style: str = "spaced",
    escape: bool = False,
) -> list[str]:
    """The lines of a GitHub Markdown table: the header, the rule, the rows.

    ``align`` has one of ``l``, ``c``, ``r`` per column (default: the first
    left, the others right); ``style`` writes the rule ``| :-- | --: |``
    (``spaced``), ``|:--|--:|`` (``tight``) or ``| --- | ---: |`` (``plain``);
    ``escape`` passes the rows' cells through :func:`escape_markdown` (else they,
    like the header, are Markdown already).

    >>> markdown_lines(["name", "F1"], [["a", "1.00"]], "lr", style="plain")
    ['| name | F1 |', '| --- | ---: |', '| a | 1.00 |']
    """
    align = align or "l" + "r" * (len(header) - 1)
    rule = [(_PLAIN_RULES if style == "plain" else _RULES)[a] for a in align]
    cell = escape_markdown if escape else str
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(rule) + "|" if style == "tight" else "| " + " | ".join(rule) + " |",
        *("| " + " | ".join(map(cell, row)) + " |" for row in rows),
    ]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub Markdown table; the first column left-aligned, the others right.

    >>> print(markdown_table(["name", "F1"], [["a|b", "1.00"]]))
    | name | F1 |
    | :-- | --: |
    | a\\|b | 1.00 |
    """
    return "\n".join(markdown_lines([escape_markdown(h) for h in header], rows, escape=True))


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


_FORMULA_STARTS = frozenset("=+-@\t\r")


def spreadsheet_safe(value: Any) -> Any:
    """A CSV cell no spreadsheet runs as a formula (OWASP's rule against CSV injection).

    Text that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return gets a leading ``'``; numbers, and text that is a number, stay as
    they are. Every CSV cws-bench writes goes through it.

    >>> [spreadsheet_safe(v) for v in ["=SUM(A1)", "-0.5", -0.5, "@cmd", "jieba"]]
    ["'=SUM(A1)", '-0.5', -0.5, "'@cmd", 'jieba']
    """
    if not isinstance(value, str) or not value or value[0] not in _FORMULA_STARTS:
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


def safe_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`spreadsheet_safe` of each value of a ``csv.DictWriter`` row."""
    return {key: spreadsheet_safe(value) for key, value in row.items()}


def csv_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """CSV with a header line, ``\\n`` line ends, no final newline; cells made
    :func:`spreadsheet_safe`."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(map(spreadsheet_safe, header))
    writer.writerows(map(spreadsheet_safe, row) for row in rows)
    return out.getvalue().rstrip("\n")

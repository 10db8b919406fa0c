"""``results.json`` and ``results.csv``: the result as data, the source of every number.

``results.json`` is :meth:`~cws_bench.results.model.BakeoffResult.to_dict` in
UTF-8 (Chinese stays readable), so ``BakeoffResult.from_dict`` reads it back.
``results.csv`` is :meth:`~cws_bench.results.model.BakeoffResult.to_rows`, one row
per pair with its signature; floats keep every digit, so pandas reads back
the same numbers.
"""

from __future__ import annotations

import json

from cws_bench.display.tables import csv_table
from cws_bench.results.model import BakeoffResult

__all__ = ["render_csv", "render_json"]


def render_json(result: BakeoffResult) -> str:
    """The result as indented JSON, non-ASCII characters as they are.

    >>> from cws_bench.results.model import BakeoffResult
    >>> print(render_json(BakeoffResult("demo", {}, ())), end="")  # doctest: +ELLIPSIS
    {
      "name": "demo",
    ...
    """
    return json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n"


def render_csv(result: BakeoffResult) -> str:
    """The result as CSV: a header and one row per pair (empty cells for missing values).

    Floats are written with ``repr``, which round-trips exactly.

    >>> from cws_bench.results.model import BakeoffResult
    >>> render_csv(BakeoffResult("demo", {}, ())).startswith("corpus,segmenter,adapter")
    True
    """
    rows = result.to_rows()
    columns = list(rows[0]) if rows else _columns()
    return csv_table(columns, [[row[c] for c in columns] for row in rows]) + "\n"


def _columns() -> list[str]:
    """The CSV columns, taken from the row of a pair with nothing filled in."""
    from cws_bench.results.model import PairResult

    empty = BakeoffResult("", {}, (PairResult("", "", "", "", "ok"),))
    return list(empty.to_rows()[0])

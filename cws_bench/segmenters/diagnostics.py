"""Per-line diagnostics a segmenter may keep, summed over a run: fidelity, requests, cost.

:meth:`cws_bench.segmenters.base.Segmenter.diagnostics` gives one record (a
dict) per line of the last ``segment()`` call, or None. Nothing here knows
which adapter wrote them; a record may hold any of:

- the text-fidelity fields (``altered``, ``inserted``, ``deleted``,
  ``substituted``, ``refused``, ``empty``, ``output``): how far a reply's
  text strayed from the line (:mod:`cws_bench.segmenters.llm_align`);
- ``request``: one request's ``start``, ``first_token``, ``end``,
  ``input_tokens``, ``output_tokens`` (the fields ``cws-bench metrics
  throughput`` reads), None when no request was sent (a cached reply);
- ``cached``: the reply came from a cache;
- ``cost``: what the request cost, in the currency of the prices given.

:func:`summarize` turns a run's records into the summary the bake-off keeps
beside a pair's scores (``PairRecord.diagnostics``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypedDict

from cws_bench.display.units import plural
from cws_bench.segmenters.stream import count_characters

__all__ = [
    "FIDELITY_FIELDS",
    "CostSummary",
    "DiagnosticsSummary",
    "fidelity_line",
    "request_log",
    "summarize",
    "summary_note",
]


class CostSummary(TypedDict):
    """What the requests cost: in all, how many had a price, per million characters
    (None unless every line's request had one and the texts were given)."""

    total: float
    requests: int
    per_million_characters: float | None


class DiagnosticsSummary(TypedDict, total=False):
    """A run's per-line diagnostics summed (:func:`summarize`), each part present only
    when some record held it: ``fidelity`` (lines, edits, the worst lines), ``requests``
    (sent, cached, serving metrics), ``cost``. Plain JSON, as the run cache keeps it."""

    fidelity: dict[str, Any]
    requests: dict[str, Any]
    cost: CostSummary


FIDELITY_FIELDS = ("altered", "inserted", "deleted", "substituted", "refused", "empty")
WORST = 5


def fidelity_line(number: int, record: dict[str, Any] | None) -> dict[str, Any]:
    """The ``--fidelity`` file's object for input line ``number`` (1-based).

    A line without a record (a blank line) is unaltered.

    >>> fidelity_line(2, None)["altered"]
    False
    """
    out: dict[str, Any] = {"line": number}
    record = record or {}
    for key in FIDELITY_FIELDS:
        out[key] = record.get(key, False if key in ("altered", "refused", "empty") else 0)
    out["output"] = record.get("output", "ok")
    if "cached" in record:
        out["cached"] = record["cached"]
    if record.get("oversized"):  # a reply past its size bound, not read (docs/LLM.md)
        out["oversized"] = True
    return out


def request_log(records: Iterable[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """The requests the records name, in ``cws-bench metrics throughput``'s fields."""
    log = []
    for record in records:
        request = (record or {}).get("request")
        if request:
            log.append({key: request.get(key) for key in _REQUEST_FIELDS})
    return log


_REQUEST_FIELDS = ("start", "first_token", "end", "input_tokens", "output_tokens")


def summarize(
    records: Sequence[dict[str, Any] | None], texts: Sequence[str] | None = None
) -> DiagnosticsSummary | None:
    """A run's records summed: ``fidelity``, ``requests`` (serving metrics), ``cost``.

    None when no record holds anything (an adapter that keeps no diagnostics).

    >>> s = summarize([{"altered": True, "inserted": 1, "deleted": 0, "substituted": 2,
    ...                 "refused": False, "empty": False}, None])
    >>> s["fidelity"]["lines"], s["fidelity"]["altered"], s["fidelity"]["substituted"]
    (2, 1, 2)
    """
    present = [(i, r) for i, r in enumerate(records) if r]
    if not present:
        return None
    summary: DiagnosticsSummary = {}
    if any("altered" in r for _, r in present):
        summary["fidelity"] = _fidelity(records, texts)
    log = request_log(r for _, r in present)
    cached = sum(bool(r.get("cached")) for _, r in present)
    if log or cached:
        summary["requests"] = _serving(log, cached)
    costs = [r["cost"] for _, r in present if r.get("cost") is not None]
    if costs:
        characters = count_characters(texts) if texts is not None else None
        total = float(sum(costs))
        summary["cost"] = {
            "total": total,
            "requests": len(costs),
            "per_million_characters": (
                total / characters * 1e6 if characters and len(costs) == len(present) else None
            ),
        }
    return summary


def _fidelity(
    records: Sequence[dict[str, Any] | None], texts: Sequence[str] | None
) -> dict[str, Any]:
    totals = {"lines": len(records)}
    for key in FIDELITY_FIELDS:
        totals[key] = sum(int((r or {}).get(key, 0)) for r in records)
    for kind in ("repaired", "unsegmented"):
        totals[kind] = sum((r or {}).get("output") == kind for r in records)
    oversized = sum(bool((r or {}).get("oversized")) for r in records)
    if oversized:  # replies past their size bound, not read (counted as empty too)
        totals["oversized"] = oversized
    edits = [
        (
            -(r.get("inserted", 0) + r.get("deleted", 0) + r.get("substituted", 0)),
            number,
            r,
        )
        for number, r in enumerate(records, start=1)
        if r and r.get("altered")
    ]
    worst = []
    for _, number, record in sorted(edits, key=lambda item: (item[0], item[1]))[:WORST]:
        example = fidelity_line(number, record)
        if texts is not None:
            example["text"] = texts[number - 1][:60]
        worst.append(example)
    return {**totals, "worst": worst}


def _serving(log: list[dict[str, Any]], cached: int) -> dict[str, Any]:
    from cws_bench.metrics.throughput import serving_metrics

    out: dict[str, Any] = {"sent": len(log), "cached": cached, "metrics": None}
    usable = [
        r for r in log if all(isinstance(r.get(key), (int, float)) for key in _REQUEST_FIELDS)
    ]
    if usable:
        metrics = serving_metrics(
            *([r[key] for r in usable] for key in _REQUEST_FIELDS), skip_bad=True
        )
        out["metrics"] = metrics.to_dict()
    out["without_counts"] = len(log) - len(usable)
    return out


def summary_note(summary: DiagnosticsSummary | None) -> str | None:
    """One line for people: lines altered and characters changed, or None when none changed.

    >>> summary_note({"fidelity": {"lines": 10, "altered": 2, "inserted": 1, "deleted": 0,
    ...     "substituted": 3, "refused": 1, "empty": 0}})
    '2 of 10 lines altered (1 inserted, 0 deleted, 3 substituted characters; 1 refused, 0 empty)'
    """
    fidelity = (summary or {}).get("fidelity")
    if not fidelity:
        return None
    return (
        f"{fidelity['altered']:,} of {plural(fidelity['lines'], 'line')} altered "
        f"({fidelity['inserted']:,} inserted, {fidelity['deleted']:,} deleted, "
        f"{plural(fidelity['substituted'], 'substituted character')}; "
        f"{fidelity['refused']:,} refused, {fidelity['empty']:,} empty"
        + (
            f", of which {fidelity['oversized']:,} oversized, not read"
            if fidelity.get("oversized")
            else ""
        )
        + ")"
    )

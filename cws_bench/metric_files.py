"""Reading the inputs of the general metrics: labels, generated texts, TREC runs and qrels.

:mod:`cws_bench.metrics` computes from plain Python data and knows nothing
about files; this module reads files the way the rest of cws-bench does
(:func:`cws_bench.io.iter_lines`: any ASCII-compatible encoding, a BOM, LF
or CRLF, a missing final newline) and turns malformed input into a
:class:`~cws_bench.errors.CwsBenchError` naming the file and the line.

Formats:

- labels: one label per line (surrounding whitespace is ignored; a blank
  line is an error, since an empty label is almost always a mistake);
- generated text: one item per line; references are one file per
  reference, each line the reference of the same line of the predictions;
- TREC run: ``query Q0 document rank score tag`` (six whitespace-separated
  fields); the rank column is ignored and documents are ranked by score, as
  trec_eval does;
- TREC qrels: ``query iteration document grade`` (four fields, an integer grade).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from cws_bench.errors import CorpusFormatError, CwsBenchError
from cws_bench.io import display_name, iter_lines

__all__ = [
    "read_generation_files",
    "read_label_files",
    "read_labels",
    "read_trec_qrels",
    "read_trec_run",
]

PathLike = str | os.PathLike[str]


def read_labels(path: PathLike, *, encoding: str = "utf-8") -> list[str]:
    """One label per line.

    Raises:
        CorpusFormatError: a blank line (named by file and line).
        CwsBenchError: the file is missing or not valid in ``encoding``.
    """
    labels = []
    for number, line in enumerate(iter_lines(path, encoding=encoding), start=1):
        label = line.strip()
        if not label:
            raise CorpusFormatError(
                display_name(path),
                number,
                "blank line, expected a label",
                "write one label per line, with no blank lines",
            )
        labels.append(label)
    return labels


def _check_lengths(
    first: PathLike, first_count: int, other: PathLike, other_count: int, what: str
) -> None:
    if first_count == other_count:
        return
    short, long = (first, other) if first_count < other_count else (other, first)
    line = min(first_count, other_count) + 1
    raise CwsBenchError(
        f"{display_name(long)}:{line}: {display_name(first)} has {first_count} {what} "
        f"but {display_name(other)} has {other_count}",
        f"{display_name(short)} ends before line {line}; line i of one file must belong to "
        "line i of the other",
    )


def read_label_files(
    true_path: PathLike, pred_path: PathLike, *, encoding: str = "utf-8"
) -> tuple[list[str], list[str]]:
    """True and predicted labels, one per line, from two files of the same length.

    Raises:
        CwsBenchError: a blank line, or files with different numbers of lines.
    """
    y_true = read_labels(true_path, encoding=encoding)
    y_pred = read_labels(pred_path, encoding=encoding)
    _check_lengths(true_path, len(y_true), pred_path, len(y_pred), "labels")
    if not y_true:
        raise CwsBenchError(f"{display_name(true_path)}: no label", "write one label per line")
    return y_true, y_pred


def read_generation_files(
    pred_path: PathLike, ref_paths: Sequence[PathLike], *, encoding: str = "utf-8"
) -> tuple[list[str], list[list[str]]]:
    """Predicted texts and, per item, its references (one file per reference).

    Returns:
        The predictions, and for each line the list of its references in
        the order of ``ref_paths``.

    Raises:
        CwsBenchError: no reference file, or a reference file whose number
            of lines differs from the predictions'.
    """
    if not ref_paths:
        raise CwsBenchError("no reference file given", "pass at least one REF file")
    predictions = list(iter_lines(pred_path, encoding=encoding))
    streams = []
    for ref_path in ref_paths:
        lines = list(iter_lines(ref_path, encoding=encoding))
        _check_lengths(pred_path, len(predictions), ref_path, len(lines), "lines")
        streams.append(lines)
    if not predictions:
        raise CwsBenchError(f"{display_name(pred_path)}: empty file", "write one text per line")
    references = [list(refs) for refs in zip(*streams)]
    return predictions, references


def _fields(line: str, count: int, path: PathLike, number: int, layout: str) -> list[str] | None:
    fields = line.split()
    if not fields:
        return None
    if len(fields) != count:
        raise CorpusFormatError(
            display_name(path),
            number,
            f"{len(fields)} fields, expected {count} ({layout})",
            f"each line of a TREC {'run' if count == 6 else 'qrels'} file is: {layout}",
        )
    return fields


def read_trec_run(path: PathLike, *, encoding: str = "utf-8") -> dict[str, dict[str, float]]:
    """A TREC run file: query -> document -> score. Blank lines are skipped.

    Raises:
        CorpusFormatError: a line without six fields, a score that is not a
            finite number, or a document listed twice for a query.
    """
    layout = "query Q0 document rank score tag"
    run: dict[str, dict[str, float]] = {}
    for number, line in enumerate(iter_lines(path, encoding=encoding), start=1):
        fields = _fields(line, 6, path, number, layout)
        if fields is None:
            continue
        query, _, document, _, score_text, _ = fields
        try:
            score = float(score_text)
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            raise CorpusFormatError(
                display_name(path), number, f"score {score_text!r} is not a number", layout
            )
        scores = run.setdefault(query, {})
        if document in scores:
            raise CorpusFormatError(
                display_name(path),
                number,
                f"document {document!r} is listed twice for query {query!r}",
                "a run ranks each document at most once per query",
            )
        scores[document] = score
    if not run:
        raise CwsBenchError(f"{display_name(path)}: empty run", f"each line is: {layout}")
    return run


def read_trec_qrels(path: PathLike, *, encoding: str = "utf-8") -> dict[str, dict[str, int]]:
    """A TREC qrels file: query -> document -> integer grade. Blank lines are skipped.

    Raises:
        CorpusFormatError: a line without four fields, a grade that is not
            an integer, or a document judged twice for a query.
    """
    layout = "query iteration document grade"
    qrels: dict[str, dict[str, int]] = {}
    for number, line in enumerate(iter_lines(path, encoding=encoding), start=1):
        fields = _fields(line, 4, path, number, layout)
        if fields is None:
            continue
        query, _, document, grade_text = fields
        try:
            grade = int(grade_text)
        except ValueError:
            raise CorpusFormatError(
                display_name(path),
                number,
                f"grade {grade_text!r} is not an integer",
                f"each line is: {layout}",
            ) from None
        judgements = qrels.setdefault(query, {})
        if document in judgements:
            raise CorpusFormatError(
                display_name(path),
                number,
                f"document {document!r} is judged twice for query {query!r}",
                "keep one judgement per query and document",
            )
        judgements[document] = grade
    if not qrels:
        raise CwsBenchError(f"{display_name(path)}: empty qrels", f"each line is: {layout}")
    return qrels

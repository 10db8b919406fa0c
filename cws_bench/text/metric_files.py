"""Reading the inputs of the general metrics: labels, generated texts, TREC runs and qrels.

:mod:`cws_bench.metrics` knows nothing about files; this module reads them as
the rest of cws-bench does (:func:`cws_bench.text.io.iter_lines`) and turns
malformed input into a :class:`~cws_bench.errors.CwsBenchError` naming the file
and the line. Formats:

- labels: one a line (surrounding whitespace ignored; a blank line is an error);
- generated text: one item a line; one file per reference, line for line;
- TREC run: ``query Q0 document rank score tag``; documents are ranked by
  score, not by the rank column, as trec_eval does;
- TREC qrels: ``query iteration document grade`` (an integer grade);
- request log: JSONL or CSV, one request a row (:func:`read_request_log`).
"""

from __future__ import annotations

import io
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cws_bench.display.units import plural
from cws_bench.errors import CorpusFormatError, CwsBenchError, Fix, UnknownFormatError
from cws_bench.text.io import (
    display_name,
    iter_lines,
    normalize_encoding,
    open_binary,
    orjson_loads,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RequestLog",
    "read_generation_files",
    "read_label_files",
    "read_labels",
    "read_request_log",
    "read_table",
    "read_token_weights",
    "read_trec_qrels",
    "read_trec_run",
    "trec_file_kind",
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
    """Predicted texts and, per line, the list of its references in the order of
    ``ref_paths`` (one file per reference).

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
            f"{plural(len(fields), 'field')}, expected {count} ({layout})",
            f"each line of a TREC {'run' if count == 6 else 'qrels'} file is: {layout}",
        )
    return fields


def trec_file_kind(path: PathLike, encoding: str = "utf-8") -> str | None:
    """``run`` (six fields) or ``qrels`` (four) by the first non-blank line, else None.

    For telling the two files apart when they are given the wrong way round.
    """
    for line in iter_lines(path, encoding=encoding):
        fields = len(line.split())
        if fields:
            return {6: "run", 4: "qrels"}.get(fields)
    return None


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


# ---------------------------------------------------------------------------
# Request logs (serving throughput and latency)

_TIME_COLUMNS = ("start", "first_token", "end")
_LOG_FORMATS = ("jsonl", "csv")


@dataclass(frozen=True)
class RequestLog:
    """The columns of a request log as float arrays, one element per request.

    Attributes:
        path: the file, as messages name it.
        fields: field name (``start``, ``first_token``, ``end``, ``input_tokens``,
            ``output_tokens``) -> values; times in seconds (ISO 8601 times since the
            earliest of them); a missing or unparseable value is nan.
        lines: each request's line (None where a CSV field spans lines).
        columns: field name -> the column it was read from.
    """

    path: str
    fields: Mapping[str, np.ndarray]
    lines: np.ndarray | None
    columns: Mapping[str, str]

    def __len__(self) -> int:
        return len(self.fields["start"])

    def where(self, index: int) -> str:
        """``file:line`` of the request at ``index`` (0-based), or ``file, request N``."""
        return _where_request(self.path, self.lines, index)


def _where_request(name: str, lines: np.ndarray | None, index: int) -> str:
    if lines is not None:
        return f"{name}:{int(lines[index])}"
    return f"{name}, request {index + 1}"


def _log_format(path: PathLike, text_start: str) -> str:
    suffix = os.fspath(path).lower().rsplit(".", 1)[-1]
    if suffix in ("jsonl", "ndjson", "json"):
        return "jsonl"
    if suffix == "csv":
        return "csv"
    return "jsonl" if text_start.lstrip().startswith("{") else "csv"


def _text_lines(path: PathLike, encoding: str, data: bytes) -> tuple[str, np.ndarray]:
    """The non-blank lines of the file (its bytes ``data``) joined by newlines, and the
    line number of each.

    The whole file is decoded at once (a million-line log in well under a
    second); only a file with blank lines, or one that does not decode,
    goes line by line (the latter for the error naming the line).
    """
    try:
        text = data.decode(normalize_encoding(encoding))
    except UnicodeDecodeError:
        text = None
    if text is not None:
        text = text.removeprefix("\ufeff").replace("\r\n", "\n").removesuffix("\n")
        # a blank line: between two newlines (fast: a literal first character), or first
        if re.search(r"\n[^\S\n]*\n", f"\n{text}\n") is None:
            return text, np.arange(1, text.count("\n") + 2)
    lines = enumerate(iter_lines(path, encoding=encoding), start=1)
    kept = [(number, line) for number, line in lines if line.strip()]
    return "\n".join(line for _, line in kept), np.asarray([n for n, _ in kept], dtype=np.int64)


_INT64_LIMIT = 2.0**63


def _quick_jsonl(path: PathLike, data: bytes, wanted: Sequence[str]) -> pd.DataFrame | None:
    """The ``wanted`` columns of a UTF-8 JSONL log in one pass of msgspec, or None.

    msgspec decodes the bytes into records of the wanted keys only (three times
    as fast as orjson's dictionaries); a column of numbers becomes a float array.
    None (then :func:`_parse_jsonl` reads the file, to the same values and errors)
    when msgspec refuses the text, or a line is blank or no object.
    """
    import msgspec
    import pandas as pd

    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    body = memoryview(data)[start:end]  # no copy of a large file
    first_end = data.find(b"\n", start, end)
    first_line = data[start : end if first_end < 0 else first_end]
    last_line = data[data.rfind(b"\n", start, end) + 1 : end]
    if not first_line.strip() or not last_line.strip():
        return None  # a blank line: the careful reader skips it and numbers the others
    keys = list(dict.fromkeys(wanted))
    fields = [f"f{i}" for i in range(len(keys))]
    try:
        first = msgspec.json.decode(first_line)  # its keys, in order
    except msgspec.DecodeError:
        return None
    if not isinstance(first, dict):
        return None
    columns: dict[str, object] | None = None
    # numbers only (the usual log) decode straight to floats; anything else as it is
    for kind in (float, Any):
        record = msgspec.defstruct(
            "Request",
            [(field, kind | msgspec.UnsetType, msgspec.UNSET) for field in fields],
            rename=dict(zip(fields, keys)),
            gc=False,  # a million records the cyclic collector need not track (twice as fast)
        )
        try:
            records = msgspec.json.Decoder(record).decode_lines(body)
        except msgspec.DecodeError:  # a list, NaN, ...: the careful reader names the line
            continue
        # msgspec skips blank lines: as many values as lines means no blank line and
        # one value a line (else the careful reader numbers the lines)
        if len(records) != data.count(b"\n", start, end) + 1:
            return None
        columns = _quick_columns(records, keys, fields, exact=kind is Any)
        if columns is not None:
            break
    if columns is None:
        return None
    frame = pd.DataFrame(columns, copy=False)  # the arrays as they are, not copied into a block
    frame.attrs["keys"] = [str(key) for key in first]
    return frame


def _quick_columns(
    records: list[Any], keys: list[str], fields: list[str], *, exact: bool
) -> dict[str, object] | None:
    """Columns of decoded requests: a float array where every value is a number, else
    (``exact``) a list for pandas to infer. Not ``exact`` (values decoded as floats):
    None when a line lacks a key, or a float of 2**63 or more may have been an
    integer past 64 bits (:mod:`json` keeps it an integer)."""
    from operator import attrgetter

    import msgspec

    columns: dict[str, object] = {}
    count = len(records)
    for key, field in zip(keys, fields):
        values = map(attrgetter(field), records)
        if not exact:
            try:
                array = np.fromiter(values, dtype=np.float64, count=count)
            except TypeError:  # a line without the key (UNSET): the exact pass says
                return None
            if (np.abs(array) >= _INT64_LIMIT).any():
                return None
            columns[key] = array
            continue
        listed = list(values)
        kinds = set(map(type, listed))
        if kinds == {msgspec.UnsetType}:
            continue  # no line has the key
        if msgspec.UnsetType in kinds:
            listed = [None if type(v) is msgspec.UnsetType else v for v in listed]
            kinds = set(map(type, listed))
        if kinds <= {float, int}:  # not bool (True is an int, not of type int)
            array = np.array(listed, dtype=np.float64)
            if not (np.abs(array) >= _INT64_LIMIT).any():  # else pandas reads it as before
                columns[key] = array
                continue
        columns[key] = listed  # pandas infers the column as the careful reader does
    return columns


def _parse_jsonl(
    path: PathLike, body: str, numbers: np.ndarray, wanted: Sequence[str]
) -> pd.DataFrame:
    """The ``wanted`` columns of JSON lines (a key a line lacks is a missing value).

    One parse of the whole file as an array (several times faster than
    ``pandas.read_json``), by orjson where it reads as :mod:`json` does
    (:func:`cws_bench.text.io.orjson_loads`), else by :mod:`json`.
    """
    import json

    import pandas as pd

    array = "[" + body.replace("\n", ",") + "]"
    try:
        records = orjson_loads(array)
    except ValueError:
        try:
            records = json.loads(array)
        except json.JSONDecodeError:
            records = None
    if records is None or len(records) != len(numbers):
        for text, number in zip(body.split("\n"), numbers.tolist()):
            try:
                json.loads(text)
            except json.JSONDecodeError as e:
                raise CorpusFormatError(
                    display_name(path), number, f"not JSON: {e.msg}", "write one JSON object a line"
                ) from None
        raise CwsBenchError(f"{display_name(path)}: cannot read the JSON lines")
    for record, number in zip(records, numbers.tolist()):
        if not isinstance(record, dict):
            raise CorpusFormatError(
                display_name(path),
                number,
                f"a JSON {type(record).__name__}, expected an object",
                "write one JSON object a line",
            )
    present = [
        key for key in dict.fromkeys(wanted) if key in records[0] or any(key in r for r in records)
    ]
    frame = pd.DataFrame({key: [r.get(key) for r in records] for key in present})
    # the error for a missing column lists the keys of the first line
    frame.attrs["keys"] = [str(key) for key in records[0]] if records else []
    return frame


def _seconds(values: pd.Series) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """(float seconds or nan, ISO 8601 times as int64 ns or None, mask of present but
    unparseable values)."""
    import pandas as pd

    present = values.notna().to_numpy()
    if pd.api.types.is_bool_dtype(values):
        return np.full(len(values), np.nan), None, present
    numeric = pd.api.types.is_numeric_dtype(values)
    numbers = values if numeric else pd.to_numeric(values, errors="coerce")
    if pd.api.types.is_numeric_dtype(numbers):
        as_float = np.asarray(numbers, dtype=np.float64)
        parsed = ~np.isnan(as_float)
        if parsed.any() or not present.any():
            return as_float, None, present & ~parsed
    stamps = pd.to_datetime(values.astype("string"), format="ISO8601", utc=True, errors="coerce")
    ns = stamps.to_numpy(dtype="datetime64[ns]").astype(np.int64)
    parsed = stamps.notna().to_numpy()
    return (
        np.full(len(values), np.nan),
        np.where(parsed, ns, np.iinfo(np.int64).min),
        present & ~parsed,
    )


def read_request_log(
    path: PathLike,
    *,
    columns: Mapping[str, str] | None = None,
    log_format: str | None = None,
    encoding: str = "utf-8",
    skip_bad: bool = False,
) -> RequestLog:
    """A request log, JSONL or CSV, one request a row.

    Times are seconds as numbers (any origin) or ISO 8601 times (a time
    without a zone is UTC); the three time columns must be of one kind.

    Args:
        columns: field -> column name, for the fields whose column is not
            named like the field (``{"start": "sent_at"}``).
        log_format: ``jsonl`` or ``csv``; default from the file name
            (``.jsonl``, ``.ndjson``, ``.json``, ``.csv``), else from the
            first character.
        skip_bad: a value that is neither a number nor an ISO 8601 time becomes
            nan (a bad request :func:`cws_bench.metrics.throughput.serving_metrics`
            counts) instead of an error.

    Raises:
        CwsBenchError: a missing column, or time columns of mixed kinds.
        CorpusFormatError: a line that is not JSON, or (unless ``skip_bad``)
            a value that is not a number or a time, naming the line.
    """
    from cws_bench.metrics.throughput import COLUMNS

    mapping = {name: name for name in COLUMNS}
    for name, column in (columns or {}).items():
        if name not in mapping:
            raise ValueError(f"unknown request field {name!r}; the fields are {', '.join(COLUMNS)}")
        mapping[name] = column
    name = display_name(path)
    frame, lines = _log_table(path, list(mapping.values()), log_format, encoding)
    frame.columns = [str(c) for c in frame.columns]
    for field_name, column in mapping.items():
        if column not in frame.columns:
            option = "--" + field_name.replace("_", "-")
            raise CwsBenchError(
                f"{name}: no column {column!r} (the {field_name} of each request); "
                f"the columns are {', '.join(frame.attrs.get('keys', frame.columns))}",
                f"name the column that holds it ({option} COLUMN, or "
                f"columns={{{field_name!r}: COLUMN}} in Python)",
            )
    fields = _request_fields(name, frame, lines, mapping, skip_bad=skip_bad)
    return RequestLog(name, fields, lines, mapping)


def _log_table(
    path: PathLike, wanted: list[str], log_format: str | None, encoding: str
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The log as a table of (at least) the ``wanted`` columns, and each row's line number
    (a UTF-8 JSONL log through :func:`_quick_jsonl`, else line by line)."""
    import pandas as pd

    with open_binary(path) as f:
        data = f.read()
    name = display_name(path)
    start = data[:64].decode("latin-1").removeprefix("\xef\xbb\xbf")  # a UTF-8 BOM
    quick = None
    if (log_format or _log_format(path, start)) == "jsonl" and normalize_encoding(
        encoding
    ) == "utf-8":
        quick = _quick_jsonl(path, data, wanted)
    if quick is not None:
        return quick, np.arange(1, len(quick) + 1)
    body, numbers = _text_lines(path, encoding, data)
    if not body:
        raise CwsBenchError(f"{name}: empty log", "write one request a line (JSONL or CSV)")
    fmt = log_format or _log_format(path, body.split("\n", 1)[0])
    if fmt not in _LOG_FORMATS:
        raise UnknownFormatError(fmt, _LOG_FORMATS, what="log format")
    if fmt == "jsonl":
        return _parse_jsonl(path, body, numbers, wanted), numbers
    try:
        frame = pd.read_csv(io.StringIO(body), low_memory=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise CwsBenchError(f"{name}: not a CSV file: {e}", "write a header line") from None
    return frame, numbers[1:] if len(frame) == len(numbers) - 1 else None


def _request_fields(
    name: str,
    frame: pd.DataFrame,
    lines: np.ndarray | None,
    mapping: Mapping[str, str],
    *,
    skip_bad: bool,
) -> dict[str, np.ndarray]:
    """Field -> float array: numbers as they are, ISO 8601 times as seconds from the earliest."""
    from cws_bench.metrics.throughput import COLUMNS

    fields: dict[str, np.ndarray] = {}
    stamps: dict[str, np.ndarray] = {}
    for field_name in COLUMNS:
        column = frame[mapping[field_name]]
        values, ns, unparsed = _seconds(column)
        if unparsed.any() and not skip_bad:
            index = int(np.argmax(unparsed))
            kind = "a number or an ISO 8601 time" if field_name in _TIME_COLUMNS else "a number"
            if ns is None and field_name in _TIME_COLUMNS:  # typed as numbers by a number
                _, iso, _ = _seconds(column.iloc[index : index + 1].astype("string"))
                if iso is not None and iso[0] != np.iinfo(np.int64).min:
                    first = int(np.argmax(~np.isnan(values)))
                    raise CwsBenchError(
                        f"{_where_request(name, lines, index)}: {field_name} "
                        f"{column.iloc[index]!r} is an ISO 8601 time, but the column mixes "
                        f"kinds: {_where_request(name, lines, first)} has the number "
                        f"{column.iloc[first]!r}",
                        "write every time of the log the same way: all seconds, or all "
                        "ISO 8601 times",
                    )
            raise CwsBenchError(
                f"{_where_request(name, lines, index)}: {field_name} "
                f"{column.iloc[index]!r} is not {kind}",
                "fix the value, or pass {0} to leave such requests out and count them",
                fixes=(Fix("skip_bad", True),),
            )
        if ns is not None:
            if field_name not in _TIME_COLUMNS:
                values = np.full(len(frame), np.nan)
            else:
                stamps[field_name] = ns
        fields[field_name] = values
    if stamps:
        if len(stamps) != len(_TIME_COLUMNS):
            raise CwsBenchError(
                f"{name}: the time columns mix ISO 8601 times ({', '.join(stamps)}) and numbers",
                "write all three times the same way",
            )
        missing = np.iinfo(np.int64).min
        origin = min(
            int(ns[ns != missing].min()) for ns in stamps.values() if (ns != missing).any()
        )
        for field_name, ns in stamps.items():
            fields[field_name] = np.where(ns == missing, np.nan, (ns - origin) / 1e9)
    return fields


def read_table(path: PathLike, *, encoding: str = "utf-8") -> pd.DataFrame:
    """A CSV table with a header line, every value read as text (pandas).

    Values stay strings (``"1"`` and ``"1.0"`` are different values, as a
    categorical feature needs); an empty cell is the empty string.

    Raises:
        CwsBenchError: the file is missing, empty or not CSV.
    """
    import pandas as pd

    text = "\n".join(iter_lines(path, encoding=encoding))
    name = display_name(path)
    if not text.strip():
        raise CwsBenchError(f"{name}: empty table", "write a header line, then one row a line")
    import csv

    header = next(csv.reader(io.StringIO(text)), [])
    seen: set[str] = set()
    for column in header:  # pandas would read a second `a` as `a.1` without a word
        if column in seen:
            raise CorpusFormatError(
                name, 1, f"column {column!r} is named twice", "give each column its own name"
            )
        seen.add(column)
    try:
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise CwsBenchError(f"{name}: not a CSV table: {e}", "write a header line") from None


def read_token_weights(path: PathLike, *, encoding: str = "utf-8") -> dict[str, float]:
    """Token weights (IDF, say): ``token<TAB>weight`` a line; blank lines are skipped.

    Raises:
        CorpusFormatError: a line without exactly two tab-separated fields, a
            weight that is not a finite number >= 0, or a token listed twice.
    """
    weights: dict[str, float] = {}
    for number, line in enumerate(iter_lines(path, encoding=encoding), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        hint = "each line is: token<TAB>weight"
        if len(fields) != 2 or not fields[0]:
            raise CorpusFormatError(display_name(path), number, plural(len(fields), "field"), hint)
        token, text = fields
        try:
            weight = float(text)
        except ValueError:
            weight = math.nan
        if not (math.isfinite(weight) and weight >= 0):
            raise CorpusFormatError(
                display_name(path), number, f"weight {text!r} is not a number >= 0", hint
            )
        if token in weights:
            raise CorpusFormatError(
                display_name(path), number, f"token {token!r} is listed twice", hint
            )
        weights[token] = weight
    return weights

"""Cache records of the bake-off: stored, loaded and checked so that a cache cannot lie.

A record is what one (segmenter, corpus) pair produced: scores, per-sentence
counts, error analysis, timing, memory, warnings and the segmenter's
metadata, as JSON. A record read back is used only if

- it has the shape of a record (:data:`RECORD_SCHEMA`, JSON Schema),
- its derived scores are those of its own counts: precision, recall and F1
  (and F-beta) recomputed from the stored word counts, and the
  per-sentence counts summing to those word counts,
- and its checksum (BLAKE2b of the record's canonical JSON, written by
  :func:`store_record`) matches, which catches an edit anywhere else
  (timing, analysis).

Anything else, including a file that is not JSON at all, makes
:func:`load_record` return no record and a one-line warning naming the
file and the problem: the pair runs again; an invalid record is never used.

>>> analysis = {"splits": [], "merges": [], "crossings": [], "missed_oov": [],
...     "recall_by_length": [], "distinct": {}}
>>> record = {"version": 2, "scores": {"precision": 0.6, "recall": 0.75,
...     "f1": 0.6666666666666666, "gold_words": 4, "pred_words": 5, "correct_words": 3},
...     "sentence_counts": [[3, 5, 4]], "analysis": analysis, "timing": {},
...     "peak_memory_mib": 1.0, "warnings": [], "segmenter_info": {}}
>>> record_problems(record)
[]
>>> record["scores"]["f1"] = 0.908
>>> record_problems(record)
['scores.f1 is 0.908 but its counts (3 correct of 5 predicted, 4 gold) give 0.666667']
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cws_bench.display.units import plural
from cws_bench.errors import CorpusFormatError, CwsBenchError
from cws_bench.results.model import ANALYSIS_KEYS
from cws_bench.score_registry import SCORES
from cws_bench.text.checksums import hash_hex
from cws_bench.text.io import PathLike, atomic_write, orjson_loads

__all__ = [
    "RECORD_SCHEMA",
    "load_record",
    "load_shard_record",
    "pack_counts",
    "read_format_file",
    "record_checksum",
    "record_problems",
    "schema_problem",
    "score_problems",
    "store_record",
    "unpack_counts",
]

COUNT = {"type": "integer", "minimum": 0}
OPTIONAL_FRACTION = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
FRACTION = {"type": "number", "minimum": 0, "maximum": 1}
WORD_COUNTS = {"gold_words": COUNT, "pred_words": COUNT, "correct_words": COUNT}
"""The word counts of stored scores, as RECORD_SCHEMA and the baseline's schema check them."""
SCORES_REQUIRED = ["precision", "recall", "f1", *WORD_COUNTS]
"""What stored scores must hold: the word scores and the counts they are the ratios of."""
COUNT_ROWS = {
    "type": "array",
    "items": {"type": "array", "items": COUNT, "minItems": 3, "maxItems": 3},
}
"""Per-sentence (correct, predicted, gold) counts."""

_RECORD_PROPERTIES: dict[str, Any] = {
    "version": {"type": "integer"},
    "checksum": {"type": "string"},
    "key": {"type": "string"},
    "scores": {
        "type": "object",
        "required": SCORES_REQUIRED,
        "properties": {
            **{
                s.name: (OPTIONAL_FRACTION if s.needs_dictionary or s.compute else FRACTION)
                for s in SCORES.values()
            },
            "fbeta": FRACTION,
            "beta": {"type": "number", "exclusiveMinimum": 0},
            **WORD_COUNTS,
            "signature": {"type": "string"},
        },
    },
    "sentence_counts": COUNT_ROWS,
    "analysis": {
        "type": "object",
        "required": list(ANALYSIS_KEYS),
        "properties": {
            **{key: {"type": "array", "items": {"type": "object"}} for key in ANALYSIS_KEYS[:-1]},
            "distinct": {"type": "object", "additionalProperties": COUNT},
        },
    },
    "timing": {
        "type": "object",
        "properties": {
            key: {"type": ["number", "null"], "minimum": 0}
            for key in ("chars_per_s", "words_per_s", "load_s", "segment_s")
        },
    },
    "peak_memory_mib": {"type": "number"},
    "warnings": {"type": "array", "items": {"type": "string"}},
    "segmenter_info": {"type": "object"},
}

RECORD_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "cws-bench bake-off cache record",
    "type": "object",
    "required": [key for key in _RECORD_PROPERTIES if key not in ("checksum", "key")],
    "properties": _RECORD_PROPERTIES,
}

# Stored scores are float64 ratios of the stored counts: recomputing them gives
# the same value up to the last bit; anything further off was not computed from them.
_TOLERANCE = 1e-9


def record_checksum(record: dict[str, Any]) -> str:
    """BLAKE2b (16 bytes, hex) of the record's canonical JSON, without its ``checksum`` key.

    The canonical JSON is ``json.dumps(plain, sort_keys=True, ensure_ascii=False)``
    of the record through JSON (``plain``: tuples become lists, keys strings),
    so that the checksum of a record before storing equals that of the record
    read back.
    """
    return _checksum(record)[0]


def _checksum(record: dict[str, Any]) -> tuple[str, bool]:
    """:func:`record_checksum`, and whether orjson can write the record."""
    body = {key: value for key, value in record.items() if key != "checksum"}
    if _orjson_dumps(body) is not None:
        # Every key is a string (orjson refuses any other): the body's text is that of
        # the body through JSON (tuples are written as lists), without the round trip.
        text = json.dumps(body, sort_keys=True, ensure_ascii=False, allow_nan=False)
        writable = True
    else:
        plain = json.loads(json.dumps(body, ensure_ascii=False, allow_nan=False))
        text = json.dumps(plain, sort_keys=True, ensure_ascii=False)
        writable = False
    return hash_hex(text, "identity"), writable


def _checksum_matches(record: dict[str, Any], checksum: Any) -> bool:
    """Whether ``checksum`` is the record's; never for a record JSON cannot hold (an
    infinity read from an edited file: ``1e400``), which no writer of records wrote."""
    try:
        return checksum == record_checksum(record)
    except ValueError:
        return False


def _orjson_dumps(data: Any) -> bytes | None:
    """``orjson.dumps(data)``, or None when orjson is not installed or cannot write it
    (a key that is not a string, an integer past 64 bits, a type JSON has not)."""
    try:
        import orjson
    except ImportError:
        return None
    try:
        return orjson.dumps(data)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None


def schema_problem(data: Any, schema: dict[str, Any], *, whole: str = "the record") -> str | None:
    """The most relevant way ``data`` breaks a JSON Schema, as ``where: what``, or None."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is None:
        return None
    where = ".".join(str(part) for part in error.absolute_path) or whole
    return f"{where}: {error.message}"


def _fraction(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def score_problems(scores: dict[str, Any], sentence_counts: list[Any]) -> list[str]:
    """Whether stored scores are those of their counts (a record's, or a baseline corpus').

    Checks that precision, recall, F1 (and F-beta) are the ratios of the
    stored word counts, and that the per-sentence (correct, predicted, gold)
    rows sum to them: a changed digit or rows cut short are caught. The
    values must already have the right types (see :data:`RECORD_SCHEMA`).

    >>> score_problems({"precision": 0.6, "recall": 0.75, "f1": 2 * 3 / 9,
    ...     "gold_words": 4, "pred_words": 5, "correct_words": 3}, [[3, 5, 4]])
    []
    """
    correct, pred, gold = scores["correct_words"], scores["pred_words"], scores["gold_words"]
    if correct > min(pred, gold):
        return [f"scores: {correct} correct words of {pred} predicted and {gold} gold"]
    precision, recall = _fraction(correct, pred), _fraction(correct, gold)
    expected = {
        "precision": precision,
        "recall": recall,
        "f1": _fraction(2 * correct, pred + gold),
    }
    if "fbeta" in scores:
        beta2 = scores.get("beta", 1.0) ** 2
        denominator = beta2 * precision + recall
        expected["fbeta"] = (1 + beta2) * precision * recall / denominator if denominator else 0.0
    problems = [
        f"scores.{name} is {scores[name]:g} but its counts ({correct} correct of {pred} "
        f"predicted, {gold} gold) give {value:g}"
        for name, value in expected.items()
        if not math.isclose(scores[name], value, rel_tol=0, abs_tol=_TOLERANCE)
    ]
    if sentence_counts or gold or pred:
        totals = [sum(column) for column in zip(*sentence_counts)] or [0, 0, 0]
        if totals != [correct, pred, gold]:
            problems.append(
                f"sentence_counts sum to {totals[0]} correct, {totals[1]} predicted, "
                f"{totals[2]} gold words, the scores say {correct}, {pred}, {gold}"
            )
    return problems


def record_problems(record: Any) -> list[str]:
    """What is wrong with a record: its shape, then its scores against its counts.

    Returns:
        One line per problem; empty when the record can be used.
    """
    problem = _schema_problem(record, RECORD_SCHEMA, "sentence_counts", _are_counts)
    if problem is not None:
        return [problem]
    problems = score_problems(record["scores"], record["sentence_counts"])
    # one row per scored sentence: the scores' count, not timing's lines segmented
    # (an empty gold line is segmented but not scored)
    sentences = record["scores"].get("sentences")
    if isinstance(sentences, int) and len(record["sentence_counts"]) != sentences:
        problems.append(
            f"sentence_counts has {plural(len(record['sentence_counts']), 'row')} "
            f"for {plural(sentences, 'scored sentence')}"
        )
    checksum = record.get("checksum")
    if checksum is not None and not _checksum_matches(record, checksum):
        problems.append("the checksum does not match the content (the file was edited)")
    return problems


def pack_counts(rows: list[Any]) -> list[Any]:
    """Per-sentence counts with each run of empty rows ``[0, 0, 0]`` written as its length.

    A corpus of mostly empty lines otherwise costs 8 bytes of JSON per line (22 MB
    for 2 million lines); :func:`unpack_counts` gives the rows back.

    >>> pack_counts([[0, 0, 0], [0, 0, 0], [2, 3, 2], [0, 0, 0]])
    [2, [2, 3, 2], 1]
    >>> unpack_counts([2, [2, 3, 2], 1])
    [[0, 0, 0], [0, 0, 0], [2, 3, 2], [0, 0, 0]]
    """
    packed: list[Any] = []
    for row in rows:
        if not any(row):
            if packed and isinstance(packed[-1], int):
                packed[-1] += 1
            else:
                packed.append(1)
        else:
            packed.append(list(row))
    return packed


def unpack_counts(packed: Any) -> Any:
    """The inverse of :func:`pack_counts` (anything else is returned as it is, for the schema)."""
    if not isinstance(packed, list):
        return packed
    rows: list[Any] = []
    for item in packed:
        if isinstance(item, int) and not isinstance(item, bool) and item > 0:
            rows.extend([0, 0, 0] for _ in range(item))
        else:
            rows.append(item)
    return rows


def store_record(path: PathLike, record: dict[str, Any]) -> None:
    """Write a record with its checksum, atomically (a temporary file, then a rename).

    The checksum is that of the record as given; on file, runs of empty
    per-sentence counts are packed (:func:`pack_counts`). orjson writes the
    file when it can (several times as fast as :mod:`json`, the same values
    read back), :mod:`json` otherwise.

    Raises:
        ValueError: the record holds a NaN or an infinity (JSON has neither).
    """
    # the record names its own key (its file's name), so that a record copied over
    # another's file is refused on read (see _key_problem)
    record = {**record, "key": _key_of(path)}
    checksum, writable = _checksum(record)
    stored = {**record, "checksum": checksum}
    if isinstance(stored.get("sentence_counts"), list):
        stored["sentence_counts"] = pack_counts(stored["sentence_counts"])
    data = _orjson_dumps(stored) if writable else None
    if data is None:
        data = json.dumps(stored, ensure_ascii=False, allow_nan=False).encode("utf-8")
    with atomic_write(path, encoding=None) as f:
        f.write(data)


def _key_of(path: PathLike) -> str:
    return os.path.splitext(os.path.basename(os.fspath(path)))[0]


def _key_problem(record: Any, path: PathLike) -> str | None:
    """Why ``record`` is not the one of ``path``'s key (None when it is, or when it is
    a record written before records carried their key)."""
    if not isinstance(record, dict) or "key" not in record:
        return None
    if record["key"] != _key_of(path):
        return f"it is the record of {record['key']!r}, copied over this file"
    return None


def _read_json(path: PathLike) -> Any:
    """A JSON file's value, as :mod:`json` reads it: parsed by orjson when that gives the
    same (:func:`cws_bench.text.io.orjson_loads`), else by :mod:`json` (its value or its error).

    Raises:
        OSError, ValueError: the file cannot be read, or is not JSON.
    """
    try:
        return orjson_loads(Path(path).read_bytes())
    except (ImportError, ValueError):
        return json.loads(Path(path).read_text(encoding="utf-8"))  # json's own error


def read_format_file(
    path: PathLike, fmt: str, names: tuple[str, str, str], hints: tuple[str | None, str, str]
) -> tuple[str, dict[str, Any]]:
    """A cws-bench JSON file whose ``"format"`` is ``fmt``: its name and its value.

    ``names``: what the file is (``no such ...``), what it holds (``cannot read the ...``)
    and what it is not (``not a ...``); ``hints``: how to fix a missing file, one that is
    not JSON, one of another format.

    Raises:
        CwsBenchError: the file is missing, unreadable, not JSON (line and column named),
            or not a ``fmt`` file.
    """
    name = os.fspath(path)
    file, holds, kind = names
    missing, redo, other = hints
    try:
        data = _read_json(name)
    except FileNotFoundError:
        raise CwsBenchError(f"{name}: no such {file}", missing) from None
    except json.JSONDecodeError as e:
        message = f"column {e.colno}: not valid JSON: {e.msg}"
        raise CorpusFormatError(name, e.lineno, message, redo) from None
    except (OSError, UnicodeDecodeError) as e:
        raise CwsBenchError(f"{name}: cannot read the {holds}: {e}") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise CwsBenchError(f'{name}: not a {kind} (no "format": "{fmt}")', other)
    return name, data


def _load_checked(
    path: PathLike, version: int, what: str, problem_of: Callable[[Any], str | None]
) -> tuple[dict[str, Any] | None, str | None]:
    """A cache file's record, if ``problem_of`` finds nothing wrong with it, else None and the
    warning to give: None when there is no file or it is of another version (an old entry,
    not an error), a line naming the file and the problem otherwise (``what`` runs again)."""
    if not Path(path).exists():
        return None, None
    try:
        record = _read_json(path)
    except (OSError, ValueError) as e:
        return None, f"{os.fspath(path)}: unreadable cache record ({e}); running {what} again"
    if isinstance(record, dict) and record.get("version") != version:
        return None, None
    problem = problem_of(record)
    if problem is not None:
        return None, f"{os.fspath(path)}: invalid cache record ({problem}); running {what} again"
    record.pop("checksum", None)
    record.pop("key", None)
    return record, None


def _schema_problem(
    record: Any, schema: dict[str, Any], key: str, well_formed: Callable[[Any], bool]
) -> str | None:
    """:func:`schema_problem` of a record whose bulk is ``record[key]``: when
    ``well_formed`` says that part holds (a loop in Python, far cheaper than the
    validator's), the rest is validated with an empty ``key``; same verdict, same message."""
    if isinstance(record, dict) and key in record and well_formed(record[key]):
        return schema_problem({**record, key: []}, schema)
    return schema_problem(record, schema)


def _are_counts(rows: Any) -> bool:
    """Whether ``rows`` is a list of ``[int, int, int]`` of counts (RECORD_SCHEMA's rows)."""
    return type(rows) is list and all(
        type(row) is list
        and len(row) == 3
        and all(type(value) is int and value >= 0 for value in row)
        for row in rows
    )


def _are_words(pred: Any) -> bool:
    """Whether ``pred`` is a list of lists of strings, or of a long line's words joined by
    single spaces (SHARD_SCHEMA's ``pred``)."""
    from cws_bench.text.joined import is_joined_line

    return type(pred) is list and all(
        (type(words) is list and all(type(word) is str for word in words))
        or (type(words) is str and is_joined_line(words))
        for words in pred
    )


def _characters(words: list[str] | str) -> str:
    """The characters of a line of ``pred`` (a list of words or words joined by spaces)."""
    return words.replace(" ", "") if isinstance(words, str) else "".join(words)


def load_record(path: PathLike, *, version: int) -> tuple[dict[str, Any] | None, str | None]:
    """Read a record back, if it can be trusted.

    Args:
        version: the record version this cws-bench writes; another version
            is an old cache entry, not an error (no record, no warning).

    Returns:
        ``(record, None)`` for a valid record; ``(None, warning)`` for a file
        that exists but cannot be used (the warning names it and why);
        ``(None, None)`` when there is no file or it has another version.
    """

    def problem_of(record: Any) -> str | None:
        if isinstance(record, dict) and "sentence_counts" in record:
            record["sentence_counts"] = unpack_counts(record["sentence_counts"])
        problems = record_problems(record)
        return problems[0] if problems else _key_problem(record, path)

    return _load_checked(path, version, "the pair", problem_of)


SHARD_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "cws-bench bake-off cache record of one shard",
    "type": "object",
    "required": ["version", "pred", "segment_s", "loads", "facts", "peak_memory_mib"],
    "properties": {
        "version": {"type": "integer"},
        "checksum": {"type": "string"},
        "key": {"type": "string"},
        # a line's words, or a long line's words joined by single spaces (JoinedWords)
        "pred": {
            "type": "array",
            "items": {"type": ["array", "string"], "items": {"type": "string"}},
        },
        "segment_s": {"type": "number", "minimum": 0},
        "loads": {
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "string"}, {"type": "number"}],
                "minItems": 3,
                "maxItems": 3,
            },
        },
        "facts": {
            "type": ["object", "null"],
            "required": ["info", "trained_on", "notes", "has_speed", "leaks"],
        },
        "peak_memory_mib": {"type": "number", "minimum": 0},
        "diagnostics": {"type": ["array", "null"]},
    },
}


def load_shard_record(
    path: PathLike, *, version: int, lines: Any
) -> tuple[dict[str, Any] | None, str | None]:
    """Read back a finished shard of the bake-off, if it can be trusted.

    Used only if it has the shape of :data:`SHARD_SCHEMA`, its checksum
    matches, and its words are those of ``lines`` (the shard's raw lines,
    whitespace aside): a shard of other text is never used.

    Returns:
        As :func:`load_record`.
    """

    def problem_of(record: Any) -> str | None:
        problem = _schema_problem(record, SHARD_SCHEMA, "pred", _are_words)
        if problem is None and not _checksum_matches(record, record.get("checksum")):
            problem = "the checksum does not match the content (the file was edited)"
        if problem is None:
            problem = _key_problem(record, path)
        if problem is None and (
            len(record["pred"]) != len(lines)
            or any(_characters(w) != "".join(ln.split()) for w, ln in zip(record["pred"], lines))
        ):
            problem = "its words are not those of the shard's lines"
        return problem

    return _load_checked(path, version, "the shard", problem_of)

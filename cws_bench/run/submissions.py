"""An organiser's bake-off: a folder of submissions as ``file`` segmenter rows, checked whole.

A ``[[submissions]]`` table of a bake-off names a folder, a pattern and the
participants; :func:`submission_rows` expands it into ordinary
``[[segmenters]]`` tables of the ``file`` adapter (one per participant and
track), so that submissions run, cache, rank and report as any segmenter::

    [[submissions]]
    folder = "submissions"                   # relative to the TOML file
    pattern = "{participant}/{corpus}.txt"   # {corpus}: the corpus' label; {track} too
    encoding = "utf-8"                       # the files' encoding (default utf-8)

    [[submissions.participants]]
    name = "S01"
    track = "closed"                         # on every corpus of the bake-off ...
    description = "maximum matching, training words only"

    [[submissions.participants]]
    name = "S02"
    track = { pku = "closed", msr = "open" } # ... or per corpus label: only these

A participant in both tracks gets one row per track, labelled ``S02 (closed)``
and ``S02 (open)``; each row's ``participant`` is the name (the scorecards
group by it).

:func:`submission_problems` reads every submitted file before anything runs
and says what is wrong with each, all at once: a missing file, one that does
not decode, a wrong line count, raw (unsegmented) text, text that is another
corpus' of the bake-off (swapped files), text that differs from the raw input
on most lines. A file whose text differs on a few lines is not refused: those
lines are scored as the counting method scores them (:func:`differing_lines`
counts them for the participant's row).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cws_bench.errors import CwsBenchError
from cws_bench.run.problems import check_keys
from cws_bench.text.checksums import hash_hex

__all__ = [
    "MOSTLY_DIFFERENT",
    "PLACEHOLDERS",
    "SUBMISSION_KEYS",
    "Submission",
    "differing_lines",
    "read_submission",
    "shown_path",
    "submission_problems",
    "submission_rows",
]

SUBMISSION_KEYS = {"folder", "pattern", "encoding", "participants"}
"""The keys of a ``[[submissions]]`` table."""

PARTICIPANT_KEYS = {"name", "track", "description"}
"""The keys of a ``[[submissions.participants]]`` table."""

PLACEHOLDERS = ("{participant}", "{corpus}", "{track}")
"""What a pattern may say: the participant's name, the corpus' label, the track."""

MOSTLY_DIFFERENT = 0.5
"""A file whose text differs from the input on more than this share of its lines is
refused (it is not a segmentation of this input); fewer differing lines are scored."""

_TRACKS = ("closed", "open")


def _problem(where: str, message: str, hint: str | None = None) -> CwsBenchError:
    return CwsBenchError(f"{where}: {message}", hint)


def _tracks_of(where: str, track: Any, corpora: Sequence[str]) -> dict[str, str]:
    """Corpus label -> track of one participant."""
    if track is None:
        track = "open"
    if isinstance(track, str):
        if track not in _TRACKS:
            raise _problem(where, f"track must be closed or open, not {track!r}")
        return {label: track for label in corpora}
    if not isinstance(track, dict) or not track:
        raise _problem(
            where,
            "track must be closed or open, or a table of corpus label = track",
            'e.g. track = { pku = "closed", msr = "open" }',
        )
    tracks = {}
    for label, value in track.items():
        if label not in corpora:
            from cws_bench.suggest import did_you_mean

            listed = f"corpus labels: {', '.join(corpora)}"
            close = did_you_mean(label, list(corpora))
            raise _problem(
                where, f"no corpus labelled {label!r}", f"{close} ({listed})" if close else listed
            )
        if value not in _TRACKS:
            raise _problem(where, f"track of {label} must be closed or open, not {value!r}")
        tracks[label] = value
    return tracks


def submission_rows(
    table: Any, where: str, base: Path, corpora: Sequence[str]
) -> list[dict[str, Any]]:
    """The ``[[segmenters]]`` tables of one ``[[submissions]]`` table.

    Args:
        table: the parsed table.
        where: how problems name it (``config.toml: [[submissions]] #1``).
        base: the folder relative paths are relative to (the TOML file's).
        corpora: the bake-off's corpus labels.

    >>> rows = submission_rows({"folder": "sub", "participants": [{"name": "S01"}]},
    ...                        "x", Path("/data"), ["pku", "msr"])
    >>> rows[0]["options"]["path"], rows[0]["corpora"], rows[0]["participant"]
    ('/data/sub/S01/{label}.txt', ['pku', 'msr'], 'S01')

    Raises:
        CwsBenchError: an unknown key, a missing folder or name, a bad track or pattern.
    """
    check_keys(where, table, SUBMISSION_KEYS)
    folder = table.get("folder")
    if not isinstance(folder, str) or not folder:
        raise _problem(where, "missing folder (where the submitted files are)")
    pattern = table.get("pattern", "{participant}/{corpus}.txt")
    if not isinstance(pattern, str) or "{participant}" not in pattern:
        raise _problem(
            where,
            f"pattern {pattern!r} must say {{participant}}",
            "e.g. {participant}/{corpus}.txt or {corpus}_{track}_{participant}.txt",
        )
    rest = pattern
    for placeholder in PLACEHOLDERS:
        rest = rest.replace(placeholder, "")
    if "{" in rest or "}" in rest:
        raise _problem(
            where,
            f"pattern {pattern!r}: only {', '.join(PLACEHOLDERS)} may be in braces",
        )
    encoding = table.get("encoding", "utf-8")
    participants = table.get("participants")
    if not isinstance(participants, list) or not participants:
        raise _problem(where, "no participants", "add [[submissions.participants]] tables")
    rows = []
    for index, participant in enumerate(participants, start=1):
        at = f"{where} participant #{index}"
        check_keys(at, participant, PARTICIPANT_KEYS)
        name = participant.get("name")
        if not isinstance(name, str) or not name.strip():
            raise _problem(at, "missing name")
        tracks = _tracks_of(f"{at} {name}", participant.get("track"), corpora)
        by_track = {t: [c for c in tracks if tracks[c] == t] for t in _TRACKS}
        used = [t for t in _TRACKS if by_track[t]]
        for track in used:
            filled = pattern.replace("{participant}", name).replace("{track}", track)
            path = os.path.normpath(base / folder / filled.replace("{corpus}", "{label}"))
            rows.append(
                {
                    "name": "file",
                    "label": name if len(used) == 1 else f"{name} ({track})",
                    "track": track,
                    "options": {"path": path, **({"encoding": encoding} if encoding else {})},
                    "corpora": by_track[track],
                    "participant": name,
                    "description": str(participant.get("description", "")),
                }
            )
    return rows


@dataclass(frozen=True)
class Submission:
    """One submitted file as read: its path, its lines' words and its SHA-256."""

    path: str
    words: list[list[str]]
    sha256: str


def read_submission(path: str, encoding: str = "utf-8") -> Submission:
    """A submitted file's words, line by line, and its SHA-256.

    Raises:
        CwsBenchError: the file is missing or does not decode (naming line and byte).
    """
    from cws_bench.corpora.download import file_sha256
    from cws_bench.text.io import read_segmented

    if not os.path.isfile(path):
        raise CwsBenchError(f"{path}: no such file", "check the folder and the pattern")
    return Submission(path, list(read_segmented(path, encoding=encoding)), file_sha256(path))


def differing_lines(raw: Sequence[str], words: Sequence[Sequence[str]]) -> list[int]:
    """The 1-based numbers of the lines whose text (without whitespace) is not the input's.

    >>> differing_lines(["我们是", "学生"], [["我们", "是"], ["学", "士"]])
    [2]
    """
    return [
        number
        for number, (line, pred) in enumerate(zip(raw, words), start=1)
        if "".join(line.split()) != "".join(pred)
    ]


def shown_path(path: str) -> str:
    """A path as messages show it: relative to the working folder when it is inside it.

    >>> inside = os.path.join(os.getcwd(), "scratch", "a.txt")
    >>> shown_path(inside) == os.path.join("scratch", "a.txt")
    True
    """
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def _text_key(lines: Sequence[str]) -> str:
    return hash_hex("\n".join("".join(x.split()) for x in lines), "checksum")


def submission_problems(
    files: Sequence[tuple[str, str, str, str]],
    raw_of: Mapping[str, Sequence[str]],
    gold_of: Mapping[str, Sequence[Sequence[str]]],
) -> list[tuple[str, str, str | None]]:
    """What is wrong with each submitted file: ``(where, message, hint)`` for each problem.

    Args:
        files: ``(where, corpus label, path, encoding)`` of every submitted file.
        raw_of: each corpus' raw input lines, by label.
        gold_of: each corpus' gold sentences, by label (for the raw-text check).
    """
    from cws_bench.scoring.input_checks import input_warnings

    texts = {_text_key(lines): label for label, lines in raw_of.items()}
    problems: list[tuple[str, str, str | None]] = []
    for where, label, path, encoding in files:
        path = shown_path(path)
        try:
            submitted = read_submission(path, encoding)
        except CwsBenchError as e:
            problems.append((where, e.message, e.hint))
            continue
        raw = raw_of[label]
        words = submitted.words
        lines = [" ".join(w) for w in words]
        other = texts.get(_text_key(lines))
        if other is not None and other != label:
            problems.append(
                (
                    where,
                    f"{path}: its text is the input of {other}, not of {label}",
                    "are two of the participant's files swapped?",
                )
            )
            continue
        if len(words) != len(raw):
            problems.append(
                (
                    where,
                    f"{path}: {len(words):,} lines, the input of {label} has {len(raw):,}",
                    "a submission has one line per input line, in the input's order",
                )
            )
            continue
        gold = [" ".join(sentence) for sentence in gold_of[label]]
        warnings = input_warnings(gold, lines, label, path)
        raw_text = [w for w in warnings if w.startswith(f"{path} looks like raw, unsegmented")]
        if raw_text:
            problems.append((where, raw_text[0].split("; segment it")[0], "segment it first"))
            continue
        differing = differing_lines(raw, words)
        scored = sum(1 for line in raw if line.strip()) or 1
        if len(differing) > MOSTLY_DIFFERENT * scored:
            shown = ", ".join(map(str, differing[:5]))
            problems.append(
                (
                    where,
                    f"{path}: the text of {len(differing):,} of its {len(raw):,} lines is not "
                    f"the input's (line {shown}{', ...' if len(differing) > 5 else ''})",
                    f"was it made from the input of {label}?",
                )
            )
    return problems

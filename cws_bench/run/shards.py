"""Shards: a file (or several that line up line for line) cut into runs of whole lines.

A shard is a range of line indices with, for each file, the byte range that
holds those lines. Cut points are found by streaming the files in blocks
(never holding a whole file in memory): the first file decides where to cut,
after about ``shard_chars`` characters (UTF-8 characters, or bytes in another
encoding), always at a line end; the other files are cut at the same line
indices, since their bytes differ (a gold file has spaces its raw text has not).

Reading a shard back gives exactly the lines :func:`cws_bench.text.io.iter_lines`
gives for that range (``\\n`` or ``\\r\\n`` line ends, a UTF-8 byte-order mark
dropped at the start of a file, a last line without its newline).

>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as d:
...     path = os.path.join(d, "raw.txt")
...     _ = open(path, "w", encoding="utf-8").write("我们是\\n学生\\n\\n今天下雨\\n")
...     plan = plan_shards([path], shard_chars=4)
...     [(s.first_line, s.lines) for s in plan.shards]
...     [read_shard_lines(path, s.ranges[0], s.first_line) for s in plan.shards]
[(0, 2), (2, 2)]
[['我们是', '学生'], ['', '今天下雨']]
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

# The default lives with the others, which the CLI reads without importing this module.
from cws_bench.defaults import DEFAULT_SHARD_CHARS
from cws_bench.errors import CwsBenchError, Fix
from cws_bench.text.io import (
    BLOCK_SIZE,
    STDIN,
    PathLike,
    decoding_error,
    display_name,
    normalize_encoding,
    open_binary,
)

__all__ = [
    "Shard",
    "ShardPlan",
    "plan_shards",
    "read_shard_lines",
]


_BOM = codecs.BOM_UTF8


@dataclass(frozen=True, slots=True)
class Shard:
    """Lines ``[first_line, first_line + lines)`` of every file of a plan.

    Attributes:
        index: position of the shard in the plan (0-based).
        first_line: index of its first line (0-based).
        lines: how many lines it holds (at least one).
        characters: characters of the first file in these lines (bytes when
            that file is not UTF-8), line ends excluded.
        ranges: per file, the byte range ``(start, end)`` holding the lines.
    """

    index: int
    first_line: int
    lines: int
    characters: int
    ranges: tuple[tuple[int, int], ...]

    def describe(self) -> str:
        """``lines 1-250`` (1-based, as the messages of the suite count lines)."""
        return f"lines {self.first_line + 1}-{self.first_line + self.lines}"


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """The shards of a run over files that pair line for line.

    Attributes:
        paths: the files, the first one measured.
        shards: shards covering lines ``[0, common_lines)``, in order.
        line_counts: lines of each file (a last line without newline counts).
        sizes: bytes of each file.
        characters: characters (or bytes) of the first file in the shards.
    """

    paths: tuple[str, ...]
    shards: tuple[Shard, ...]
    line_counts: tuple[int, ...]
    sizes: tuple[int, ...]
    characters: int

    @property
    def common_lines(self) -> int:
        """Lines that every file has (what the shards cover)."""
        return min(self.line_counts, default=0)


def _check_encoding(path: PathLike, encoding: str) -> str:
    encoding = normalize_encoding(encoding)
    if codecs.lookup(encoding).name.startswith(("utf-16", "utf-32")):
        raise CwsBenchError(
            f"{display_name(path)}: {encoding} files cannot be cut into shards",
            "convert the file to UTF-8 (iconv -f utf-16 -t utf-8), or run without {0}",
            fixes=(Fix("executor"),),
        )
    return encoding


def _line_offsets(path: PathLike, lines: Sequence[int]) -> tuple[list[int], int, int]:
    """Stream a file: the byte offset where each of ``lines`` (sorted) starts.

    A line index at or past the end of the file maps to the file's size.

    Returns:
        (offsets, line count, size)
    """
    import numpy as np  # here, not at the top: `cws-bench score` imports this module

    wanted = list(lines)
    offsets: list[int] = []
    seen = 0
    size = 0
    last = b"\n"
    with open_binary(path) as f:
        while block := f.read(BLOCK_SIZE):
            newlines = block.count(b"\n")
            if len(offsets) < len(wanted) and wanted[len(offsets)] <= seen + newlines:
                ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
                while len(offsets) < len(wanted) and wanted[len(offsets)] <= seen + newlines:
                    line = wanted[len(offsets)]
                    offsets.append(size if line == 0 else size + int(ends[line - seen - 1]) + 1)
            seen += newlines
            size += len(block)
            last = block[-1:]
    offsets += [size] * (len(wanted) - len(offsets))
    return offsets, seen + (last != b"\n"), size


def _cut_lines(
    path: PathLike, *, utf8: bool, shard_chars: int, limit: int | None = None
) -> tuple[list[int], list[int], list[int], int, int]:
    """Stream the measured file: where to cut within its first ``limit`` lines (None: all).

    Each cut is at the first line end at or after ``shard_chars`` more characters
    (line ends excluded). Per block, only the line ends are located and the
    continuation bytes counted per line (no running count over every byte).

    Returns:
        (cut lines, characters before each cut, byte offset of each cut, lines, size),
        the last cut being ``limit`` (None: the file's line count); lines and
        size are the whole file's when ``limit`` is None.
    """
    import numpy as np

    stop = sys.maxsize if limit is None else limit
    lines_seen = chars_seen = size = 0
    threshold = shard_chars
    cuts: list[int] = []
    chars: list[int] = []
    offsets: list[int] = []
    end_offset = None  # where line ``limit`` starts, once reached
    last = b"\n"
    with open_binary(path) as f:
        while lines_seen < stop and (block := f.read(BLOCK_SIZE)):
            data = np.frombuffer(block, dtype=np.uint8)
            ends = np.flatnonzero(data == 10)[: stop - lines_seen]
            continuation = ((data & 0xC0) == 0x80).view(np.uint8) if utf8 else None
            if len(ends):
                through = ends + 1  # bytes up to each line end, the line end included
                if continuation is not None:
                    starts = np.concatenate(([0], through[:-1]))
                    per_line = np.add.reduceat(continuation[: through[-1]], starts)
                    through = through - np.cumsum(per_line)
                # characters up to each line end, the line ends themselves excluded
                at_ends = chars_seen + through - np.arange(1, len(ends) + 1)
                k = 0
                while k < len(ends):
                    k += int(np.searchsorted(at_ends[k:], threshold, side="left"))
                    if k >= len(ends):
                        break
                    cuts.append(lines_seen + k + 1)
                    chars.append(int(at_ends[k]))
                    offsets.append(size + int(ends[k]) + 1)
                    threshold = int(at_ends[k]) + shard_chars
                    k += 1
                chars_seen = int(at_ends[-1])
            lines_seen += len(ends)
            if lines_seen >= stop:
                end_offset = size + int(ends[-1]) + 1 if len(ends) else size
                break
            # the bytes past the last line end, a line that goes on in the next block
            tail = int(ends[-1]) + 1 if len(ends) else 0
            chars_seen += len(block) - tail
            if continuation is not None:
                chars_seen -= int(np.count_nonzero(continuation[tail:]))
            size += len(block)
            last = block[-1:]
    if limit is None:
        limit = lines_seen + (last != b"\n")
    if not cuts or cuts[-1] != limit:
        cuts.append(limit)
        chars.append(chars_seen)
        offsets.append(size if end_offset is None else end_offset)
    return cuts, chars, offsets, lines_seen + (last != b"\n"), size


def plan_shards(
    paths: Sequence[PathLike],
    *,
    shard_chars: int = DEFAULT_SHARD_CHARS,
    encodings: Sequence[str] | None = None,
) -> ShardPlan:
    """Cut files that pair line for line into shards of about ``shard_chars`` characters.

    The files are streamed, each read once (again when the first has more lines than
    another), never held in memory.

    Args:
        paths: the files (not standard input); the first one is measured.
        shard_chars: characters of the first file per shard (bytes if it is
            not UTF-8); a shard ends at the first line end at or after it.
        encodings: per file (default UTF-8); ASCII-compatible encodings only.

    Raises:
        CwsBenchError: a file is standard input, missing, or in UTF-16/32;
            ``shard_chars`` is below 1.
    """
    if shard_chars < 1:
        raise CwsBenchError(f"shard size must be at least 1 character, not {shard_chars}")
    if not paths:
        raise CwsBenchError("nothing to cut into shards")
    encodings = list(encodings or ["utf-8"] * len(paths))
    for path in paths:
        if os.fspath(path) == STDIN:
            raise CwsBenchError(
                "standard input cannot be cut into shards",
                "give a file, or run without {0}",
                fixes=(Fix("executor"),),
            )
    encodings = [_check_encoding(p, e) for p, e in zip(paths, encodings)]
    utf8 = encodings[0] == "utf-8"
    # One pass over the measured file (its cuts, lines and size), one over each other
    # file (its lines, size and the offsets of those cuts); again if the first file
    # has more lines than another (the last shard ends at the lines all files have).
    cuts, cut_chars, first, lines, size = _cut_lines(paths[0], utf8=utf8, shard_chars=shard_chars)
    others = [_line_offsets(path, cuts) for path in paths[1:]]
    line_counts = [lines, *(count for _, count, _ in others)]
    sizes = [size, *(bytes_ for _, _, bytes_ in others)]
    common = min(line_counts)
    if common < lines:
        cuts, cut_chars, first, _, _ = _cut_lines(
            paths[0], utf8=utf8, shard_chars=shard_chars, limit=common
        )
        others = [_line_offsets(path, cuts) for path in paths[1:]]
    offsets = [first, *(file_offsets for file_offsets, _, _ in others)]
    shards: list[Shard] = []
    previous_line = previous_chars = 0
    previous = [0] * len(paths)
    for i, line in enumerate(cuts):
        if line == previous_line:
            continue
        ends = [file_offsets[i] for file_offsets in offsets]
        shards.append(
            Shard(
                index=len(shards),
                first_line=previous_line,
                lines=line - previous_line,
                characters=cut_chars[i] - previous_chars,
                ranges=tuple(zip(previous, ends)),
            )
        )
        previous_line, previous_chars, previous = line, cut_chars[i], ends
    return ShardPlan(
        paths=tuple(os.fspath(p) for p in paths),
        shards=tuple(shards),
        line_counts=tuple(line_counts),
        sizes=tuple(sizes),
        characters=cut_chars[-1],
    )


def read_shard_lines(
    path: PathLike, byte_range: tuple[int, int], first_line: int = 0, *, encoding: str = "utf-8"
) -> list[str]:
    """The lines in ``byte_range`` of a file, as :func:`cws_bench.text.io.iter_lines` reads them.

    Args:
        byte_range: ``(start, end)`` from a :class:`Shard`.
        first_line: index of the first line of the range, for error messages.

    Raises:
        DecodingError: bytes that are not valid ``encoding`` (file, line and offset named).
    """
    start, end = byte_range
    with open_binary(path) as f:
        f.seek(start)
        data = f.read(end - start)
    encoding = normalize_encoding(encoding)
    skip = 0
    if start == 0 and encoding == "utf-8" and data.startswith(_BOM):
        skip = len(_BOM)
    try:
        text = codecs.decode(data[skip:], encoding)
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, skip + e.start) + 1
        raise decoding_error(path, encoding, line, start + skip + e.start) from None
    if not text:
        return []
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if data.endswith(b"\n"):
        lines.pop()
    elif lines[-1].endswith("\r"):
        lines[-1] = lines[-1][:-1]
    return lines

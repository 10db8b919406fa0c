"""Running a segmenter over a stream of lines or a file, in batches.

Errors are located in the input: a line that breaks the lossless-join
guarantee is named by file and line number, a batch that crashes by its
line range.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cws_bench.defaults import DEFAULT_BATCH_SIZE
from cws_bench.errors import CwsBenchError, SegmenterError
from cws_bench.io import PathLike, atomic_write, display_name, iter_lines
from cws_bench.segmenters.base import Segmenter, SegmenterOutputError

__all__ = ["DEFAULT_BATCH_SIZE", "SegmentStats", "segment_file", "segment_lines"]


@dataclass(frozen=True)
class SegmentStats:
    """What a run segmented and how long the segmenter took (loading excluded).

    Attributes:
        lines: input lines.
        characters: non-whitespace characters segmented.
        words: output words.
        seconds: wall time spent in ``segment()``.
        diagnostics: the segmenter's per-line records
            (:meth:`~cws_bench.segmenters.base.Segmenter.diagnostics`), one per
            input line (None for a line without), or None when it keeps none.
    """

    lines: int = 0
    characters: int = 0
    words: int = 0
    seconds: float = 0.0
    diagnostics: list[dict[str, Any] | None] | None = field(default=None, repr=False, compare=False)

    @property
    def characters_per_second(self) -> float:
        """Segmentation speed; 0.0 when nothing was timed."""
        return self.characters / self.seconds if self.seconds > 0 else 0.0


def run_batch(segmenter: Segmenter, batch: list[str], source: str, first: int) -> list[list[str]]:
    try:
        return segmenter.segment(batch)
    except SegmenterOutputError as e:
        raise e.relocate(source, first) from None
    except SegmenterError as e:
        detail = e.message.removeprefix(f"segmenter {e.segmenter}: ")
        last = first + len(batch) - 1
        raise SegmenterError(
            e.segmenter, f"{source}: lines {first}-{last}: {detail}", e.template, fixes=e.fixes
        ) from e


class _Counter:
    """Running totals of a stream, filled while it is consumed."""

    def __init__(self) -> None:
        self.lines = self.characters = self.words = 0
        self.seconds = 0.0
        self.diagnostics: list[dict[str, Any] | None] | None = None

    def keep(self, records: list[dict[str, Any] | None] | None, size: int) -> None:
        """Add a batch's diagnostics (kept only once a segmenter has given some)."""
        if records is None:
            if self.diagnostics is not None:
                self.diagnostics.extend([None] * size)
            return
        if self.diagnostics is None:
            self.diagnostics = [None] * self.lines
        self.diagnostics.extend(records)

    def stats(self) -> SegmentStats:
        return SegmentStats(self.lines, self.characters, self.words, self.seconds, self.diagnostics)


def _segment_stream(
    segmenter: Segmenter,
    lines: Iterable[str],
    batch_size: int,
    source: str,
    progress: Callable[[int], None] | None,
    counter: _Counter,
) -> Iterator[list[str]]:
    if batch_size < 1:
        raise CwsBenchError(f"batch size must be at least 1, not {batch_size}")
    segmenter.check_ready()
    batch: list[str] = []
    first = 1
    iterator = iter(lines)
    while True:
        batch = [line for _, line in zip(range(batch_size), iterator)]
        if not batch:
            return
        started = time.perf_counter()
        output = run_batch(segmenter, batch, source, first)
        counter.seconds += time.perf_counter() - started
        counter.keep(segmenter.diagnostics(), len(batch))
        counter.lines += len(batch)
        for words in output:
            counter.words += len(words)
            counter.characters += sum(map(len, words))
        yield from output
        first += len(batch)
        if progress is not None:
            progress(len(batch))


def segment_lines(
    segmenter: Segmenter,
    lines: Iterable[str],
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    source: str = "<input>",
    progress: Callable[[int], None] | None = None,
) -> Iterator[list[str]]:
    """Segment a stream of raw lines in batches, yielding one list of words per line.

    >>> from cws_bench.segmenters import get_segmenter
    >>> fmm = get_segmenter("fmm", words=["南京市", "长江", "大桥", "市长"])
    >>> list(segment_lines(fmm, ["南京市长江大桥", ""], batch_size=1))
    [['南京市', '长江', '大桥'], []]

    Args:
        segmenter: any segmenter.
        lines: raw lines.
        batch_size: lines per ``segment()`` call.
        source: the input's name, for error messages.
        progress: called with the number of lines of each finished batch.

    Raises:
        SegmenterError: the segmenter failed on a batch (its line range is named).
        SegmenterOutputError: a line broke the lossless-join guarantee (its number is named).
    """
    return _segment_stream(segmenter, lines, batch_size, source, progress, _Counter())


def segment_file(
    segmenter: Segmenter,
    source: PathLike,
    target: PathLike,
    *,
    separator: str = " ",
    encoding: str = "utf-8",
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
) -> SegmentStats:
    """Segment a raw text file (``-``: standard input) into ``target`` (``-``: standard output).

    The output has one sentence a line, words joined by ``separator``, and
    is written atomically (nothing is left behind if anything fails).

    Args:
        segmenter: any segmenter.
        source: the raw input, one sentence a line.
        target: where the segmentation goes.
        separator: between words; not empty.
        encoding: the input's encoding (the output is UTF-8).
        batch_size: lines per ``segment()`` call.
        progress: called with the number of lines of each finished batch.

    Returns:
        What was segmented, and the time spent in the segmenter.

    Raises:
        CwsBenchError: an unreadable input, an empty separator.
        SegmenterError: the segmenter failed (file and lines named).
    """
    if not separator:
        raise CwsBenchError(
            "the word separator is empty", "use a space (the default) or another string"
        )
    segmenter.check_ready()
    counter = _Counter()
    lines = iter_lines(source, encoding=encoding)
    with atomic_write(target) as f:
        for words in _segment_stream(
            segmenter, lines, batch_size, display_name(source), progress, counter
        ):
            f.write(separator.join(words))
            f.write("\n")
    return counter.stats()

"""Running a segmenter over a stream of lines or a file, in batches: the one loop.

:class:`SegmentRun` is the loop every path that runs a segmenter goes through
(``segment``, the bake-off's shards, a big file's shards, a regression
baseline's timed passes): it cuts the lines into batches, calls the
segmenter's ``segment()`` once per batch, times only the time inside that
call, and counts what it segmented. A *character*, for every speed the suite
reports (characters per second), is a non-whitespace character of the input
lines (:func:`count_characters`: whitespace as ``str.split`` sees it, the
ideographic space U+3000 included), which is a character of the output words,
since a segmenter's words join back to its line without whitespace.

Errors are located in the input when the run is told its source: a line that
breaks the lossless-join guarantee is named by file and line number, a batch
that crashes by its line range.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cws_bench.defaults import DEFAULT_BATCH_SIZE
from cws_bench.errors import CwsBenchError, SegmenterError
from cws_bench.segmenters.base import Segmenter, SegmenterOutputError
from cws_bench.text.io import PathLike, display_name, iter_lines, write_segmented

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "SegmentRun",
    "SegmentStats",
    "count_characters",
    "segment_file",
    "segment_lines",
]

Segment = Callable[[list[str]], list[list[str]]]
"""A batch segmenter: raw lines in, one list of words per line out (``Segmenter.segment``)."""


def count_characters(lines: Iterable[str]) -> int:
    """The characters a speed counts: the non-whitespace characters of ``lines``.

    Whitespace is what ``str.split`` splits on (the ideographic space U+3000
    included); what is left are the characters of the words a segmenter
    returns for the lines (the lossless-join guarantee).

    >>> count_characters(["我们 是", "学生\u3000OK", ""])
    7
    """
    return sum(len("".join(line.split())) for line in lines)


@dataclass(frozen=True)
class SegmentStats:
    """What a run segmented and how long the segmenter took (loading excluded).

    Attributes:
        characters: non-whitespace characters segmented (:func:`count_characters`).
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


def _run_batch(segment: Segment, batch: list[str], source: str, first: int) -> list[list[str]]:
    try:
        return segment(batch)
    except SegmenterOutputError as e:
        raise e.relocate(source, first) from None
    except SegmenterError as e:
        detail = e.message.removeprefix(f"segmenter {e.segmenter}: ")
        within = getattr(e, "batch_lines", None)  # (start, count, its words) within the batch
        if within is not None:  # the lines the adapter named, numbered as the input's own
            start, count, words = within
            named = f"lines {first + start}-{first + start + count - 1} of {source}"
            detail = detail.replace(words, named, 1)
        else:
            detail = f"{source}: lines {first}-{first + len(batch) - 1}: {detail}"
        raise SegmenterError(e.segmenter, detail, e.template, fixes=e.fixes) from e


class SegmentRun:
    """A segmenter over lines in batches, timed inside ``segment()`` only: iterate for the words.

    Iterating yields one list of words per line, in order; the totals
    (``lines``, ``characters``, ``words``, ``seconds``) grow as the batches
    are done (:meth:`stats`). Loading the segmenter, reading the input and
    writing the output are never timed; ``characters`` counts as
    :func:`count_characters` does.

    >>> from cws_bench.segmenters import get_segmenter
    >>> fmm = get_segmenter("fmm", words=["南京市", "长江", "大桥"])
    >>> run = SegmentRun(fmm, ["南京市 长江大桥", ""], batch_size=1)
    >>> list(run), (run.lines, run.characters, run.words)
    ([['南京市', '长江', '大桥'], []], (2, 7, 3))

    Args:
        segmenter: a :class:`~cws_bench.segmenters.Segmenter`, or a batch function
            (raw lines in, one list of words per line out).
        lines: the raw lines.
        batch_size: lines per ``segment()`` call.
        source: the input's name: a failure is then located in it (file and line
            numbers); None leaves the segmenter's errors as they are.
        first_line: the number of the first line in ``source`` (1-based).
        convert: a length-preserving conversion applied to each line before the
            segmenter sees it (a :func:`~cws_bench.text.normalize.get_normalizer` name
            such as ``t2s``, or a function; ``none``: none); the words are cut back
            out of the original line.
        clock: the timer (``time.perf_counter``; tests pass a fake one), read
            twice per batch, around the call.
        progress: called with the lines and characters of each finished batch.

    Raises:
        CwsBenchError: a batch size below 1.
        SegmenterError: the segmenter failed on a batch.
        SegmenterOutputError: a line broke the lossless-join guarantee.
    """

    def __init__(
        self,
        segmenter: Segmenter | Segment,
        lines: Iterable[str],
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        source: str | None = None,
        first_line: int = 1,
        convert: str | Callable[[str], str] | None = None,
        clock: Callable[[], float] = time.perf_counter,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        if batch_size < 1:
            raise CwsBenchError(f"batch size must be at least 1, not {batch_size}")
        self.segmenter = segmenter
        self.input = lines
        self.batch_size = batch_size
        self.source = source
        self.first_line = first_line
        if isinstance(convert, str):
            from cws_bench.text.normalize import get_normalizer

            convert = None if convert == "none" else get_normalizer(convert)
        self.convert = convert
        self.clock = clock
        self.progress = progress
        self.lines = self.characters = self.words = 0
        self.seconds = 0.0
        self.diagnostics: list[dict[str, Any] | None] | None = None

    def stats(self) -> SegmentStats:
        """The totals so far."""
        return SegmentStats(self.lines, self.characters, self.words, self.seconds, self.diagnostics)

    def _keep(self, size: int) -> None:
        """Add a batch's per-line diagnostics (kept only once the segmenter has given some)."""
        given = getattr(self.segmenter, "diagnostics", None)
        records = given() if callable(given) else None
        if records is None:
            if self.diagnostics is not None:
                self.diagnostics.extend([None] * size)
            return
        if self.diagnostics is None:
            self.diagnostics = [None] * self.lines
        self.diagnostics.extend(records)

    def _call(self, batch: list[str], first: int) -> list[list[str]]:
        segmenter: Any = self.segmenter  # a Segmenter, or anything with its segment()
        segment: Segment = getattr(segmenter, "segment", segmenter)
        given = batch if self.convert is None else [self.convert(line) for line in batch]
        began = self.clock()
        try:
            output = (
                segment(given)
                if self.source is None
                else _run_batch(segment, given, self.source, first)
            )
        finally:
            self.seconds += self.clock() - began
        return output if self.convert is None else list(map(_cut_like, batch, output))

    def __iter__(self) -> Iterator[list[str]]:
        iterator = iter(self.input)
        first = self.first_line
        while batch := [line for _, line in zip(range(self.batch_size), iterator)]:
            output = self._call(batch, first)
            characters = count_characters(batch)
            self._keep(len(batch))
            self.lines += len(batch)
            self.characters += characters
            self.words += sum(map(len, output))
            yield from output
            first += len(batch)
            if self.progress is not None:
                self.progress(len(batch), characters)


def _cut_like(line: str, words: list[str]) -> list[str]:
    """Cut ``line`` (without whitespace) into pieces as long as ``words`` (converted text)."""
    text = "".join(line.split())
    out = []
    at = 0
    for word in words:
        out.append(text[at : at + len(word)])
        at += len(word)
    if at != len(text):
        raise CwsBenchError(f"a conversion changed the length of the line {line[:30]!r}")
    return out


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

    ``source`` names the input in error messages; ``progress`` is called with the number
    of lines of each finished batch.

    Raises:
        SegmenterError: the segmenter failed on a batch (its line range is named).
        SegmenterOutputError: a line broke the lossless-join guarantee (its number is named).
    """
    segmenter.check_ready()
    return iter(
        SegmentRun(
            segmenter, lines, batch_size=batch_size, source=source, progress=_lines(progress)
        )
    )


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
    is written atomically (nothing is left behind if anything fails). ``encoding`` is the
    input's (the output is UTF-8); ``progress`` is called with the number of lines of
    each finished batch. Returns what was segmented, and the time spent in the segmenter.

    Raises:
        CwsBenchError: an unreadable input, an empty separator.
        SegmenterError: the segmenter failed (file and lines named).
    """
    if not separator:
        raise CwsBenchError(
            "the word separator is empty", "use a space (the default) or another string"
        )
    segmenter.check_ready()
    lines = iter_lines(source, encoding=encoding)
    run = SegmentRun(
        segmenter,
        lines,
        batch_size=batch_size,
        source=display_name(source),
        progress=_lines(progress),
    )
    write_segmented(target, run, separator=separator)
    return run.stats()


def _lines(progress: Callable[[int], None] | None) -> Callable[[int, int], None] | None:
    """A progress callback of lines, as :class:`SegmentRun` calls it (lines, characters)."""
    if progress is None:
        return None
    return lambda lines, characters: progress(lines)

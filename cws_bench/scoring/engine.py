"""The scorer's engine: one pass over paired lines, summed into a ScoreResult.

:class:`Scorer` is what ``score_files``, ``score_sentences``, the streaming
metric (:mod:`cws_bench.scoring.streaming`) and the sharded scorer
(:mod:`cws_bench.run.sharded`) count with; its :class:`Accumulator` holds the
additive running totals that shards and merged metrics add together.
:class:`ByteSource` reads a file as UTF-8 byte blocks for the compiled kernel.
"""

from __future__ import annotations

import codecs
import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, cast

from cws_bench.display.units import plural
from cws_bench.errors import Fix, LineCountMismatchError, TextMismatchError
from cws_bench.scoring.counts import COUNT_FIELDS, AdditiveCounts, SegCounts, count_sentence
from cws_bench.scoring.input_checks import SAMPLE_LINES, input_warnings
from cws_bench.scoring.methods import get_method
from cws_bench.scoring.result import LineMismatch, ScoreResult
from cws_bench.scoring.signature import Signature
from cws_bench.text.checksums import LineDigest
from cws_bench.text.dictionary_checks import COVERS_GOLD, coverage_warnings
from cws_bench.text.io import (
    BLOCK_SIZE,
    Hasher,
    PathLike,
    decoding_error,
    iter_line_blocks,
    normalize_encoding,
    open_binary,
)

if TYPE_CHECKING:
    from cws_bench.scoring.sighan import BufferCounts, SighanCounts
    from cws_bench.text.dictionary import Dictionary
    from cws_bench.text.normalize import Normalizer

try:
    from cws_bench import _kernel as kernel
except ImportError:  # pragma: no cover - the package was installed without a compiler
    kernel = None
"""The compiled counting kernel (cws_bench/_kernel.pyx), or None without a compiler."""

if kernel is not None and len(COUNT_FIELDS) != kernel.FIELD_COUNT:  # pragma: no cover
    raise ImportError("cws_bench._kernel is out of date: rebuild it (make clean && make test)")

__all__ = [
    "MAX_EXAMPLES",
    "Accumulator",
    "ByteSource",
    "Scorer",
    "file_sentence_checksum",
    "hashed_blocks",
    "kernel",
    "paired_batches",
]

# Two paths give the same counts: raw UTF-8 buffers to the compiled kernel
# (cws_bench/_kernel.pyx), which validates, splits and counts without making
# strings; or decoded lines through count_sentence (normalised text, installs
# without the kernel). Lines whose characters differ always go through
# count_sentence's alignment.


MAX_EXAMPLES = 5
"""Differing lines a result keeps as examples, by default."""
_SENTENCES = COUNT_FIELDS.index("sentences")


@functools.lru_cache(maxsize=64)
def _unscored(row: tuple[int, ...]) -> SegCounts:
    """The counts of a line that scores nothing (an empty line), one object for each
    kind: a file of millions of empty lines would otherwise hold one object each."""
    return SegCounts(*row)


def _line_counts(row: tuple[int, ...]) -> SegCounts:
    """The :class:`SegCounts` of one line's row of counts (shared when it scores nothing)."""
    return SegCounts(*row) if row[_SENTENCES] else _unscored(row)


@dataclass(slots=True)
class Accumulator:
    """Mutable running totals of one scoring pass; ``method_counts`` are the counting
    method's own (None when the interval counts are its counts)."""

    totals: list[int]
    method_counts: AdditiveCounts | None
    mismatches: list[LineMismatch]
    mismatch_count: int = 0
    empty_gold_lines: list[int] = field(default_factory=list)
    lines: list[tuple[int, SegCounts]] | None = None

    def merge(self, other: Accumulator, max_examples: int, line_offset: int = 0) -> None:
        """Add the totals of the lines that follow (a shard, a merged metric) to these,
        ``line_offset`` added to the other's line numbers."""
        self.totals = list(map(int.__add__, self.totals, other.totals))
        if self.method_counts is not None and other.method_counts is not None:
            self.method_counts += other.method_counts
        self.mismatch_count += other.mismatch_count
        room = max(max_examples - len(self.mismatches), 0)
        self.mismatches.extend(
            LineMismatch(m.line + line_offset, m.gold, m.pred) for m in other.mismatches[:room]
        )
        self.empty_gold_lines.extend(line + line_offset for line in other.empty_gold_lines)
        if self.lines is not None and other.lines is not None:
            self.lines.extend((line + line_offset, counts) for line, counts in other.lines)


class Scorer:
    """One pass over paired lines; the logic shared by score_files and score_sentences."""

    def __init__(
        self,
        dictionary: Dictionary | None,
        *,
        method: str,
        strict: bool = False,
        per_line: bool = False,
        max_examples: int = MAX_EXAMPLES,
        normalizer: Normalizer | None = None,
    ) -> None:
        self.counter = get_method(method)
        self.dictionary = dictionary
        self.words = dictionary.words if dictionary is not None else None
        self.word_set = None  # the kernel looks words up in its own hash set, by their bytes
        if kernel is not None and dictionary is not None:
            self.word_set = dictionary.lookup_table
        self.method = method
        self.strict = strict
        self.max_examples = max_examples
        self.normalizer = normalizer
        # Byte-order marks the readers dropped from (gold, prediction) that the
        # method keeps on the first line (CountingMethod.byte_order_marks).
        self.byte_order_marks = ("", "")
        self.acc = Accumulator(
            totals=[0] * len(COUNT_FIELDS),
            method_counts=self.counter.zero(),
            mismatches=[],
            lines=[] if per_line else None,
        )
        self.line_no = 0
        # The first line pairs as read (before normalisation), whatever the source (a
        # file, a corpus, standard input): what the input checks look at.
        self.sample: list[tuple[str, str]] = []

    @property
    def per_line(self) -> bool:
        return self.acc.lines is not None

    def _keep_sample(self, gold_lines: Sequence[str], pred_lines: Sequence[str]) -> None:
        room = SAMPLE_LINES - len(self.sample)
        if room > 0:
            self.sample.extend(zip(gold_lines[:room], pred_lines[:room]))

    def input_warnings(self, gold_name: str, pred_name: str) -> list[str]:
        """The input checks' warnings on the first line pairs counted (a raw-text side, ...)."""
        gold, pred = zip(*self.sample) if self.sample else ((), ())
        return input_warnings(gold, pred, gold_name, pred_name)

    def add_counted(
        self,
        totals: Sequence[int],
        count: int,
        differ: Iterable[tuple[int, str, str]],
        empty_with_pred: Iterable[int],
        rows: list[tuple[int, ...] | None] | None,
    ) -> None:
        """Add a counted batch of ``count`` lines; lines that differ are counted here."""
        acc = self.acc
        acc.totals = list(map(int.__add__, acc.totals, totals))
        first = self.line_no + 1
        acc.empty_gold_lines.extend(first + index for index in empty_with_pred)
        for index, gold_line, pred_line in differ:
            acc.mismatch_count += 1
            if len(acc.mismatches) < self.max_examples:
                acc.mismatches.append(LineMismatch(first + index, gold_line, pred_line))
            counts = count_sentence(gold_line.split(), pred_line.split(), self.words)
            acc.totals = list(map(int.__add__, acc.totals, counts.astuple()))
            if rows is not None:
                rows[index] = counts.astuple()
        if rows is not None and acc.lines is not None:
            acc.lines.extend(
                (first + index, _line_counts(row))  # type: ignore[arg-type]
                for index, row in enumerate(rows)
            )
        self.line_no += count

    def add_lines(self, gold_lines: list[str], pred_lines: list[str]) -> None:
        """Count decoded line pairs (lines without their line end)."""
        first_batch = self.line_no == 0
        self._keep_sample(gold_lines, pred_lines)
        if self.normalizer is not None:
            gold_lines = list(map(self.normalizer, gold_lines))
            pred_lines = list(map(self.normalizer, pred_lines))
        if kernel is not None:
            # Each line ends in "\n", so an empty last line is still a line.
            gold = "".join(line + "\n" for line in gold_lines).encode("utf-8", "surrogatepass")
            pred = "".join(line + "\n" for line in pred_lines).encode("utf-8", "surrogatepass")
            totals, count, _, _, differ, empty, rows, bad = kernel.count_buffers(
                gold, 0, True, pred, 0, True, self.word_set, self.per_line
            )
            if bad is not None or count != len(gold_lines):  # pragma: no cover - lone surrogates
                totals, differ, empty, rows = self._count_lines_python(gold_lines, pred_lines)
            else:
                differ = [(i, gold_lines[i], pred_lines[i]) for i, *_ in differ]
        else:
            totals, differ, empty, rows = self._count_lines_python(gold_lines, pred_lines)
        self.add_counted(totals, len(gold_lines), differ, empty, rows)
        if self.acc.method_counts is not None:
            self._count_method(gold_lines, pred_lines, first_batch)

    def add_all(self, gold_lines: list[str], pred_lines: list[str]) -> None:
        """:meth:`add_lines` in batches of 4096 lines."""
        for start in range(0, len(gold_lines), 4096):
            self.add_lines(gold_lines[start : start + 4096], pred_lines[start : start + 4096])

    def _count_method(self, gold_lines: list[str], pred_lines: list[str], first: bool) -> None:
        """Add the method's own counts of decoded lines (the first batch with its marks)."""
        marks = self.byte_order_marks if first else ("", "")
        self.acc.method_counts += self.counter.count_lines(  # type: ignore[operator]
            gold_lines, pred_lines, self.words, marks
        )

    def _count_lines_python(
        self, gold_lines: list[str], pred_lines: list[str]
    ) -> tuple[list[int], list[tuple[int, str, str]], list[int], list | None]:
        """The pure-Python twin of the kernel's batch count."""
        totals = SegCounts()
        differ: list[tuple[int, str, str]] = []
        empty_with_pred: list[int] = []
        rows: list[tuple[int, ...] | None] | None = [] if self.per_line else None
        for index, (gold_line, pred_line) in enumerate(zip(gold_lines, pred_lines)):
            gold_words, pred_words = gold_line.split(), pred_line.split()
            if gold_words and "".join(gold_words) != "".join(pred_words):
                differ.append((index, gold_line, pred_line))
                if rows is not None:
                    rows.append(None)
                continue
            counts = count_sentence(gold_words, pred_words, self.words)
            if not gold_words and pred_words:
                empty_with_pred.append(index)
            totals += counts
            if rows is not None:
                rows.append(counts.astuple())
        return list(totals.astuple()), differ, empty_with_pred, rows

    def add_files(
        self,
        gold: PathLike,
        pred: PathLike,
        gold_encoding: str,
        pred_encoding: str,
        hasher: Hasher | None,
    ) -> tuple[list[str], list[str]]:
        """Count two files through the kernel's byte buffers; return the lines left over
        in the longer file, decoded."""
        sides = (ByteSource(gold, gold_encoding, hasher), ByteSource(pred, pred_encoding))
        gold_side, pred_side = sides
        # A method with counts of its own (sighan) counts the same bytes, if it can.
        own = self.acc.method_counts is not None
        buffers = self.counter.buffer_counter(self.words) if own else None
        while True:
            for side in sides:
                side.top_up()
            totals, count, gold_end, pred_end, differ, empty, rows, bad = kernel.count_buffers(
                gold_side.buffer,
                0,
                gold_side.eof,
                pred_side.buffer,
                0,
                pred_side.eof,
                self.word_set,
                self.per_line,
            )
            if bad is not None:
                side_index, offset = bad
                sides[side_index].raise_decoding_error(offset)
            decoded = [
                (index, gold_side.decode(g_from, g_to), pred_side.decode(p_from, p_to))
                for index, g_from, g_to, p_from, p_to in differ
            ]
            first_batch = self.line_no == 0
            if count and len(self.sample) < SAMPLE_LINES:
                self._keep_sample(gold_side.lines(gold_end), pred_side.lines(pred_end))
            self.add_counted(totals, count, decoded, empty, rows)
            if count and buffers is not None:
                self._count_buffers(buffers, gold_side, gold_end, pred_side, pred_end, first_batch)
            elif count and own:
                # Else the method gets the lines the kernel just counted, decoded once.
                self._count_method(
                    gold_side.lines(gold_end), pred_side.lines(pred_end), first_batch
                )
            gold_side.consume(gold_end, count)
            pred_side.consume(pred_end, count)
            if count == 0:
                if gold_side.eof and pred_side.eof:
                    break
                for side in sides:  # a line longer than the buffer: read more
                    side.top_up(force=True)
        if buffers is not None:
            self.acc.method_counts += buffers.counts()  # type: ignore[operator]
        # At the end of the files: the lines left in the buffers.
        return gold_side.lines(len(gold_side.buffer)), pred_side.lines(len(pred_side.buffer))

    def _count_buffers(
        self,
        buffers: BufferCounts,
        gold_side: ByteSource,
        gold_end: int,
        pred_side: ByteSource,
        pred_end: int,
        first_batch: bool,
    ) -> None:
        """Hand the lines the kernel just counted, as bytes, to the method's own counter,
        with the byte-order marks it keeps back on the files' first line."""
        gold_bytes, pred_bytes = gold_side.buffer, pred_side.buffer
        gold_start = pred_start = 0
        if first_batch and self.byte_order_marks != ("", ""):
            gold_start = _line_end(gold_bytes, gold_end)
            pred_start = _line_end(pred_bytes, pred_end)
            gold_mark, pred_mark = (mark.encode("utf-8") for mark in self.byte_order_marks)
            gold_first = gold_mark + gold_bytes[:gold_start]
            pred_first = pred_mark + pred_bytes[:pred_start]
            buffers.add(gold_first, 0, len(gold_first), pred_first, 0, len(pred_first))
        buffers.add(gold_bytes, gold_start, gold_end, pred_bytes, pred_start, pred_end)

    def add_rest(
        self,
        gold_rest: list[str],
        pred_rest: list[str],
        totals: tuple[int, int],
        names: tuple[str, str],
        *,
        allow_line_mismatch: bool,
    ) -> list[str]:
        """Deal with the lines past those both files have (blank ones at the end are not
        compared); return the warnings. Others raise :class:`LineCountMismatchError`
        unless ``allow_line_mismatch``: then extra predictions are ignored and missing
        ones scored as the counting method scores them."""
        gold_rest, pred_rest = _trim_blank_tail(gold_rest), _trim_blank_tail(pred_rest)
        if not (gold_rest or pred_rest):
            return []
        (total_gold, total_pred), (gold_name, pred_name) = totals, names
        if not allow_line_mismatch:
            raise LineCountMismatchError(gold_name, total_gold, pred_name, total_pred)
        if pred_rest:
            outcome = "extra prediction lines ignored"
        else:
            outcome = self.counter.missing_predictions_outcome(self.line_no, gold_rest)
        if gold_rest and self.counter.scores_missing_predictions:
            self.add_lines(gold_rest, [""] * len(gold_rest))
        return [
            f"{gold_name} has {plural(total_gold, 'line')} but {pred_name} has {total_pred}: "
            f"{outcome}"
        ]

    def _differing(self) -> str:
        count = self.acc.mismatch_count
        return f"{plural(count, 'line')} {'holds' if count == 1 else 'hold'} different characters"

    def check_strict(self, gold_name: str, pred_name: str) -> None:
        if self.strict and self.acc.mismatch_count:
            shown = "; ".join(f"line {m.line}" for m in self.acc.mismatches)
            raise TextMismatchError(
                f"{gold_name} and {pred_name}: {self._differing()} ({shown})",
                "the prediction must segment exactly the gold text; leave out {0} "
                "to score through a character alignment",
                fixes=(Fix("strict", True),),
            )

    def result(self, gold: str | None, warnings: list[str], *, beta: float) -> ScoreResult:
        """The result of the lines counted, signed with the gold's checksum ``gold``."""
        acc = self.acc
        signature = Signature(
            method=self.method,
            gold=gold,
            dictionary=self.dictionary.checksum if self.dictionary is not None else None,
            normalization=self.normalizer.name if self.normalizer is not None else "none",
            beta=beta,
        )
        if acc.mismatch_count:
            warnings.append(
                f"{self._differing()} in gold and prediction; {self.counter.mismatch_outcome()}"
            )
        if acc.empty_gold_lines:
            shown = ", ".join(map(str, acc.empty_gold_lines[: self.max_examples]))
            more = "" if len(acc.empty_gold_lines) <= self.max_examples else ", ..."
            warnings.append(
                f"{plural(len(acc.empty_gold_lines), 'empty gold line')} where the prediction "
                f"has words, skipped (line {shown}{more})"
            )
        counts = SegCounts(*acc.totals)
        if self.dictionary is not None:
            covers = coverage_warnings(counts.gold, counts.oov_gold, self.dictionary.name)
            if covers:
                # The warning travels with the numbers: a signature quoted without it is
                # not the signature of this result.
                warnings += covers
                signature = replace(signature, extra=(*signature.extra, ("warn", COVERS_GOLD)))
        return ScoreResult(
            counts=counts,
            has_dictionary=self.dictionary is not None,
            signature=signature,
            method=self.method,
            beta=signature.beta,
            # The method's own counts (today only the sighan method has some).
            sighan=cast("SighanCounts | None", acc.method_counts),
            mismatches=tuple(acc.mismatches),
            warnings=tuple(warnings),
            lines=tuple(acc.lines) if acc.lines is not None else None,
        )


def _line_end(data: bytes, end: int) -> int:
    """Where the first line of ``data[:end]`` ends, past its newline (``end`` without one)."""
    newline = data.find(b"\n", 0, end)
    return end if newline < 0 else newline + 1


def file_sentence_checksum(path: PathLike, encoding: str = "utf-8") -> str:
    """The sentence checksum of a plain segmented file, as ``score_files`` signs its gold
    (the same sentences give the same checksum in any encoding, with or without a BOM)."""
    digest = LineDigest()
    for _block in ByteSource(path, encoding, digest)._blocks:
        pass
    return digest.hexdigest()


class ByteSource:
    """A file read as UTF-8 byte blocks for the kernel, with its position for messages
    (other encodings are decoded line by line, which validates them, and re-encoded)."""

    def __init__(self, source: PathLike, encoding: str, hasher: Hasher | None = None) -> None:
        self.source = source
        self.encoding = normalize_encoding(encoding)
        self.buffer = b""
        self.eof = False
        self.offset = 0  # file offset of buffer[0] (raw UTF-8 files)
        self.line = 0  # lines before buffer[0]
        self._blocks = self._read(hasher)

    def _read(self, hasher: Hasher | None) -> Iterator[bytes]:
        if self.encoding != "utf-8":
            for lines in iter_line_blocks(self.source, encoding=self.encoding):
                block = ("\n".join(lines) + "\n").encode("utf-8")
                if hasher is not None:
                    hasher.update(block)
                yield block
            return
        bom = codecs.BOM_UTF8
        with open_binary(self.source) as f:
            head = b""
            while len(head) < len(bom) and (block := f.read(BLOCK_SIZE)):
                head += block
            if head.startswith(bom):
                head = head[len(bom) :]
                self.offset = len(bom)
            if hasher is not None:
                hasher.update(head)
            if head:
                yield head
            while block := f.read(BLOCK_SIZE):
                if hasher is not None:
                    hasher.update(block)
                yield block

    def top_up(self, *, force: bool = False) -> None:
        """Read a block if the buffer is short (or always, with force), unless at EOF."""
        if self.eof or (len(self.buffer) >= BLOCK_SIZE and not force):
            return
        block = next(self._blocks, None)
        if block is None:
            self.eof = True
        else:
            self.buffer = self.buffer + block if self.buffer else block

    def consume(self, end: int, lines: int) -> None:
        self.buffer = self.buffer[end:]
        self.offset += end
        self.line += lines

    def decode(self, start: int, end: int) -> str:
        try:
            return self.buffer[start:end].decode("utf-8")
        except UnicodeDecodeError as e:
            self.raise_decoding_error(start + e.start)
            raise  # pragma: no cover - raise_decoding_error raises

    def raise_decoding_error(self, position: int) -> None:
        line = self.line + self.buffer.count(b"\n", 0, position) + 1
        raise decoding_error(self.source, "utf-8", line, self.offset + position)

    def lines(self, end: int) -> list[str]:
        """The lines in ``buffer[:end]`` (whole lines, as the kernel cut them), decoded,
        a carriage return kept (the methods drop it themselves, as ``split`` does)."""
        text = self.decode(0, end)
        lines = text.split("\n")
        if not text or text.endswith("\n"):
            lines.pop()
        return lines


def paired_batches(
    gold_blocks: Iterator[list[str]], pred_blocks: Iterator[list[str]]
) -> Iterator[tuple[list[str], list[str], list[str], list[str]]]:
    """Re-cut two streams of line blocks into (gold, pred, [], []) of equal length; last,
    ([], [], gold_rest, pred_rest) with the lines left over in the longer stream."""
    gold_buf: list[str] | None = []
    pred_buf: list[str] | None = []
    while True:
        if not gold_buf:
            gold_buf = next(gold_blocks, None)
        if not pred_buf:
            pred_buf = next(pred_blocks, None)
        if gold_buf is None or pred_buf is None:
            break
        n = min(len(gold_buf), len(pred_buf))
        yield gold_buf[:n], pred_buf[:n], [], []
        gold_buf, pred_buf = gold_buf[n:], pred_buf[n:]
    gold_rest = (gold_buf or []) + [line for block in gold_blocks for line in block]
    pred_rest = (pred_buf or []) + [line for block in pred_blocks for line in block]
    if gold_rest or pred_rest:
        yield [], [], gold_rest, pred_rest


def _trim_blank_tail(lines: list[str]) -> list[str]:
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def hashed_blocks(blocks: Iterable[list[str]], digest: Hasher) -> Iterator[list[str]]:
    """Blocks of lines, each line added to a sentence digest as it passes."""
    for lines in blocks:
        block = "\n".join(lines) + "\n" if lines else ""
        digest.update(block.encode("utf-8", "surrogateescape"))
        yield lines

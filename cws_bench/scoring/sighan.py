"""The official SIGHAN bakeoff scorer's counting, and its summary block.

The ``score`` script of the SIGHAN bakeoffs (Richard Sproat and Tom Emerson,
shipped with icwb2-data) writes a line's gold ("truth") and predicted ("test")
words one a line to two files, runs GNU ``diff -y`` on them and reads diff's
side-by-side output: ``|`` is a substitution, ``>`` an insertion, ``<`` a
deletion; a gold word on a marked line is missed (recall), a predicted word on
one is wrong (precision). A word diff leaves unchanged is correct wherever it
is, so this is not interval counting: gold ``哈 哈哈`` against ``哈哈 哈``
shares ``哈哈``, correct although no predicted word covers a gold word's
characters.

Which words diff leaves unchanged depends on GNU diff's choices among minimal
(and, after its pre-pass, not quite minimal) edit scripts, so
:func:`diff_words` follows GNU diffutils line for line:

1. The common prefix, then the common suffix, are unchanged (``find_identical_ends``).
2. In the rest, a word found nowhere in the other list is discarded, and one
   with more than ``5·2^k`` matches there (``k`` grows with the square root of
   the length) is provisionally discarded inside a run of discarded words
   (``discard_confusing_lines``).
3. The remaining words are compared by Myers' O(ND) algorithm with gnulib's
   middle snake (``diag``, ``compareseq`` in ``diffseq.h``): diagonals from the
   highest down, no ``--speed-large-files``, ``TOO_EXPENSIVE`` at 4096 steps.
4. Runs of changes slide over equal words to merge with neighbours
   (``shift_boundaries``).
5. Each run between two unchanged pairs is a hunk of ``d`` deleted and ``i``
   inserted words: ``min(d, i)`` lines ``|``, the rest ``<`` or ``>``.

``tests/test_sighan.py`` checks this against ``/usr/bin/diff -y`` on random
word lists and on predictions for the four SIGHAN 2005 test sets.

Where the script misreads diff's output, cws-bench counts what diff computed.
On the SIGHAN 2005 test sets only CityU's byte-order mark changes a count (the
sighan method keeps it, see below); AS's three gold words of 61 columns or
more changed no count in the predictions tried; the rest do not occur:

- A word that is exactly ``|``, ``<`` or ``>`` is taken for diff's marker:
  left unchanged, it counts as a change and its gold word as missed.
- A line starting with U+3000 gets a phantom empty first word (the script
  trims ASCII whitespace before turning U+3000 into a space); cws-bench drops
  empty words.
- The script looks a gold word up in the dictionary as diff printed it, cut at
  61 columns (a CJK character takes two in a UTF-8 locale); cws-bench looks up
  the whole word.
- A gold word of 61 columns or more fills diff's left half, so on a changed
  line one space separates it from the marker, and the script's test for a
  missed word, ``^[^\\s]+\\s.*\\s[|><]\\s``, which needs two, counts it as
  recalled (the line still counts as a change); cws-bench counts it missed.
- The script turns the bytes A1 40 (U+3000 in Big5) into a space in every
  encoding, so UTF-8 ``乡@`` (E4 B9 A1 40) is cut in two; cws-bench decodes
  first and keeps it whole. It replaces only the UTF-8 and Big5 bytes of
  U+3000; cws-bench splits at U+3000 in every encoding (GB18030 included).
- A byte-order mark stays glued to the first word of a file in the script;
  cws-bench's readers drop it (cityu_test_gold.utf8 starts with one: against
  a prediction without it the script counts one more substitution), but
  :func:`count_sighan_line` keeps a U+FEFF it is given inside the word.

Without a dictionary the script would count every gold word OOV; cws-bench
reports the OOV figures as absent (``--``). With one, a rate with nothing to
count is undefined, as in the script: OOV recall without OOV gold words (``--``
in the summary, None in :meth:`SighanCounts.scores`), likewise IV recall and
the OOV rate.

Where the script stops with "Illegal division by zero" cws-bench scores: an
empty prediction line against a non-empty gold line (its gold words count as
deletions) and no correct word at all (F = 0, ``0.000`` in the summary block).

With files of different lengths the script reads them only while both have a
line: ``score_files(..., method="sighan", allow_line_mismatch=True)`` does the
same, while the interval method counts the gold lines past the prediction's
end as empty predictions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import NamedTuple

from cws_bench.scoring.counts import AdditiveCounts
from cws_bench.scoring.scores import SegScores, word_scores

try:
    from cws_bench import _sighan
except ImportError:  # pragma: no cover - the package was installed without a compiler
    _sighan = None

__all__ = [
    "BufferCounts",
    "Hunk",
    "SighanCounts",
    "count_sighan_line",
    "count_sighan_lines",
    "count_words",
    "diff_words",
    "format_sighan_summary",
    "split_sighan_line",
]

# Perl's \s on the script's byte strings: ASCII whitespace only (U+00A0, U+2003,
# ... stay inside words). The script turns U+3000 (UTF-8 E3 80 80, Big5 A1 40)
# into a space and deletes carriage returns before splitting.
_SEPARATORS = re.compile(r"[ \t\n\x0b\f\r]+")


def split_sighan_line(line: str) -> list[str]:
    """Split one decoded line into words the way the SIGHAN script does.

    Words are separated by runs of ASCII whitespace or U+3000; a carriage
    return inside a word is deleted (the script removes every CR), and other
    Unicode spaces are part of a word.

    >>> split_sighan_line("  结婚\\u3000的 和\\r\\n")
    ['结婚', '的', '和']
    >>> split_sighan_line("a\\u00a0b c\\rd")
    ['a\\xa0b', 'cd']
    """
    return [
        word for word in _SEPARATORS.split(line.replace("\u3000", " ").replace("\r", "")) if word
    ]


# ---------------------------------------------------------------------------
# GNU diff's comparison of two sequences (diffutils src/analyze.c, src/io.c,
# gnulib lib/diffseq.h), on sequences of equivalence-class numbers.

_OFFSET_MAX = 1 << 62
_MIN_TOO_EXPENSIVE = 4096  # analyze.c: bounded below by 4096 (Bug#16848, Bug#24715)


class Hunk(NamedTuple):
    """One run of changes: gold words ``[gold_start, gold_end)`` were replaced by
    predicted words ``[pred_start, pred_end)`` (either range may be empty)."""

    gold_start: int
    gold_end: int
    pred_start: int
    pred_end: int


def _floor_log2(n: int) -> int:
    return n.bit_length() - 1


def _discard_confusing_lines(
    xs: Sequence[int], ys: Sequence[int], classes: int
) -> tuple[list[int], list[int]]:
    """GNU diff's discard pass: 0 keep, nonzero discard, for each element of xs and ys."""
    counts = ([0] * classes, [0] * classes)
    for vector, count in ((xs, counts[0]), (ys, counts[1])):
        for value in vector:
            count[value] += 1
    result = []
    for f, vector in enumerate((xs, ys)):
        other = counts[1 - f]
        end = len(vector)
        many = 5 << (0 if end < 64 else (_floor_log2(end) >> 1) - 3)
        discards = [0] * end
        for i, value in enumerate(vector):
            matches = other[value]
            if matches == 0:
                discards[i] = 1
            elif matches > many:
                discards[i] = 2
        _settle_provisional(discards)
        result.append(discards)
    return result[0], result[1]


def _settle_provisional(discards: list[int]) -> None:
    """Keep provisional discards (2) only inside runs of real ones (1), as GNU diff does."""
    end = len(discards)
    i = 0
    while i < end:
        if discards[i] == 2:
            discards[i] = 0
        elif discards[i] != 0:
            provisional = 0
            j = i
            while j < end and discards[j] != 0:
                provisional += discards[j] == 2
                j += 1
            while j > i and discards[j - 1] == 2:
                j -= 1
                discards[j] = 0
                provisional -= 1
            length = j - i
            if length >> 2 < provisional:
                # A quarter of the run is provisional: keep all of those lines.
                while j > i:
                    j -= 1
                    if discards[j] == 2:
                        discards[j] = 0
            else:
                minimum = 2 if length < 4 else (1 << ((_floor_log2(length) >> 1) - 1)) + 1
                # Cancel any subrun of MINIMUM or more provisionals in the run.
                consec = 0
                j = 0
                while j < length:
                    if discards[i + j] != 2:
                        consec = 0
                    else:
                        consec += 1
                        if consec == minimum:
                            j -= consec  # back up to the start of the subrun
                        elif consec > minimum:
                            discards[i + j] = 0
                    j += 1
                # From each end, cancel provisionals until three real discards
                # in a row, or a real one at least 8 lines in.
                for step, first in ((1, i), (-1, i + length - 1)):
                    consec = 0
                    for j in range(length):
                        at = first + step * j
                        if j >= 8 and discards[at] == 1:
                            break
                        if discards[at] == 2:
                            consec = 0
                            discards[at] = 0
                        elif discards[at] == 0:
                            consec = 0
                        else:
                            consec += 1
                        if consec == 3:
                            break
                i += length - 1
        i += 1


class _Search:
    """The forward and backward diagonal vectors of one comparison, with diffseq.h's names."""

    def __init__(self, xv: Sequence[int], yv: Sequence[int]) -> None:
        self.xv = xv
        self.yv = yv
        diags = len(xv) + len(yv) + 3
        self.offset = len(yv) + 1  # diagonals run from -len(yv) - 1 to len(xv) + 1
        self.fd = [0] * diags
        self.bd = [0] * diags
        self.too_expensive = max(_MIN_TOO_EXPENSIVE, 1 << ((_floor_log2(diags) >> 1) + 1))

    def diag(
        self, xoff: int, xlim: int, yoff: int, ylim: int, find_minimal: bool
    ) -> tuple[int, int, bool, bool]:
        """(xmid, ymid, lo_minimal, hi_minimal): the midpoint of a shortest edit script of
        xv[xoff:xlim] and yv[yoff:ylim], as gnulib's ``diag``."""
        xv, yv, fd, bd, k = self.xv, self.yv, self.fd, self.bd, self.offset
        dmin, dmax = xoff - ylim, xlim - yoff
        fmid, bmid = xoff - yoff, xlim - ylim
        fmin = fmax = fmid
        bmin = bmax = bmid
        odd = (fmid - bmid) & 1
        fd[fmid + k] = xoff
        bd[bmid + k] = xlim
        cost = 1
        while True:
            # Extend the top-down search by an edit step in each diagonal.
            if fmin > dmin:
                fmin -= 1
                fd[fmin - 1 + k] = -1
            else:
                fmin += 1
            if fmax < dmax:
                fmax += 1
                fd[fmax + 1 + k] = -1
            else:
                fmax -= 1
            for d in range(fmax, fmin - 1, -2):
                low, high = fd[d - 1 + k], fd[d + 1 + k]
                x = high if low < high else low + 1
                y = x - d
                while x < xlim and y < ylim and xv[x] == yv[y]:
                    x += 1
                    y += 1
                fd[d + k] = x
                if odd and bmin <= d <= bmax and bd[d + k] <= x:
                    return x, y, True, True
            # Similarly extend the bottom-up search.
            if bmin > dmin:
                bmin -= 1
                bd[bmin - 1 + k] = _OFFSET_MAX
            else:
                bmin += 1
            if bmax < dmax:
                bmax += 1
                bd[bmax + 1 + k] = _OFFSET_MAX
            else:
                bmax -= 1
            for d in range(bmax, bmin - 1, -2):
                low, high = bd[d - 1 + k], bd[d + 1 + k]
                x = low if low < high else high - 1
                y = x - d
                while xoff < x and yoff < y and xv[x - 1] == yv[y - 1]:
                    x -= 1
                    y -= 1
                bd[d + k] = x
                if not odd and fmin <= d <= fmax and x <= fd[d + k]:
                    return x, y, True, True
            if not find_minimal and cost >= self.too_expensive:
                return self._give_up(xoff, xlim, yoff, ylim, fmin, fmax, bmin, bmax)
            cost += 1

    def _give_up(
        self, xoff: int, xlim: int, yoff: int, ylim: int, fmin: int, fmax: int, bmin: int, bmax: int
    ) -> tuple[int, int, bool, bool]:
        """The TOO_EXPENSIVE heuristic: halfway between the best results so far."""
        fd, bd, k = self.fd, self.bd, self.offset
        fxybest, fxbest = -1, 0
        for d in range(fmax, fmin - 1, -2):
            x = min(fd[d + k], xlim)
            y = x - d
            if ylim < y:
                x, y = ylim + d, ylim
            if fxybest < x + y:
                fxybest, fxbest = x + y, x
        bxybest, bxbest = _OFFSET_MAX, 0
        for d in range(bmax, bmin - 1, -2):
            x = max(xoff, bd[d + k])
            y = x - d
            if y < yoff:
                x, y = yoff + d, yoff
            if x + y < bxybest:
                bxybest, bxbest = x + y, x
        if (xlim + ylim) - bxybest < fxybest - (xoff + yoff):
            return fxbest, fxybest - fxbest, True, False
        return bxbest, bxybest - bxbest, False, True

    def compare(self) -> tuple[list[bool], list[bool]]:
        """Which elements of xv and yv are deleted / inserted (``compareseq``)."""
        xv, yv = self.xv, self.yv
        deleted = [False] * len(xv)
        inserted = [False] * len(yv)
        # Depth first, low half before high half, as the recursive original.
        stack = [(0, len(xv), 0, len(yv), False)]
        while stack:
            xoff, xlim, yoff, ylim, find_minimal = stack.pop()
            while xoff < xlim and yoff < ylim and xv[xoff] == yv[yoff]:
                xoff += 1
                yoff += 1
            while xoff < xlim and yoff < ylim and xv[xlim - 1] == yv[ylim - 1]:
                xlim -= 1
                ylim -= 1
            if xoff == xlim:
                inserted[yoff:ylim] = [True] * (ylim - yoff)
            elif yoff == ylim:
                deleted[xoff:xlim] = [True] * (xlim - xoff)
            else:
                xmid, ymid, lo_minimal, hi_minimal = self.diag(xoff, xlim, yoff, ylim, find_minimal)
                stack.append((xmid, xlim, ymid, ylim, hi_minimal))
                stack.append((xoff, xmid, yoff, ymid, lo_minimal))
        return deleted, inserted


def _shift_boundaries(
    changed: tuple[list[bool], list[bool]], equivs: tuple[Sequence[int], Sequence[int]]
) -> None:
    """Slide runs of changes over equal elements to merge them (analyze.c).

    ``changed`` holds each side's flags padded with one False before and
    after (so index ``i`` of the C code is ``i + 1`` here).
    """
    for f in (0, 1):
        flags, other, classes = changed[f], changed[1 - f], equivs[f]
        i_end = len(classes)
        i = j = 0
        while True:
            # Scan forwards to the next run of changes, tracking the other side.
            while i < i_end and not flags[i + 1]:
                while other[j + 1]:
                    j += 1
                j += 1
                i += 1
            if i == i_end:
                break
            start = i
            i += 1
            while flags[i + 1]:
                i += 1
            while other[j + 1]:
                j += 1
            while True:
                runlength = i - start
                # Move the run back while the previous unchanged element
                # equals its last one: this merges with earlier runs.
                while start and classes[start - 1] == classes[i - 1]:
                    start -= 1
                    flags[start + 1] = True
                    i -= 1
                    flags[i + 1] = False
                    while flags[start]:
                        start -= 1
                    j -= 1
                    while other[j + 1]:
                        j -= 1
                # The end of the run where it last lines up with a run of
                # changes in the other side (i_end: nowhere).
                corresponding = i if other[j] else i_end
                # Move the run forward while its first element equals the next
                # unchanged one: this merges with later runs.
                while i != i_end and classes[start] == classes[i]:
                    flags[start + 1] = False
                    start += 1
                    flags[i + 1] = True
                    i += 1
                    while flags[i + 1]:
                        i += 1
                    j += 1
                    while other[j + 1]:
                        corresponding = i
                        j += 1
                if runlength == i - start:
                    break
            # Move the fully merged run back to line up with the other side's.
            while corresponding < i:
                start -= 1
                flags[start + 1] = True
                i -= 1
                flags[i + 1] = False
                j -= 1
                while other[j + 1]:
                    j -= 1


def diff_words(gold: Sequence[Hashable], pred: Sequence[Hashable]) -> tuple[Hunk, ...]:
    """The hunks GNU ``diff`` finds between two files holding these lines: the same
    edit script among equally short ones, as GNU diffutils chooses (module docstring).

    >>> [tuple(hunk) for hunk in diff_words(["哈", "哈哈"], ["哈哈", "哈"])]
    [(0, 1, 0, 0), (2, 2, 1, 2)]
    >>> diff_words(["a", "b", "c"], ["a", "x", "c"])
    (Hunk(gold_start=1, gold_end=2, pred_start=1, pred_end=2),)
    """
    n0, n1 = len(gold), len(pred)
    # find_identical_ends: the common prefix, then the common suffix of the rest.
    prefix = 0
    while prefix < n0 and prefix < n1 and gold[prefix] == pred[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < n0 - prefix
        and suffix < n1 - prefix
        and gold[n0 - 1 - suffix] == pred[n1 - 1 - suffix]
    ):
        suffix += 1
    if prefix + suffix == n0 == n1:
        return ()
    # Equivalence classes of the remaining lines, numbered from 0.
    numbers: dict[Hashable, int] = {}
    xs = [numbers.setdefault(w, len(numbers)) for w in gold[prefix : n0 - suffix]]
    ys = [numbers.setdefault(w, len(numbers)) for w in pred[prefix : n1 - suffix]]
    discards = _discard_confusing_lines(xs, ys, len(numbers))
    kept = tuple([i for i, flag in enumerate(d) if not flag] for d in discards)
    search = _Search([xs[i] for i in kept[0]], [ys[i] for i in kept[1]])
    deleted, inserted = search.compare()
    changed = (
        [False, *(flag != 0 for flag in discards[0]), False],
        [False, *(flag != 0 for flag in discards[1]), False],
    )
    for flags, real, marks in ((changed[0], kept[0], deleted), (changed[1], kept[1], inserted)):
        for index, mark in zip(real, marks):
            if mark:
                flags[index + 1] = True
    _shift_boundaries(changed, (xs, ys))
    # build_script: maximal runs of changes between unchanged pairs.
    hunks = []
    flags0, flags1 = changed
    i0 = i1 = 0
    len0, len1 = len(xs), len(ys)
    while i0 < len0 or i1 < len1:
        if flags0[i0 + 1] or flags1[i1 + 1]:
            start0, start1 = i0, i1
            while flags0[i0 + 1]:
                i0 += 1
            while flags1[i1 + 1]:
                i1 += 1
            hunks.append(Hunk(prefix + start0, prefix + i0, prefix + start1, prefix + i1))
        i0 += 1
        i1 += 1
    return tuple(hunks)


# ---------------------------------------------------------------------------
# Counts and scores


@dataclass(frozen=True, slots=True)
class SighanCounts(AdditiveCounts):
    """Additive counts of the SIGHAN script: ``sum(per_line, SighanCounts())``.

    Attributes:
        truth_words, test_words: gold and predicted words (TRUE / TEST WORD COUNT).
        matched: words diff leaves unchanged (the numerator of recall and precision).
        insertions, deletions, substitutions: lines diff marks ``>``, ``<``, ``|``.
        oov: gold words not in the dictionary (0 without one).
        oov_missed, iv_missed: gold words on a changed line, out of / in the dictionary.
    """

    truth_words: int = 0
    test_words: int = 0
    matched: int = 0
    insertions: int = 0
    deletions: int = 0
    substitutions: int = 0
    oov: int = 0
    oov_missed: int = 0
    iv_missed: int = 0

    @property
    def changes(self) -> int:
        """Insertions + deletions + substitutions (the script's NCHANGE)."""
        return self.insertions + self.deletions + self.substitutions

    def scores(self, *, has_dictionary: bool, beta: float = 1.0) -> SegScores:
        """Scores as fractions in [0, 1]; OOV figures None without a dictionary.

        A zero denominator gives 0.0 for P, R and F, and None (undefined) for
        the OOV rate, OOV recall and IV recall. Boundary figures are 0.0: the script has
        none (``ScoreResult`` fills them in from interval counts).

        >>> s = SighanCounts(truth_words=4, test_words=5, matched=3).scores(has_dictionary=False)
        >>> s.recall, s.precision, s.f1
        (0.75, 0.6, 0.6666666666666666)
        """
        oov: tuple[float | None, float | None, float | None] = (None, None, None)
        if has_dictionary:
            iv = self.truth_words - self.oov
            # Undefined rates are None, as the script prints "--" for them.
            oov = (
                self.oov / self.truth_words if self.truth_words else None,
                1 - self.oov_missed / self.oov if self.oov else None,
                1 - self.iv_missed / iv if iv else None,
            )
        return word_scores(self.matched, self.test_words, self.truth_words, beta=beta, oov=oov)


def count_words(
    truth: Sequence[str], test: Sequence[str], words: Collection[str] | None = None
) -> SighanCounts:
    """Count one line's gold (truth) and predicted (test) words as the script does;
    ``words`` is the dictionary of the OOV/IV counts, or None.

    >>> c = count_words(["结婚", "的", "和", "尚未"], ["结婚", "的", "和尚", "未"], {"的", "和"})
    >>> (c.matched, c.substitutions, c.insertions, c.deletions, c.oov, c.oov_missed, c.iv_missed)
    (2, 2, 0, 0, 2, 1, 1)
    """
    if not truth:
        return SighanCounts()
    hunks = diff_words(truth, test)
    insertions = deletions = substitutions = 0
    missed = [False] * len(truth)
    for hunk in hunks:
        deleted = hunk.gold_end - hunk.gold_start
        inserted = hunk.pred_end - hunk.pred_start
        substituted = min(deleted, inserted)
        substitutions += substituted
        deletions += deleted - substituted
        insertions += inserted - substituted
        missed[hunk.gold_start : hunk.gold_end] = [True] * deleted
    oov = oov_missed = iv_missed = 0
    if words is not None:
        for word, lost in zip(truth, missed):
            if word in words:
                iv_missed += lost
            else:
                oov += 1
                oov_missed += lost
    return SighanCounts(
        truth_words=len(truth),
        test_words=len(test),
        matched=len(truth) - sum(missed),
        insertions=insertions,
        deletions=deletions,
        substitutions=substitutions,
        oov=oov,
        oov_missed=oov_missed,
        iv_missed=iv_missed,
    )


def count_sighan_line(
    gold_line: str, pred_line: str, words: Collection[str] | None = None
) -> SighanCounts:
    """Count one pair of raw lines (gold, prediction) as the SIGHAN script does.

    Lines are split by :func:`split_sighan_line`; an empty gold line counts
    nothing (the script skips it).

    >>> count_sighan_line("哈 哈哈\\r", "哈哈\\u3000哈").matched
    1
    """
    return count_words(split_sighan_line(gold_line), split_sighan_line(pred_line), words)


def count_sighan_lines(
    gold_lines: Sequence[str], pred_lines: Sequence[str], words: Collection[str] | None = None
) -> SighanCounts:
    """The sum of :func:`count_sighan_line` over paired lines, by the compiled twin of
    this module (``cws_bench/_sighan.pyx``) when it is built (same numbers).

    >>> count_sighan_lines(["哈 哈哈", "我们 是"], ["哈哈 哈", "我们 是"]).matched
    3
    """
    if _sighan is not None:
        return SighanCounts(*_sighan.count_lines(gold_lines, pred_lines, words))
    return sum(map(count_sighan_line, gold_lines, pred_lines, repeat(words)), SighanCounts())


class BufferCounts:
    """:func:`count_sighan_lines` of lines given as UTF-8 bytes, summed over calls.

    Counts the bytes the scorer's kernel reads, without decoding them
    (``BufferCounter`` in ``cws_bench/_sighan.pyx``). Make one with :meth:`create`
    (None when the compiled module is not built: then count decoded lines).

    >>> gold, pred = ["哈 哈哈", "我们 是"], ["哈哈 哈", "我们 是"]
    >>> gold_bytes, pred_bytes = ("\\n".join(lines).encode() for lines in (gold, pred))
    >>> counter = BufferCounts.create({"我们"})
    >>> counter.add(gold_bytes, 0, len(gold_bytes), pred_bytes, 0, len(pred_bytes))
    >>> counter.counts() == count_sighan_lines(gold, pred, {"我们"})
    True
    """

    def __init__(self, compiled: object) -> None:
        self._compiled = compiled

    @classmethod
    def create(cls, words: Collection[str] | None) -> BufferCounts | None:
        """A counter with ``words`` as dictionary, or None without the compiled module."""
        return cls(_sighan.BufferCounter(words)) if _sighan is not None else None

    def add(
        self,
        gold: bytes,
        gold_start: int,
        gold_end: int,
        pred: bytes,
        pred_start: int,
        pred_end: int,
    ) -> None:
        """Count the line pairs of ``gold[gold_start:gold_end]`` and ``pred[pred_start:pred_end]``
        (as many lines in each, of valid UTF-8)."""
        self._compiled.add(gold, gold_start, gold_end, pred, pred_start, pred_end)  # type: ignore[attr-defined]

    def counts(self) -> SighanCounts:
        """The counts of every line pair added so far."""
        return SighanCounts(*self._compiled.totals)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------
# The summary block


def _fixed(value: float | None) -> str:
    # The script prints with "%2.3f" and "--" where a rate is undefined.
    return "--" if value is None else f"{value:2.3f}"


def format_sighan_summary(counts: SighanCounts, pred_name: str, *, has_dictionary: bool) -> str:
    """The summary block the SIGHAN script prints at its end (without a final newline).

    ``pred_name`` is shown on the ``###`` line as the script shows its third
    argument (an absolute path loses its folders: ``s=^/.*/==``). F is computed
    from the unrounded P and R. Undefined rates print as ``--``.

    >>> counts = SighanCounts(truth_words=13, test_words=10, matched=6, insertions=0,
    ...                       deletions=3, substitutions=4, oov=3, oov_missed=2, iv_missed=5)
    >>> print(format_sighan_summary(counts, "/tmp/out/pred.txt", has_dictionary=True))
    ... # doctest: +NORMALIZE_WHITESPACE, +ELLIPSIS
    === SUMMARY:
    === TOTAL INSERTIONS:    0
    === TOTAL DELETIONS:    3
    === TOTAL SUBSTITUTIONS:    4
    === TOTAL NCHANGE:    7
    === TOTAL TRUE WORD COUNT:    13
    === TOTAL TEST WORD COUNT:    10
    === TOTAL TRUE WORDS RECALL:    0.462
    === TOTAL TEST WORDS PRECISION:    0.600
    === F MEASURE:    0.522
    === OOV Rate:    0.231
    === OOV Recall Rate:    0.333
    === IV Recall Rate:    0.500
    ###    pred.txt    0    3    4    7    13    10    0.462    0.600    0.522    0.231 ...
    """
    name = re.sub(r"^/.*/", "", os.fspath(pred_name))
    recall = counts.matched / counts.truth_words if counts.truth_words else None
    precision = counts.matched / counts.test_words if counts.test_words else None
    fmeasure = None
    if recall is not None and precision is not None:
        # (1 + beta)·P·R / (beta·P + R) with beta = 1, from the unrounded P and R.
        fmeasure = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    dictionary = counts.scores(has_dictionary=has_dictionary)  # OOV figures: None without
    numbers = [
        ("TOTAL INSERTIONS", str(counts.insertions)),
        ("TOTAL DELETIONS", str(counts.deletions)),
        ("TOTAL SUBSTITUTIONS", str(counts.substitutions)),
        ("TOTAL NCHANGE", str(counts.changes)),
        ("TOTAL TRUE WORD COUNT", str(counts.truth_words)),
        ("TOTAL TEST WORD COUNT", str(counts.test_words)),
        ("TOTAL TRUE WORDS RECALL", _fixed(recall)),
        ("TOTAL TEST WORDS PRECISION", _fixed(precision)),
        ("F MEASURE", _fixed(fmeasure)),
        ("OOV Rate", _fixed(dictionary.oov_rate)),
        ("OOV Recall Rate", _fixed(dictionary.oov_recall)),
        ("IV Recall Rate", _fixed(dictionary.iv_recall)),
    ]
    lines = ["=== SUMMARY:"]
    lines += [f"=== {label}:\t{value}" for label, value in numbers]
    lines.append("\t".join(["###", name, *(value for _, value in numbers)]))
    return "\n".join(lines)

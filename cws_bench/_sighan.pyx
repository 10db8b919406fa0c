# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled twin of ``cws_bench.sighan``'s counting: GNU diff's algorithm on C arrays.

``count_lines`` counts line pairs exactly as ``sighan.count_sighan_line``
does, summed: each line is split as the script splits it, its words are
numbered by equivalence class, and the class numbers go through the same
steps as ``sighan.diff_words`` (identical ends, the discard pass, Myers'
middle snake with the ``TOO_EXPENSIVE`` cut-off, boundary shifting), each
function below a line-for-line port of its Python twin, which itself follows
GNU diffutils (``src/analyze.c``) and gnulib (``lib/diffseq.h``).
``diff_hunks`` exposes the hunks for the tests, which check both against the
Python code on random input and against ``/usr/bin/diff -y`` on the real
corpora (``tests/test_sighan.py``).
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport uint64_t
from libc.string cimport memchr, memcmp, memcpy, memset

ctypedef Py_ssize_t idx

cdef enum:
    MIN_TOO_EXPENSIVE = 4096

cdef idx OFFSET_MAX = (<idx>1) << 62

# Field order of cws_bench.sighan.SighanCounts.
cdef enum:
    N_FIELDS = 9
    TRUTH_WORDS = 0
    TEST_WORDS = 1
    MATCHED = 2
    INSERTIONS = 3
    DELETIONS = 4
    SUBSTITUTIONS = 5
    OOV = 6
    OOV_MISSED = 7
    IV_MISSED = 8

FIELD_COUNT = N_FIELDS


cdef void *_alloc(size_t size) except NULL:
    cdef void *p = PyMem_Malloc(size if size else 1)
    if p == NULL:
        raise MemoryError()
    return p


cdef void *_grow(void *p, size_t size) except NULL:
    cdef void *q = PyMem_Realloc(p, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef inline int _floor_log2(idx n) noexcept nogil:
    cdef int r = -1
    while n:
        n >>= 1
        r += 1
    return r


# ---------------------------------------------------------------------------
# The discard pass (sighan._discard_confusing_lines, sighan._settle_provisional)


cdef void _settle_provisional(char *discards, idx end) noexcept nogil:
    cdef idx i = 0, j, length, provisional, consec, minimum, at, step, first
    cdef int side
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
                while j > i:
                    j -= 1
                    if discards[j] == 2:
                        discards[j] = 0
            else:
                if length < 4:
                    minimum = 2
                else:
                    minimum = ((<idx>1) << ((_floor_log2(length) >> 1) - 1)) + 1
                consec = 0
                j = 0
                while j < length:
                    if discards[i + j] != 2:
                        consec = 0
                    else:
                        consec += 1
                        if consec == minimum:
                            j -= consec
                        elif consec > minimum:
                            discards[i + j] = 0
                    j += 1
                for side in range(2):
                    if side == 0:
                        step = 1
                        first = i
                    else:
                        step = -1
                        first = i + length - 1
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


cdef void _discard(
    const idx *xs, idx n0, const idx *ys, idx n1, idx classes,
    idx *count0, idx *count1, char *discards0, char *discards1,
) noexcept nogil:
    cdef idx i, end, many, matches
    cdef int f
    cdef const idx *vector
    cdef idx *other
    cdef char *discards
    memset(count0, 0, classes * sizeof(idx))
    memset(count1, 0, classes * sizeof(idx))
    for i in range(n0):
        count0[xs[i]] += 1
    for i in range(n1):
        count1[ys[i]] += 1
    for f in range(2):
        if f == 0:
            vector, other, discards, end = xs, count1, discards0, n0
        else:
            vector, other, discards, end = ys, count0, discards1, n1
        if end < 64:
            many = 5
        else:
            many = 5 << ((_floor_log2(end) >> 1) - 3)
        for i in range(end):
            matches = other[vector[i]]
            if matches == 0:
                discards[i] = 1
            elif matches > many:
                discards[i] = 2
            else:
                discards[i] = 0
        _settle_provisional(discards, end)


# ---------------------------------------------------------------------------
# Myers' middle snake and compareseq (sighan._Search)


cdef struct Search:
    const idx *xv
    const idx *yv
    idx *fd
    idx *bd
    idx k
    idx too_expensive


cdef struct Part:
    idx xoff
    idx xlim
    idx yoff
    idx ylim
    bint minimal


cdef void _give_up(
    Search *s, idx xoff, idx xlim, idx yoff, idx ylim,
    idx fmin, idx fmax, idx bmin, idx bmax, idx *out,
) noexcept nogil:
    cdef idx *fd = s.fd
    cdef idx *bd = s.bd
    cdef idx k = s.k
    cdef idx fxybest = -1, fxbest = 0, bxybest = OFFSET_MAX, bxbest = 0, d, x, y
    d = fmax
    while d >= fmin:
        x = fd[d + k]
        if x > xlim:
            x = xlim
        y = x - d
        if ylim < y:
            x = ylim + d
            y = ylim
        if fxybest < x + y:
            fxybest = x + y
            fxbest = x
        d -= 2
    d = bmax
    while d >= bmin:
        x = bd[d + k]
        if x < xoff:
            x = xoff
        y = x - d
        if y < yoff:
            x = yoff + d
            y = yoff
        if x + y < bxybest:
            bxybest = x + y
            bxbest = x
        d -= 2
    if (xlim + ylim) - bxybest < fxybest - (xoff + yoff):
        out[0] = fxbest
        out[1] = fxybest - fxbest
        out[2] = 1
        out[3] = 0
    else:
        out[0] = bxbest
        out[1] = bxybest - bxbest
        out[2] = 0
        out[3] = 1


cdef void _diag(
    Search *s, idx xoff, idx xlim, idx yoff, idx ylim, bint find_minimal, idx *out
) noexcept nogil:
    """out: xmid, ymid, lo_minimal, hi_minimal."""
    cdef const idx *xv = s.xv
    cdef const idx *yv = s.yv
    cdef idx *fd = s.fd
    cdef idx *bd = s.bd
    cdef idx k = s.k
    cdef idx dmin = xoff - ylim, dmax = xlim - yoff
    cdef idx fmid = xoff - yoff, bmid = xlim - ylim
    cdef idx fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid
    cdef idx odd = (fmid - bmid) & 1
    cdef idx cost = 1, d, low, high, x, y
    fd[fmid + k] = xoff
    bd[bmid + k] = xlim
    while True:
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
        d = fmax
        while d >= fmin:
            low = fd[d - 1 + k]
            high = fd[d + 1 + k]
            x = high if low < high else low + 1
            y = x - d
            while x < xlim and y < ylim and xv[x] == yv[y]:
                x += 1
                y += 1
            fd[d + k] = x
            if odd and bmin <= d <= bmax and bd[d + k] <= x:
                out[0] = x
                out[1] = y
                out[2] = 1
                out[3] = 1
                return
            d -= 2
        if bmin > dmin:
            bmin -= 1
            bd[bmin - 1 + k] = OFFSET_MAX
        else:
            bmin += 1
        if bmax < dmax:
            bmax += 1
            bd[bmax + 1 + k] = OFFSET_MAX
        else:
            bmax -= 1
        d = bmax
        while d >= bmin:
            low = bd[d - 1 + k]
            high = bd[d + 1 + k]
            x = low if low < high else high - 1
            y = x - d
            while xoff < x and yoff < y and xv[x - 1] == yv[y - 1]:
                x -= 1
                y -= 1
            bd[d + k] = x
            if not odd and fmin <= d <= fmax and x <= fd[d + k]:
                out[0] = x
                out[1] = y
                out[2] = 1
                out[3] = 1
                return
            d -= 2
        if not find_minimal and cost >= s.too_expensive:
            _give_up(s, xoff, xlim, yoff, ylim, fmin, fmax, bmin, bmax, out)
            return
        cost += 1


cdef int _compare(
    const idx *xv, idx nx, const idx *yv, idx ny, char *deleted, char *inserted
) except -1:
    """Which elements of xv and yv are deleted / inserted (compareseq, depth first)."""
    cdef idx size = nx + ny + 3
    cdef Search s
    cdef Part *stack = NULL
    cdef Part part
    cdef idx depth = 0, capacity = 64, i
    cdef idx xoff, xlim, yoff, ylim
    cdef idx mid[4]
    memset(deleted, 0, nx)
    memset(inserted, 0, ny)
    s.xv = xv
    s.yv = yv
    s.k = ny + 1
    s.too_expensive = (<idx>1) << ((_floor_log2(size) >> 1) + 1)
    if s.too_expensive < MIN_TOO_EXPENSIVE:
        s.too_expensive = MIN_TOO_EXPENSIVE
    s.fd = <idx *>_alloc(size * sizeof(idx))
    s.bd = NULL
    try:
        s.bd = <idx *>_alloc(size * sizeof(idx))
        stack = <Part *>_alloc(capacity * sizeof(Part))
        stack[0] = Part(0, nx, 0, ny, False)
        depth = 1
        while depth:
            depth -= 1
            part = stack[depth]
            xoff, xlim, yoff, ylim = part.xoff, part.xlim, part.yoff, part.ylim
            while xoff < xlim and yoff < ylim and xv[xoff] == yv[yoff]:
                xoff += 1
                yoff += 1
            while xoff < xlim and yoff < ylim and xv[xlim - 1] == yv[ylim - 1]:
                xlim -= 1
                ylim -= 1
            if xoff == xlim:
                for i in range(yoff, ylim):
                    inserted[i] = 1
            elif yoff == ylim:
                for i in range(xoff, xlim):
                    deleted[i] = 1
            else:
                _diag(&s, xoff, xlim, yoff, ylim, part.minimal, mid)
                if depth + 2 > capacity:
                    capacity *= 2
                    stack = <Part *>_grow(stack, capacity * sizeof(Part))
                stack[depth] = Part(mid[0], xlim, mid[1], ylim, mid[3] != 0)
                stack[depth + 1] = Part(xoff, mid[0], yoff, mid[1], mid[2] != 0)
                depth += 2
    finally:
        PyMem_Free(s.fd)
        PyMem_Free(s.bd)
        PyMem_Free(stack)
    return 0


# ---------------------------------------------------------------------------
# shift_boundaries (sighan._shift_boundaries): flags padded with one 0 each side


cdef void _shift_boundaries(
    char *changed0, char *changed1, const idx *xs, idx n0, const idx *ys, idx n1
) noexcept nogil:
    cdef char *flags
    cdef char *other
    cdef const idx *classes
    cdef idx i_end, i, j, start, runlength, corresponding
    cdef int f
    for f in range(2):
        if f == 0:
            flags, other, classes, i_end = changed0, changed1, xs, n0
        else:
            flags, other, classes, i_end = changed1, changed0, ys, n1
        i = 0
        j = 0
        while True:
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
                while start and classes[start - 1] == classes[i - 1]:
                    start -= 1
                    flags[start + 1] = 1
                    i -= 1
                    flags[i + 1] = 0
                    while flags[start]:
                        start -= 1
                    j -= 1
                    while other[j + 1]:
                        j -= 1
                corresponding = i if other[j] else i_end
                while i != i_end and classes[start] == classes[i]:
                    flags[start + 1] = 0
                    start += 1
                    flags[i + 1] = 1
                    i += 1
                    while flags[i + 1]:
                        i += 1
                    j += 1
                    while other[j + 1]:
                        corresponding = i
                        j += 1
                if runlength == i - start:
                    break
            while corresponding < i:
                start -= 1
                flags[start + 1] = 1
                i -= 1
                flags[i + 1] = 0
                j -= 1
                while other[j + 1]:
                    j -= 1


# ---------------------------------------------------------------------------
# The whole diff (sighan.diff_words): changed flags of the middle part


cdef int _diff_middle(const idx *xs, idx n0, const idx *ys, idx n1, idx classes,
                      char *changed0, char *changed1) except -1:
    """Fill changed0[1..n0] and changed1[1..n1] (0 and n + 1 are padding)."""
    cdef idx total = n0 + n1
    cdef idx *counts = NULL
    cdef char *discards = NULL
    cdef idx *kept = NULL
    cdef idx *values = NULL
    cdef char *marks = NULL
    cdef idx nk0 = 0, nk1 = 0, i
    memset(changed0, 0, n0 + 2)
    memset(changed1, 0, n1 + 2)
    try:
        counts = <idx *>_alloc(2 * classes * sizeof(idx))
        discards = <char *>_alloc(total)
        _discard(xs, n0, ys, n1, classes, counts, counts + classes, discards, discards + n0)
        kept = <idx *>_alloc(total * sizeof(idx))
        values = <idx *>_alloc(total * sizeof(idx))
        for i in range(n0):
            if discards[i]:
                changed0[i + 1] = 1
            else:
                kept[nk0] = i
                values[nk0] = xs[i]
                nk0 += 1
        for i in range(n1):
            if discards[n0 + i]:
                changed1[i + 1] = 1
            else:
                kept[nk0 + nk1] = i
                values[nk0 + nk1] = ys[i]
                nk1 += 1
        marks = <char *>_alloc(nk0 + nk1)
        _compare(values, nk0, values + nk0, nk1, marks, marks + nk0)
        for i in range(nk0):
            if marks[i]:
                changed0[kept[i] + 1] = 1
        for i in range(nk1):
            if marks[nk0 + i]:
                changed1[kept[nk0 + i] + 1] = 1
        _shift_boundaries(changed0, changed1, xs, n0, ys, n1)
    finally:
        PyMem_Free(counts)
        PyMem_Free(discards)
        PyMem_Free(kept)
        PyMem_Free(values)
        PyMem_Free(marks)
    return 0


cdef class _Line:
    """One line pair's words as class numbers, and the diff's flags; reused across lines.

    A word is numbered by a dict the first time it occurs in the line pair;
    only the distinct words are kept as str (``keys``), so a line of millions
    of words costs arrays of integers, not a str per word.
    """

    cdef idx *ids0
    cdef idx *ids1
    cdef char *changed0
    cdef char *changed1
    cdef char *oov  # per class: 0 in the dictionary, 1 not, 2 not looked up yet
    cdef idx capacity0, capacity1, oov_capacity
    cdef idx n0, n1, prefix, suffix
    cdef idx classes  # distinct words of the pair (class numbers 0 .. classes - 1)
    cdef dict numbers
    cdef list keys

    def __cinit__(self):
        self.ids0 = self.ids1 = NULL
        self.changed0 = self.changed1 = self.oov = NULL
        self.capacity0 = self.capacity1 = self.oov_capacity = 0
        self.numbers = {}
        self.keys = []

    def __dealloc__(self):
        PyMem_Free(self.ids0)
        PyMem_Free(self.ids1)
        PyMem_Free(self.changed0)
        PyMem_Free(self.changed1)
        PyMem_Free(self.oov)

    cdef int reserve(self, idx n0, idx n1) except -1:
        if n0 > self.capacity0:
            n0 = max(n0, 2 * self.capacity0, 64)
            self.ids0 = <idx *>_grow(self.ids0, n0 * sizeof(idx))
            self.changed0 = <char *>_grow(self.changed0, n0 + 2)
            self.capacity0 = n0
        if n1 > self.capacity1:
            n1 = max(n1, 2 * self.capacity1, 64)
            self.ids1 = <idx *>_grow(self.ids1, n1 * sizeof(idx))
            self.changed1 = <char *>_grow(self.changed1, n1 + 2)
            self.capacity1 = n1
        return 0

    cdef inline idx number(self, object word) except -1:
        cdef object found = self.numbers.get(word)
        if found is not None:
            return <idx>found
        cdef idx n = len(self.keys)
        self.numbers[word] = n
        self.keys.append(word)
        self.classes = n + 1
        return n

    cdef int start(self, idx n0, idx n1) except -1:
        self.numbers.clear()
        del self.keys[:]
        self.classes = 0
        self.reserve(max(n0, 1), max(n1, 1))  # the flags hold two pads even for no word
        return 0

    cdef int reserve_oov(self) except -1:
        if self.classes > self.oov_capacity:
            self.oov = <char *>_grow(self.oov, self.classes)
            self.oov_capacity = self.classes
        return 0

    cdef idx split(self, str line, idx *ids) except -1:
        """sighan.split_sighan_line, numbering the words into ids: CRs deleted, then
        runs of ASCII whitespace or U+3000 separate words. Returns the word count."""
        cdef idx n = len(line), i, start = -1, count = 0
        cdef Py_UCS4 ch
        for i in range(n):
            ch = line[i]
            if ch == 32 or 9 <= ch <= 12 or ch == 0x3000:
                if start >= 0:
                    ids[count] = self.number(line[start:i])
                    count += 1
                    start = -1
            elif start < 0:
                start = i
        if start >= 0:
            ids[count] = self.number(line[start:n])
            count += 1
        return count

    cdef int split_pair(self, str gold_line, str pred_line) except -1:
        if "\r" in gold_line:
            gold_line = gold_line.replace("\r", "")
        if "\r" in pred_line:
            pred_line = pred_line.replace("\r", "")
        # A word takes a character and a separator: at most (n + 1) // 2 words.
        self.start((len(gold_line) + 1) // 2, (len(pred_line) + 1) // 2)
        self.n0 = self.split(gold_line, self.ids0)
        self.n1 = self.split(pred_line, self.ids1)
        return 0

    cdef int fill(self, gold, pred) except -1:
        """Number two sequences of hashable words (for diff_hunks)."""
        cdef list g = list(gold), p = list(pred)
        cdef idx i
        self.start(len(g), len(p))
        for i in range(len(g)):
            self.ids0[i] = self.number(g[i])
        for i in range(len(p)):
            self.ids1[i] = self.number(p[i])
        self.n0, self.n1 = len(g), len(p)
        return 0

    cdef int diff(self) except -1:
        """Diff ids0[:n0] and ids1[:n1]: 0 when equal; else 1, with prefix and suffix
        set aside and the middle's flags in changed0/changed1 (as sighan.diff_words)."""
        cdef idx n0 = self.n0, n1 = self.n1, prefix = 0, suffix = 0
        cdef idx *ids0 = self.ids0
        cdef idx *ids1 = self.ids1
        while prefix < n0 and prefix < n1 and ids0[prefix] == ids1[prefix]:
            prefix += 1
        while (
            suffix < n0 - prefix
            and suffix < n1 - prefix
            and ids0[n0 - 1 - suffix] == ids1[n1 - 1 - suffix]
        ):
            suffix += 1
        self.prefix, self.suffix = prefix, suffix
        if prefix + suffix == n0 and n0 == n1:
            return 0
        # Class numbers of the whole pair: equality, and counts by class, are
        # those of the middle's own numbering.
        _diff_middle(
            ids0 + prefix, n0 - prefix - suffix, ids1 + prefix, n1 - prefix - suffix,
            self.classes, self.changed0, self.changed1,
        )
        return 1

    cdef int look_up(self, object words) except -1:
        """Mark each class of the gold words in or out of the dictionary."""
        cdef idx i, c
        self.reserve_oov()
        memset(self.oov, 2, self.classes)
        for i in range(self.n0):
            c = self.ids0[i]
            if self.oov[c] == 2:
                self.oov[c] = self.keys[c] not in words
        return 0


def diff_hunks(gold, pred):
    """The hunks of ``sighan.diff_words`` as tuples, computed on C arrays.

    >>> diff_hunks(["哈", "哈哈"], ["哈哈", "哈"])
    [(0, 1, 0, 0), (2, 2, 1, 2)]
    """
    cdef _Line line = _Line()
    cdef list hunks = []
    cdef idx prefix, i0 = 0, i1 = 0, len0, len1, start0, start1
    line.fill(gold, pred)
    if not line.diff():
        return hunks
    prefix = line.prefix
    len0 = line.n0 - prefix - line.suffix
    len1 = line.n1 - prefix - line.suffix
    while i0 < len0 or i1 < len1:
        if line.changed0[i0 + 1] or line.changed1[i1 + 1]:
            start0, start1 = i0, i1
            while line.changed0[i0 + 1]:
                i0 += 1
            while line.changed1[i1 + 1]:
                i1 += 1
            hunks.append((prefix + start0, prefix + i0, prefix + start1, prefix + i1))
        i0 += 1
        i1 += 1
    return hunks


def split_line(str line):
    """``sighan.split_sighan_line``, compiled (for the tests)."""
    cdef _Line scratch = _Line()
    scratch.split_pair(line, "")
    return [scratch.keys[scratch.ids0[i]] for i in range(scratch.n0)]


cdef int _count(_Line line, bint has_words, idx *totals) except -1:
    """Add one split line pair to totals, as sighan.count_words counts it.

    With ``has_words``, ``line.oov`` marks each class of the gold words that is
    not in the dictionary (``_Line.look_up``, ``BufferCounter.look_up``)."""
    cdef idx n0 = line.n0, n1 = line.n1, prefix, suffix, t
    cdef idx i0 = 0, i1 = 0, len0, len1, deleted, inserted, substituted, missed_words = 0
    cdef bint lost
    cdef char *changed0 = line.changed0
    cdef char *changed1 = line.changed1
    cdef char *oov = line.oov
    if n0 == 0:
        return 0
    totals[TRUTH_WORDS] += n0
    totals[TEST_WORDS] += n1
    if not line.diff():
        totals[MATCHED] += n0
        if has_words:
            for t in range(n0):
                totals[OOV] += oov[line.ids0[t]]
        return 0
    prefix, suffix = line.prefix, line.suffix
    len0 = n0 - prefix - suffix
    len1 = n1 - prefix - suffix
    while i0 < len0 or i1 < len1:
        if changed0[i0 + 1] or changed1[i1 + 1]:
            deleted = inserted = 0
            while changed0[i0 + 1]:
                i0 += 1
                deleted += 1
            while changed1[i1 + 1]:
                i1 += 1
                inserted += 1
            substituted = min(deleted, inserted)
            totals[SUBSTITUTIONS] += substituted
            totals[DELETIONS] += deleted - substituted
            totals[INSERTIONS] += inserted - substituted
            missed_words += deleted
        i0 += 1
        i1 += 1
    totals[MATCHED] += n0 - missed_words
    if has_words:
        for t in range(n0):
            lost = prefix <= t < n0 - suffix and changed0[t - prefix + 1]
            if oov[line.ids0[t]]:
                totals[OOV] += 1
                totals[OOV_MISSED] += lost
            else:
                totals[IV_MISSED] += lost
    return 0


def count_lines(gold_lines, pred_lines, words=None):
    """The summed ``SighanCounts`` fields of line pairs, as ``count_sighan_line`` counts them.

    Args:
        gold_lines, pred_lines: decoded lines (str), paired in order.
        words: the dictionary for OOV/IV counts (anything ``in`` works on), or None.

    Returns:
        A tuple of the nine fields in ``SighanCounts``' order.
    """
    cdef idx totals[N_FIELDS]
    cdef _Line line = _Line()
    cdef str gold_line, pred_line
    memset(totals, 0, sizeof(totals))
    for gold_line, pred_line in zip(gold_lines, pred_lines):
        line.split_pair(gold_line, pred_line)
        if words is not None and line.n0:
            line.look_up(words)
        _count(line, words is not None, totals)
    return tuple([totals[i] for i in range(N_FIELDS)])


# ---------------------------------------------------------------------------
# Counting straight from UTF-8 line buffers (the bytes the scoring kernel reads)


cdef uint64_t FNV_OFFSET = 14695981039346656037ULL
cdef uint64_t FNV_PRIME = 1099511628211ULL


cdef inline uint64_t _fnv(const unsigned char *s, idx n) noexcept nogil:
    cdef uint64_t h = FNV_OFFSET
    cdef idx i
    for i in range(n):
        h = (h ^ s[i]) * FNV_PRIME
    return h


cdef class BufferCounter:
    """``count_lines`` on lines given as UTF-8 bytes, without a str per word.

    Every distinct word of the run gets a number in an open-addressing hash
    table keyed by its bytes (kept in ``arena``), and is looked up in the
    dictionary once, as a str, the first time it is seen; each line pair then
    renumbers its words densely (``local``, valid where ``stamp`` is the pair's
    number), as ``_Line.number`` does with a dict. The table is emptied between
    two pairs once it holds ``max_words`` words, so that memory stays bounded
    on a corpus of many distinct words. Words are split as
    ``sighan.split_sighan_line`` splits them (its UTF-8 form: carriage returns
    deleted, then runs of the bytes 9-12 and 32 or of U+3000, ``E3 80 80``,
    separate words), so the counts are ``count_lines``' (``tests/test_sighan.py``).
    """

    cdef object words
    cdef _Line line
    cdef idx *slots  # word number + 1 per slot, 0 for an empty slot
    cdef uint64_t *slot_hashes
    cdef idx mask
    cdef unsigned char *arena
    cdef idx arena_size, arena_capacity
    cdef idx *starts
    cdef idx *lengths
    cdef char *oov  # per word: 0 in the dictionary, 1 not, 2 not looked up yet
    cdef idx *stamp
    cdef idx *local
    cdef idx count, capacity
    cdef idx *class_word  # per class of the current pair: its word number
    cdef idx class_capacity
    cdef unsigned char *scratch  # a line without its carriage returns
    cdef idx scratch_capacity
    cdef idx pair, max_words
    cdef idx totals[N_FIELDS]

    def __cinit__(self, words=None, idx max_words=1 << 20):
        self.words = words
        self.max_words = max(max_words, 1)
        self.line = _Line()
        self.slots = NULL
        self.slot_hashes = NULL
        self.arena = NULL
        self.starts = self.lengths = self.stamp = self.local = self.class_word = NULL
        self.oov = NULL
        self.scratch = NULL
        self.arena_size = self.arena_capacity = self.count = self.capacity = 0
        self.class_capacity = self.scratch_capacity = 0
        self.pair = 0
        memset(self.totals, 0, sizeof(self.totals))
        self.mask = 1023
        self.slots = <idx *>_alloc((self.mask + 1) * sizeof(idx))
        self.slot_hashes = <uint64_t *>_alloc((self.mask + 1) * sizeof(uint64_t))
        memset(self.slots, 0, (self.mask + 1) * sizeof(idx))

    def __dealloc__(self):
        PyMem_Free(self.slots)
        PyMem_Free(self.slot_hashes)
        PyMem_Free(self.arena)
        PyMem_Free(self.starts)
        PyMem_Free(self.lengths)
        PyMem_Free(self.oov)
        PyMem_Free(self.stamp)
        PyMem_Free(self.local)
        PyMem_Free(self.class_word)
        PyMem_Free(self.scratch)

    cdef int _rehash(self) except -1:
        cdef idx size = 2 * (self.mask + 1), mask = size - 1, i, slot
        cdef idx *slots = <idx *>_alloc(size * sizeof(idx))
        cdef uint64_t *hashes
        try:
            hashes = <uint64_t *>_alloc(size * sizeof(uint64_t))
        except MemoryError:
            PyMem_Free(slots)
            raise
        memset(slots, 0, size * sizeof(idx))
        for i in range(self.mask + 1):
            if self.slots[i]:
                slot = <idx>(self.slot_hashes[i] & <uint64_t>mask)
                while slots[slot]:
                    slot = (slot + 1) & mask
                slots[slot] = self.slots[i]
                hashes[slot] = self.slot_hashes[i]
        PyMem_Free(self.slots)
        PyMem_Free(self.slot_hashes)
        self.slots, self.slot_hashes, self.mask = slots, hashes, mask
        return 0

    cdef idx _add_word(self, const unsigned char *s, idx n, uint64_t h, idx slot) except -1:
        """Number a word not seen before, stored at ``slot``."""
        cdef idx number = self.count, size
        if number == self.capacity:
            size = max(2 * self.capacity, 1024)
            self.starts = <idx *>_grow(self.starts, size * sizeof(idx))
            self.lengths = <idx *>_grow(self.lengths, size * sizeof(idx))
            self.stamp = <idx *>_grow(self.stamp, size * sizeof(idx))
            self.local = <idx *>_grow(self.local, size * sizeof(idx))
            self.oov = <char *>_grow(self.oov, size)
            self.capacity = size
        if self.arena_size + n > self.arena_capacity:
            size = max(2 * self.arena_capacity, self.arena_size + n, 65536)
            self.arena = <unsigned char *>_grow(self.arena, size)
            self.arena_capacity = size
        memcpy(self.arena + self.arena_size, s, n)
        self.starts[number] = self.arena_size
        self.lengths[number] = n
        self.arena_size += n
        self.stamp[number] = -1
        self.oov[number] = 2
        self.slots[slot] = number + 1
        self.slot_hashes[slot] = h
        self.count += 1
        if 2 * self.count > self.mask:
            self._rehash()
        return number

    cdef inline idx _number(self, const unsigned char *s, idx n) except -1:
        """The pair's class of the word ``s[:n]``."""
        cdef uint64_t h = _fnv(s, n)
        cdef idx slot = <idx>(h & <uint64_t>self.mask), found, number, cls
        while True:
            found = self.slots[slot]
            if found == 0:
                number = self._add_word(s, n, h, slot)
                break
            if (
                self.slot_hashes[slot] == h
                and self.lengths[found - 1] == n
                and memcmp(self.arena + self.starts[found - 1], s, n) == 0
            ):
                number = found - 1
                break
            slot = (slot + 1) & self.mask
        if self.stamp[number] == self.pair:
            return self.local[number]
        cls = self.line.classes
        if cls == self.class_capacity:
            self.class_capacity = max(2 * self.class_capacity, 1024)
            self.class_word = <idx *>_grow(self.class_word, self.class_capacity * sizeof(idx))
        self.stamp[number] = self.pair
        self.local[number] = cls
        self.class_word[cls] = number
        self.line.classes = cls + 1
        return cls

    cdef int _word(self, int side, idx count, const unsigned char *s, idx n) except -1:
        """Put the class of ``s[:n]`` at ``count`` in side 0's (gold) or 1's (prediction) ids.

        The arrays grow as words come, so that a long line costs its words,
        not its bytes."""
        cdef _Line line = self.line
        if side == 0:
            if count >= line.capacity0:
                line.reserve(2 * count + 1, 0)
            line.ids0[count] = self._number(s, n)
        else:
            if count >= line.capacity1:
                line.reserve(0, 2 * count + 1)
            line.ids1[count] = self._number(s, n)
        return 0

    cdef idx _split(self, const unsigned char *s, idx n, int side) except -1:
        """The words of one line (without its newline) as class numbers; returns how many."""
        cdef idx i = 0, start = -1, count = 0
        cdef unsigned char c
        while i < n:
            c = s[i]
            if c == 32 or 9 <= c <= 12:
                if start >= 0:
                    self._word(side, count, s + start, i - start)
                    count += 1
                    start = -1
                i += 1
            elif c == 0xE3 and i + 2 < n and s[i + 1] == 0x80 and s[i + 2] == 0x80:
                if start >= 0:
                    self._word(side, count, s + start, i - start)
                    count += 1
                    start = -1
                i += 3
            else:
                if start < 0:
                    start = i
                i += 1
        if start >= 0:
            self._word(side, count, s + start, n - start)
            count += 1
        return count

    cdef const unsigned char *_without_cr(self, const unsigned char *s, idx *n) except NULL:
        """The line with its carriage returns deleted (in ``scratch``), or itself."""
        cdef idx i, kept = 0
        if memchr(s, 13, n[0]) == NULL:
            return s
        if n[0] > self.scratch_capacity:
            self.scratch = <unsigned char *>_grow(self.scratch, n[0])
            self.scratch_capacity = n[0]
        for i in range(n[0]):
            if s[i] != 13:
                self.scratch[kept] = s[i]
                kept += 1
        n[0] = kept
        return self.scratch

    cdef int _pair(self, const unsigned char *g, idx gn, const unsigned char *p, idx pn) except -1:
        cdef _Line line = self.line
        cdef idx i, c
        cdef const unsigned char *pred
        cdef bint has_words = self.words is not None
        g = self._without_cr(g, &gn)
        # The gold line may sit in scratch: the prediction's CRs are dropped after its split.
        if self.count >= self.max_words:
            self._forget()
        line.start(1, 1)
        self.pair += 1
        line.n0 = self._split(g, gn, 0)
        if line.n0 == 0:  # the script skips an empty gold line
            return 0
        pred = self._without_cr(p, &pn)
        line.n1 = self._split(pred, pn, 1)  # (reserve keeps the flags two longer than the ids)
        if has_words:
            line.reserve_oov()
            memset(line.oov, 2, line.classes)
            for i in range(line.n0):
                c = line.ids0[i]
                if line.oov[c] == 2:
                    line.oov[c] = self._oov(self.class_word[c])
        _count(line, has_words, self.totals)
        return 0

    cdef void _forget(self) noexcept:
        """Empty the table of words (the next pairs number and look up theirs afresh)."""
        memset(self.slots, 0, (self.mask + 1) * sizeof(idx))
        self.count = 0
        self.arena_size = 0

    cdef char _oov(self, idx number) except -1:
        """1 if word ``number`` is not in the dictionary (looked up once per run)."""
        cdef object word
        if self.oov[number] == 2:
            word = PyUnicode_DecodeUTF8(
                <const char *>(self.arena + self.starts[number]), self.lengths[number], NULL
            )
            self.oov[number] = word not in self.words
        return self.oov[number]

    def add(self, const unsigned char[::1] gold, idx gold_start, idx gold_end,
            const unsigned char[::1] pred, idx pred_start, idx pred_end):
        """Count the line pairs of ``gold[gold_start:gold_end]`` and ``pred[pred_start:pred_end]``.

        Both ranges hold the same number of lines, each ended by a newline
        except perhaps the last (which ends at the range's end); bytes are
        valid UTF-8 (the scoring kernel checked them).
        """
        cdef const unsigned char *g
        cdef const unsigned char *p
        cdef const unsigned char *g_nl
        cdef const unsigned char *p_nl
        cdef idx gi = gold_start, pi = pred_start, gn, pn
        if gold_end > gold.shape[0] or pred_end > pred.shape[0] or gold_start < 0 or pred_start < 0:
            raise IndexError("range out of the buffer")
        if gold_end <= gold_start:
            return
        g = &gold[0]
        p = &pred[0] if pred.shape[0] else <const unsigned char *>b""
        while gi < gold_end:
            g_nl = <const unsigned char *>memchr(g + gi, 10, gold_end - gi)
            gn = (g_nl - (g + gi)) if g_nl != NULL else gold_end - gi
            if pi < pred_end:
                p_nl = <const unsigned char *>memchr(p + pi, 10, pred_end - pi)
                pn = (p_nl - (p + pi)) if p_nl != NULL else pred_end - pi
            else:
                pn = 0
            self._pair(g + gi, gn, p + pi, pn)
            gi += gn + 1
            pi += pn + 1

    @property
    def totals(self):
        """The summed ``SighanCounts`` fields so far, in their order."""
        return tuple([self.totals[i] for i in range(N_FIELDS)])

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled kernel of the interval scorer: one pass over the UTF-8 bytes of each line pair.

It computes exactly what ``cws_bench.scoring.count_sentence`` computes for
lines whose gold and predicted characters agree, walking both lines in
lockstep instead of building interval sets, and validating UTF-8 as it goes
(so files are never decoded into str objects). Lines whose characters differ
are returned by position for the Python alignment path.
``tests/test_kernel.py`` checks the kernel against the Python code on random
input and on the real corpora.

Blocks: between two consecutive boundaries that gold and prediction share,
the gold side has ``m`` words and the prediction ``n``. ``m == n == 1`` is a
correct word; ``m == 1 < n`` a gold word split; ``n == 1 < m`` gold words
merged; ``m, n > 1`` a crossing region.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint64_t
from libc.string cimport memcmp, memcpy

# Field order of cws_bench.scoring.SegCounts.
cdef enum:
    N_FIELDS = 19
    SENTENCES = 0
    CHARACTERS = 1
    GOLD = 2
    PRED = 3
    CORRECT = 4
    OOV_GOLD = 5
    OOV_CORRECT = 6
    GOLD_BOUNDARIES = 7
    PRED_BOUNDARIES = 8
    CORRECT_BOUNDARIES = 9
    SPLIT_GOLD = 10
    SPLIT_PRED = 11
    MERGE_GOLD = 12
    MERGE_PRED = 13
    CROSS_GOLD = 14
    CROSS_PRED = 15
    CROSS_REGIONS = 16
    MISMATCHED_LINES = 17
    SKIPPED_LINES = 18

# Line status.
cdef enum:
    LINE_OK = 0
    LINE_DIFFERS = 1
    LINE_EMPTY_GOLD = 2
    LINE_BAD_UTF8 = 3

FIELD_COUNT = N_FIELDS

cdef extern from *:
    """
    #define CWS_FNV_OFFSET 14695981039346656037ULL
    #define CWS_FNV_PRIME 1099511628211ULL
    """
    const uint64_t FNV_OFFSET "CWS_FNV_OFFSET"
    const uint64_t FNV_PRIME "CWS_FNV_PRIME"

ctypedef const unsigned char *Bytes


cdef struct Slot:
    uint64_t hash
    Py_ssize_t start
    Py_ssize_t length  # -1: empty slot


cdef inline bint _is_space(Py_UCS4 c) noexcept nogil:
    # Exactly the characters for which str.isspace() is true (and so the
    # separators of str.split()); tests/test_kernel.py checks all code points.
    if c < 0x80:
        return c == 0x20 or 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F
    if c < 0x85 or c > 0x3000:
        return False
    return (c == 0x85 or c == 0xA0 or c == 0x1680 or 0x2000 <= c <= 0x200A
            or c == 0x2028 or c == 0x2029 or c == 0x202F or c == 0x205F or c == 0x3000)


def is_space(Py_UCS4 c):
    """The kernel's whitespace test, exposed for tests."""
    return _is_space(c)


cdef inline Py_ssize_t _decode(Bytes s, Py_ssize_t i, Py_ssize_t end, Py_UCS4 *out) noexcept nogil:
    """Decode the UTF-8 character at s[i], strictly as CPython does.

    Returns the offset after it, or -1 for an invalid or truncated sequence.
    """
    cdef unsigned char b0 = s[i], b1, b2, b3
    if b0 < 0x80:
        out[0] = b0
        return i + 1
    if b0 < 0xC2:
        return -1
    if b0 < 0xE0:
        if i + 1 >= end:
            return -1
        b1 = s[i + 1]
        if b1 & 0xC0 != 0x80:
            return -1
        out[0] = ((b0 & 0x1F) << 6) | (b1 & 0x3F)
        return i + 2
    if b0 < 0xF0:
        if i + 2 >= end:
            return -1
        b1 = s[i + 1]
        b2 = s[i + 2]
        if b1 & 0xC0 != 0x80 or b2 & 0xC0 != 0x80:
            return -1
        if (b0 == 0xE0 and b1 < 0xA0) or (b0 == 0xED and b1 > 0x9F):
            return -1  # overlong, or a surrogate
        out[0] = ((b0 & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (b2 & 0x3F)
        return i + 3
    if b0 < 0xF5:
        if i + 3 >= end:
            return -1
        b1 = s[i + 1]
        b2 = s[i + 2]
        b3 = s[i + 3]
        if b1 & 0xC0 != 0x80 or b2 & 0xC0 != 0x80 or b3 & 0xC0 != 0x80:
            return -1
        if (b0 == 0xF0 and b1 < 0x90) or (b0 == 0xF4 and b1 > 0x8F):
            return -1  # overlong, or above U+10FFFF
        out[0] = ((b0 & 0x07) << 18) | ((b1 & 0x3F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F)
        return i + 4
    return -1


cdef inline uint64_t _fnv(uint64_t h, Bytes s, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    # FNV-1a (Fowler, Noll, Vo) over bytes.
    cdef Py_ssize_t k
    for k in range(start, end):
        h = (h ^ s[k]) * FNV_PRIME
    return h


cdef class WordSet:
    """An open-addressing hash set of UTF-8 words, probed without creating objects.

    The kernel looks each gold word up by its bytes in the line it is walking.
    """

    cdef Slot *slots
    cdef unsigned char *data
    cdef Py_ssize_t mask
    cdef readonly Py_ssize_t size
    cdef readonly tuple checksum_parts

    def __cinit__(self, words):
        cdef list encoded = [w.encode("utf-8") for w in
                             (words if isinstance(words, (set, frozenset)) else set(words))]
        cdef Py_ssize_t total = 0, n = len(encoded), pos = 0, length
        cdef bytes word
        cdef uint64_t h, key_sum = 0, key_xor = 0
        for word in encoded:
            total += PyBytes_GET_SIZE(word)
        self._allocate(n, total)
        self.size = n
        for word in encoded:
            length = PyBytes_GET_SIZE(word)
            memcpy(self.data + pos, PyBytes_AS_STRING(word), length)
            h = _fnv(FNV_OFFSET, self.data, pos, pos + length)
            key_sum += h
            key_xor ^= h
            self._put(h, pos, length)
            pos += length
        # The same order-independent summary as checksum_parts(words).
        self.checksum_parts = (n, key_sum, key_xor)

    def __dealloc__(self):
        PyMem_Free(self.slots)
        PyMem_Free(self.data)

    cdef int _allocate(self, Py_ssize_t words, Py_ssize_t total) except -1:
        """Empty slots for ``words`` words, and ``total`` bytes for their data."""
        cdef Py_ssize_t slots = 8, slot
        while slots < 2 * words:
            slots *= 2
        PyMem_Free(self.slots)
        PyMem_Free(self.data)
        self.slots = <Slot *> PyMem_Malloc(slots * sizeof(Slot))
        self.data = <unsigned char *> PyMem_Malloc(total + 1)
        if not (self.slots and self.data):
            raise MemoryError()
        self.mask = slots - 1
        for slot in range(slots):
            self.slots[slot].length = -1
        return 0

    cdef void _put(self, uint64_t h, Py_ssize_t start, Py_ssize_t length) noexcept nogil:
        """Store the word at ``data[start:start + length]``, of hash ``h``, in a free slot."""
        cdef Py_ssize_t slot = <Py_ssize_t> (h & <uint64_t> self.mask)
        while self.slots[slot].length >= 0:
            slot = (slot + 1) & self.mask
        self.slots[slot].hash = h
        self.slots[slot].start = start
        self.slots[slot].length = length

    @staticmethod
    def from_utf8_lines(bytes lines):
        """The set of the lines of ``lines``: UTF-8 words, one a line, joined by newlines.

        Equal to ``WordSet(set(words))`` (same members, same ``checksum_parts``;
        a word on several lines counts once), built without a str or bytes
        object per word: for a dictionary file read as bytes.
        """
        cdef WordSet self = WordSet.__new__(WordSet, ())
        cdef Bytes s = <Bytes> PyBytes_AS_STRING(lines)
        cdef Py_ssize_t total = PyBytes_GET_SIZE(lines), n = 1, i, start = 0, end
        cdef uint64_t h, key_sum = 0, key_xor = 0
        for i in range(total):
            n += s[i] == 10
        self._allocate(n, total)
        memcpy(self.data, s, total)
        n = 0
        while start < total:
            end = start
            while end < total and s[end] != 10:
                end += 1
            if end > start:
                h = _fnv(FNV_OFFSET, s, start, end)
                if not self._find(s, start, end, h):
                    key_sum += h
                    key_xor ^= h
                    self._put(h, start, end - start)
                    n += 1
            start = end + 1
        self.size = n
        self.checksum_parts = (n, key_sum, key_xor)
        return self

    def __len__(self):
        return self.size

    def __contains__(self, word):
        if not isinstance(word, str):
            return False
        cdef bytes b = word.encode("utf-8")
        cdef Bytes s = <Bytes> PyBytes_AS_STRING(b)
        cdef Py_ssize_t n = PyBytes_GET_SIZE(b)
        return self._find(s, 0, n, _fnv(FNV_OFFSET, s, 0, n))

    cdef bint _find(self, Bytes s, Py_ssize_t start, Py_ssize_t end, uint64_t h) noexcept nogil:
        cdef Py_ssize_t slot = <Py_ssize_t> (h & <uint64_t> self.mask)
        cdef Py_ssize_t length = end - start
        cdef Slot *entry = &self.slots[slot]
        while entry.length >= 0:
            if (entry.hash == h and entry.length == length
                    and memcmp(self.data + entry.start, s + start, length) == 0):
                return True
            slot = (slot + 1) & self.mask
            entry = &self.slots[slot]
        return False


cdef inline Py_ssize_t _skip_space(Bytes s, Py_ssize_t i, Py_ssize_t end, Py_ssize_t *bad) noexcept nogil:
    """Skip whitespace from s[i]; returns the offset of the next other character.

    Sets bad[0] to the offset of an invalid byte and returns -1.
    """
    cdef Py_UCS4 c
    cdef Py_ssize_t nxt
    cdef unsigned char b
    while i < end:
        b = s[i]
        if b < 0x80:
            if not _is_space(b):
                return i
            i += 1
            continue
        # Multi-byte whitespace starts with one of these bytes; any other lead
        # byte (all of CJK) is a word character, validated when it is consumed.
        if b != 0xC2 and b != 0xE1 and b != 0xE2 and b != 0xE3:
            return i
        nxt = _decode(s, i, end, &c)
        if nxt < 0:
            bad[0] = i
            return -1
        if not _is_space(c):
            return i
        i = nxt
    return i


cdef inline Py_ssize_t _validate(Bytes s, Py_ssize_t i, Py_ssize_t end) noexcept nogil:
    """Offset of the first invalid UTF-8 byte in s[i:end], or -1."""
    cdef Py_UCS4 c
    cdef Py_ssize_t nxt
    while i < end:
        nxt = _decode(s, i, end, &c)
        if nxt < 0:
            return i
        i = nxt
    return -1


cdef int _count_line(Bytes g, Py_ssize_t gi, Py_ssize_t ng, Bytes p, Py_ssize_t pj,
                     Py_ssize_t npred, WordSet words, long long *c, Py_ssize_t *bad,
                     int *bad_side) noexcept nogil:
    """Add one line's counts to c; g[gi:ng] and p[pj:npred] are the lines, without '\\n'."""
    cdef Py_ssize_t i, j, gold_start, gnext, pnext
    cdef long long chars = 0, gold = 0, pred = 0, correct = 0, common = 0
    cdef long long oov_gold = 0, oov_correct = 0
    cdef long long split_gold = 0, split_pred = 0, merge_gold = 0, merge_pred = 0
    cdef long long cross_gold = 0, cross_pred = 0, cross_regions = 0
    cdef long long m = 0, k = 0
    cdef bint gold_end, pred_end, last_oov = False
    cdef bint lookup = words is not None
    cdef Py_UCS4 gc
    cdef Py_ssize_t width, b
    i = _skip_space(g, gi, ng, bad)
    if i < 0:
        bad_side[0] = 0
        return LINE_BAD_UTF8
    j = _skip_space(p, pj, npred, bad)
    if j < 0:
        bad_side[0] = 1
        return LINE_BAD_UTF8
    if i == ng:
        return LINE_EMPTY_GOLD
    gold_start = i
    while i < ng and j < npred:
        gnext = _decode(g, i, ng, &gc)
        if gnext < 0:
            bad[0] = i
            bad_side[0] = 0
            return LINE_BAD_UTF8
        # Both sides are UTF-8: the same character is the same bytes. Bytes that
        # differ are another character or invalid UTF-8; either way the line is
        # left to Python, which decodes it strictly.
        width = gnext - i
        if j + width > npred:
            return LINE_DIFFERS
        for b in range(width):
            if g[i + b] != p[j + b]:
                return LINE_DIFFERS
        i = gnext
        j = j + width
        chars += 1
        # A word ends where whitespace or the line end follows.
        gnext = _skip_space(g, i, ng, bad)
        if gnext < 0:
            bad_side[0] = 0
            return LINE_BAD_UTF8
        pnext = _skip_space(p, j, npred, bad)
        if pnext < 0:
            bad_side[0] = 1
            return LINE_BAD_UTF8
        gold_end = gnext > i or i == ng
        pred_end = pnext > j or j == npred
        if gold_end:
            gold += 1
            m += 1
            if lookup:
                last_oov = not words._find(g, gold_start, i, _fnv(FNV_OFFSET, g, gold_start, i))
                if last_oov:
                    oov_gold += 1
            gold_start = gnext
        if pred_end:
            pred += 1
            k += 1
        i = gnext
        j = pnext
        if gold_end and pred_end:
            common += 1
            if m == 1 and k == 1:
                correct += 1
                if last_oov:
                    oov_correct += 1
            elif m == 1:
                split_gold += 1
                split_pred += k
            elif k == 1:
                merge_gold += m
                merge_pred += 1
            else:
                cross_gold += m
                cross_pred += k
                cross_regions += 1
            m = 0
            k = 0
    if i < ng or j < npred:
        return LINE_DIFFERS
    c[SENTENCES] += 1
    c[CHARACTERS] += chars
    c[GOLD] += gold
    c[PRED] += pred
    c[CORRECT] += correct
    c[OOV_GOLD] += oov_gold
    c[OOV_CORRECT] += oov_correct
    c[GOLD_BOUNDARIES] += gold - 1
    c[PRED_BOUNDARIES] += pred - 1
    c[CORRECT_BOUNDARIES] += common - 1
    c[SPLIT_GOLD] += split_gold
    c[SPLIT_PRED] += split_pred
    c[MERGE_GOLD] += merge_gold
    c[MERGE_PRED] += merge_pred
    c[CROSS_GOLD] += cross_gold
    c[CROSS_PRED] += cross_pred
    c[CROSS_REGIONS] += cross_regions
    return LINE_OK


cdef inline Py_ssize_t _line_end(Bytes s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """Offset of the next '\\n' at or after i, or -1."""
    while i < n:
        if s[i] == 10:
            return i
        i += 1
    return -1


def count_buffers(bytes gold, Py_ssize_t gold_start, bint gold_eof,
                  bytes pred, Py_ssize_t pred_start, bint pred_eof,
                  WordSet words, bint per_line):
    """Count the complete line pairs of two UTF-8 buffers.

    A line ends at ``\\n``; at end of file (``*_eof``) the rest of the buffer
    is a last line. Counting stops at the first pair where either side has no
    complete line, so the caller can read more and call again.

    Args:
        gold, pred: UTF-8 bytes, read from ``gold_start`` and ``pred_start``.
        gold_eof, pred_eof: whether the buffer holds the end of its file.
        words: the in-vocabulary words as a WordSet, or None (no OOV counts).
        per_line: also return each line's counts.

    Returns:
        ``(totals, lines, gold_end, pred_end, differ, empty_with_pred, rows, bad)``:
        totals is a list of N_FIELDS ints over lines whose texts agree (empty
        gold lines count as skipped); lines is the number of pairs consumed;
        gold_end and pred_end the offsets after them; differ lists
        ``(index, gold_from, gold_to, pred_from, pred_to)`` of lines whose
        characters differ (not counted); empty_with_pred the indices of empty
        gold lines whose prediction has words; rows, when per_line, a tuple of
        counts per line (None where the texts differ); bad is None, or
        ``(side, offset)`` of the first invalid UTF-8 byte (side 0 gold, 1 pred),
        in which case the other values stop at the line before.
    """
    cdef long long totals[N_FIELDS]
    cdef long long line[N_FIELDS]
    cdef Bytes g = <Bytes> PyBytes_AS_STRING(gold)
    cdef Bytes p = <Bytes> PyBytes_AS_STRING(pred)
    cdef Py_ssize_t ng = PyBytes_GET_SIZE(gold), npred = PyBytes_GET_SIZE(pred)
    cdef Py_ssize_t gi = gold_start, pj = pred_start, gend, pend, index = 0, f
    cdef Py_ssize_t bad = -1
    cdef int status, bad_side = -1
    for f in range(N_FIELDS):
        totals[f] = 0
    differ = []
    empty_with_pred = []
    rows = [] if per_line else None
    bad_at = None
    while True:
        gend = _line_end(g, gi, ng)
        if gend < 0:
            if not gold_eof or gi >= ng:
                break
            gend = ng
        pend = _line_end(p, pj, npred)
        if pend < 0:
            if not pred_eof or pj >= npred:
                break
            pend = npred
        for f in range(N_FIELDS):
            line[f] = 0
        status = _count_line(g, gi, gend, p, pj, pend, words, line, &bad, &bad_side)
        if status == LINE_EMPTY_GOLD:
            bad = _validate(p, pj, pend)
            if bad >= 0:
                bad_side = 1
                status = LINE_BAD_UTF8
        if status == LINE_BAD_UTF8:
            bad_at = (bad_side, bad)
            break
        if status == LINE_DIFFERS:
            differ.append((index, gi, gend, pj, pend))
            if per_line:
                rows.append(None)
        else:
            if status == LINE_EMPTY_GOLD:
                line[SKIPPED_LINES] = 1
                if _skip_space(p, pj, pend, &bad) < pend:
                    empty_with_pred.append(index)
            for f in range(N_FIELDS):
                totals[f] += line[f]
            if per_line:
                rows.append(tuple([line[f] for f in range(N_FIELDS)]))
        gi = gend + 1
        pj = pend + 1
        index += 1
    return ([totals[f] for f in range(N_FIELDS)], index, min(gi, ng), min(pj, npred),
            differ, empty_with_pred, rows, bad_at)


def checksum_parts(words):
    """(size, sum, xor) of the 64-bit FNV-1a hashes of the words' UTF-8 bytes.

    An order-independent summary of a word set; ``cws_bench.text.dictionary``
    hashes it into the dictionary checksum (and has a Python twin of it).
    """
    cdef uint64_t h, key_sum = 0, key_xor = 0
    cdef Py_ssize_t n = 0
    cdef bytes b
    for word in words:
        b = word.encode("utf-8")
        h = _fnv(FNV_OFFSET, <Bytes> PyBytes_AS_STRING(b), 0, PyBytes_GET_SIZE(b))
        key_sum += h
        key_xor ^= h
        n += 1
    return (n, key_sum, key_xor)


def single_spaced(bytes text):
    """Whole UTF-8 lines with each run of whitespace made one space and none at either end.

    What ``" ".join(line.split())`` gives for each line, on the bytes: the form
    the sentence checksum hashes (``cws_bench.text.checksums.LineDigest``). ``text``
    holds whole lines, each ending in ``\\n``. Invalid UTF-8 inside a run of
    whitespace ends the run; other bytes are copied as they are.
    """
    cdef Bytes s = <Bytes>PyBytes_AS_STRING(text)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(text), i = 0, o = 0, nxt
    cdef unsigned char *d = <unsigned char *>PyMem_Malloc(n + 1)
    cdef unsigned char b
    cdef Py_UCS4 c
    cdef bint gap = False, line_start = True
    if d == NULL:
        raise MemoryError()
    try:
        with nogil:
            while i < n:
                b = s[i]
                if b == 0x0A:
                    d[o] = b
                    o += 1
                    i += 1
                    gap = False
                    line_start = True
                    continue
                if b <= 0x20 or (0x1C <= b <= 0x1F) or b == 0xC2 or 0xE1 <= b <= 0xE3:
                    nxt = _decode(s, i, n, &c)
                    if nxt < 0:
                        nxt = i + 1
                    elif _is_space(c):
                        gap = True
                        i = nxt
                        continue
                else:
                    nxt = i + 1
                if gap and not line_start:
                    d[o] = 0x20
                    o += 1
                gap = False
                line_start = False
                while i < nxt:
                    d[o] = s[i]
                    o += 1
                    i += 1
                # A run of bytes that cannot start whitespace or a line end, copied as is.
                while i < n:
                    b = s[i]
                    if b <= 0x20 or b == 0xC2 or 0xE1 <= b <= 0xE3:
                        break
                    d[o] = b
                    o += 1
                    i += 1
        return d[:o]
    finally:
        PyMem_Free(d)

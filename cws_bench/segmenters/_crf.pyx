# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled parts of the ``crf`` character tagger (``cws_bench.segmenters.crf``).

- :func:`encode` turns lines into one padded array of code points (two pad
  cells between whitespace-separated chunks), the input of the vectorised
  feature extraction;
- :func:`tag` is first-order Viterbi over linear scores
  (sum of feature weights per tag, plus tag-transition weights);
- :func:`words` cuts the lines' chunks into words at tagged word ends;
- :func:`perceptron_epoch` is one pass of the averaged structured perceptron.

Whitespace is exactly what ``str.isspace()`` (and so ``str.split()``) calls
whitespace; it is never part of a chunk.
"""

import numpy as np

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.math cimport INFINITY

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch) nogil

PAD = 0x110000
"""The code of a pad cell (one past the last Unicode code point)."""

DEF MAX_TAGS = 8


def encode(list lines, bint fold):
    """Lines -> (padded code points, chunk offsets).

    ``padded`` holds every chunk's code points, with two ``PAD`` cells before
    the first chunk, between chunks and after the last. ``offsets`` (length
    chunks + 1) are the chunks' starts in the unpadded character count, so
    chunk ``k`` is characters ``offsets[k]:offsets[k+1]``. With ``fold``, the
    full-width ASCII forms U+FF01..U+FF5E are stored as their ASCII twins.
    """
    cdef Py_ssize_t total = 0, chunks = 0, n, i
    cdef str line
    cdef Py_UCS4 c
    cdef bint inside
    for line in lines:
        inside = False
        for c in line:
            if Py_UNICODE_ISSPACE(c):
                inside = False
            else:
                total += 1
                if not inside:
                    chunks += 1
                    inside = True
    padded_array = np.full(total + 2 * (chunks + 1), PAD, dtype=np.int64)
    offsets_array = np.zeros(chunks + 1, dtype=np.int64)
    cdef int64_t[::1] padded = padded_array
    cdef int64_t[::1] offsets = offsets_array
    cdef Py_ssize_t p = 2, k = 0, count = 0
    cdef int64_t code
    for line in lines:
        inside = False
        for c in line:
            if Py_UNICODE_ISSPACE(c):
                if inside:
                    p += 2
                inside = False
                continue
            if not inside:
                offsets[k] = count
                k += 1
                inside = True
            code = <int64_t> c
            if fold and 0xFF01 <= code <= 0xFF5E:
                code -= 0xFEE0
            padded[p] = code
            p += 1
            count += 1
        if inside:
            p += 2
    offsets[chunks] = count
    return padded_array, offsets_array


cdef void _viterbi(const int32_t[:, ::1] ids, Py_ssize_t start, Py_ssize_t n,
                   const float[:, ::1] weights, const double[:, ::1] trans,
                   const uint8_t[::1] first, const uint8_t[::1] last, int tags_n,
                   double *emit, uint8_t *back, uint8_t *out) noexcept nogil:
    """Best tags of positions start..start+n-1 into out[0:n]."""
    cdef Py_ssize_t i, f, features = ids.shape[1]
    cdef int t, u, arg
    cdef int32_t row
    cdef double delta[MAX_TAGS]
    cdef double nxt[MAX_TAGS]
    cdef double best, score
    for i in range(n):
        for t in range(tags_n):
            emit[i * tags_n + t] = 0.0
        for f in range(features):
            row = ids[start + i, f]
            if row >= 0:
                for t in range(tags_n):
                    emit[i * tags_n + t] += weights[row, t]
    for t in range(tags_n):
        delta[t] = emit[t] if first[t] else -INFINITY
    for i in range(1, n):
        for t in range(tags_n):
            best = -INFINITY
            arg = 0
            for u in range(tags_n):
                score = delta[u] + trans[u, t]
                if score > best:
                    best = score
                    arg = u
            nxt[t] = best + emit[i * tags_n + t]
            back[i * tags_n + t] = <uint8_t> arg
        for t in range(tags_n):
            delta[t] = nxt[t]
    best = -INFINITY
    arg = 0
    for t in range(tags_n):
        if last[t] and delta[t] > best:
            best = delta[t]
            arg = t
    out[n - 1] = <uint8_t> arg
    for i in range(n - 1, 0, -1):
        arg = back[i * tags_n + arg]
        out[i - 1] = <uint8_t> arg


def tag(const int32_t[:, ::1] ids, const int64_t[::1] offsets, const float[:, ::1] weights,
        const double[:, ::1] trans, const uint8_t[::1] first, const uint8_t[::1] last):
    """The best tag of every position, chunk by chunk (ties go to the lower tag).

    Args:
        ids: feature rows of each position (-1: a feature the model lacks).
        offsets: chunk starts, plus the end.
        weights: one weight per feature row and tag.
        trans: transition scores (previous tag, tag); -inf forbids one.
        first, last: 1 for the tags a chunk may start / end with.
    """
    cdef int tags_n = weights.shape[1]
    cdef Py_ssize_t chunks = offsets.shape[0] - 1, k, longest = 1
    if tags_n > MAX_TAGS or trans.shape[0] != tags_n or trans.shape[1] != tags_n:
        raise ValueError("inconsistent tag count")
    for k in range(chunks):
        longest = max(longest, offsets[k + 1] - offsets[k])
    out_array = np.zeros(ids.shape[0], dtype=np.uint8)
    cdef uint8_t[::1] out = out_array
    cdef double *emit = <double *> PyMem_Malloc(longest * tags_n * sizeof(double))
    cdef uint8_t *back = <uint8_t *> PyMem_Malloc(longest * tags_n * sizeof(uint8_t))
    if emit == NULL or back == NULL:
        PyMem_Free(emit)
        PyMem_Free(back)
        raise MemoryError()
    try:
        with nogil:
            for k in range(chunks):
                if offsets[k + 1] > offsets[k]:
                    _viterbi(ids, offsets[k], offsets[k + 1] - offsets[k], weights, trans,
                             first, last, tags_n, emit, back, &out[offsets[k]])
    finally:
        PyMem_Free(emit)
        PyMem_Free(back)
    return out_array


def words(list lines, const uint8_t[::1] ends):
    """Cut each line's chunks into words: a word ends after character p when ``ends[p]``.

    ``p`` counts the non-whitespace characters of all lines, in order (as
    :func:`encode` does); a chunk's last character always ends a word.
    """
    cdef list out = []
    cdef list line_words
    cdef str line
    cdef Py_ssize_t n, i, j, k, word, p = 0
    for line in lines:
        line_words = []
        n = len(line)
        i = 0
        while i < n:
            if Py_UNICODE_ISSPACE(line[i]):
                i += 1
                continue
            j = i + 1
            while j < n and not Py_UNICODE_ISSPACE(line[j]):
                j += 1
            word = i
            for k in range(i, j - 1):
                if ends[p]:
                    line_words.append(line[word:k + 1])
                    word = k + 1
                p += 1
            p += 1
            line_words.append(line[word:j])
            i = j
        out.append(line_words)
    return out


def perceptron_epoch(const int32_t[:, ::1] ids, const uint8_t[::1] gold,
                     const int64_t[::1] offsets, const int64_t[::1] order,
                     float[:, ::1] weights, double[:, ::1] totals,
                     double[:, ::1] trans, double[:, ::1] trans_totals,
                     const uint8_t[:, ::1] allowed, const uint8_t[::1] first,
                     const uint8_t[::1] last, int64_t step):
    """One pass of the averaged structured perceptron over the chunks in ``order``.

    Updates ``weights`` and ``trans`` by (gold features - predicted features)
    after each chunk decoded wrongly, and adds ``step`` times every update to
    ``totals`` / ``trans_totals`` (the averaging trick of Daume 2006: the
    average is ``w - totals / steps``). ``step`` counts chunks seen, from 1.
    Forbidden transitions (``allowed`` 0) stay at -inf.

    Returns:
        (the next step, characters tagged wrongly in this pass).
    """
    cdef int tags_n = weights.shape[1]
    cdef Py_ssize_t chunks = offsets.shape[0] - 1, k, s, n, i, f, start, longest = 1
    cdef Py_ssize_t features = ids.shape[1], wrong = 0
    cdef int32_t row
    cdef int g, p, gp, pp
    cdef double[:, ::1] scores = np.empty((tags_n, tags_n), dtype=np.float64)
    cdef bint differs
    for k in range(chunks):
        longest = max(longest, offsets[k + 1] - offsets[k])
    cdef double *emit = <double *> PyMem_Malloc(longest * tags_n * sizeof(double))
    cdef uint8_t *back = <uint8_t *> PyMem_Malloc(longest * tags_n * sizeof(uint8_t))
    cdef uint8_t *pred = <uint8_t *> PyMem_Malloc(longest * sizeof(uint8_t))
    if emit == NULL or back == NULL or pred == NULL:
        PyMem_Free(emit)
        PyMem_Free(back)
        PyMem_Free(pred)
        raise MemoryError()
    try:
        for s in range(order.shape[0]):
            k = order[s]
            start = offsets[k]
            n = offsets[k + 1] - start
            if n <= 0:
                step += 1
                continue
            for g in range(tags_n):
                for p in range(tags_n):
                    scores[g, p] = trans[g, p] if allowed[g, p] else -INFINITY
            _viterbi(ids, start, n, weights, scores, first, last, tags_n, emit, back, pred)
            differs = False
            for i in range(n):
                g = gold[start + i]
                p = pred[i]
                if g != p:
                    differs = True
                    wrong += 1
                    for f in range(features):
                        row = ids[start + i, f]
                        if row >= 0:
                            weights[row, g] += 1.0
                            weights[row, p] -= 1.0
                            totals[row, g] += step
                            totals[row, p] -= step
            if differs:
                for i in range(1, n):
                    gp = gold[start + i - 1]
                    g = gold[start + i]
                    pp = pred[i - 1]
                    p = pred[i]
                    if gp != pp or g != p:
                        trans[gp, g] += 1.0
                        trans[pp, p] -= 1.0
                        trans_totals[gp, g] += step
                        trans_totals[pp, p] -= step
            step += 1
    finally:
        PyMem_Free(emit)
        PyMem_Free(back)
        PyMem_Free(pred)
    return step, wrong


cdef class KeyTable:
    """Feature key -> row: open addressing over a power-of-two table (keys are >= 0)."""

    cdef object _keys_array
    cdef object _rows_array
    cdef int64_t[::1] _keys
    cdef int32_t[::1] _rows
    cdef int _shift
    cdef uint64_t _mask

    def __init__(self, const int64_t[::1] keys):
        cdef Py_ssize_t n = keys.shape[0], i, capacity = 16
        cdef int bits = 4
        cdef uint64_t slot
        while capacity < 2 * n:
            capacity *= 2
            bits += 1
        self._keys_array = np.full(capacity, -1, dtype=np.int64)
        self._rows_array = np.full(capacity, -1, dtype=np.int32)
        self._keys = self._keys_array
        self._rows = self._rows_array
        self._shift = 64 - bits
        self._mask = capacity - 1
        for i in range(n):
            slot = (<uint64_t> keys[i] * 11400714819323198485ULL) >> self._shift
            while self._keys[slot] != -1:
                if self._keys[slot] == keys[i]:
                    raise ValueError("duplicate feature key")
                slot = (slot + 1) & self._mask
            self._keys[slot] = keys[i]
            self._rows[slot] = <int32_t> i

    cdef inline int32_t find(self, int64_t key) noexcept nogil:
        cdef uint64_t slot = (<uint64_t> key * 11400714819323198485ULL) >> self._shift
        while True:
            if self._keys[slot] == key:
                return self._rows[slot]
            if self._keys[slot] == -1:
                return -1
            slot = (slot + 1) & self._mask

    def lookup(self, const int64_t[:, ::1] keys):
        """Row of every key (-1: not in the table), same shape, int32."""
        out_array = np.empty((keys.shape[0], keys.shape[1]), dtype=np.int32)
        cdef int32_t[:, ::1] out = out_array
        cdef Py_ssize_t i, j
        with nogil:
            for i in range(keys.shape[0]):
                for j in range(keys.shape[1]):
                    out[i, j] = self.find(keys[i, j])
        return out_array


def listed_lengths(const int64_t[::1] padded, KeyTable table, int longest):
    """Per cell of ``padded``: the longest listed word starting there, ending there, covering it.

    A word of 2..``longest`` cells is listed when the hash ``_substring_hashes``
    gives it (h = h * 0x100000001B3 + code, wrapping at 64 bits, top bit
    cleared) is in ``table``. Pad cells are never part of a word.

    Returns:
        Three int64 arrays as long as ``padded`` (0: no listed word).
    """
    cdef Py_ssize_t n = padded.shape[0], i, j, k
    cdef int length
    cdef uint64_t h
    begin_array = np.zeros(n, dtype=np.int64)
    end_array = np.zeros(n, dtype=np.int64)
    cover_array = np.zeros(n, dtype=np.int64)
    cdef int64_t[::1] begin = begin_array
    cdef int64_t[::1] end = end_array
    cdef int64_t[::1] cover = cover_array
    with nogil:
        for i in range(n):
            if padded[i] == 0x110000:
                continue
            h = 0
            for length in range(1, longest + 1):
                j = i + length - 1
                if j >= n or padded[j] == 0x110000:
                    break
                h = h * 0x100000001B3ULL + <uint64_t> padded[j]
                if length < 2 or table.find(<int64_t> (h & 0x7FFFFFFFFFFFFFFFULL)) < 0:
                    continue
                begin[i] = length
                if end[j] < length:
                    end[j] = length
                for k in range(i, j + 1):
                    if cover[k] < length:
                        cover[k] = length
    return begin_array, end_array, cover_array

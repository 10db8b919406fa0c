# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled decoders of the built-in baselines: maximum matching over a trie, and HMM Viterbi.

Both compute exactly what their pure-Python twins compute
(``cws_bench.segmenters.maxmatch`` and ``cws_bench.segmenters.hmm``);
``tests/segmenters/test_maxmatch.py`` and ``test_hmm.py`` check them against each other on random
input and on the real corpora. They read each line's characters in place
(no copy, no per-character objects) and create one str per output word.

Common rules:
- whitespace (exactly the characters for which ``str.isspace()`` is true)
  is never part of a word and always ends one;
- with ``keep_runs``, a maximal run of Latin letters and digits (ASCII or
  full width, with ``.``/``．`` between two digits) is never cut inside.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.list cimport PyList_New
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.math cimport INFINITY

cdef extern from *:
    """
    #define CWS_KNUTH 2654435761u
    #define CWS_FIBONACCI 11400714819323198485ULL
    #define CWS_FREE_SLOT 0xFFFFFFFFu
    """
    const uint32_t KNUTH "CWS_KNUTH"
    const uint64_t FIBONACCI "CWS_FIBONACCI"
    const uint32_t FREE_SLOT "CWS_FREE_SLOT"

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch) nogil


cdef inline bint _is_space(Py_UCS4 c) noexcept nogil:
    return Py_UNICODE_ISSPACE(c)


def is_space(Py_UCS4 c):
    """The decoders' whitespace test, exposed for tests."""
    return _is_space(c)


cdef inline bint _is_digit(Py_UCS4 c) noexcept nogil:
    return (0x30 <= c <= 0x39) or (0xFF10 <= c <= 0xFF19)


cdef inline bint _is_alnum(Py_UCS4 c) noexcept nogil:
    return ((0x30 <= c <= 0x39) or (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)
            or (0xFF10 <= c <= 0xFF19) or (0xFF21 <= c <= 0xFF3A) or (0xFF41 <= c <= 0xFF5A))


cdef inline bint _is_point(Py_UCS4 c) noexcept nogil:
    return c == 0x2E or c == 0xFF0E


# ---------------------------------------------------------------------------
# a growable scratch buffer of per-character flags and offsets

cdef struct Scratch:
    uint8_t *glue      # glue[p]: no word boundary may fall before character p
    int32_t *starts    # word starts of one segmentation
    int32_t *starts2   # word starts of a second segmentation (BiMM)
    Py_ssize_t size


cdef int _reserve(Scratch *s, Py_ssize_t n) except -1:
    cdef void *p
    if n + 1 <= s.size:
        return 0
    n = max(n + 1, 2 * s.size, 256)
    p = PyMem_Realloc(s.glue, n * sizeof(uint8_t))
    if p == NULL:
        raise MemoryError()
    s.glue = <uint8_t *> p
    p = PyMem_Realloc(s.starts, (n + 1) * sizeof(int32_t))
    if p == NULL:
        raise MemoryError()
    s.starts = <int32_t *> p
    p = PyMem_Realloc(s.starts2, (n + 1) * sizeof(int32_t))
    if p == NULL:
        raise MemoryError()
    s.starts2 = <int32_t *> p
    s.size = n
    return 0


cdef void _free(Scratch *s) noexcept:
    PyMem_Free(s.glue)
    PyMem_Free(s.starts)
    PyMem_Free(s.starts2)


cdef void _mark_runs(str line, Py_ssize_t n, uint8_t *glue, bint keep_runs) noexcept:
    """glue[p] = 1 when p is inside a run (a boundary before p would cut it)."""
    cdef Py_ssize_t p
    cdef Py_UCS4 prev, c, nxt
    glue[0] = 0
    if n == 0:
        return
    if not keep_runs:
        for p in range(1, n):
            glue[p] = 0
        return
    prev = line[0]
    for p in range(1, n):
        c = line[p]
        if _is_alnum(c):
            # A point is glued only between two digits (below), so this
            # continues a number such as 3.14 across its point.
            glue[p] = _is_alnum(prev) or (_is_point(prev) and glue[p - 1])
        elif _is_point(c) and _is_digit(prev) and p + 1 < n:
            nxt = line[p + 1]
            glue[p] = _is_digit(nxt)
        else:
            glue[p] = 0
        prev = c


# ---------------------------------------------------------------------------
# the trie

cdef struct Edge:
    uint64_t key    # (node << 21) | code point; EMPTY when free
    int32_t child

cdef uint64_t EMPTY = <uint64_t> -1


cdef inline uint64_t _mix(uint64_t key) noexcept nogil:
    # Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4).
    return key * FIBONACCI


cdef class Trie:
    """Words as a trie over code points, read forwards or (``reverse``) backwards.

    Edges live in one open-addressing hash table keyed by (node, code point).
    Words holding whitespace are left out: whitespace always ends a word.
    """

    cdef Edge *edges
    cdef uint8_t *final
    cdef uint64_t mask
    cdef int shift
    cdef int32_t nodes
    cdef readonly Py_ssize_t size
    cdef readonly Py_ssize_t max_length
    cdef readonly bint reverse

    def __cinit__(self, words, bint reverse=False):
        cdef list keep = []
        cdef str word
        cdef Py_ssize_t total = 0, capacity = 16, i, n, k
        cdef int32_t node, child
        cdef Py_UCS4 c
        cdef uint64_t key, slot
        self.reverse = reverse
        for word in words:
            n = len(word)
            if n == 0:
                continue
            for k in range(n):
                if _is_space(word[k]):
                    break
            else:
                keep.append(word)
                total += n
                if n > self.max_length:
                    self.max_length = n
        while capacity < 2 * total + 2:
            capacity *= 2
        self.shift = 64
        k = capacity
        while k > 1:
            k >>= 1
            self.shift -= 1
        self.mask = capacity - 1
        self.edges = <Edge *> PyMem_Malloc(capacity * sizeof(Edge))
        self.final = <uint8_t *> PyMem_Malloc((total + 1) * sizeof(uint8_t))
        if self.edges == NULL or self.final == NULL:
            raise MemoryError()
        for i in range(capacity):
            self.edges[i].key = EMPTY
        self.final[0] = 0
        self.nodes = 1
        for word in keep:
            n = len(word)
            node = 0
            for k in range(n):
                c = word[n - 1 - k] if reverse else word[k]
                key = ((<uint64_t> node) << 21) | (<uint64_t> c)
                slot = _mix(key) >> self.shift
                while True:
                    if self.edges[slot].key == key:
                        node = self.edges[slot].child
                        break
                    if self.edges[slot].key == EMPTY:
                        child = self.nodes
                        self.nodes += 1
                        self.final[child] = 0
                        self.edges[slot].key = key
                        self.edges[slot].child = child
                        node = child
                        break
                    slot = (slot + 1) & self.mask
            if not self.final[node]:
                self.final[node] = 1
                self.size += 1

    def __dealloc__(self):
        PyMem_Free(self.edges)
        PyMem_Free(self.final)

    def __len__(self):
        return self.size

    cdef inline int32_t child(self, int32_t node, Py_UCS4 c) noexcept nogil:
        cdef uint64_t key = ((<uint64_t> node) << 21) | (<uint64_t> c)
        cdef uint64_t slot = _mix(key) >> self.shift
        cdef Edge *edge
        while True:
            edge = &self.edges[slot]
            if edge.key == key:
                return edge.child
            if edge.key == EMPTY:
                return -1
            slot = (slot + 1) & self.mask

    def __contains__(self, word):
        if not isinstance(word, str):
            return False
        cdef str w = word
        cdef Py_ssize_t n = len(w), k
        cdef int32_t node = 0
        for k in range(n):
            node = self.child(node, w[n - 1 - k] if self.reverse else w[k])
            if node < 0:
                return False
        return n > 0 and self.final[node] == 1


# ---------------------------------------------------------------------------
# maximum matching

cdef Py_ssize_t _forward(str line, Py_ssize_t n, Trie trie, Py_ssize_t max_length,
                         uint8_t *glue, int32_t *starts) noexcept:
    """Forward maximum matching; writes word starts (then n) and returns the word count.

    A word is a (start, end) pair; ends are implied by the next start, and a
    start of -1 - k marks skipped whitespace from position k.
    """
    cdef Py_ssize_t i = 0, k, limit, best, count = 0
    cdef int32_t node
    cdef Py_UCS4 c
    while i < n:
        c = line[i]
        if _is_space(c):
            starts[count] = -1 - <int32_t> i
            count += 1
            i += 1
            while i < n and _is_space(line[i]):
                i += 1
            continue
        # The fallback: one character, or the whole run it starts.
        best = i + 1
        while best < n and glue[best]:
            best += 1
        limit = i + max_length
        if limit > n:
            limit = n
        node = 0
        k = i
        while k < limit:
            node = trie.child(node, line[k])
            if node < 0:
                break
            k += 1
            if trie.final[node] and (k == n or not glue[k]) and k > best:
                best = k
        starts[count] = <int32_t> i
        count += 1
        i = best
    starts[count] = <int32_t> n
    return count


cdef Py_ssize_t _backward(str line, Py_ssize_t n, Trie trie, Py_ssize_t max_length,
                          uint8_t *glue, int32_t *starts) noexcept:
    """Backward maximum matching; same output layout as _forward (starts in reading order)."""
    cdef Py_ssize_t j = n, k, limit, best, count = 0, a, b
    cdef int32_t node, swap
    cdef Py_UCS4 c
    # Collected from the right end, then reversed.
    while j > 0:
        c = line[j - 1]
        if _is_space(c):
            j -= 1
            while j > 0 and _is_space(line[j - 1]):
                j -= 1
            starts[count] = -1 - <int32_t> j
            count += 1
            continue
        best = j - 1
        while best > 0 and glue[best]:
            best -= 1
        limit = j - max_length
        if limit < 0:
            limit = 0
        node = 0
        k = j
        while k > limit:
            node = trie.child(node, line[k - 1])
            if node < 0:
                break
            k -= 1
            if trie.final[node] and not glue[k] and k < best:
                best = k
        starts[count] = <int32_t> best
        count += 1
        j = best
    a = 0
    b = count - 1
    while a < b:
        swap = starts[a]
        starts[a] = starts[b]
        starts[b] = swap
        a += 1
        b -= 1
    starts[count] = <int32_t> n
    return count


cdef list _words(str line, int32_t *starts, Py_ssize_t count):
    """The words of a segmentation written by _forward or _backward."""
    cdef list words = []
    cdef Py_ssize_t w
    cdef int32_t start, end
    for w in range(count):
        start = starts[w]
        if start < 0:
            continue
        end = starts[w + 1]
        if end < 0:
            end = -1 - end
        words.append(line[start:end])
    return words


cdef void _tally(int32_t *starts, Py_ssize_t count, Py_ssize_t *words, Py_ssize_t *singles) noexcept:
    cdef Py_ssize_t w
    cdef int32_t start, end
    words[0] = 0
    singles[0] = 0
    for w in range(count):
        start = starts[w]
        if start < 0:
            continue
        end = starts[w + 1]
        if end < 0:
            end = -1 - end
        words[0] += 1
        if end - start == 1:
            singles[0] += 1


def maximum_matching(list lines, Trie forward, Trie backward, Py_ssize_t max_length,
                     bint keep_runs, str direction):
    """Segment lines by maximum matching.

    Args:
        lines: the raw lines (str).
        forward: the words as a forward trie (for ``forward`` and ``bidirectional``).
        backward: the words as a reversed trie (for ``backward`` and ``bidirectional``).
        max_length: the longest word tried, in characters.
        keep_runs: never cut inside a run of Latin letters and digits.
        direction: ``forward``, ``backward`` or ``bidirectional``.

    Returns:
        One list of words per line.
    """
    cdef Scratch s
    cdef Py_ssize_t index, n, count, count2, words1, singles1, words2, singles2
    cdef int mode
    cdef str line
    cdef list out = PyList_New(0)
    if direction == "forward":
        mode = 0
    elif direction == "backward":
        mode = 1
    elif direction == "bidirectional":
        mode = 2
    else:
        raise ValueError(f"unknown direction {direction!r}")
    if mode != 1 and forward is None or mode != 0 and backward is None:
        raise ValueError("a trie is missing for this direction")
    s.glue = NULL
    s.starts = NULL
    s.starts2 = NULL
    s.size = 0
    try:
        for line in lines:
            n = len(line)
            _reserve(&s, n)
            _mark_runs(line, n, s.glue, keep_runs)
            if mode == 0:
                count = _forward(line, n, forward, max_length, s.glue, s.starts)
                out.append(_words(line, s.starts, count))
            elif mode == 1:
                count = _backward(line, n, backward, max_length, s.glue, s.starts)
                out.append(_words(line, s.starts, count))
            else:
                count = _forward(line, n, forward, max_length, s.glue, s.starts)
                count2 = _backward(line, n, backward, max_length, s.glue, s.starts2)
                _tally(s.starts, count, &words1, &singles1)
                _tally(s.starts2, count2, &words2, &singles2)
                # Fewer words, then fewer single-character words, then BMM.
                if words1 < words2 or (words1 == words2 and singles1 < singles2):
                    out.append(_words(line, s.starts, count))
                else:
                    out.append(_words(line, s.starts2, count2))
    finally:
        _free(&s)
    return out


# ---------------------------------------------------------------------------
# HMM: a code point -> row table and first-order Viterbi over B/M/E/S

cdef struct CharSlot:
    uint32_t key    # a code point; 0xFFFFFFFF when free
    int32_t row


cdef class CharTable:
    """Code point -> emission row, an open-addressing hash table; unknown -> ``unknown``."""

    cdef CharSlot *slots
    cdef uint32_t mask
    cdef readonly int32_t unknown
    cdef readonly Py_ssize_t size

    def __cinit__(self, dict rows, int32_t unknown):
        cdef Py_ssize_t capacity = 16
        cdef uint32_t slot, key
        while capacity < 2 * len(rows) + 2:
            capacity *= 2
        self.mask = <uint32_t> (capacity - 1)
        self.unknown = unknown
        self.slots = <CharSlot *> PyMem_Malloc(capacity * sizeof(CharSlot))
        if self.slots == NULL:
            raise MemoryError()
        for slot in range(capacity):
            self.slots[slot].key = FREE_SLOT
        for character, row in rows.items():
            key = ord(character)
            slot = <uint32_t> ((key * KNUTH) & self.mask)
            while self.slots[slot].key != FREE_SLOT and self.slots[slot].key != key:
                slot = (slot + 1) & self.mask
            if self.slots[slot].key == FREE_SLOT:
                self.size += 1
            self.slots[slot].key = key
            self.slots[slot].row = row

    def __dealloc__(self):
        PyMem_Free(self.slots)

    cdef inline int32_t row(self, Py_UCS4 c) noexcept nogil:
        cdef uint32_t slot = <uint32_t> (((<uint32_t> c) * KNUTH) & self.mask)
        while self.slots[slot].key != FREE_SLOT:
            if self.slots[slot].key == c:
                return self.slots[slot].row
            slot = (slot + 1) & self.mask
        return self.unknown

    def lookup(self, str character):
        """The row of one character (for tests)."""
        return self.row(character[0])


cdef enum:
    B = 0
    M = 1
    E = 2
    S = 3


cdef int _viterbi(str line, Py_ssize_t start, Py_ssize_t n, CharTable table,
                  const double[:, ::1] emit, const double[::1] initial,
                  const double[:, ::1] trans, const double[::1] final,
                  uint8_t *back, uint8_t *tags) except -1:
    """Best B/M/E/S tags of line[start:start+n] into tags[0:n]."""
    cdef double delta[4]
    cdef double nxt[4]
    cdef double best, score
    cdef Py_ssize_t i
    cdef int t, u, arg
    cdef int32_t row = table.row(line[start])
    for t in range(4):
        delta[t] = initial[t] + emit[row, t]
    for i in range(1, n):
        row = table.row(line[start + i])
        for t in range(4):
            best = -INFINITY
            arg = 0
            for u in range(4):
                score = delta[u] + trans[u, t]
                if score > best:
                    best = score
                    arg = u
            nxt[t] = best + emit[row, t]
            back[4 * i + t] = <uint8_t> arg
        for t in range(4):
            delta[t] = nxt[t]
    best = -INFINITY
    arg = S
    for t in range(4):
        score = delta[t] + final[t]
        if score > best:
            best = score
            arg = t
    tags[n - 1] = <uint8_t> arg
    for i in range(n - 1, 0, -1):
        arg = back[4 * i + arg]
        tags[i - 1] = <uint8_t> arg
    return 0


def viterbi(list lines, CharTable table, const double[:, ::1] emit, const double[::1] initial,
            const double[:, ::1] trans, const double[::1] final):
    """Segment lines with a first-order B/M/E/S HMM (log probabilities).

    Each whitespace-separated chunk of a line is decoded on its own. Ties go
    to the lower tag index (B < M < E < S), as in the Python twin.

    Args:
        lines: the raw lines.
        table: code point -> emission row.
        emit: log P(character row | tag), shape (rows, 4).
        initial: log P(first tag), shape (4,).
        trans: log P(tag | previous tag), shape (4, 4).
        final: 0 for tags that may end a chunk, -inf for the others, shape (4,).

    Returns:
        One list of words per line.
    """
    cdef Py_ssize_t size = 0, n, i, j, k, word
    cdef uint8_t *back = NULL
    cdef uint8_t *tags = NULL
    cdef void *p
    cdef str line
    cdef list out = PyList_New(0)
    cdef list words
    if emit.shape[1] != 4 or initial.shape[0] != 4 or final.shape[0] != 4:
        raise ValueError("the HMM arrays must have 4 tags")
    if trans.shape[0] != 4 or trans.shape[1] != 4:
        raise ValueError("the transition matrix must be 4 x 4")
    if table.unknown >= emit.shape[0]:
        raise ValueError("the unknown row is outside the emission matrix")
    try:
        for line in lines:
            n = len(line)
            if n > size:
                size = max(n, 2 * size, 256)
                p = PyMem_Realloc(back, 4 * size * sizeof(uint8_t))
                if p == NULL:
                    raise MemoryError()
                back = <uint8_t *> p
                p = PyMem_Realloc(tags, size * sizeof(uint8_t))
                if p == NULL:
                    raise MemoryError()
                tags = <uint8_t *> p
            words = []
            i = 0
            while i < n:
                if _is_space(line[i]):
                    i += 1
                    continue
                j = i + 1
                while j < n and not _is_space(line[j]):
                    j += 1
                _viterbi(line, i, j - i, table, emit, initial, trans, final, back, tags)
                word = i
                for k in range(j - i):
                    if tags[k] == E or tags[k] == S:
                        words.append(line[word:i + k + 1])
                        word = i + k + 1
                if word < j:
                    words.append(line[word:j])
                i = j
            out.append(words)
    finally:
        PyMem_Free(back)
        PyMem_Free(tags)
    return out

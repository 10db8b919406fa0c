# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: extra_compile_args = -ffp-contract=off
"""Compiled decoders: maximum matching over a trie and HMM Viterbi for the built-in
baselines, and snownlp's second-order Viterbi search for its adapter.

Each computes exactly what its pure-Python twin computes
(``cws_bench.segmenters.maxmatch``, ``cws_bench.segmenters.hmm`` and
``cws_bench.segmenters.snownlp.tags``); ``tests/segmenters/test_maxmatch.py``,
``test_hmm.py`` and ``test_snownlp.py`` check them against each other on random
input and on the real corpora (snownlp's against snownlp's own decoder too). They
read each line's characters in place (no copy, no per-character objects) and
create one str per output word.

Common rules of maximum matching and the HMM:
- whitespace (exactly the characters for which ``str.isspace()`` is true)
  is never part of a word and always ends one;
- with ``keep_runs``, a maximal run of Latin letters and digits (ASCII or
  full width, with ``.``/``．`` between two digits) is never cut inside.

snownlp's search (``SnowNLPModel``) sums C doubles in the order Python sums its
floats, so its ties are Python's; ``-ffp-contract=off`` (the ``distutils`` line
above) keeps a compiler from fusing a product and a sum into one rounding on
machines with FMA instructions, which Python never does.
"""

cimport cython
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.dict cimport PyDict_Next
from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.list cimport PyList_New
from cpython.object cimport PyObject
from libc.stdint cimport int32_t, uint8_t, uint32_t, uint64_t
from libc.math cimport INFINITY, log
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

cdef extern from *:
    """
    #define CWS_KNUTH 2654435761u
    #define CWS_FIBONACCI 11400714819323198485ULL
    #define CWS_FREE_SLOT 0xFFFFFFFFu
    #if defined(__GNUC__) || defined(__clang__)
    #define CWS_PREFETCH(p) __builtin_prefetch((const void *) (p))
    #else
    #define CWS_PREFETCH(p) ((void) (p))
    #endif
    #if defined(__GLIBC__)
    #include <malloc.h>
    #define CWS_TRIM() ((void) malloc_trim(0))
    #else
    #define CWS_TRIM() ((void) 0)
    #endif
    """
    const uint32_t KNUTH "CWS_KNUTH"
    const uint64_t FIBONACCI "CWS_FIBONACCI"
    const uint32_t FREE_SLOT "CWS_FREE_SLOT"
    void PREFETCH "CWS_PREFETCH"(const void *address) noexcept nogil
    void TRIM "CWS_TRIM"() noexcept nogil  # glibc: give the heap's free pages back

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch) nogil
    # on borrowed references, no reference counting
    bint _is_tuple "PyTuple_Check"(PyObject *o) noexcept nogil
    Py_ssize_t _tuple_size "PyTuple_GET_SIZE"(PyObject *o) noexcept nogil
    PyObject *_tuple_item "PyTuple_GET_ITEM"(PyObject *o, Py_ssize_t i) noexcept nogil


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


# ---------------------------------------------------------------------------
# snownlp: the second-order Viterbi search of CharacterBasedGenerativeModel.tag

cdef enum:
    SNOW_TAGS = 6           # at most this many tags: a combination of three fits a byte
    SNOW_CODES = 0x110000   # code points
    SNOW_BATCH = 64         # n-grams read at a time when converting

cdef uint32_t SNOW_UNKNOWN = 0xFFFFFFFFu  # a character the model never saw
cdef double SNOW_EXACT = 9007199254740992.0  # 2 ** 53: the ints a double holds exactly
cdef tuple SNOW_BOS = ("", "BOS")
cdef object SNOW_EMPTY = object()  # SnowNLPModel.__new__'s argument for from_bytes

# SnowNLPModel.to_bytes: the magic, then the format's number, then the model
cdef bytes SNOW_MAGIC = b"cws-snow"
cdef enum:
    SNOW_FORMAT = 1
SNOWNLP_FORMAT = SNOW_FORMAT
"""The number of the layout ``SnowNLPModel.to_bytes`` writes (``from_bytes`` reads this one
only): another layout gets another number."""


cdef double _snow_number(object value, str what) except? -1.0:
    """``value`` as the double Python's arithmetic on it works with, when that is exact:
    an int of magnitude below 2 ** 53 (so that a product of two rounds once, as Python's
    exact int product then ``float`` does) or a float; never negative (Python's
    ``math.log`` raises where C's ``log`` gives NaN). Anything else raises ValueError."""
    cdef double d
    if type(value) is float:
        d = value
    elif type(value) is int or type(value) is bool:
        try:
            d = value
        except OverflowError:
            raise ValueError(f"{what} is too large for a double: {value!r}") from None
        if not (-SNOW_EXACT < d < SNOW_EXACT):
            raise ValueError(f"{what} is an int a double does not hold exactly: {value!r}")
    else:
        raise ValueError(f"{what} is not an int or a float: {value!r}")
    if d < 0:
        raise ValueError(f"{what} is negative: {value!r}")
    return d


cdef void _sort_by(uint32_t *order, uint32_t *scratch, Py_ssize_t n, const uint32_t *key,
                   uint32_t *counts, Py_ssize_t buckets) noexcept:
    """Reorder ``order`` stably by ``key[order[i]]`` (a counting sort; keys below
    ``buckets``, ``counts`` holds buckets + 1)."""
    cdef Py_ssize_t i
    memset(counts, 0, (buckets + 1) * sizeof(uint32_t))
    for i in range(n):
        counts[key[order[i]] + 1] += 1
    for i in range(buckets):
        counts[i + 1] += counts[i]
    for i in range(n):
        scratch[counts[key[order[i]]]] = order[i]
        counts[key[order[i]]] += 1
    memcpy(order, scratch, n * sizeof(uint32_t))


cdef inline Py_ssize_t _lower_bound(const uint32_t *values, Py_ssize_t lo, Py_ssize_t hi,
                                    uint32_t key) noexcept nogil:
    """The first i in [lo, hi) with values[i] >= key (hi if none): a binary search without
    branches on the data (a conditional move each step), which mispredicts nothing."""
    cdef const uint32_t *base = values + lo
    cdef Py_ssize_t n = hi - lo, half
    if n <= 0:
        return lo
    while n > 1:
        half = n >> 1
        base = base + half if base[half] < key else base
        n -= half
    return (base - values) + (base[0] < key)


cdef inline bint _before(uint32_t a, uint32_t b, uint32_t c, uint32_t d) noexcept nogil:
    """(a, b) < (c, d)"""
    return a < c or (a == c and b < d)


cdef void *_shrink(void *block, size_t size) noexcept:
    """``block`` cut to ``size`` bytes (or left as it is if that fails)."""
    cdef void *smaller = PyMem_Realloc(block, size if size > 0 else 1)
    return smaller if smaller != NULL else block


cdef inline char *_put(char *at, const void *source, size_t size) noexcept:
    """Copy ``size`` bytes of ``source`` to ``at``; where the next bytes go."""
    if size > 0:
        memcpy(at, source, size)
    return at + size


cdef inline int _take(const uint8_t *data, Py_ssize_t size, Py_ssize_t *at, void *target,
                      Py_ssize_t n) except -1:
    """Copy the ``n`` bytes of ``data[0:size]`` from ``at[0]`` on to ``target`` and move
    ``at[0]`` past them; ValueError when fewer are left."""
    if n > size - at[0]:
        raise ValueError("the data is cut short")
    if n > 0:
        memcpy(target, data + at[0], n)
    at[0] += n
    return 0


cdef inline Py_ssize_t _snow_arrays_size(Py_ssize_t T, Py_ssize_t C, Py_ssize_t P,
                                         Py_ssize_t nb, Py_ssize_t nt) noexcept:
    """The bytes of SnowNLPModel.to_bytes's arrays: code points, uni, rows, seconds,
    bi_start, tri_start, then the bigrams' tags and counts and the trigrams' first
    characters, tags and counts (a uint32 is 4 bytes, a double 8)."""
    return (C * 4 + (C + 1) * T * 8 + (C + 2) * 4 + (3 * P + 2) * 4
            + nb * (1 + 8) + nt * (4 + 1 + 8))


cdef struct SnowEntries:
    # n-grams as read, before they are grouped: characters, tags combined, counts
    uint32_t *first
    uint32_t *second
    uint32_t *third
    uint8_t *tags
    double *counts
    uint32_t *order   # the entries in their sorted order
    Py_ssize_t size


cdef int _snow_entries(SnowEntries *e, Py_ssize_t capacity) except -1:
    capacity = max(capacity, 1)
    e.first = <uint32_t *> PyMem_Malloc(capacity * sizeof(uint32_t))
    e.second = <uint32_t *> PyMem_Malloc(capacity * sizeof(uint32_t))
    e.third = <uint32_t *> PyMem_Malloc(capacity * sizeof(uint32_t))
    e.tags = <uint8_t *> PyMem_Malloc(capacity * sizeof(uint8_t))
    e.counts = <double *> PyMem_Malloc(capacity * sizeof(double))
    e.order = <uint32_t *> PyMem_Malloc(capacity * sizeof(uint32_t))
    e.size = 0
    if not (e.first and e.second and e.third and e.tags and e.counts and e.order):
        raise MemoryError()
    return 0


cdef void _snow_free(SnowEntries *e) noexcept:
    PyMem_Free(e.first)
    PyMem_Free(e.second)
    PyMem_Free(e.third)
    PyMem_Free(e.tags)
    PyMem_Free(e.counts)
    PyMem_Free(e.order)


@cython.final
cdef class SnowNLPModel:
    """A snownlp ``CharacterBasedGenerativeModel``'s counts in C arrays, and its search.

    ``SnowNLPModel(model).tags(chars)`` gives what ``cws_bench.segmenters.snownlp.tags(
    model, chars)`` gives, from the same doubles summed in the same order (so the same
    ties), and ``words(chars)`` what its ``tagged_words`` makes of them. Characters get
    indices 1, 2, ... (0 is ``('', 'BOS')``, whose tag counts as 0). Bigram and trigram
    counts are grouped by their (last two) characters' pair; the pairs are sorted rows
    (the pairs of first character f: ``rows[f]`` to ``rows[f + 1]``, by second
    character), each pair pointing at its entries: (tags, count) for bigrams, (first
    character, tags, count) for trigrams, sorted by first character. A step of the search
    finds one pair by binary search. Items no lookup of the search can equal (a tag not
    in ``status``, a string longer than one character) are left out.

    The conversion reads the model once and keeps nothing of it but ``status``: changing
    the model afterwards does not change this. A model the search could not follow
    exactly raises ValueError (counts that are not ints below 2 ** 53 or floats,
    negative numbers, a ``uni.total`` not above 0, more than six tags or a repeated
    one): decode with the Python search then.

    ``to_bytes()`` writes it as bytes and ``SnowNLPModel.from_bytes(data)`` reads them
    back, bit for bit (19 MB for snownlp's model, 0.02 s to read back against 0.35 s
    to convert): the adapter keeps it so between processes.
    """

    cdef uint32_t *index       # code point -> character index; 0: not in the model
    cdef double *uni           # [character index * tags + tag]; absent: uni.none
    cdef uint32_t *rows        # the pairs of first character f: rows[f] .. rows[f + 1]
    cdef uint32_t *seconds     # each pair's second character, ascending within a row
    cdef uint32_t *bi_start    # pair p's bigrams: bi_start[p] .. bi_start[p + 1]
    cdef uint32_t *tri_start   # pair p's trigrams: tri_start[p] .. tri_start[p + 1]
    cdef uint8_t *bi_tags      # first tag * tags + second tag
    cdef double *bi_counts
    cdef uint32_t *tri_first   # the first item's character, ascending within a pair
    cdef uint8_t *tri_tags     # (first tag * tags + second tag) * tags + third tag
    cdef double *tri_counts
    cdef double l1, l2, l3, total, uni_none, bi_none, tri_none
    cdef PyObject *names[SNOW_TAGS]  # status's tags (status holds them)
    cdef dict tag_of           # tag -> its index in status
    cdef int kinds[SNOW_TAGS]  # tagged_words: 1 ends a word (e), 2 starts one (b, s), 0 neither
    cdef readonly tuple status
    cdef readonly int ntags
    cdef readonly Py_ssize_t characters, pairs, bigrams, trigrams

    def __cinit__(self, model):
        cdef dict uni_d, bi_d, tri_d
        cdef Py_ssize_t t, i, j, size
        cdef int T, tag
        cdef uint32_t a, x, y
        cdef SnowEntries unigrams, bigrams, trigrams
        cdef uint32_t *scratch = NULL
        cdef uint32_t *counts = NULL
        cdef object item, value, name
        if model is SNOW_EMPTY:  # from_bytes fills it (its arrays NULL till then)
            return
        self._set_status(tuple(model.status))
        T = self.ntags
        self.l1 = _snow_number(model.l1, "l1")
        self.l2 = _snow_number(model.l2, "l2")
        self.l3 = _snow_number(model.l3, "l3")
        self.total = _snow_number(model.uni.total, "uni.total")
        if not self.total > 0:
            raise ValueError("uni.total is not above 0: snownlp's search divides by it")
        self.uni_none = _snow_number(model.uni.none, "uni.none")
        self.bi_none = _snow_number(model.bi.none, "bi.none")
        self.tri_none = _snow_number(model.tri.none, "tri.none")
        uni_d, bi_d, tri_d = model.uni.d, model.bi.d, model.tri.d

        self.index = <uint32_t *> calloc(SNOW_CODES, sizeof(uint32_t))  # few pages touched
        if self.index == NULL:
            raise MemoryError()
        memset(&unigrams, 0, sizeof(SnowEntries))
        memset(&bigrams, 0, sizeof(SnowEntries))
        memset(&trigrams, 0, sizeof(SnowEntries))
        try:
            _snow_entries(&unigrams, len(uni_d))
            _snow_entries(&bigrams, len(bi_d))
            _snow_entries(&trigrams, len(tri_d))

            # Read: characters get their indices in the order they are met.
            for item, value in uni_d.items():
                if self._item(item, &a, &tag):
                    unigrams.first[unigrams.size] = a
                    unigrams.tags[unigrams.size] = <uint8_t> tag
                    unigrams.counts[unigrams.size] = _snow_number(value, "a unigram count")
                    unigrams.size += 1
            self._ngrams(bi_d, 2, &bigrams)
            self._ngrams(tri_d, 3, &trigrams)
            self.bigrams = bigrams.size
            self.trigrams = trigrams.size

            # Every character is known now (bigrams and trigrams may name some that no
            # unigram does: those count uni.none, as in the dict).
            size = (self.characters + 1) * T
            self.uni = <double *> PyMem_Malloc(size * sizeof(double))
            if self.uni == NULL:
                raise MemoryError()
            for i in range(size):
                self.uni[i] = self.uni_none
            for i in range(unigrams.size):
                self.uni[unigrams.first[i] * T + unigrams.tags[i]] = unigrams.counts[i]

            # Sort: bigrams by (first, second), trigrams by (second, third, first).
            size = max(bigrams.size, trigrams.size, 1)
            scratch = <uint32_t *> PyMem_Malloc(size * sizeof(uint32_t))
            counts = <uint32_t *> PyMem_Malloc((self.characters + 2) * sizeof(uint32_t))
            if scratch == NULL or counts == NULL:
                raise MemoryError()
            for i in range(bigrams.size):
                bigrams.order[i] = <uint32_t> i
            for i in range(trigrams.size):
                trigrams.order[i] = <uint32_t> i
            size = self.characters + 1
            _sort_by(bigrams.order, scratch, bigrams.size, bigrams.second, counts, size)
            _sort_by(bigrams.order, scratch, bigrams.size, bigrams.first, counts, size)
            _sort_by(trigrams.order, scratch, trigrams.size, trigrams.first, counts, size)
            _sort_by(trigrams.order, scratch, trigrams.size, trigrams.third, counts, size)
            _sort_by(trigrams.order, scratch, trigrams.size, trigrams.second, counts, size)

            # Group: merge the two sorted lists' pairs, placing each entry in its pair's.
            size = bigrams.size + trigrams.size + 1  # at most this many pairs
            self.rows = <uint32_t *> PyMem_Calloc(self.characters + 2, sizeof(uint32_t))
            self.seconds = <uint32_t *> PyMem_Malloc(size * sizeof(uint32_t))
            self.bi_start = <uint32_t *> PyMem_Malloc(size * sizeof(uint32_t))
            self.tri_start = <uint32_t *> PyMem_Malloc(size * sizeof(uint32_t))
            self.bi_tags = <uint8_t *> PyMem_Malloc(max(bigrams.size, 1) * sizeof(uint8_t))
            self.bi_counts = <double *> PyMem_Malloc(max(bigrams.size, 1) * sizeof(double))
            self.tri_first = <uint32_t *> PyMem_Malloc(
                max(trigrams.size, 1) * sizeof(uint32_t))
            self.tri_tags = <uint8_t *> PyMem_Malloc(max(trigrams.size, 1) * sizeof(uint8_t))
            self.tri_counts = <double *> PyMem_Malloc(
                max(trigrams.size, 1) * sizeof(double))
            if not (self.rows and self.seconds and self.bi_start and self.tri_start
                    and self.bi_tags and self.bi_counts and self.tri_first
                    and self.tri_tags and self.tri_counts):
                raise MemoryError()
            i = j = 0
            while i < bigrams.size or j < trigrams.size:
                # the next pair (x, y): the smaller of the two lists' next
                if j == trigrams.size or (
                        i < bigrams.size and _before(
                            bigrams.first[bigrams.order[i]], bigrams.second[bigrams.order[i]],
                            trigrams.second[trigrams.order[j]],
                            trigrams.third[trigrams.order[j]])):
                    x = bigrams.first[bigrams.order[i]]
                    y = bigrams.second[bigrams.order[i]]
                else:
                    x = trigrams.second[trigrams.order[j]]
                    y = trigrams.third[trigrams.order[j]]
                self.rows[x + 1] += 1
                self.seconds[self.pairs] = y
                self.bi_start[self.pairs] = <uint32_t> i
                self.tri_start[self.pairs] = <uint32_t> j
                self.pairs += 1
                while (i < bigrams.size and bigrams.first[bigrams.order[i]] == x
                       and bigrams.second[bigrams.order[i]] == y):
                    self.bi_tags[i] = bigrams.tags[bigrams.order[i]]
                    self.bi_counts[i] = bigrams.counts[bigrams.order[i]]
                    i += 1
                while (j < trigrams.size and trigrams.second[trigrams.order[j]] == x
                       and trigrams.third[trigrams.order[j]] == y):
                    self.tri_first[j] = trigrams.first[trigrams.order[j]]
                    self.tri_tags[j] = trigrams.tags[trigrams.order[j]]
                    self.tri_counts[j] = trigrams.counts[trigrams.order[j]]
                    j += 1
            self.bi_start[self.pairs] = <uint32_t> i
            self.tri_start[self.pairs] = <uint32_t> j
            for i in range(self.characters + 1):
                self.rows[i + 1] += self.rows[i]
            self.seconds = <uint32_t *> _shrink(self.seconds, self.pairs * sizeof(uint32_t))
            self.bi_start = <uint32_t *> _shrink(self.bi_start,
                                                 (self.pairs + 1) * sizeof(uint32_t))
            self.tri_start = <uint32_t *> _shrink(self.tri_start,
                                                  (self.pairs + 1) * sizeof(uint32_t))
        finally:
            _snow_free(&unigrams)
            _snow_free(&bigrams)
            _snow_free(&trigrams)
            PyMem_Free(scratch)
            PyMem_Free(counts)
            TRIM()  # glibc keeps the temporary arrays' 30 MB in its heap otherwise

    cdef int _set_status(self, tuple status) except -1:
        """status and what the search keeps of it: names, tag_of, kinds, ntags."""
        cdef int t, T = len(status)
        cdef object name
        self.status = status
        self.ntags = T
        if not 1 <= T <= SNOW_TAGS:
            raise ValueError(f"{T} tags: the compiled search handles 1 to {SNOW_TAGS}")
        self.tag_of = {}
        for t in range(T):
            name = status[t]
            self.names[t] = <PyObject *> name
            self.tag_of.setdefault(name, t)
            self.kinds[t] = 1 if name == "e" else 2 if name in ("b", "s") else 0
        if len(self.tag_of) != T:
            raise ValueError(f"repeated tags: {status!r}")
        return 0

    def to_bytes(self):
        """The model as bytes, which ``SnowNLPModel.from_bytes`` reads back exactly.

        The layout (``SNOWNLP_FORMAT``, in this machine's byte order): the magic
        ``cws-snow``, the format's number and the number of tags (uint32 each); the
        characters, pairs, bigrams and trigrams (uint64 each); l1, l2, l3, total,
        uni_none, bi_none and tri_none (doubles); each tag as its UTF-8 length (uint32)
        and bytes; then the arrays: the characters' code points in index order (the
        code point index is rebuilt from them, not stored), uni, rows, seconds,
        bi_start, tri_start, bi_tags, bi_counts, tri_first, tri_tags and tri_counts.
        A model whose tags are not all str raises ValueError.
        """
        cdef Py_ssize_t T = self.ntags, C = self.characters, P = self.pairs
        cdef Py_ssize_t nb = self.bigrams, nt = self.trigrams, size, t
        cdef uint32_t head[2]
        cdef uint64_t sizes[4]
        cdef double scalars[7]
        cdef uint32_t length, point
        cdef Py_ssize_t code
        cdef list names = []
        cdef bytes name, out
        cdef char *at
        for tag in self.status:
            if type(tag) is not str:
                raise ValueError(f"a tag that is not a str cannot be stored: {tag!r}")
            names.append((<str> tag).encode("utf-8", "surrogatepass"))
        head[0] = SNOW_FORMAT
        head[1] = <uint32_t> T
        sizes[0] = C
        sizes[1] = P
        sizes[2] = nb
        sizes[3] = nt
        scalars[0] = self.l1
        scalars[1] = self.l2
        scalars[2] = self.l3
        scalars[3] = self.total
        scalars[4] = self.uni_none
        scalars[5] = self.bi_none
        scalars[6] = self.tri_none
        size = len(SNOW_MAGIC) + sizeof(head) + sizeof(sizes) + sizeof(scalars)
        for name in names:
            size += sizeof(uint32_t) + len(name)
        size += _snow_arrays_size(T, C, P, nb, nt)
        out = PyBytes_FromStringAndSize(NULL, size)  # filled here, before anyone sees it
        at = PyBytes_AS_STRING(out)
        at = _put(at, <char *> SNOW_MAGIC, len(SNOW_MAGIC))
        at = _put(at, head, sizeof(head))
        at = _put(at, sizes, sizeof(sizes))
        at = _put(at, scalars, sizeof(scalars))
        for name in names:
            length = <uint32_t> len(name)
            at = _put(at, &length, sizeof(uint32_t))
            at = _put(at, <char *> name, length)
        for code in range(SNOW_CODES):  # character index i + 1's code point goes at i
            if self.index[code] != 0:
                point = <uint32_t> code
                memcpy(at + (self.index[code] - 1) * sizeof(uint32_t), &point, sizeof(uint32_t))
        at += C * sizeof(uint32_t)
        at = _put(at, self.uni, (C + 1) * T * sizeof(double))
        at = _put(at, self.rows, (C + 2) * sizeof(uint32_t))
        at = _put(at, self.seconds, P * sizeof(uint32_t))
        at = _put(at, self.bi_start, (P + 1) * sizeof(uint32_t))
        at = _put(at, self.tri_start, (P + 1) * sizeof(uint32_t))
        at = _put(at, self.bi_tags, nb * sizeof(uint8_t))
        at = _put(at, self.bi_counts, nb * sizeof(double))
        at = _put(at, self.tri_first, nt * sizeof(uint32_t))
        at = _put(at, self.tri_tags, nt * sizeof(uint8_t))
        at = _put(at, self.tri_counts, nt * sizeof(double))
        assert at == PyBytes_AS_STRING(out) + size
        return out

    @staticmethod
    def from_bytes(data):
        """The model ``to_bytes`` wrote as ``data`` (bytes or another contiguous buffer).

        Raises ValueError for anything else: another magic or format number, data cut
        short or too long, sizes or arrays that do not fit together (every size is
        checked against the data before anything is copied, and every index the search
        follows against what it indexes, so that no data makes the search read outside
        its arrays). The arrays belong to the new object as soon as they are allocated:
        on an error ``__dealloc__`` frees them.
        """
        cdef const uint8_t[::1] view = data
        cdef const uint8_t *start
        cdef Py_ssize_t size = view.shape[0], at = 0, T, C, P, nb, nt, t, i, k
        cdef uint32_t head[2]
        cdef uint64_t sizes[4]
        cdef double scalars[7]
        cdef uint32_t length, code
        cdef char magic[8]
        cdef list names = []
        cdef SnowNLPModel self
        if size < len(SNOW_MAGIC):
            raise ValueError("not a stored snownlp model: too short")
        start = &view[0]
        _take(start, size, &at, magic, len(SNOW_MAGIC))
        if magic[:len(SNOW_MAGIC)] != SNOW_MAGIC:
            raise ValueError("not a stored snownlp model: another magic")
        _take(start, size, &at, head, sizeof(head))
        if head[0] != SNOW_FORMAT:
            raise ValueError(
                f"a stored snownlp model of format {head[0]}: this build reads {SNOW_FORMAT}")
        if not 1 <= head[1] <= SNOW_TAGS:
            raise ValueError(f"{head[1]} tags: the compiled search handles 1 to {SNOW_TAGS}")
        T = head[1]
        _take(start, size, &at, sizes, sizeof(sizes))
        # each count is bounded before any product: no size below can overflow
        if sizes[0] > SNOW_CODES or sizes[1] > <uint64_t> size or sizes[2] > <uint64_t> size \
                or sizes[3] > <uint64_t> size:
            raise ValueError("the stored sizes do not fit the data")
        C = <Py_ssize_t> sizes[0]
        P = <Py_ssize_t> sizes[1]
        nb = <Py_ssize_t> sizes[2]
        nt = <Py_ssize_t> sizes[3]
        _take(start, size, &at, scalars, sizeof(scalars))
        for t in range(T):
            _take(start, size, &at, &length, sizeof(uint32_t))
            if length > size - at:
                raise ValueError("the data is cut short")
            names.append((<const char *> start + at)[:length].decode("utf-8", "surrogatepass"))
            at += length
        if size - at != _snow_arrays_size(T, C, P, nb, nt):
            raise ValueError("the data is cut short or too long for its sizes")

        self = SnowNLPModel.__new__(SnowNLPModel, SNOW_EMPTY)
        self._set_status(tuple(names))
        self.l1, self.l2, self.l3, self.total = scalars[0], scalars[1], scalars[2], scalars[3]
        self.uni_none, self.bi_none, self.tri_none = scalars[4], scalars[5], scalars[6]
        for t in range(7):
            if scalars[t] < 0:
                raise ValueError("a stored number is negative")
        if not self.total > 0:
            raise ValueError("uni.total is not above 0: snownlp's search divides by it")
        self.characters, self.pairs, self.bigrams, self.trigrams = C, P, nb, nt
        self.index = <uint32_t *> calloc(SNOW_CODES, sizeof(uint32_t))
        self.uni = <double *> PyMem_Malloc((C + 1) * T * sizeof(double))
        self.rows = <uint32_t *> PyMem_Malloc((C + 2) * sizeof(uint32_t))
        self.seconds = <uint32_t *> PyMem_Malloc(max(P, 1) * sizeof(uint32_t))
        self.bi_start = <uint32_t *> PyMem_Malloc((P + 1) * sizeof(uint32_t))
        self.tri_start = <uint32_t *> PyMem_Malloc((P + 1) * sizeof(uint32_t))
        self.bi_tags = <uint8_t *> PyMem_Malloc(max(nb, 1) * sizeof(uint8_t))
        self.bi_counts = <double *> PyMem_Malloc(max(nb, 1) * sizeof(double))
        self.tri_first = <uint32_t *> PyMem_Malloc(max(nt, 1) * sizeof(uint32_t))
        self.tri_tags = <uint8_t *> PyMem_Malloc(max(nt, 1) * sizeof(uint8_t))
        self.tri_counts = <double *> PyMem_Malloc(max(nt, 1) * sizeof(double))
        if not (self.index and self.uni and self.rows and self.seconds and self.bi_start
                and self.tri_start and self.bi_tags and self.bi_counts and self.tri_first
                and self.tri_tags and self.tri_counts):
            raise MemoryError()
        for i in range(C):  # the code point index, rebuilt
            _take(start, size, &at, &code, sizeof(uint32_t))
            if code >= SNOW_CODES or self.index[code] != 0:
                raise ValueError("a stored character is not a code point, or repeated")
            self.index[code] = <uint32_t> (i + 1)
        _take(start, size, &at, self.uni, (C + 1) * T * sizeof(double))
        _take(start, size, &at, self.rows, (C + 2) * sizeof(uint32_t))
        _take(start, size, &at, self.seconds, P * sizeof(uint32_t))
        _take(start, size, &at, self.bi_start, (P + 1) * sizeof(uint32_t))
        _take(start, size, &at, self.tri_start, (P + 1) * sizeof(uint32_t))
        _take(start, size, &at, self.bi_tags, nb * sizeof(uint8_t))
        _take(start, size, &at, self.bi_counts, nb * sizeof(double))
        _take(start, size, &at, self.tri_first, nt * sizeof(uint32_t))
        _take(start, size, &at, self.tri_tags, nt * sizeof(uint8_t))
        _take(start, size, &at, self.tri_counts, nt * sizeof(double))

        # the arrays fit together: every index the search follows is inside its array
        if self.rows[0] != 0 or self.rows[C + 1] != P:
            raise ValueError("the stored rows do not cover the pairs")
        for i in range(C + 1):
            if self.rows[i] > self.rows[i + 1]:
                raise ValueError("the stored rows are not in order")
        for i in range(C + 1):  # rows[i] .. rows[i + 1] lie in 0 .. P now
            for k in range(self.rows[i], self.rows[i + 1]):
                if self.seconds[k] > C or (k > self.rows[i]
                                           and self.seconds[k] <= self.seconds[k - 1]):
                    raise ValueError("a stored row's characters are not in order")
        if (self.bi_start[0] != 0 or self.bi_start[P] != nb
                or self.tri_start[0] != 0 or self.tri_start[P] != nt):
            raise ValueError("the stored pairs do not cover the bigrams and trigrams")
        for k in range(P):
            if (self.bi_start[k] > self.bi_start[k + 1]
                    or self.tri_start[k] > self.tri_start[k + 1]):
                raise ValueError("the stored pairs are not in order")
        for k in range(P):  # each pair's entries lie in 0 .. nb and 0 .. nt now
            for i in range(self.tri_start[k], self.tri_start[k + 1]):
                if self.tri_first[i] > C or (i > self.tri_start[k]
                                             and self.tri_first[i] < self.tri_first[i - 1]):
                    raise ValueError("a stored pair's trigrams are not in order")
        for i in range(nb):
            if self.bi_tags[i] >= T * T or self.bi_counts[i] < 0:
                raise ValueError("a stored bigram's tags or count are out of range")
        for i in range(nt):
            if self.tri_tags[i] >= T * T * T or self.tri_counts[i] < 0:
                raise ValueError("a stored trigram's tags or count are out of range")
        for i in range((C + 1) * T):
            if self.uni[i] < 0:
                raise ValueError("a stored unigram count is negative")
        return self

    def __dealloc__(self):
        free(self.index)
        PyMem_Free(self.uni)
        PyMem_Free(self.rows)
        PyMem_Free(self.seconds)
        PyMem_Free(self.bi_start)
        PyMem_Free(self.tri_start)
        PyMem_Free(self.bi_tags)
        PyMem_Free(self.bi_counts)
        PyMem_Free(self.tri_first)
        PyMem_Free(self.tri_tags)
        PyMem_Free(self.tri_counts)

    cdef int _ngrams(self, dict counts, int n, SnowEntries *e) except -1:
        """Read the n-grams (n = 2 or 3) the search can meet into ``e``.

        The keys, their item tuples and the items' strings lie all over memory (1.4
        million distinct items and strings in snownlp's trigrams), so they are read in
        batches, one level of all of a batch's at a time, each level prefetched while
        the level before is read: the loads of a batch overlap instead of waiting for
        each other (3 times as fast as reading each key through)."""
        cdef PyObject *keys[SNOW_BATCH]
        cdef PyObject *values[SNOW_BATCH]
        cdef PyObject *items[3 * SNOW_BATCH]
        cdef PyObject *key
        cdef PyObject *item
        cdef Py_ssize_t position = 0, got, k, j
        cdef int T = self.ntags
        cdef uint32_t chars[3]
        cdef int tags[3]
        while True:
            got = 0
            while got < SNOW_BATCH and PyDict_Next(counts, &position, &keys[got], &values[got]):
                PREFETCH(keys[got])
                PREFETCH(values[got])
                got += 1
            if got == 0:
                return 0
            for k in range(got):  # the keys' items
                key = keys[k]
                if _is_tuple(key) and _tuple_size(key) == n:
                    for j in range(n):
                        items[3 * k + j] = _tuple_item(key, j)
                        PREFETCH(items[3 * k + j])
                else:
                    items[3 * k] = NULL
            for k in range(got):  # the items' strings
                if items[3 * k] == NULL:
                    continue
                for j in range(n):
                    item = items[3 * k + j]
                    if _is_tuple(item) and _tuple_size(item) > 0:
                        item = _tuple_item(item, 0)
                        PREFETCH(item)
                        PREFETCH(<char *> item + 64)  # a str's characters follow its header
            for k in range(got):
                if items[3 * k] == NULL:
                    continue
                for j in range(n):
                    if not self._item(<object> items[3 * k + j], &chars[j], &tags[j]):
                        break
                else:
                    e.first[e.size] = chars[0]
                    e.second[e.size] = chars[1]
                    if n == 2:
                        e.tags[e.size] = <uint8_t> (tags[0] * T + tags[1])
                        e.counts[e.size] = _snow_number(<object> values[k], "a bigram count")
                    else:
                        e.third[e.size] = chars[2]
                        e.tags[e.size] = <uint8_t> ((tags[0] * T + tags[1]) * T + tags[2])
                        e.counts[e.size] = _snow_number(<object> values[k], "a trigram count")
                    e.size += 1

    cdef inline int _item(self, object item, uint32_t *char, int *tag) except -1:
        """Whether the search can meet ``item``; if so its character's index (new ones
        numbered as met) into ``char`` and its tag into ``tag``: a (character of one code
        point, one of status's tags) pair, or snownlp's ``('', 'BOS')`` (0, 0). No lookup
        of the search can equal any other item."""
        cdef object name, found
        cdef str text
        cdef uint32_t code
        cdef int t
        if not isinstance(item, tuple) or len(<tuple> item) != 2:
            return 0
        if not isinstance((<tuple> item)[0], str):
            return 0
        text = (<tuple> item)[0]
        if len(text) != 1:
            if item == SNOW_BOS:
                char[0] = 0
                tag[0] = 0
                return 1
            return 0
        name = (<tuple> item)[1]
        for t in range(self.ntags):  # the tags are most often status's own objects
            if <PyObject *> name == self.names[t]:
                tag[0] = t
                break
        else:
            found = self.tag_of.get(name)
            if found is None:
                return 0
            tag[0] = <int> found
        code = <uint32_t> text[0]
        if self.index[code] == 0:
            self.characters += 1
            self.index[code] = <uint32_t> self.characters
        char[0] = self.index[code]
        return 1

    cdef inline Py_ssize_t _pair(self, uint32_t first, uint32_t second) noexcept nogil:
        """The pair of two characters (an index into seconds), or -1 when no count names it."""
        cdef Py_ssize_t hi, found
        if first == SNOW_UNKNOWN or second == SNOW_UNKNOWN:
            return -1
        hi = self.rows[first + 1]
        found = _lower_bound(self.seconds, self.rows[first], hi, second)
        return found if found < hi and self.seconds[found] == second else -1

    cdef int _search(self, str chars, Py_ssize_t n, uint8_t *found) except -1:
        """The tags (indices into ``status``) of ``chars``, into ``found[0:n]``.

        The Python ``tags``, step for step: probs[t2 * T + t1] is the best path's log
        probability ending with tags t1, t2 (``probs[t2][t1]`` there), pairs[t2 * T + t1]
        the bigram count of that (before, last) item pair, bigram[t2 * T + t] and
        trigram[(t1 * T + t2) * T + t] the counts this character's tag t makes with them.
        """
        cdef int T = self.ntags
        cdef double probs[SNOW_TAGS * SNOW_TAGS]
        cdef double step_probs[SNOW_TAGS * SNOW_TAGS]
        cdef double pairs[SNOW_TAGS * SNOW_TAGS]
        cdef double step_pairs[SNOW_TAGS * SNOW_TAGS]
        cdef double last_counts[SNOW_TAGS]
        cdef double counts[SNOW_TAGS]
        cdef double bigram[SNOW_TAGS * SNOW_TAGS]
        cdef double trigram[SNOW_TAGS * SNOW_TAGS * SNOW_TAGS]
        cdef uint8_t *back
        cdef uint8_t *backs = NULL
        cdef Py_ssize_t i, e, lo, hi, slot
        cdef Py_ssize_t n_last = 1, n_before = 1  # ('', 'BOS') alone, at the start
        cdef uint32_t before = 0, last = 0, char  # character indices; 0: ('', 'BOS')
        cdef int t, t1, t2, tag, previous, arg
        cdef bint seen
        cdef double unigram, partial, d, mixed, p, q, best
        cdef double l1 = self.l1, l2 = self.l2, l3 = self.l3, total = self.total
        if n == 0:
            return 0
        backs = <uint8_t *> PyMem_Malloc(n * T * T * sizeof(uint8_t))
        if backs == NULL:
            raise MemoryError()
        probs[0] = 0.0
        last_counts[0] = self.uni[0]
        pairs[0] = self.bi_none
        slot = self._pair(0, 0)
        if slot >= 0:
            for e in range(self.bi_start[slot], self.bi_start[slot + 1]):
                if self.bi_tags[e] == 0:
                    pairs[0] = self.bi_counts[e]
        for i in range(n):
            char = self.index[<uint32_t> chars[i]]
            if char == 0:
                char = SNOW_UNKNOWN
            seen = False
            for t in range(T):
                counts[t] = self.uni_none if char == SNOW_UNKNOWN else self.uni[char * T + t]
                if counts[t] / total != 0:
                    seen = True
            for t in range(T * T):
                bigram[t] = self.bi_none
            slot = self._pair(last, char)
            if slot >= 0:
                for e in range(self.bi_start[slot], self.bi_start[slot + 1]):
                    bigram[self.bi_tags[e]] = self.bi_counts[e]
            if seen:
                for t in range(T * T * T):
                    trigram[t] = self.tri_none
                if slot >= 0 and before != SNOW_UNKNOWN:
                    hi = self.tri_start[slot + 1]
                    lo = _lower_bound(self.tri_first, self.tri_start[slot], hi, before)
                    while lo < hi and self.tri_first[lo] == before:
                        trigram[self.tri_tags[lo]] = self.tri_counts[lo]
                        lo += 1
            back = backs + i * T * T
            for t in range(T):
                unigram = l1 * (counts[t] / total)
                for t2 in range(n_last):
                    step_pairs[t * T + t2] = bigram[t2 * T + t]
                    if not seen:  # the last path, unchanged
                        step_probs[t * T + t2] = probs[t2 * T + n_before - 1]
                        back[t * T + t2] = <uint8_t> (n_before - 1)
                        continue
                    d = last_counts[t2]
                    partial = unigram + (0.0 if d == 0 else (l2 * bigram[t2 * T + t]) / d)
                    best = -INFINITY
                    arg = 0
                    for t1 in range(n_before):
                        p = probs[t2 * T + t1]
                        if p == -INFINITY:
                            continue
                        d = pairs[t2 * T + t1]
                        mixed = partial + (
                            0.0 if d == 0 else (l3 * trigram[(t1 * T + t2) * T + t]) / d)
                        q = p + (-INFINITY if mixed == 0 else log(mixed))
                        if q > best:
                            best = q
                            arg = t1
                    step_probs[t * T + t2] = best
                    back[t * T + t2] = <uint8_t> arg
            memcpy(probs, step_probs, T * T * sizeof(double))
            memcpy(pairs, step_pairs, T * T * sizeof(double))
            memcpy(last_counts, counts, T * sizeof(double))
            n_before = n_last
            n_last = T
            before = last
            last = char
        # the first of the best states, tag-major
        tag = 0
        previous = 0
        best = probs[0]
        for t in range(T):
            for t2 in range(n_before):
                if probs[t * T + t2] > best:
                    best = probs[t * T + t2]
                    tag = t
                    previous = t2
        for i in range(n - 1, -1, -1):
            found[i] = <uint8_t> tag
            t = previous
            previous = backs[i * T * T + tag * T + previous]
            tag = t
        PyMem_Free(backs)
        return 0

    def tags(self, str chars):
        """The tag of each character (``status``'s objects), as ``snownlp.tags`` gives."""
        cdef Py_ssize_t n = len(chars), i
        cdef uint8_t *found = <uint8_t *> PyMem_Malloc(max(n, 1) * sizeof(uint8_t))
        cdef list out
        if found == NULL:
            raise MemoryError()
        try:
            self._search(chars, n, found)
            out = PyList_New(0)
            for i in range(n):
                out.append(self.status[found[i]])
        finally:
            PyMem_Free(found)
        return out

    def words(self, str chars):
        """The words of ``chars``: ``snownlp.tagged_words(chars, self.tags(chars))``."""
        cdef Py_ssize_t n = len(chars), i, start = -1
        cdef uint8_t *found = <uint8_t *> PyMem_Malloc(max(n, 1) * sizeof(uint8_t))
        cdef list out = PyList_New(0)
        cdef int kind
        if found == NULL:
            raise MemoryError()
        try:
            self._search(chars, n, found)
            for i in range(n):  # start: where the word being made starts, -1 when none
                kind = self.kinds[found[i]]
                if kind == 1:
                    out.append(chars[start if start >= 0 else i:i + 1])
                    start = -1
                elif kind == 2:
                    if start >= 0:
                        out.append(chars[start:i])
                    start = i
                elif start < 0:
                    start = i
            if start >= 0:
                out.append(chars[start:n])
        finally:
            PyMem_Free(found)
        return out

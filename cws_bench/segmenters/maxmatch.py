"""Forward, backward and bidirectional maximum matching over a dictionary.

Forward maximum matching (FMM) reads a line from the left and, at each
position, takes the longest dictionary word that starts there (at most
``max_word_length`` characters), or one character when no word does.
Backward maximum matching (BMM) does the same from the right end.
Bidirectional maximum matching (BiMM) runs both and keeps, per line:

1. the segmentation with fewer words;
2. on a tie, the one with fewer single-character words;
3. on a second tie, BMM's (backward matching errs less on Chinese: Sun &
   T'sou 1995, "Ambiguity resolution in Chinese word segmentation").

Rules shared by the three:

- whitespace is never part of a word and always ends one (dictionary
  words holding whitespace are ignored);
- ``keep_runs`` (on by default): a maximal run of Latin letters and digits,
  ASCII or full width, with ``.``/``．`` between two digits (``2000``,
  ``WTO``, ``MP3``, ``3.14``, ``１．５``), is never cut inside. It is one word
  unless a dictionary word covers it and ends at a run boundary
  (``2000年`` when the dictionary has it);
- ``max_word_length`` defaults to the longest dictionary word.

The official SIGHAN 2005 baseline (``mwseg.pl`` in ``icwb2-data/scripts``)
is FMM with the longest word of the training word list as maximum length
and no run rule: ``get_segmenter("fmm", lexicon=..., keep_runs=False)``
reproduces its PKU scores exactly (``tests/segmenters/test_maxmatch.py``), except on
input with spaces, which ``mwseg.pl`` deletes and matches across, while whitespace always
ends a word here (delete the spaces of the input first to match it). docs/SEGMENTERS.md
("The baselines"), docs/SIGHAN_SCORING.md and docs/SIGHAN2005_PUBLISHED.md give the
figures, the CityU line this changes, and the paper's table the script does not produce.

The compiled decoder (``_decode.pyx``) is used when it is built; the pure-
Python functions below compute the same segmentations and are its test
oracle.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from cws_bench.defaults import Bounds
from cws_bench.errors import CwsBenchError, Fix, SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.hmm import fold_width
from cws_bench.segmenters.sources import load_word_source, training_data
from cws_bench.text.dictionary import Dictionary, load_dictionary
from cws_bench.text.io import atomic_write

try:
    from cws_bench.segmenters import _decode  # type: ignore[attr-defined]  # compiled, no stub
except ImportError:  # pragma: no cover - installed without a C compiler
    _decode = None

__all__ = [
    "DIRECTIONS",
    "MaximumMatching",
    "maximum_matching_python",
    "run_glue",
]

Direction = Literal["forward", "backward", "bidirectional"]
DIRECTIONS: tuple[str, ...] = ("forward", "backward", "bidirectional")
_NAMES = {"forward": "fmm", "backward": "bmm", "bidirectional": "bimm"}
_AT_LEAST_1 = Bounds(whole=True, low=1)


def _alnum(character: str) -> bool:
    """An ASCII letter or digit, or its full-width form."""
    folded = fold_width(character)
    return folded.isascii() and folded.isalnum()


def _digit(character: str) -> bool:
    return "0" <= fold_width(character) <= "9"


def run_glue(line: str, keep_runs: bool = True) -> list[bool]:
    """For each position p, whether a boundary before character p would cut a run.

    >>> "".join("^" if glued else "." for glued in run_glue("第3.5个MP3,１２"))
    '..^^..^^..^'
    """
    glue = [False] * len(line)
    if not keep_runs:
        return glue
    for p in range(1, len(line)):
        character, previous = line[p], line[p - 1]
        if _alnum(character):
            glue[p] = _alnum(previous) or (previous in ".．" and glue[p - 1])
        elif character in ".．":
            glue[p] = _digit(previous) and p + 1 < len(line) and _digit(line[p + 1])
    return glue


def _prefixes(words: Iterable[str]) -> tuple[set[str], set[str]]:
    kept = {word for word in words if word and len(word.split()) == 1 and word == word.strip()}
    return kept, {word[:k] for word in kept for k in range(1, len(word) + 1)}


def _forward(line: str, words: set[str], prefixes: set[str], max_length: int, glue: list[bool]):
    spans = []
    n = len(line)
    i = 0
    while i < n:
        if line[i].isspace():
            i += 1
            continue
        best = i + 1
        while best < n and glue[best]:
            best += 1
        for end in range(i + 1, min(n, i + max_length) + 1):
            piece = line[i:end]
            if piece not in prefixes:
                break
            if piece in words and (end == n or not glue[end]) and end > best:
                best = end
        spans.append((i, best))
        i = best
    return spans


def maximum_matching_python(
    lines: Sequence[str],
    words: Iterable[str],
    *,
    direction: Direction = "forward",
    max_word_length: int | None = None,
    keep_runs: bool = True,
) -> list[list[str]]:
    """Maximum matching in pure Python: the reference the compiled decoder is tested against.

    >>> words = ["结婚", "和尚", "尚未"]
    >>> maximum_matching_python(["结婚的和尚未结婚的"], words)
    [['结婚', '的', '和尚', '未', '结婚', '的']]
    >>> maximum_matching_python(["结婚的和尚未结婚的"], words, direction="backward")
    [['结婚', '的', '和', '尚未', '结婚', '的']]
    """
    kept, prefixes = _prefixes(words)
    # backward matching is forward matching of the reversed line and words
    reversed_kept, suffixes = _prefixes(word[::-1] for word in kept)
    max_length = max_word_length or max(map(len, kept), default=1)
    out = []
    for line in lines:
        glue = run_glue(line, keep_runs)
        forward: list[tuple[int, int]] = []
        backward: list[tuple[int, int]] = []
        if direction != "backward":
            forward = _forward(line, kept, prefixes, max_length, glue)
        if direction != "forward":
            mirrored = [False, *glue[:0:-1]]  # glue[p]: before character p of the reversed line
            spans = _forward(line[::-1], reversed_kept, suffixes, max_length, mirrored)
            backward = [(len(line) - end, len(line) - start) for start, end in reversed(spans)]
        if direction == "forward":
            spans = forward
        elif direction == "backward":
            spans = backward
        else:
            singles_forward = sum(end - start == 1 for start, end in forward)
            singles_backward = sum(end - start == 1 for start, end in backward)
            if len(forward) < len(backward) or (
                len(forward) == len(backward) and singles_forward < singles_backward
            ):
                spans = forward
            else:
                spans = backward
        out.append([line[start:end] for start, end in spans])
    return out


class MaximumMatching(Segmenter):
    """Maximum matching over a dictionary: forward (``fmm``), backward (``bmm``) or both (``bimm``).

    Exactly one word source: ``lexicon`` (a word list file), ``corpus`` (a
    registered corpus, or a segmented file, whose word types are used), or
    ``words`` (a list).

    ``lexicon`` is not a corpus' ``dictionary``, the OOV dictionary scoring uses. A
    registered ``corpus`` without ``split`` gives its standard dictionary (the SIGHAN
    training word list, or the word types of its training split).
    """

    name = "fmm"
    kind = "dictionary"
    independent_lines = True  # each line is segmented on its own
    description = "maximum matching over a dictionary"

    @dataclass(frozen=True)
    class Options:
        direction: Direction = option("forward", "which way words are matched")
        lexicon: str | None = option(
            None, "a word list file (one word a line), jieba or corpus:NAME[:SPLIT]"
        )
        corpus: str | None = option(None, "a registered corpus or a segmented file: its words")
        split: str | None = option(None, "with a registered corpus: the split whose words")
        words: Sequence[str] | None = option(None, "the words themselves")
        max_word_length: int | None = option(
            None, "the longest word tried (default: the longest word)", bounds=_AT_LEAST_1
        )
        keep_runs: bool = option(True, "never cut inside a run of Latin letters and digits")
        encoding: str = option("utf-8", "of lexicon or a corpus file", identity="changed")
        data_dir: str | None = option(None, "where a registered corpus' data is")

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        opts = self.opts
        self.name = _NAMES[opts.direction]  # type: ignore[misc]
        self.direction, self.max_word_length = opts.direction, opts.max_word_length
        self.keep_runs = opts.keep_runs
        self.dictionary: Dictionary | None = None
        if opts.lexicon is not None or opts.corpus is not None or opts.words is not None:
            found, source = load_word_source(
                lexicon=opts.lexicon,
                corpus=opts.corpus,
                split=opts.split,
                words=list(opts.words) if opts.words is not None else None,
                encoding=opts.encoding,
                data_dir=opts.data_dir,
            )
            self._use(found, source)
        elif opts.split is not None:
            raise SegmenterError(self.name, "split needs a corpus", "pass corpus=NAME too")

    def _use(self, dictionary: Dictionary, source: TrainingData) -> None:
        self.dictionary = dictionary
        self.trained_on = source
        self._max_length = self.max_word_length or max(map(len, dictionary.words), default=1)
        if _decode is not None:
            self._forward = _decode.Trie(dictionary.words)
            self._backward = _decode.Trie(dictionary.words, reverse=True)

    def check_ready(self) -> None:
        if self.dictionary is None:
            raise SegmenterError(
                self.name,
                "has no dictionary",
                "pass {0} (one word a line) or {1}",
                fixes=(
                    Fix("lexicon", metavar="FILE", segmenter=True),
                    Fix("corpus", metavar="NAME_OR_FILE", segmenter=True),
                ),
            )

    def _segment(self, lines: list[str]) -> list[list[str]]:
        self.check_ready()
        assert self.dictionary is not None  # check_ready raised otherwise
        if _decode is None:  # pragma: no cover - installed without a C compiler
            return maximum_matching_python(
                lines,
                self.dictionary.words,
                direction=self.direction,
                max_word_length=self._max_length,
                keep_runs=self.keep_runs,
            )
        return _decode.maximum_matching(
            lines, self._forward, self._backward, self._max_length, self.keep_runs, self.direction
        )

    def train(self, sentences: Iterable[Sequence[str]], source: TrainingData | None = None) -> None:
        """Use the word types of gold sentences as the dictionary."""
        found: set[str] = set()
        for sentence in sentences:
            found.update(word for word in sentence if word)
        if not found:
            raise CwsBenchError("no words to build a dictionary from")
        data = training_data(sentences, source, "<sentences>")
        assert data is not None
        dictionary = Dictionary(frozenset(found), data.description)
        if data.checksum is None:
            data = TrainingData(data.description, checksum=dictionary.checksum)
        self._use(dictionary, data)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the dictionary, one word a line in code-point order."""
        if self.dictionary is None:
            raise SegmenterError(self.name, "has no dictionary to save")
        with atomic_write(path) as f:
            for word in sorted(self.dictionary.words):
                f.write(word)
                f.write("\n")

    def load(self, path: str | os.PathLike[str]) -> MaximumMatching:
        """Use the dictionary file at ``path``."""
        dictionary = load_dictionary(path)
        self._use(dictionary, TrainingData(dictionary.name, checksum=dictionary.checksum))
        self.options = {
            key: value
            for key, value in self.options.items()
            if key not in ("lexicon", "corpus", "split", "words")
        }
        self.options["lexicon"] = os.fspath(path)
        return self

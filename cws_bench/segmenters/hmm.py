"""A character-tagging hidden Markov model: B/M/E/S tags, first order, Viterbi decoding.

Each character of a word gets a tag: ``S`` for a one-character word, else
``B`` (begin), ``M`` (middle, any number) and ``E`` (end). The model is

    P(tags, chars) = P(t1) * prod P(t_i | t_{i-1}) * prod P(c_i | t_i)

with every probability estimated from counts in a segmented corpus:

- **start**: P(t1) over {B, S} only; a sentence cannot start inside a word.
- **transitions**: P(t | previous) over the allowed pairs only. B->B, B->S,
  M->B, M->S, E->M, E->E, S->M and S->E are impossible (log probability
  -inf); the allowed ones are add-``alpha`` smoothed within their row, so a
  small corpus cannot forbid, say, three-character words.
- **end**: the last tag of a sentence is E or S.
- **emissions**: P(c | t) = (n(t, c) + alpha) / (n(t) + alpha * (V + 1)),
  add-alpha (Lidstone) smoothing over the V characters seen in training plus
  one slot for every unseen character, which gets alpha / (n(t) + alpha * (V + 1)).
  The default alpha = 0.1 was chosen on People's Daily 1998's held-out split
  (F1 is flat between 0.001 and 1 there).
- **width folding** (``fold_width``, on by default): full-width ASCII forms
  (U+FF01-U+FF5E, e.g. ``１``, ``Ａ``, ``％``) are counted and looked up as
  their ASCII twins, so a model trained on People's Daily (full-width digits)
  knows the digits of the PKU test set (ASCII). Output words keep the
  input's characters.

Whitespace is never tagged: each whitespace-separated chunk of a line is
decoded on its own (it starts with B or S and ends with E or S).

Model file format (JSON, UTF-8; ``format`` and ``version`` identify it)::

    {
      "format": "cws-bench-hmm",
      "version": 1,
      "order": 1,
      "tags": ["B", "M", "E", "S"],
      "alpha": 0.1,
      "fold_width": true,
      "trained_on": {"description": "pd1998:train", "corpus": "pd1998", "split": "train",
                     "checksum": "…", "sentences": 17535},
      "start": [nB, nM, nE, nS],                     # first tags of sentences
      "transitions": [[nBB, nBM, nBE, nBS], …],     # row: previous tag, column: tag
      "emissions": {"中": [nB, nM, nE, nS], …}       # characters (folded) by tag
    }

It holds integer counts, not probabilities, so saving and loading is exact
(the same output, bit for bit) and the smoothing can be changed at load time.

Trained on People's Daily 1998's training split, it scores F1 0.81 on the
SIGHAN 2005 PKU test set (``tests/segmenters/test_hmm.py``). A second-order
variant was tried and left out: trigram tag transitions with TnT's deleted
interpolation (Brants 2000) gave F1 0.8125 against 0.8118 on PKU, since
the B/M/E/S constraints already decide most transitions; what limits this
model is that each character's emission ignores its neighbours.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cws_bench.defaults import Bounds
from cws_bench.errors import CwsBenchError
from cws_bench.segmenters.base import TrainingData, option
from cws_bench.segmenters.neural import pieces, tags_to_words
from cws_bench.segmenters.sources import (
    ModelOptions,
    ModelSegmenter,
    check_model_header,
    model_file,
    model_format_error,
    training_data,
)
from cws_bench.text.io import atomic_write

try:
    from cws_bench.segmenters import _decode  # type: ignore[attr-defined]  # compiled, no stub
except ImportError:  # pragma: no cover - installed without a C compiler
    _decode = None

__all__ = [
    "ALLOWED",
    "FORMAT",
    "FORMAT_VERSION",
    "HMMModel",
    "HMMSegmenter",
    "fold_width",
    "tags_of",
    "viterbi_python",
]

FORMAT = "cws-bench-hmm"
FORMAT_VERSION = 1
TAGS = ("B", "M", "E", "S")
B, M, E, S = range(4)
DEFAULT_ALPHA = 0.1

# ALLOWED[previous][tag]: the transitions a B/M/E/S sequence can make.
ALLOWED: tuple[tuple[bool, ...], ...] = (
    (False, True, True, False),  # B -> M, E
    (False, True, True, False),  # M -> M, E
    (True, False, False, True),  # E -> B, S
    (True, False, False, True),  # S -> B, S
)
STARTS = (True, False, False, True)  # B or S
ENDS = (False, False, True, True)  # E or S

_FULL_WIDTH_OFFSET = 0xFEE0  # U+FF01..U+FF5E are U+0021..U+007E shifted by this


_POSITIVE = Bounds(whole=False, low=0, low_open=True)


def fold_width(character: str) -> str:
    """A full-width ASCII form as its ASCII twin; any other character unchanged.

    >>> fold_width("１"), fold_width("Ａ"), fold_width("％"), fold_width("中")
    ('1', 'A', '%', '中')
    """
    code = ord(character)
    if 0xFF01 <= code <= 0xFF5E:
        return chr(code - _FULL_WIDTH_OFFSET)
    return character


def tags_of(word: str) -> list[int]:
    """The B/M/E/S tags (as indices into ``TAGS``) of one word's characters.

    >>> [TAGS[t] for t in tags_of("人民日报")], [TAGS[t] for t in tags_of("的")]
    (['B', 'M', 'M', 'E'], ['S'])
    """
    if len(word) == 1:
        return [S]
    return [B] + [M] * (len(word) - 2) + [E]


def _log(value: float) -> float:
    return math.log(value) if value > 0 else -math.inf


@dataclass
class HMMModel:
    """The counts of a first-order B/M/E/S HMM, and the smoothing that makes probabilities.

    Attributes:
        start: how often each tag opens a sentence (chunk).
        transitions: ``transitions[previous][tag]`` counts.
        emissions: character -> counts by tag.
        alpha: the add-alpha smoothing constant (> 0).
        fold_width: count and look up full-width ASCII forms as ASCII.
        trained_on: what the counts come from.
    """

    start: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    transitions: list[list[int]] = field(default_factory=lambda: [[0] * 4 for _ in range(4)])
    emissions: dict[str, list[int]] = field(default_factory=dict)
    alpha: float = DEFAULT_ALPHA
    fold_width: bool = True
    trained_on: TrainingData | None = None

    @classmethod
    def train(
        cls,
        sentences: Iterable[Sequence[str]],
        *,
        alpha: float = DEFAULT_ALPHA,
        fold: bool = True,
    ) -> HMMModel:
        """Count tags and characters in gold sentences.

        Words are split at whitespace first (a word never holds whitespace
        in a well-formed corpus); empty sentences are skipped.

        >>> m = HMMModel.train([["人民", "的"], ["的"]])
        >>> m.start, m.transitions[E][S], m.emissions["的"]
        ([1, 0, 0, 1], 1, [0, 0, 0, 2])
        """
        model = cls(alpha=alpha, fold_width=fold)
        start, transitions, emissions = model.start, model.transitions, model.emissions
        # A word's tags are fixed by its length: count word types, then tags per type.
        # Between two words of a sentence the tags go from E (after a word of several
        # characters) or S (after one) to B or S: count those pairs by length class.
        words: Counter[str] = Counter()
        pairs: Counter[tuple[bool, bool]] = Counter()
        for sentence in sentences:
            split = pieces(sentence)
            if not split:
                continue
            words.update(split)
            single = [len(word) == 1 for word in split]
            start[S if single[0] else B] += 1
            pairs.update(itertools.pairwise(single))
        for (after_single, before_single), count in pairs.items():
            transitions[S if after_single else E][S if before_single else B] += count
        for word, count in words.items():
            tags = tags_of(word)
            for previous, tag in itertools.pairwise(tags):
                transitions[previous][tag] += count
            for character, tag in zip(word, tags):
                if fold:
                    character = fold_width(character)
                counts = emissions.get(character)
                if counts is None:
                    counts = emissions[character] = [0, 0, 0, 0]
                counts[tag] += count
        if not emissions:
            raise CwsBenchError("no words to train the HMM on", "check the training corpus")
        return model

    # -- probabilities ----------------------------------------------------------

    def _smoothed(self, counts: list[int], allowed: tuple[bool, ...]) -> list[float]:
        """log probabilities of ``counts``, add-alpha smoothed over the ``allowed`` tags."""
        total = sum(counts[t] for t in range(4) if allowed[t]) + self.alpha * sum(allowed)
        return [
            _log((counts[t] + self.alpha) / total) if allowed[t] else -math.inf for t in range(4)
        ]

    def log_start(self) -> list[float]:
        """log P(first tag), add-alpha smoothed over B and S."""
        return self._smoothed(self.start, STARTS)

    def log_transitions(self) -> list[list[float]]:
        """log P(tag | previous tag), add-alpha smoothed over each row's allowed tags."""
        return [self._smoothed(row, allowed) for row, allowed in zip(self.transitions, ALLOWED)]

    def log_end(self) -> list[float]:
        """0 for the tags that may end a chunk (E, S), -inf for B and M."""
        return [0.0 if ENDS[t] else -math.inf for t in range(4)]

    def log_emissions(self) -> tuple[list[str], list[list[float]]]:
        """The characters in code-point order, and one row of log P(c | tag) per character.

        The last row (one more than the characters) is for unseen characters.
        """
        characters = sorted(self.emissions)
        vocabulary = len(characters)
        totals = [sum(counts[t] for counts in self.emissions.values()) for t in range(4)]
        denominators = [totals[t] + self.alpha * (vocabulary + 1) for t in range(4)]
        rows = [
            [_log((self.emissions[c][t] + self.alpha) / denominators[t]) for t in range(4)]
            for c in characters
        ]
        rows.append([_log(self.alpha / denominators[t]) for t in range(4)])
        return characters, rows

    # -- the file format --------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The model file's content (see the module docstring)."""
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "order": 1,
            "tags": list(TAGS),
            "alpha": self.alpha,
            "fold_width": self.fold_width,
            "trained_on": self.trained_on.to_dict() if self.trained_on else None,
            "start": list(self.start),
            "transitions": [list(row) for row in self.transitions],
            "emissions": {c: list(self.emissions[c]) for c in sorted(self.emissions)},
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model as JSON, atomically."""
        with atomic_write(path) as f:
            json.dump(self.to_dict(), f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")

    @classmethod
    def from_dict(cls, data: Any, source: str = "<model>") -> HMMModel:
        """Check and read a model file's content; raises :class:`CorpusFormatError` for
        anything else than a cws-bench HMM model of this version with well-formed counts."""
        fail = functools.partial(model_format_error, source, "hmm")
        check_model_header(data, source, "hmm", FORMAT, FORMAT_VERSION, "HMM")
        if data.get("order", 1) != 1 or list(data.get("tags", TAGS)) != list(TAGS):
            raise fail("only first-order B/M/E/S models are supported")

        def counts(value: Any, what: str) -> list[int]:
            if (
                not isinstance(value, list)
                or len(value) != 4
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
            ):
                raise fail(f"{what}: expected 4 non-negative integer counts, got {value!r}")
            return list(value)

        start = counts(data.get("start"), "start")
        transitions = data.get("transitions")
        if not isinstance(transitions, list) or len(transitions) != 4:
            raise fail("transitions: expected 4 rows of 4 counts")
        rows = [counts(row, f"transitions row {TAGS[i]}") for i, row in enumerate(transitions)]
        for previous in range(4):
            for tag in range(4):
                if rows[previous][tag] and not ALLOWED[previous][tag]:
                    raise fail(f"transitions: {TAGS[previous]}->{TAGS[tag]} is impossible")
        for tag in range(4):
            if start[tag] and not STARTS[tag]:
                raise fail(f"start: a sentence cannot start with {TAGS[tag]}")
        emissions_data = data.get("emissions")
        if not isinstance(emissions_data, dict) or not emissions_data:
            raise fail("emissions: expected an object of character -> 4 counts")
        emissions = {}
        for character, value in emissions_data.items():
            if not isinstance(character, str) or len(character) != 1:
                raise fail(f"emissions: key {character!r} is not one character")
            emissions[character] = counts(value, f"emissions of {character!r}")
        alpha = data.get("alpha", DEFAULT_ALPHA)
        if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or not alpha > 0:
            raise fail(f"alpha must be a positive number, not {alpha!r}")
        fold = data.get("fold_width", True)
        if not isinstance(fold, bool):
            raise fail(f"fold_width must be true or false, not {fold!r}")
        trained_on = data.get("trained_on")
        return cls(
            start=start,
            transitions=rows,
            emissions=emissions,
            alpha=float(alpha),
            fold_width=fold,
            trained_on=TrainingData.from_dict(trained_on) if isinstance(trained_on, dict) else None,
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> HMMModel:
        """Read a model file: :class:`CwsBenchError` when it is not there,
        :class:`CorpusFormatError` when it is not a valid model."""
        name = model_file(path, "hmm")
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except UnicodeDecodeError as e:
            message = "not UTF-8 text: not a cws-bench HMM model"
            raise model_format_error(name, "hmm", message) from e
        except json.JSONDecodeError as e:
            message = f"not valid JSON ({e.msg}): not a cws-bench HMM model"
            raise model_format_error(name, "hmm", message, e.lineno) from e
        return cls.from_dict(data, name)


def viterbi_python(
    chunk: str,
    rows: dict[str, int],
    emissions: list[list[float]],
    start: list[float],
    transitions: list[list[float]],
    end: list[float],
    fold: bool = True,
) -> list[int]:
    """The best tag sequence of one whitespace-free chunk: plain per-sentence Viterbi.

    The reference the compiled decoder is tested (and benchmarked) against.
    Ties go to the lower tag index (B < M < E < S).

    Args:
        chunk: characters, no whitespace, not empty.
        rows: character -> emission row; unseen characters use the last row.
        emissions: log P(c | tag) rows.
        start, transitions, end: log probabilities (see :class:`HMMModel`).
        fold: look characters up with :func:`fold_width`.
    """
    unknown = len(emissions) - 1

    def emission(character: str) -> list[float]:
        if fold:
            character = fold_width(character)
        return emissions[rows.get(character, unknown)]

    first = emission(chunk[0])
    delta = [start[t] + first[t] for t in range(4)]
    back: list[list[int]] = []
    for character in chunk[1:]:
        row = emission(character)
        pointers = [0, 0, 0, 0]
        scores = [0.0, 0.0, 0.0, 0.0]
        for tag in range(4):
            best, arg = -math.inf, 0
            for previous in range(4):
                score = delta[previous] + transitions[previous][tag]
                if score > best:
                    best, arg = score, previous
            scores[tag] = best + row[tag]
            pointers[tag] = arg
        delta = scores
        back.append(pointers)
    best, tag = -math.inf, S
    for t in range(4):
        score = delta[t] + end[t]
        if score > best:
            best, tag = score, t
    path = [tag]
    for pointers in reversed(back):
        tag = pointers[tag]
        path.append(tag)
    path.reverse()
    return path


class HMMSegmenter(ModelSegmenter):
    """A first-order B/M/E/S character-tagging HMM, trained by cws-bench.

    Give a saved ``model``, or a ``corpus`` to train on at construction;
    without either, call :meth:`train` or :meth:`load` before segmenting.

    ``alpha`` overrides a loaded model's smoothing.
    """

    name = "hmm"
    kind = "statistical"
    independent_lines = True  # each line is segmented on its own
    description = "first-order B/M/E/S character-tagging HMM (train it on any segmented corpus)"

    @dataclass(frozen=True)
    class Options(ModelOptions):
        alpha: float | None = option(None, "add-alpha smoothing (default 0.1)", bounds=_POSITIVE)
        fold_width: bool = option(True, "count full-width ASCII as ASCII", identity="changed")
        compiled: bool = option(
            True, "the compiled decoder when built (false: pure Python)", identity=False
        )

    opts: Options
    model: HMMModel | None
    model_class = HMMModel

    @property
    def compiled(self) -> bool:
        """Whether the compiled decoder decodes (asked for, and built)."""
        return self.opts.compiled and _decode is not None

    def _use(self, model: HMMModel) -> None:
        if self.opts.alpha is not None:
            model.alpha = float(self.opts.alpha)
        super()._use(model)
        characters, emissions = model.log_emissions()
        rows = {character: row for row, character in enumerate(characters)}
        logs = (emissions, model.log_start(), model.log_transitions(), model.log_end())
        self._tables = (rows, *logs)  # viterbi_python's arguments after the chunk
        if self.compiled:
            import numpy as np

            table = dict(rows)
            if model.fold_width:
                # Full-width forms share their ASCII twin's row.
                for character, row in rows.items():
                    if "!" <= character <= "~":
                        table.setdefault(chr(ord(character) + _FULL_WIDTH_OFFSET), row)
            self._table = _decode.CharTable(table, len(characters))
            self._arrays = tuple(np.ascontiguousarray(log, dtype=np.float64) for log in logs)

    def train(self, sentences: Iterable[Sequence[str]], source: TrainingData | None = None) -> None:
        """Count a new model from gold sentences (lists of words)."""
        alpha = self.opts.alpha if self.opts.alpha is not None else DEFAULT_ALPHA
        model = HMMModel.train(sentences, alpha=alpha, fold=self.opts.fold_width)
        model.trained_on = training_data(sentences, source, "<sentences>")
        self._use(model)

    def _segment(self, lines: list[str]) -> list[list[str]]:
        self.check_ready()
        if self.compiled:
            return _decode.viterbi(lines, self._table, *self._arrays)
        return self.segment_python(lines)

    def segment_python(self, lines: list[str]) -> list[list[str]]:
        """Segment with the pure-Python Viterbi, one chunk at a time (no checks)."""
        assert self.model is not None
        out = []
        for line in lines:
            words: list[str] = []
            for chunk in line.split():
                path = viterbi_python(chunk, *self._tables, self.model.fold_width)
                words.extend(tags_to_words(chunk, [TAGS[tag] for tag in path]))
            out.append(words)
        return out

"""``crf``: a discriminative character tagger, trained on any segmented corpus (closed track).

Each character gets a tag (``B``/``M``/``E``/``S``, or ``B``/``I`` with
``tags="bi"``) and the best tag sequence of each whitespace-free chunk is
found by first-order Viterbi over a linear score: the weights of the
position's features for the tag, plus a weight per tag transition. Forbidden
B/M/E/S transitions (``B->B``, ``S->E``…) are -inf; a chunk starts with B or S
and ends with E or S.

Features of position 0 (the templates, in :data:`TEMPLATES`):

- character unigrams ``c-2 .. c+2`` and bigrams ``c-2c-1, c-1c0, c0c+1, c+1c+2``
  and ``c-1c+1``, in a window of ±2 (a chunk's edges are padded);
- the character class of ``c0`` and the class trigram ``k-1 k0 k+1``
  (:data:`CLASSES`: digit, Latin letter, punctuation or symbol, Chinese
  numeral, other; pad);
- a bias (one weight per tag);
- with ``word_features`` (the default; :data:`WORD_TEMPLATES`), from the
  training data's word list (allowed in the closed track): the length of the
  longest listed word of 2-6 characters that starts at ``c0`` (``wB``), that
  ends at it (``wE``), and that covers it, with whether one starts or ends
  there (``wC``). Inside its own training data every word is listed, so a
  learner shown the full list would trust it blindly; training sentence
  ``i`` sees only the words of the other folds (``i % folds``, 10 by
  default: jackknifing), the test text the whole list.

Full-width ASCII forms are read as their ASCII twins (``fold_width``), so a
model trained on People's Daily (full-width digits) knows the ASCII digits
of the SIGHAN test sets.

Two learners, chosen with ``learner``:

- ``perceptron`` (the default): the averaged structured perceptron
  (Collins 2002), ``epochs`` passes in an order shuffled by ``seed``, in
  compiled code;
- ``crfsuite``: a linear-chain CRF trained by L-BFGS in python-crfsuite
  (``c2`` L2 regularisation, ``iterations``); its weights are read back into
  the same table, so both decode alike.

docs/BENCHMARKS-LOG.md (section "crf") gives the measurements behind the
defaults: the perceptron was more accurate than the CRF at 100 L-BFGS
iterations and trained 40x faster; B/M/E/S beat B/I; the word-list
features add about a point of F1.

Model file (NumPy ``.npz``, written atomically): ``meta`` (JSON: ``format``
``cws-bench-crf``, ``version``, tags, templates, options, ``trained_on``),
``keys`` (sorted int64 feature keys: template << 42 | a << 21 | b, with a
and b code points or classes), ``weights`` (float32, one row per key and a
column per tag), ``transitions`` (float64, previous tag x tag) and ``words``
(the training word list, one string joined by newlines; empty without word
features). Saving and loading is exact (the same output).
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cws_bench.defaults import Bounds
from cws_bench.errors import CwsBenchError
from cws_bench.segmenters.base import TrainingData, option
from cws_bench.segmenters.hmm import ALLOWED, ENDS, STARTS
from cws_bench.segmenters.loaded import models_folder
from cws_bench.segmenters.neural import pieces
from cws_bench.segmenters.sources import (
    ModelOptions,
    ModelSegmenter,
    check_model_header,
    model_file,
    model_format_error,
    training_data,
)
from cws_bench.text.checksums import hash_hex
from cws_bench.text.io import atomic_write

try:
    from cws_bench.segmenters import _crf  # type: ignore[attr-defined]  # compiled, no stub
except ImportError:  # pragma: no cover - installed without a C compiler
    _crf = None

__all__ = [
    "CLASSES",
    "FORMAT",
    "FORMAT_VERSION",
    "TAG_SETS",
    "TEMPLATES",
    "WORD_TEMPLATES",
    "CRFModel",
    "CRFSegmenter",
    "WordIndex",
    "feature_names",
    "features",
    "gold_tags",
]

FORMAT = "cws-bench-crf"
FORMAT_VERSION = 1
PAD = 0x110000
SHIFT = 21
TEMPLATE_SHIFT = 42

TEMPLATES: tuple[str, ...] = (
    "c-2",
    "c-1",
    "c0",
    "c+1",
    "c+2",
    "c-2c-1",
    "c-1c0",
    "c0c+1",
    "c+1c+2",
    "c-1c+1",
    "k0",
    "k-1k0k+1",
    "bias",
)
WORD_TEMPLATES: tuple[str, ...] = ("wB", "wE", "wC")
"""Templates of the word-list features (``word_features``)."""
ALL_TEMPLATES: tuple[str, ...] = TEMPLATES + WORD_TEMPLATES
MAX_WORD = 6
"""The longest listed word the word-list features look for."""
CLASSES: tuple[str, ...] = ("pad", "digit", "latin", "punct", "cnum", "other")
"""Character classes: code 0 is the pad beyond a chunk's edge."""
CHINESE_NUMERALS = "〇零一二三四五六七八九十百千万亿两"

TAG_SETS: dict[str, tuple[str, ...]] = {"bmes": ("B", "M", "E", "S"), "bi": ("B", "I")}
LEARNERS = ("perceptron", "crfsuite")
_AT_LEAST_1 = Bounds(whole=True, low=1)
_AT_LEAST_0 = Bounds(whole=False, low=0)
DEFAULTS: dict[str, Any] = {
    "tags": "bmes",
    "learner": "perceptron",
    "epochs": 10,
    "seed": 17,
    "min_count": 1,
    "c2": 1.0,
    "iterations": 100,
    "fold_width": True,
    "word_features": True,
    "folds": 10,
}


def _constraints(tags: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(allowed transitions, allowed first tags, allowed last tags) as uint8 arrays."""
    if tags == "bmes":  # the HMM's
        allowed, first, last = (np.array(table, np.uint8) for table in (ALLOWED, STARTS, ENDS))
        return allowed, first, last
    return np.ones((2, 2), np.uint8), np.array([1, 0], np.uint8), np.array([1, 1], np.uint8)


@functools.cache
def _class_table() -> np.ndarray:
    """Class codes of the Basic Multilingual Plane, plus one cell for the pad."""
    table = np.full(0x10000 + 1, CLASSES.index("other"), dtype=np.int64)
    for code in range(0x10000):
        category = unicodedata.category(chr(code))
        if category == "Nd":
            table[code] = CLASSES.index("digit")
        elif category[0] == "L" and code < 0x3000:
            table[code] = CLASSES.index("latin")
        elif category[0] in "PSZ":
            table[code] = CLASSES.index("punct")
    for character in CHINESE_NUMERALS:
        table[ord(character)] = CLASSES.index("cnum")
    table[0x10000] = CLASSES.index("pad")
    return table


def _classes(codes: np.ndarray) -> np.ndarray:
    """Class codes of code points (astral ones: symbols for emoji, else other)."""
    table = _class_table()
    classes = table[np.minimum(codes, 0xFFFF)]
    astral = codes > 0xFFFF
    if astral.any():
        emoji = (codes >= 0x1F000) & (codes <= 0x1FAFF)
        classes = np.where(astral, CLASSES.index("other"), classes)
        classes[emoji] = CLASSES.index("punct")
        classes[codes == PAD] = CLASSES.index("pad")
    return classes


def _substring_hashes(padded: np.ndarray, length: int) -> np.ndarray:
    """A non-negative 63-bit hash (FNV-style) of the ``length`` cells starting at each cell."""
    n = max(padded.shape[0] - length + 1, 0)
    value = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(length):
            value = value * np.uint64(0x100000001B3) + padded[k : k + n].astype(np.uint64)
    return (value & np.uint64(0x7FFFFFFFFFFFFFFF)).astype(np.int64)


class WordIndex:
    """The words of 2..MAX_WORD characters of a word list, found in padded text by hashing."""

    def __init__(self, words: Iterable[str], fold: bool = True) -> None:
        by_length: dict[int, list[str]] = {}
        for word in words:
            if 2 <= len(word) <= MAX_WORD and not any(c.isspace() for c in word):
                by_length.setdefault(len(word), []).append(word)
        hashes = [np.zeros(0, dtype=np.int64)]
        for length, group in sorted(by_length.items()):
            padded, _ = _crf.encode(["  ".join(group)], fold)
            starts = np.arange(len(group)) * (length + 2) + 2
            hashes.append(_substring_hashes(padded, length)[starts])
        self.table = _crf.KeyTable(np.unique(np.concatenate(hashes)))

    def lengths(self, padded: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per position: the longest listed word starting there, ending there, covering it."""
        begin, end, cover = _crf.listed_lengths(padded, self.table, MAX_WORD)
        return begin[positions], end[positions], cover[positions]


def _keys(
    padded: np.ndarray, templates: Sequence[str], words: WordIndex | None = None
) -> np.ndarray:
    """Feature keys of every non-pad cell: shape (characters, templates), int64."""
    positions = np.flatnonzero(padded != PAD)
    window = {k: padded[positions + k] for k in (-2, -1, 0, 1, 2)}
    classes = {k: _classes(window[k]) for k in (-1, 0, 1)}
    listed = None
    if words is not None and any(name in WORD_TEMPLATES for name in templates):
        listed = words.lengths(padded, positions)
    zeros = np.zeros_like(positions)
    begin, end, cover = listed if listed is not None else (zeros, zeros, zeros)
    parts = {  # (a, b) of the templates that are not character windows
        "bias": (zeros, zeros),
        "k0": (classes[0], zeros),
        "k-1k0k+1": ((classes[-1] * 8 + classes[0]) * 8 + classes[1], zeros),
        "wB": (begin, zeros),
        "wE": (end, zeros),
        # covered by a listed word, and whether one starts / ends here
        "wC": (cover, (begin > 0) * 2 + (end > 0)),
    }
    columns = []
    for number, name in enumerate(ALL_TEMPLATES):
        if name not in templates:
            continue
        if name in parts:
            a, b = parts[name]
        else:
            offsets = [int(part) for part in name.replace("c", " ").split()]
            a = window[offsets[0]]
            b = window[offsets[1]] if len(offsets) > 1 else zeros
        columns.append((np.int64(number) << TEMPLATE_SHIFT) | (a << SHIFT) | b)
    return np.stack(columns, axis=1) if columns else np.zeros((len(positions), 0), np.int64)


def feature_names(key: int) -> str:
    """A feature key for people: ``c0c+1=中国``, ``k-1k0k+1=other,digit,digit``.

    >>> feature_names((7 << 42) | (ord("中") << 21) | ord("国"))
    'c0c+1=中国'
    """
    template = ALL_TEMPLATES[key >> TEMPLATE_SHIFT]
    a = (key >> SHIFT) & ((1 << SHIFT) - 1)
    b = key & ((1 << SHIFT) - 1)

    def char(code: int) -> str:
        return "<pad>" if code == PAD else chr(code)

    if template == "bias":
        return "bias"
    if template == "wC":
        return f"wC={a}{'B' if b & 2 else ''}{'E' if b & 1 else ''}"
    if template in WORD_TEMPLATES:
        return f"{template}={a}"
    if template == "k0":
        return f"k0={CLASSES[a]}"
    if template == "k-1k0k+1":
        return f"k-1k0k+1={CLASSES[a >> 6]},{CLASSES[(a >> 3) & 7]},{CLASSES[a & 7]}"
    if template.count("c") == 2:
        return f"{template}={char(a)}{char(b)}"
    return f"{template}={char(a)}"


def features(
    text: str, fold_width: bool = True, words: Iterable[str] | None = None
) -> list[list[str]]:
    """The features of each character of one whitespace-free chunk, for people.

    With ``words``, the word-list features from those words follow.

    >>> features("中国")[1][:3]
    ['c-2=<pad>', 'c-1=中', 'c0=国']
    >>> features("中国人", words=["中国", "中国人"])[0][-3:]
    ['wB=3', 'wE=0', 'wC=3B']
    """
    padded, _ = _crf.encode([text], fold_width)
    if words is None:
        keys = _keys(padded, TEMPLATES)
    else:
        keys = _keys(padded, ALL_TEMPLATES, WordIndex(words, fold_width))
    return [[feature_names(int(key)) for key in row] for row in keys]


def gold_tags(lengths: np.ndarray, tags: str) -> np.ndarray:
    """The tags (indices into ``TAG_SETS[tags]``) of words of the given lengths.

    >>> gold_tags(np.array([2, 1, 3]), "bmes").tolist(), gold_tags(np.array([2, 1]), "bi").tolist()
    ([0, 2, 3, 0, 1, 2], [0, 1, 0])
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    per_char = np.repeat(lengths, lengths)
    starts = np.cumsum(lengths) - lengths
    inside = np.arange(per_char.shape[0]) - np.repeat(starts, lengths)
    if tags == "bi":
        return np.where(inside == 0, 0, 1).astype(np.uint8)
    out = np.full(per_char.shape[0], 1, dtype=np.uint8)  # M
    out[inside == 0] = 0  # B
    out[inside == per_char - 1] = 2  # E
    out[per_char == 1] = 3  # S
    return out


@dataclass
class CRFModel:
    """A trained tagger: feature keys, their weights per tag, and transition weights."""

    tags: str
    templates: tuple[str, ...]
    keys: np.ndarray
    weights: np.ndarray
    transitions: np.ndarray
    fold_width: bool = True
    words: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    trained_on: TrainingData | None = None

    def __post_init__(self) -> None:
        self._table: Any = None
        self._index: WordIndex | None = None

    # -- training ---------------------------------------------------------------

    @classmethod
    def train(cls, sentences: Iterable[Sequence[str]], **options: Any) -> CRFModel:
        """Learn a model from gold sentences (lists of words); see the module docstring."""
        if _crf is None:  # pragma: no cover - installed without a C compiler
            raise CwsBenchError(
                "the crf segmenter needs its compiled part (cws_bench.segmenters._crf)",
                "reinstall cws-bench with a C compiler and Cython available",
            )
        settings = {**DEFAULTS, **{k: v for k, v in options.items() if v is not None}}
        tags = settings["tags"]
        kept = [words for words in map(pieces, sentences) if words]
        if not kept:
            raise CwsBenchError("no words to train the crf tagger on", "check the training corpus")
        fold = bool(settings["fold_width"])
        vocabulary: list[str] = []
        if settings["word_features"]:
            templates = ALL_TEMPLATES
            vocabulary = sorted({word for words in kept for word in words})
            kept, keys = _jackknifed(kept, fold, int(settings["folds"]))
            _, offsets = _crf.encode(["".join(words) for words in kept], fold)
        else:
            templates = TEMPLATES
            padded, offsets = _crf.encode(["".join(words) for words in kept], fold)
            keys = _keys(padded, templates)
        gold = gold_tags(np.array([len(word) for words in kept for word in words]), tags)
        flat, inverse, counts = np.unique(keys.ravel(), return_inverse=True, return_counts=True)
        rows = inverse.reshape(keys.shape).astype(np.int32)
        if settings["min_count"] > 1:
            keep = counts >= settings["min_count"]
            renumber = np.cumsum(keep) - 1
            rows = np.where(keep[rows], renumber[rows], -1).astype(np.int32)
            flat = flat[keep]
        rows = np.ascontiguousarray(rows)
        del keys, inverse
        if settings["learner"] == "crfsuite":
            weights, transitions = _learn_crfsuite(rows, gold, offsets, len(flat), settings)
        else:
            weights, transitions = _learn_perceptron(rows, gold, offsets, len(flat), settings)
        used = np.any(weights != 0, axis=1)
        return cls(
            tags=tags,
            templates=templates,
            keys=flat[used],
            weights=np.ascontiguousarray(weights[used], dtype=np.float32),
            transitions=transitions,
            fold_width=fold,
            words=vocabulary,
            options={k: settings[k] for k in sorted(settings)},
        )

    # -- decoding ---------------------------------------------------------------

    def prepare(self) -> CRFModel:
        """Build the lookup tables decoding needs (else the first batch builds them)."""
        if self._table is None:
            self._table = _crf.KeyTable(self.keys)
        if self.words and self._index is None:
            self._index = WordIndex(self.words, self.fold_width)
        _class_table()
        return self

    def rows(self, padded: np.ndarray) -> np.ndarray:
        """Feature rows (into :attr:`weights`) of every non-pad cell of ``padded``."""
        self.prepare()
        return self._table.lookup(_keys(padded, self.templates, self._index))

    def tag(self, lines: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(tags of every non-whitespace character, chunk offsets) of ``lines``."""
        padded, offsets = _crf.encode(lines, self.fold_width)
        allowed, first, last = _constraints(self.tags)
        transitions = np.where(allowed == 1, self.transitions, -np.inf)
        tags = _crf.tag(self.rows(padded), offsets, self.weights, transitions, first, last)
        return tags, offsets

    def segment(self, lines: list[str]) -> list[list[str]]:
        """One list of words per line (whitespace never inside a word)."""
        tags, _ = self.tag(lines)
        # A word ends at E or S (bmes), or before the next B (bi).
        bi = self.tags == "bi"
        ends = np.append(tags[1:] == 0, True) if bi else (tags == 2) | (tags == 3)
        return _crf.words(lines, np.ascontiguousarray(ends, dtype=np.uint8))

    # -- the file format --------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "tags": self.tags,
            "templates": list(self.templates),
            "fold_width": self.fold_width,
            "options": self.options,
            "trained_on": self.trained_on.to_dict() if self.trained_on else None,
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model (``.npz``), atomically."""
        meta = np.array(json.dumps(self.meta(), ensure_ascii=False, sort_keys=True))
        with atomic_write(path, encoding=None) as f:
            np.savez_compressed(
                f,
                meta=meta,
                keys=self.keys,
                weights=self.weights,
                transitions=self.transitions,
                words=np.array("\n".join(self.words)),
            )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CRFModel:
        """Read a model file: :class:`CwsBenchError` when it is not there,
        :class:`CorpusFormatError` when it is not a cws-bench crf model."""
        name = model_file(path, "crf")
        fail = functools.partial(model_format_error, name, "crf")
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {key: data[key] for key in data.files}
        except (OSError, ValueError) as e:
            raise fail(f"not a cws-bench crf model ({e})") from e
        missing = {"meta", "keys", "weights", "transitions"} - set(arrays)
        if missing:
            raise fail(f"not a cws-bench crf model (no {', '.join(sorted(missing))})")
        try:
            meta = json.loads(str(arrays["meta"]))
        except json.JSONDecodeError as e:
            raise fail(f"meta is not JSON ({e.msg})") from e
        check_model_header(meta, name, "crf", FORMAT, FORMAT_VERSION, "crf")
        tags = meta.get("tags")
        templates = meta.get("templates")
        if tags not in TAG_SETS:
            raise fail(f"unknown tag set {tags!r}")
        if not isinstance(templates, list) or not set(templates) <= set(ALL_TEMPLATES):
            raise fail(f"unknown feature templates {templates!r}")
        keys, weights, transitions = arrays["keys"], arrays["weights"], arrays["transitions"]
        size = len(TAG_SETS[tags])
        if (
            keys.dtype != np.int64
            or keys.ndim != 1
            or weights.dtype != np.float32
            or weights.shape != (keys.shape[0], size)
            or transitions.shape != (size, size)
            or np.any(np.diff(keys) <= 0)
        ):
            raise fail("inconsistent arrays (keys sorted int64, weights keys x tags float32)")
        trained_on = meta.get("trained_on")
        return cls(
            tags=tags,
            templates=tuple(templates),
            keys=keys,
            weights=np.ascontiguousarray(weights),
            transitions=np.ascontiguousarray(transitions, dtype=np.float64),
            fold_width=bool(meta.get("fold_width", True)),
            words=str(arrays["words"]).split("\n") if "words" in arrays else [],
            options=dict(meta.get("options") or {}),
            trained_on=TrainingData.from_dict(trained_on) if isinstance(trained_on, dict) else None,
        )


def _jackknifed(
    sentences: list[list[str]], fold: bool, folds: int
) -> tuple[list[list[str]], np.ndarray]:
    """The training sentences in fold order, and their feature keys in the same order, each
    fold's word features from the other folds' words (jackknifing: see the module)."""
    ordered: list[list[str]] = []
    parts = []
    for part in range(folds):
        own = sentences[part::folds]
        if not own:
            continue
        others = {
            word
            for other in range(folds)
            if other != part
            for words in sentences[other::folds]
            for word in words
        }
        padded, _ = _crf.encode(["".join(words) for words in own], fold)
        parts.append(_keys(padded, ALL_TEMPLATES, WordIndex(others, fold)))
        ordered.extend(own)
    return ordered, np.concatenate(parts, axis=0)


def _learn_perceptron(
    rows: np.ndarray, gold: np.ndarray, offsets: np.ndarray, features: int, settings: dict
) -> tuple[np.ndarray, np.ndarray]:
    tags = settings["tags"]
    size = len(TAG_SETS[tags])
    weights = np.zeros((features, size), dtype=np.float32)
    totals = np.zeros((features, size), dtype=np.float64)
    transitions = np.zeros((size, size), dtype=np.float64)
    transition_totals = np.zeros((size, size), dtype=np.float64)
    learned = (weights, totals, transitions, transition_totals)  # updated in place
    random = np.random.default_rng(int(settings["seed"]))
    step = 1
    for _ in range(int(settings["epochs"])):
        order = random.permutation(offsets.shape[0] - 1).astype(np.int64)
        step, _wrong = _crf.perceptron_epoch(
            rows, gold, offsets, order, *learned, *_constraints(tags), step
        )
    averaged = (weights - totals / step).astype(np.float32)
    averaged_transitions = transitions - transition_totals / step
    return averaged, averaged_transitions


def _learn_crfsuite(
    rows: np.ndarray, gold: np.ndarray, offsets: np.ndarray, features: int, settings: dict
) -> tuple[np.ndarray, np.ndarray]:
    try:
        import pycrfsuite  # type: ignore[import-untyped]
    except ImportError as e:
        raise CwsBenchError(
            "learner=crfsuite needs python-crfsuite", "pip install python-crfsuite"
        ) from e
    size = len(TAG_SETS[settings["tags"]])
    trainer = pycrfsuite.Trainer(verbose=False)
    labels = [str(t) for t in range(size)]
    names = rows.astype("U8")
    for k in range(offsets.shape[0] - 1):
        start, end = int(offsets[k]), int(offsets[k + 1])
        xseq = [
            [name for name, row in zip(names[i], rows[i]) if row >= 0] for i in range(start, end)
        ]
        trainer.append(xseq, [labels[t] for t in gold[start:end]])
    trainer.set_params(
        {
            "c1": 0.0,
            "c2": float(settings["c2"]),
            "max_iterations": int(settings["iterations"]),
            "feature.possible_transitions": True,
        }
    )
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.crfsuite")
        trainer.train(path)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        info = tagger.info()
        tagger.close()
    weights = np.zeros((features, size), dtype=np.float32)
    for (attribute, label), weight in info.state_features.items():
        weights[int(attribute), int(label)] = weight
    transitions = np.zeros((size, size), dtype=np.float64)
    for (previous, label), weight in info.transitions.items():
        transitions[int(previous), int(label)] = weight
    return weights, transitions


class CRFSegmenter(ModelSegmenter):
    """A B/M/E/S (or B/I) character tagger with a linear model, trained by cws-bench.

    Give a saved ``model``, or a ``corpus`` to train on at construction;
    without either, call :meth:`train` or :meth:`load` before segmenting.

    ``fallback`` is what to train on when ``corpus``'s training split is not on this
    machine, overriding what the corpus itself names (``Corpus.training_stand_in``:
    ``sighan2005-pku``'s is ``pd1998:train+test``): ``NAME[:SPLIT[+SPLIT...]]``, a table
    of such by corpus name, or ``"none"``; the model's ``trained_on`` says what stood in
    (:func:`~cws_bench.segmenters.sources.training_sources`). ``cache`` keeps the trained
    model in a folder, keyed by the training data's checksum and the settings.
    """

    name = "crf"
    kind = "statistical"
    description = "character tagger (averaged perceptron or CRF), trained on any segmented corpus"

    @dataclass(frozen=True)
    class Options(ModelOptions):
        tags: str | None = option(None, "bmes (default) or bi", choices=tuple(TAG_SETS))
        learner: str | None = option(None, "perceptron (default) or crfsuite", choices=LEARNERS)
        epochs: int | None = option(None, "perceptron passes (default 10)", bounds=_AT_LEAST_1)
        seed: int | None = option(
            None, "shuffles the perceptron's order (default 17)", bounds="seed"
        )
        min_count: int | None = option(None, "drop rarer features (default 1)", bounds=_AT_LEAST_1)
        c2: float | None = option(
            None, "crfsuite's L2 regularisation (default 1)", bounds=_AT_LEAST_0
        )
        iterations: int | None = option(
            None, "crfsuite's L-BFGS iterations (default 100)", bounds=_AT_LEAST_1
        )
        fold_width: bool | None = option(None, "read full-width ASCII as ASCII (default true)")
        word_features: bool | None = option(None, "the word-list features (default true)")
        folds: int | None = option(None, "the jackknife's folds (default 10)", bounds=_AT_LEAST_1)
        fallback: str | Mapping[str, str] | None = option(
            None, "what stands in for a missing training split"
        )
        cache: bool | str | None = option(
            None, "keep the trained model (true: the user's cache folder)"
        )

    opts: Options
    model: CRFModel | None
    model_class = CRFModel

    def _use(self, model: CRFModel) -> None:
        super()._use(model.prepare())

    def train(self, sentences: Iterable[Sequence[str]], source: TrainingData | None = None) -> None:
        """Learn a new model from gold sentences (lists of words), or, with ``cache``, read
        the one trained before on the same data with the same settings."""
        opts = self.opts
        settings = {k: getattr(opts, k) for k in DEFAULTS if getattr(opts, k) is not None}
        read = list(sentences)
        data = training_data(sentences, source, "<sentences>")
        path = None
        if opts.cache and data is not None and data.checksum is not None:
            folder = models_folder() if opts.cache is True else Path(os.fspath(opts.cache))
            # the effective settings: a change of a default trains a new model
            key = [FORMAT_VERSION, data.checksum, data.description, {**DEFAULTS, **settings}]
            path = folder / f"crf-{hash_hex(json.dumps(key, sort_keys=True), 'cache')}.npz"
            if path.is_file():
                try:
                    self._use(CRFModel.load(path))
                except CwsBenchError:
                    pass  # unreadable: train again and overwrite it
                else:
                    return
        model = CRFModel.train(read, **settings)
        model.trained_on = data
        self._use(model)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.save(path)

    def _segment(self, lines: list[str]) -> list[list[str]]:
        self.check_ready()
        assert self.model is not None
        return self.model.segment(lines)

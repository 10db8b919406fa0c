"""snownlp (https://github.com/isnowfy/snownlp): a character-based generative model.

Its segmentation model was trained on People's Daily 1998 (January), which
cws-bench registers as the corpus ``pd1998``: scores of snownlp on
``pd1998`` are scores on its own training data, and ``trained_on`` says so.

The adapter decodes with its own search, which gives the tags snownlp's gives:
compiled (``_decode.SnowNLPModel``, the model's counts converted once per
process) when the extension is built, else :func:`tags`, its pure-Python twin
and the tested reference.

The compiled search is also kept between processes (:func:`_compiled`): a
process that finds it stored for the content of snownlp's shipped model file
reads it back (a 19 MB file, 0.1 s of CPU) and never loads snownlp's model,
whose import alone costs about 2.9 s of CPU (and 430 MiB), plus 0.35 s to
convert it. Building the adapter and segmenting a line in a fresh process
took 0.14-0.22 s of CPU so, against 3.4-3.8 s when it was not stored yet
(docs/BENCHMARKS-LOG.md, "snownlp's decoder").
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.segmenters.loaded import Stored, shared_model

try:
    from cws_bench.segmenters import _decode  # type: ignore[attr-defined]  # compiled, no stub
except ImportError:  # pragma: no cover - installed without a C compiler
    _decode = None

__all__ = ["SnowNLPSegmenter", "compiled_model", "tagged_words", "tags"]

_LOADED: list[Any] = []  # the model this process loaded: read-only, shared by every instance
_KIND = "snownlp.SnowNLPModel"  # shared_model's kind of the compiled search


def _model() -> Any:
    """A ``snownlp.seg.seg.Seg`` with snownlp's shipped segmentation model.

    Importing ``snownlp.seg`` loads that model into ``snownlp.seg.segger``
    (about 2.4 s). When this call is the import, that fresh copy is the
    shipped model, so it is shared instead of being read a second time; when
    snownlp was imported before (its ``train`` or ``load`` may have changed
    ``segger`` since), the model is read from snownlp's file. It is read once
    per process, when first needed (the compiled search, when not stored; the
    Python search; ``SnowNLPSegmenter.model``), and every instance shares it.
    """
    if not _LOADED:
        fresh = "snownlp.seg" not in sys.modules
        from snownlp import seg as package
        from snownlp.seg.seg import Seg

        if fresh:
            model = package.segger
        else:
            model = Seg()
            model.load(package.data_path, True)
        _LOADED.append(_own_copy(model, Seg))
    return _LOADED[0]


def _own_copy(model: Any, seg_class: type) -> Any:
    """A ``Seg`` whose probability tables are its own objects holding ``model``'s data
    (snownlp's ``load`` replaces a table's attributes in place: a later load into
    ``snownlp.seg.segger`` leaves this copy as it is)."""
    copy = seg_class()
    for name, value in vars(model.segger).items():
        mine = getattr(copy.segger, name, None)
        if hasattr(mine, "__dict__") and hasattr(value, "__dict__"):
            mine.__dict__ = dict(vars(value))
        else:
            setattr(copy.segger, name, value)
    return copy


def compiled_model(model: Any) -> Any | None:
    """``model``'s (a ``CharacterBasedGenerativeModel``) counts converted for the compiled
    search, a ``_decode.SnowNLPModel`` whose ``tags(chars)`` is ``tags(model, chars)`` and
    ``words(chars)`` is ``tagged_words(chars, tags(model, chars))``; None when the
    extension is not built or the model holds numbers the compiled search could not
    follow exactly (see ``SnowNLPModel``). Converting snownlp's model takes about 0.3 s;
    the conversion is a copy, which later changes to the model do not reach.
    """
    search = getattr(_decode, "SnowNLPModel", None)  # None too in an older build
    if search is None:
        return None
    try:
        return search(model)
    except ValueError:
        return None


def _shipped_file() -> str | None:
    """snownlp's shipped segmentation model (``seg/seg.marshal.3``, what ``snownlp.seg``
    loads under Python 3), found without importing snownlp; None when it is not there."""
    try:
        spec = importlib.util.find_spec("snownlp")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        path = os.path.join(folder, "seg", "seg.marshal.3")
        if os.path.isfile(path):
            return path
    return None


def _stored(search: Any) -> Any | None:
    """How the compiled search of snownlp's shipped model is kept between processes:
    ``SnowNLPModel.to_bytes``, for its format, this machine's byte order and snownlp's
    version; None when this build of the extension cannot write it. A model the compiled
    search cannot follow (None) or store is written as no bytes, which ``from_bytes``
    refuses: the next process reads and converts snownlp's model again."""
    form = getattr(_decode, "SNOWNLP_FORMAT", None)
    if form is None or not hasattr(search, "from_bytes"):
        return None  # an older build of the extension
    version = SnowNLPSegmenter.library_version() or "?"

    def dump(model: Any) -> bytes:
        try:
            return b"" if model is None else bytes(model.to_bytes())
        except ValueError:  # tags that are not str
            return b""

    return Stored(
        f"_decode.SnowNLPModel bytes, format {form}, {sys.byteorder}-endian, "
        f"of snownlp {version}'s shipped seg.marshal.3",
        dump,
        search.from_bytes,
    )


def _compiled() -> Any | None:
    """The compiled search of :func:`_model`'s model (None when the extension is not built
    or the model cannot be followed), made once per process and kept between processes
    (see the module): :func:`~cws_bench.segmenters.loaded.shared_model`'s, keyed by the
    content of snownlp's shipped model file (reading it back: its checksum 0.03 s, then
    the file read, its arrays copied and checked and the code point index rebuilt). It is
    always the shipped model's search, even when snownlp was imported and trained before
    (see :func:`_model`); without that file it is converted once per process, not stored.
    """
    search = getattr(_decode, "SnowNLPModel", None)  # None too in an older build
    if search is None:
        return None
    path = _shipped_file()
    return shared_model(
        _KIND,
        [] if path is None else [path],
        lambda: compiled_model(_model().segger),
        stored=None if path is None else _stored(search),
    )


_BOS = ("", "BOS")
_NEG = -math.inf


def tags(model: Any, chars: str) -> list[str]:
    """The tag of each character that snownlp's ``CharacterBasedGenerativeModel.tag``
    gives (``b``, ``m``, ``e``, ``s``), about five times as fast.

    It is the same second-order Viterbi search, with the same sums in the same order and
    the same ties. snownlp keeps a path per state (previous tag, tag) in a dict, in the
    order it first meets them: tag-major from the second character on. Among the paths
    into a state it keeps the first of the best, and at a character its model never saw
    (every tag's count 0) the last path, its probability unchanged. Here the states are
    lists indexed [tag][previous tag] with back pointers instead of copied paths, a
    path of probability -inf is not extended (it cannot win, and cannot lose a tie it
    would not lose there), and each count is looked up once per character.

    ``_decode.SnowNLPModel`` (:func:`compiled_model`) is its compiled twin, the same
    doubles summed in the same order; ``tests/segmenters/test_snownlp.py`` checks the
    three searches equal.
    """
    uni, bi, tri = model.uni.d, model.bi.d, model.tri.d
    uni_none, bi_none, tri_none = model.uni.none, model.bi.none, model.tri.none
    total, l1, l2, l3 = model.uni.total, model.l1, model.l2, model.l3
    status = model.status
    log = math.log
    before, last = [_BOS], [_BOS]  # the (character, tag) items of the two characters before
    last_counts = [uni.get(_BOS, uni_none)]
    pairs = [[bi.get((_BOS, _BOS), bi_none)]]  # count of (before item, last item): [last][before]
    probs = [[0.0]]  # [last tag][tag before]
    history = []
    for char in chars:
        items = [(char, tag) for tag in status]
        counts = [uni.get(item, uni_none) for item in items]
        seen = any(float(count) / total != 0 for count in counts)
        step_probs, step_backs, step_pairs = [], [], []
        for item, count in zip(items, counts):
            unigram = l1 * (float(count) / total)
            row_probs, row_backs, row_pairs = [], [], []
            for t2, item2 in enumerate(last):
                bigram = bi.get((item2, item), bi_none)
                row_pairs.append(bigram)
                paths = probs[t2]
                if not seen:
                    row_probs.append(paths[-1])
                    row_backs.append(len(paths) - 1)
                    continue
                d = last_counts[t2]
                partial = unigram + (0 if d == 0 else float(l2 * bigram) / d)
                best, back = _NEG, 0
                for t1, p in enumerate(paths):
                    if p == _NEG:
                        continue
                    d = pairs[t2][t1]
                    trigram = (
                        0
                        if d == 0
                        else float(l3 * tri.get((before[t1], item2, item), tri_none)) / d
                    )
                    mixed = partial + trigram
                    q = p + (_NEG if mixed == 0 else log(mixed))
                    if q > best:
                        best, back = q, t1
                row_probs.append(best)
                row_backs.append(back)
            step_probs.append(row_probs)
            step_backs.append(row_backs)
            step_pairs.append(row_pairs)
        history.append(step_backs)
        before, last, last_counts, pairs, probs = last, items, counts, step_pairs, step_probs
    states = [(p, tag, previous) for tag, row in enumerate(probs) for previous, p in enumerate(row)]
    _, tag, previous = max(states, key=lambda state: state[0])  # the first of the best
    found = []
    for backs in reversed(history):
        found.append(status[tag])
        tag, previous = previous, backs[tag][previous]
    found.reverse()
    return found


def tagged_words(chars: str, tagged: list[str]) -> list[str]:
    """The words of ``chars`` tagged ``b``/``m``/``e``/``s``, as ``snownlp.seg.seg.Seg.seg``
    makes them (a word ends at ``e``; ``b`` and ``s`` start one)."""
    found: list[str] = []
    word = ""
    for char, tag in zip(chars, tagged):
        if tag == "e":
            found.append(word + char)
            word = ""
        elif tag in ("b", "s"):
            if word:
                found.append(word)
            word = char
        else:
            word += char
    if word:
        found.append(word)
    return found


# snownlp.seg's own split: runs of CJK unified ideographs go to the model;
# everything else is split at whitespace only.
_CHINESE = re.compile("([\u4e00-\u9fa5]+)")


class SnowNLPSegmenter(Segmenter):
    """snownlp's segmentation, from its own instance of snownlp's model.

    It gives what ``snownlp.seg.seg(line)`` gives, without using snownlp's module-level
    model (which ``snownlp.seg.train`` would replace), over a hundred times as fast with
    the compiled search (``compiled``: see the module), five times with :func:`tags`.
    """

    name = "snownlp"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "snownlp (character-based generative model)"
    requires = ("snownlp",)
    distribution = "snownlp"
    install = "pip install 'cws-bench[snownlp]'"

    @dataclass(frozen=True)
    class Options:
        pass  # none: snownlp's one shipped model

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.compiled = _compiled()  # None: decode with the pure-Python tags
        if self.compiled is None:
            _model()  # read now, as part of building the adapter
        self.trained_on = TrainingData("snownlp's model (People's Daily 1998)", corpus="pd1998")

    @property
    def model(self) -> Any:
        """snownlp's shipped model (a ``snownlp.seg.seg.Seg``), shared, read on first use."""
        return _model()

    def _segment(self, lines: list[str]) -> list[list[str]]:
        return [self._line(line) for line in lines]

    def _line(self, line: str) -> list[str]:
        found: list[str] = []
        for piece in _CHINESE.split(line):
            piece = piece.strip()
            if not piece:
                continue
            if _CHINESE.match(piece):
                if self.compiled is not None:
                    found.extend(self.compiled.words(piece))
                else:
                    found.extend(tagged_words(piece, tags(self.model.segger, piece)))
            else:
                found.extend(piece.split())
        return found

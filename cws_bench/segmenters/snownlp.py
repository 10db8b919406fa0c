"""snownlp (https://github.com/isnowfy/snownlp): a character-based generative model.

Its segmentation model was trained on People's Daily 1998 (January), which
cws-bench registers as the corpus ``pd1998``: scores of snownlp on
``pd1998`` are scores on its own training data, and ``trained_on`` says so.
"""

from __future__ import annotations

import re
from typing import Any

from cws_bench.segmenters.base import Segmenter, TrainingData

__all__ = ["SnowNLPSegmenter"]

_LOADED: list[Any] = []  # the model this process loaded: read-only, shared by every instance


def _model() -> Any:
    """A ``snownlp.seg.seg.Seg`` with snownlp's shipped segmentation model.

    Importing ``snownlp.seg`` loads that model into ``snownlp.seg.segger``
    (about 2.4 s). When this call is the import, that fresh copy is the
    shipped model, so it is shared instead of being read a second time; when
    snownlp was imported before (its ``train`` or ``load`` may have changed
    ``segger`` since), the model is read from snownlp's file. The model is
    only read when segmenting, so every instance in a process shares one.
    """
    import sys

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


# snownlp.seg's own split: runs of CJK unified ideographs go to the model;
# everything else is split at whitespace only.
_CHINESE = re.compile("([\u4e00-\u9fa5]+)")


class SnowNLPSegmenter(Segmenter):
    """snownlp's segmentation, from its own instance of snownlp's model.

    It gives what ``snownlp.seg.seg(line)`` gives, without using snownlp's
    module-level model (which ``snownlp.seg.train`` would replace).
    """

    name = "snownlp"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "snownlp (character-based generative model)"
    requires = ("snownlp",)
    distribution = "snownlp"
    install = "pip install 'cws-bench[snownlp]'"

    def __init__(self) -> None:
        super().__init__()
        self.model = _model()
        self.trained_on = TrainingData("snownlp's model (People's Daily 1998)", corpus="pd1998")

    def _segment(self, lines: list[str]) -> list[list[str]]:
        return [self._line(line) for line in lines]

    def _line(self, line: str) -> list[str]:
        words: list[str] = []
        for piece in _CHINESE.split(line):
            piece = piece.strip()
            if not piece:
                continue
            if _CHINESE.match(piece):
                words.extend(self.model.seg(piece))
            else:
                words.extend(piece.split())
        return words

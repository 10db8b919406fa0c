"""snownlp (https://github.com/isnowfy/snownlp): a character-based generative model.

Its segmentation model was trained on People's Daily 1998 (January), which
cws-bench registers as the corpus ``pd1998``: scores of snownlp on
``pd1998`` are scores on its own training data, and ``trained_on`` says so.
"""

from __future__ import annotations

import re

from cws_bench.segmenters.base import Segmenter, TrainingData

__all__ = ["SnowNLPSegmenter"]

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
    description = "snownlp (character-based generative model)"
    requires = ("snownlp",)
    distribution = "snownlp"
    install = "pip install 'cws-bench[snownlp]'"

    def __init__(self) -> None:
        super().__init__()
        from snownlp import seg as package
        from snownlp.seg.seg import Seg

        self.model = Seg()
        self.model.load(package.data_path, True)
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

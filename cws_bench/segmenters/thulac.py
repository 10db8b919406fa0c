"""THULAC (https://github.com/thunlp/THULAC-Python), segmentation only.

An optional extra (its models are large): ``pip install 'cws-bench[thulac]'``.
THULAC prints "Model loaded succeed" while loading; the adapter keeps that
off standard output. THULAC treats only the space and U+3000 as word
separators (a tab would end up inside a word), so every run of whitespace
is handed to it as one space. THULAC can still return a word holding a
space (``El Pas`` + ``o`` for ``El Paso`` in the CityU test set); as
whitespace is never part of a word, such a word is split at its spaces.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import Any

from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.neural import pieces

__all__ = ["ThulacSegmenter"]


class ThulacSegmenter(Segmenter):
    """THULAC's segmentation (``seg_only=True``), with its bundled model.

    ``t2s`` makes THULAC return Simplified words, which breaks the lossless-join check
    on Traditional input: use it only to see why.
    """

    name = "thulac"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "THULAC (Tsinghua), segmentation only"
    requires = ("thulac",)
    distribution = "thulac"
    install = "pip install 'cws-bench[thulac]'"

    @dataclass(frozen=True)
    class Options:
        user_dict: str | None = option(None, "one word a line", file="user dictionary")
        model_path: str | None = option(None, "THULAC's models", folder="model folder")
        t2s: bool = option(False, "Traditional to Simplified first", identity="changed")

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import thulac

        with contextlib.redirect_stdout(io.StringIO()):
            self.tokenizer = thulac.thulac(
                user_dict=self.opts.user_dict,
                model_path=self.opts.model_path,
                T2S=self.opts.t2s,
                seg_only=True,
            )
        self.trained_on = TrainingData("THULAC's bundled model")

    def _segment(self, lines: list[str]) -> list[list[str]]:
        cut = self.tokenizer.cut
        return [pieces(word for word, _ in cut(" ".join(line.split()))) for line in lines]

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
import os

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData

__all__ = ["ThulacSegmenter"]


class ThulacSegmenter(Segmenter):
    """THULAC's segmentation (``seg_only=True``), with its bundled model.

    Args:
        user_dict: a user dictionary, one word a line (UTF-8).
        model_path: a folder of THULAC models instead of the bundled ones.
        t2s: convert Traditional to Simplified characters before segmenting.
            THULAC then returns Simplified words, which breaks the
            lossless-join check on Traditional input: use it only to see why.
    """

    name = "thulac"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "THULAC (Tsinghua), segmentation only"
    requires = ("thulac",)
    distribution = "thulac"
    install = "pip install 'cws-bench[thulac]'"

    def __init__(
        self,
        *,
        user_dict: str | os.PathLike[str] | None = None,
        model_path: str | os.PathLike[str] | None = None,
        t2s: bool = False,
    ) -> None:
        super().__init__(user_dict=user_dict, model_path=model_path, t2s=t2s or None)
        import thulac

        for what, path, check in (
            ("user dictionary", user_dict, os.path.isfile),
            ("model folder", model_path, os.path.isdir),
        ):
            if path is not None and not check(path):
                raise SegmenterError(self.name, f"{what} {os.fspath(path)}: not found")
        with contextlib.redirect_stdout(io.StringIO()):
            self.tokenizer = thulac.thulac(
                user_dict=os.fspath(user_dict) if user_dict is not None else None,
                model_path=os.fspath(model_path) if model_path is not None else None,
                T2S=bool(t2s),
                seg_only=True,
            )
        self.trained_on = TrainingData("THULAC's bundled model")

    def _segment(self, lines: list[str]) -> list[list[str]]:
        cut = self.tokenizer.cut
        return [
            [piece for word, _ in cut(" ".join(line.split())) for piece in word.split()]
            for line in lines
        ]

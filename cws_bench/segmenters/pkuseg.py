"""pkuseg (https://github.com/lancopku/pkuseg-python): a CRF segmenter from Peking University.

The default model ships with the pip package (trained on mixed-domain data,
the People's Daily among it); loading it takes seconds, and
``cws-bench segment`` and the benchmark time loading apart from segmenting.
pkuseg's sdist needs numpy and Cython at build time, so install those first.
"""

from __future__ import annotations

import os

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.text.dictionary import parse_dictionary_line
from cws_bench.text.io import iter_lines

__all__ = ["PkusegSegmenter"]


class PkusegSegmenter(Segmenter):
    """pkuseg's segmentation with its default model (or another model folder).

    Args:
        model: ``default`` (the model in the pip package) or the folder of
            a pkuseg model. Named models other than ``default`` (``news``,
            ``web``, ...) are downloaded by pkuseg on first use.
        user_dict: a user dictionary, one word a line (jieba's ``word freq
            tag`` lines work too): pkuseg keeps these words whole.
    """

    name = "pkuseg"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "pkuseg (CRF), default model"
    requires = ("pkuseg", "numpy")
    distribution = "pkuseg"
    # pkuseg's setup.py imports numpy and cythonizes: build tools first, no isolation.
    install = "pip install numpy Cython && pip install --no-build-isolation pkuseg"

    def __init__(
        self, *, model: str = "default", user_dict: str | os.PathLike[str] | None = None
    ) -> None:
        super().__init__(model=model, user_dict=user_dict)
        import pkuseg

        if model != "default" and os.path.sep in model and not os.path.isdir(model):
            raise SegmenterError(self.name, f"model folder {model}: no such folder")
        words: str | list[str] = "default"
        if user_dict is not None:
            if not os.path.isfile(user_dict):
                raise SegmenterError(
                    self.name, f"user dictionary {os.fspath(user_dict)}: no such file"
                )
            # pkuseg reads word<TAB>tag lines itself; a list of words takes any format.
            words = [w for w in map(parse_dictionary_line, iter_lines(user_dict)) if w]
        self.tokenizer = pkuseg.pkuseg(model_name=model, user_dict=words)
        self.trained_on = TrainingData(f"pkuseg's {model} model")

    def _segment(self, lines: list[str]) -> list[list[str]]:
        cut = self.tokenizer.cut
        return [cut(line) for line in lines]

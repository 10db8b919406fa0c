"""spaCy's Chinese tokenizer: ``spacy.blank("zh")`` with its segmenters, or a trained pipeline.

- ``segmenter = "char"`` (spaCy's default for Chinese): one character a
  token, no model needed;
- ``segmenter = "jieba"``: spaCy calls jieba (``pip install jieba``);
- ``segmenter = "pkuseg"``: spaCy calls spacy-pkuseg with a pkuseg model
  (``pkuseg_model``: ``default``, ``mixed``, ``news``, ``web``, ``medicine``,
  ``tourism`` or a model folder), initialised once when the adapter is built;
- ``model = "/path/to/pipeline"``: ``spacy.load`` of a trained pipeline
  (``zh_core_web_sm`` and its kin, installed as packages or saved folders);
  its tokenizer is what segments, and only the tokenizer runs.

Tokens that are whitespace are dropped (a segmentation never holds
whitespace); every other token is a word.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Literal

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.segmenters.neural import pieces

__all__ = ["SpacySegmenter"]

SpacySegmentation = Literal["char", "jieba", "pkuseg"]
SEGMENTATIONS: tuple[str, ...] = ("char", "jieba", "pkuseg")


def _shared_pkuseg_models() -> contextlib.AbstractContextManager[None]:
    """spacy-pkuseg's models shared in the process
    (:func:`~cws_bench.segmenters.pkuseg.shared_models`), or nothing when it cannot be
    imported (spaCy then says why when it imports it)."""
    from cws_bench.segmenters.pkuseg import shared_models

    try:
        import spacy_pkuseg
    except ImportError:
        return contextlib.nullcontext()
    return shared_models(spacy_pkuseg)


class SpacySegmenter(Segmenter):
    """spaCy's Chinese tokenizer.

    Args:
        segmenter: ``char``, ``jieba`` or ``pkuseg`` (for ``spacy.blank("zh")``).
        pkuseg_model: the pkuseg model of the ``pkuseg`` segmenter.
        model: a trained pipeline's package name or folder, loaded with
            ``spacy.load`` (then ``segmenter`` is the pipeline's own).
    """

    name = "spacy"
    kind = "pretrained"
    description = "spaCy's Chinese tokenizer (spacy.blank('zh') or a trained pipeline)"
    requires = ("spacy",)
    distribution = "spacy"
    install = "pip install 'cws-bench[spacy]'"

    def __init__(
        self,
        *,
        segmenter: SpacySegmentation = "char",
        pkuseg_model: str | None = None,
        model: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__(
            segmenter=None if model is not None else segmenter,
            pkuseg_model=pkuseg_model,
            model=model,
        )
        import spacy

        self.nlp: Any
        if model is not None:
            where = os.fspath(model)
            looks_like_path = os.sep in where or where.startswith(".")
            if looks_like_path and not os.path.isdir(where):
                raise SegmenterError(self.name, f"pipeline folder {where}: no such folder")
            try:
                self.nlp = spacy.load(where)
            except OSError as e:
                raise SegmenterError(
                    self.name,
                    f"cannot load pipeline {where!r}: {str(e).splitlines()[0]}",
                    "pass the folder of a trained pipeline, or install one: "
                    "python -m spacy download zh_core_web_sm",
                ) from e
            if self.nlp.lang != "zh":
                raise SegmenterError(
                    self.name, f"pipeline {where!r} is for {self.nlp.lang!r}, not Chinese"
                )
            self.trained_on = TrainingData(f"the training data of {where}")
            return
        if segmenter not in SEGMENTATIONS:
            raise SegmenterError(
                self.name,
                f"unknown segmenter {segmenter!r}",
                f"use one of: {', '.join(SEGMENTATIONS)}",
            )
        config = {"nlp": {"tokenizer": {"segmenter": segmenter}}}
        if segmenter == "jieba":
            from cws_bench.segmenters.jieba import quiet_jieba

            with quiet_jieba():  # spaCy loads jieba's global dictionary: keep it quiet
                self.nlp = spacy.blank("zh", config=config)
        else:
            self.nlp = spacy.blank("zh", config=config)
        if segmenter == "pkuseg":
            try:
                with _shared_pkuseg_models():
                    self.nlp.tokenizer.initialize(pkuseg_model=pkuseg_model or "default")
            except ImportError as e:
                raise SegmenterError(
                    self.name,
                    f"segmenter pkuseg: {str(e).splitlines()[0]}",
                    "pip install --no-binary spacy-pkuseg --no-build-isolation "
                    "'spacy-pkuseg>=0.0.27,<0.1.0' (built against the numpy installed here)",
                ) from e
            except FileNotFoundError as e:
                raise SegmenterError(
                    self.name,
                    f"segmenter pkuseg: {e}",
                    "pass pkuseg_model = the folder of a pkuseg model (pip install pkuseg ships "
                    'one: python -c "import pkuseg, os; print(os.path.join('
                    "os.path.dirname(pkuseg.__file__), 'models', 'default'))\")",
                ) from e
        self.trained_on = TrainingData(
            {
                "char": "none (one character a token)",
                "jieba": "jieba's bundled dictionary",
                "pkuseg": f"pkuseg's {pkuseg_model or 'default'} model",
            }[segmenter]
        )

    def _segment(self, lines: list[str]) -> list[list[str]]:
        tokenizer = self.nlp.tokenizer
        return [pieces(token.text for token in tokenizer(line)) for line in lines]

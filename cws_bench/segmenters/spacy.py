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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.neural import pieces

__all__ = ["SpacySegmenter"]

SEGMENTATIONS: tuple[str, ...] = ("char", "jieba", "pkuseg")


def _shared_pkuseg_models() -> contextlib.AbstractContextManager[None]:
    """spacy-pkuseg's models shared in the process (nothing when it cannot be imported)."""
    from cws_bench.segmenters.pkuseg import shared_models

    try:
        import spacy_pkuseg
    except ImportError:
        return contextlib.nullcontext()
    return shared_models(spacy_pkuseg)


def _pkuseg_problem(model: str) -> tuple[str, str] | None:
    """Why spacy-pkuseg cannot read the pkuseg model ``model`` here without a download, or
    None: spacy-pkuseg missing, one of its named models not in $PKUSEG_HOME (it would be
    fetched), or a folder (``default`` is one, in the working folder) without a model."""
    from importlib.util import find_spec

    if find_spec("spacy_pkuseg") is None:
        return ("spacy-pkuseg is not installed", f"install it with: {_PKUSEG_INSTALL}")
    home = os.path.expanduser(os.getenv("PKUSEG_HOME", "~/.pkuseg"))
    if model in _PKUSEG_NAMED:  # spacy-pkuseg downloads these unless their zip is there
        if os.path.exists(os.path.join(home, f"{model}.zip")):
            return None
        return (
            f"spacy-pkuseg's model {model!r} is not in {home} (it would be downloaded)",
            f"fetch it once with network (spacy_pkuseg.pkuseg('{model}')), or pass pkuseg_model"
            " = the folder of a pkuseg model",
        )
    if any(os.path.exists(os.path.join(model, f)) for f in ("features.pkl", "features.json")):
        return None
    shipped = find_spec("pkuseg")  # pkuseg's pip package ships its default model
    folder = (
        os.path.join(os.path.dirname(shipped.origin or ""), "models", "default") if shipped else ""
    )
    where = f"'{folder}' (pkuseg's own)" if os.path.isdir(folder) else "a pkuseg model's folder"
    said = (
        "its 'default' model, the folder default of the working folder"
        if model == "default"
        else "a model folder"
    )
    return (
        f"spacy-pkuseg reads {said}: no pkuseg model in {os.path.abspath(model)}",
        f"pass pkuseg_model = {where}",
    )


_PKUSEG_NAMED = ("spacy_ontonotes", "medicine", "tourism", "web", "news", "mixed")
_PIPELINE = (
    "pass the folder of a trained pipeline, or install one: python -m spacy download zh_core_web_sm"
)
_PKUSEG_INSTALL = (
    "pip install --no-binary spacy-pkuseg --no-build-isolation "
    "'spacy-pkuseg>=0.0.27,<0.1.0' (built against the numpy installed here)"
)


class SpacySegmenter(Segmenter):
    """spaCy's Chinese tokenizer: ``spacy.blank("zh")`` with ``segmenter``, or ``model``
    (then the pipeline's own segmenter)."""

    name = "spacy"
    kind = "pretrained"
    description = "spaCy's Chinese tokenizer (spacy.blank('zh') or a trained pipeline)"
    requires = ("spacy",)
    distribution = "spacy"
    install = "pip install 'cws-bench[spacy]'"

    @dataclass(frozen=True)
    class Options:
        segmenter: str = option("char", "spacy.blank('zh')'s segmenter", choices=SEGMENTATIONS)
        pkuseg_model: str | None = option(None, "the pkuseg segmenter's model (default)")
        model: str | None = option(None, "a trained pipeline's package name or folder")

    opts: Options

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """A pipeline that is neither a folder nor an installed package, or a pkuseg model
        spacy-pkuseg cannot read here (:func:`_pkuseg_problem`)."""
        import importlib.util

        opts = cls.parsed(options)
        where = opts.model
        if where is None:
            pkuseg = opts.segmenter == "pkuseg"
            return _pkuseg_problem(opts.pkuseg_model or "default") if pkuseg else None
        if os.path.isdir(where):
            return None
        if os.sep in where or where.startswith("."):
            return (f"pipeline folder {where}: no such folder", "fix the path")
        with contextlib.suppress(ImportError, ValueError):
            if importlib.util.find_spec(where) is not None:
                return None
        return (f"cannot load pipeline {where!r}: no such package or folder", _PIPELINE)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import spacy

        segmenter, where = self.opts.segmenter, self.opts.model
        self.nlp: Any
        if where is not None:
            self.options.pop("segmenter")  # the pipeline's own
            try:
                self.nlp = spacy.load(where)
            except OSError as e:
                first = (str(e).splitlines() or [type(e).__name__])[0]
                raise SegmenterError(
                    self.name,
                    f"cannot load pipeline {where!r}: {first}",
                    _PIPELINE,
                ) from e
            if self.nlp.lang != "zh":
                raise SegmenterError(
                    self.name, f"pipeline {where!r} is for {self.nlp.lang!r}, not Chinese"
                )
            self.trained_on = TrainingData(f"the training data of {where}")
            return
        from cws_bench.segmenters.jieba import quiet_jieba

        config = {"nlp": {"tokenizer": {"segmenter": segmenter}}}
        # spaCy loads jieba's global dictionary: keep it quiet
        with quiet_jieba() if segmenter == "jieba" else contextlib.nullcontext():
            self.nlp = spacy.blank("zh", config=config)
        pkuseg_model = self.opts.pkuseg_model or "default"
        if segmenter == "pkuseg":
            with _shared_pkuseg_models():
                self.nlp.tokenizer.initialize(pkuseg_model=pkuseg_model)
        self.trained_on = TrainingData(
            {
                "char": "none (one character a token)",
                "jieba": "jieba's bundled dictionary",
                "pkuseg": f"pkuseg's {pkuseg_model} model",
            }[segmenter]
        )

    def _segment(self, lines: list[str]) -> list[list[str]]:
        tokenizer = self.nlp.tokenizer
        return [pieces(token.text for token in tokenizer(line)) for line in lines]

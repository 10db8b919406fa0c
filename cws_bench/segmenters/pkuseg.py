"""pkuseg (https://github.com/lancopku/pkuseg-python): a CRF segmenter from Peking University.

The default model ships with the pip package (trained on mixed-domain data,
the People's Daily among it); loading it takes seconds, and
``cws-bench segment`` and the benchmark time loading apart from segmenting.
pkuseg's sdist needs numpy and Cython at build time, so install those first.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from unittest import mock

from cws_bench.segmenters.base import Segmenter, TrainingData, option, path_problem
from cws_bench.segmenters.loaded import shared_model
from cws_bench.text.dictionary import parse_dictionary_line
from cws_bench.text.io import iter_lines

__all__ = ["PkusegSegmenter", "shared_models"]

# The files a pkuseg model class' ``load`` reads from a model folder (the first found).
_MODEL_FILES = {
    "FeatureExtractor": ("features.pkl", "features.json"),
    "Model": ("weights.npz", "model.txt"),
}


class _SharedLoad:
    """Stands for a model class of a pkuseg package (``FeatureExtractor``, ``Model``)
    while a segmenter is built: its ``load`` reads a model folder once per process;
    anything else is the class'."""

    def __init__(self, package: Any, cls: Any) -> None:
        self._package, self._cls = package, cls

    def load(self, model_dir: str | None = None) -> Any:
        folder = model_dir or self._package.config.modelDir
        candidates = (os.path.join(folder, name) for name in _MODEL_FILES[self._cls.__name__])
        path = next((p for p in candidates if os.path.exists(p)), None)
        if path is None:  # the class says what is missing
            return self._cls.load(model_dir)
        kind = f"{self._package.__name__}.{self._cls.__name__}"
        return shared_model(kind, [path], lambda: self._cls.load(model_dir))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._cls(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cls, name)


@contextlib.contextmanager
def shared_models(package: Any) -> Iterator[None]:
    """Inside the block, a ``package.pkuseg(...)`` built shares its features and weights
    with every other built on the same model files in this process (read-only once
    read; :func:`~cws_bench.segmenters.loaded.shared_model`): 0.3 s to check the files
    instead of 2.8 s to read them. ``package`` is ``pkuseg`` or its fork ``spacy_pkuseg``,
    whose constructors read the model through the module's ``FeatureExtractor.load()``
    and ``Model.load()`` (the user dictionary is read by each as before).
    """
    with contextlib.ExitStack() as stack:
        for name in _MODEL_FILES:
            cls = getattr(package, name)
            stack.enter_context(mock.patch.object(package, name, _SharedLoad(package, cls)))
        yield


class PkusegSegmenter(Segmenter):
    """pkuseg's segmentation with its default model (or another model folder).

    Named models other than ``default`` (``news``, ``web``, ...) are downloaded by
    pkuseg on first use.
    """

    name = "pkuseg"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "pkuseg (CRF), default model"
    requires = ("pkuseg", "numpy")
    distribution = "pkuseg"
    # pkuseg's setup.py imports numpy and cythonizes: build tools first, no isolation.
    install = "pip install numpy Cython && pip install --no-build-isolation pkuseg"

    @dataclass(frozen=True)
    class Options:
        model: str = option("default", "default (the pip package's), a name, or a model folder")
        user_dict: str | None = option(
            None, "words pkuseg keeps whole, one a line", file="user dictionary"
        )

    opts: Options

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """A model folder or user dictionary that is not there."""
        model = cls.parsed(options).model
        folder = model if os.path.sep in model else None
        return path_problem("model folder", folder, folder=True) or super().model_problem(options)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import pkuseg

        model, user_dict = self.opts.model, self.opts.user_dict
        words: str | list[str] = "default"
        if user_dict is not None:
            # pkuseg reads word<TAB>tag lines itself; a list of words takes any format.
            words = [w for w in map(parse_dictionary_line, iter_lines(user_dict)) if w]
        with shared_models(pkuseg):
            self.tokenizer = pkuseg.pkuseg(model_name=model, user_dict=words)
        self.trained_on = TrainingData(f"pkuseg's {model} model")

    def _segment(self, lines: list[str]) -> list[list[str]]:
        cut = self.tokenizer.cut
        return [cut(line) for line in lines]

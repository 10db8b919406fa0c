"""stanza (https://stanfordnlp.github.io/stanza/): its Chinese tokenizer, simplified or traditional.

``Pipeline(lang, processors="tokenize", dir=..., download_method=None)``:
the models are read from ``dir`` (stanza's resources folder, with its
``resources.json``), never downloaded at run time. Languages: ``zh-hans``
(simplified, the GSD treebank by default) and ``zh-hant`` (traditional);
``zh`` is stanza's alias of ``zh-hans``.

The words of a line are the tokens of all its sentences, in order; lines are
segmented ``batch_size`` at a time, one ``Pipeline.bulk_process`` call per batch,
one ``Document`` per line. docs/NEURAL.md ("HanLP and stanza") says how to fetch the
models and what the identity records.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.neural import batched, device_option, pieces, resolve_device
from cws_bench.text.checksums import model_checksum

__all__ = ["StanzaSegmenter", "words_of"]

LANGUAGES = ("zh", "zh-hans", "zh-hant")


def words_of(document: Any) -> list[str]:
    """The words of one stanza ``Document``: the text of each token of each sentence."""
    return pieces(token.text for sentence in document.sentences for token in sentence.tokens)


def default_dir() -> str:
    """Where stanza keeps its models unless told: $STANZA_RESOURCES_DIR or ~/stanza_resources."""
    return os.environ.get(
        "STANZA_RESOURCES_DIR", os.path.join(os.path.expanduser("~"), "stanza_resources")
    )


def _fetch(lang: str, folder: str) -> str:
    return (
        'fetch the models once on a machine with network: python -c "import stanza; '
        f"stanza.download('{lang}', processors='tokenize', model_dir='{folder}')\", "
        "then pass that folder as dir"
    )


class StanzaSegmenter(Segmenter):
    """stanza's tokenizer for Chinese."""

    name = "stanza"
    kind = "pretrained"
    description = "stanza's Chinese tokenizer (zh-hans or zh-hant)"
    requires = ("stanza", "torch")
    distribution = "stanza"
    install = "pip install 'cws-bench[stanza]'"
    neural = True

    @dataclass(frozen=True)
    class Options:
        lang: str = option("zh-hans", "simplified, traditional, or zh (zh-hans)", choices=LANGUAGES)
        dir: str | None = option(None, "stanza's resources folder (default ~/stanza_resources)")
        package: str | None = option(None, "the tokenizer package (default: the language's)")
        model_path: str | None = option(None, "a tokenizer (.pt) instead", file="model file")
        device: str = device_option()
        batch_size: int = option(64, "lines per bulk_process call", bounds="batch_size")

    opts: Options

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """No stanza models in the resources folder, or a model file that is not there."""
        opts = cls.parsed(options)
        folder = opts.dir or default_dir()
        if not os.path.isfile(os.path.join(folder, "resources.json")):
            return (
                f"no stanza models in {folder} (no resources.json there)",
                _fetch(opts.lang, folder),
            )
        return super().model_problem(options)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import stanza

        lang, package, model_path = self.opts.lang, self.opts.package, self.opts.model_path
        self.batch_size, folder = self.opts.batch_size, self.opts.dir or default_dir()
        self.device, self.gpu = resolve_device(self.name, self.opts.device)
        settings: dict[str, Any] = {}
        if package is not None:
            settings["package"] = {"tokenize": package}
        if model_path is not None:
            settings["tokenize_model_path"] = model_path
        logging.getLogger("stanza").setLevel(logging.WARNING)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                self.pipeline = stanza.Pipeline(
                    lang,
                    processors="tokenize",
                    dir=folder,
                    download_method=None,
                    device=self.device,
                    logging_level="WARN",
                    **settings,
                )
        except (FileNotFoundError, ValueError, KeyError) as e:
            raise SegmenterError(
                self.name,
                f"cannot load the {lang} tokenizer from {folder}: {e}",
                _fetch(lang, folder),
            ) from e
        self._document = stanza.Document
        self.identity = {
            "lang": lang,
            "dir": os.path.abspath(folder),
            "package": package,
            "model_path": os.path.abspath(model_path) if model_path is not None else None,
            "checksum": model_checksum(model_path) if model_path is not None else None,
            "device": self.device,
            "gpu": self.gpu,
        }
        if model_path is not None:
            described = f"the training data of {os.path.basename(model_path)}"
        else:
            described = f"the training data of stanza's {lang} tokenizer ({package or 'default'})"
        self.trained_on = TrainingData(described)

    def _segment(self, lines: list[str]) -> list[list[str]]:
        documents = [self._document([], text=line) for line in lines]
        return [
            words_of(document)
            for batch in batched(documents, self.batch_size)
            for document in self.pipeline.bulk_process(batch)
        ]

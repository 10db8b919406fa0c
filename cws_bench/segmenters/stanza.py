"""stanza (https://stanfordnlp.github.io/stanza/): its Chinese tokenizer, simplified or traditional.

``Pipeline(lang, processors="tokenize", dir=..., download_method=None)``:
the models are read from ``dir`` (stanza's resources folder, with its
``resources.json``), never downloaded at run time. Languages: ``zh-hans``
(simplified, the GSD treebank by default) and ``zh-hant`` (traditional);
``zh`` is stanza's alias of ``zh-hans``. Fetch the models once on a machine
with network: ``python -c "import stanza; stanza.download('zh-hans',
processors='tokenize', model_dir='DIR')"``.

stanza also splits sentences: the words of a line are the tokens of all its
sentences, in order (``doc.sentences[i].tokens[j].text``).

Lines are segmented ``batch_size`` at a time: one ``Pipeline.bulk_process``
call per batch, one ``Document`` per line (stanza's tokenizer joins them with
blank lines, runs once, and splits the result back per document).

The identity records the language, the resources folder, the package and,
with ``model_path``, that file and a checksum of its bytes.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from collections.abc import Mapping
from typing import Any

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.segmenters.neural import pieces, resolve_device
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


class StanzaSegmenter(Segmenter):
    """stanza's tokenizer for Chinese.

    Args:
        lang: ``zh-hans`` (simplified), ``zh-hant`` (traditional) or ``zh``.
        dir: stanza's resources folder (default: $STANZA_RESOURCES_DIR or
            ~/stanza_resources).
        package: the tokenizer package (default: the language's default).
        model_path: a tokenizer model file (``.pt``) instead of the package's.
        device: ``auto``, ``cpu``, ``cuda:N`` or ``mps``.
        batch_size: lines per ``bulk_process`` call.
    """

    name = "stanza"
    kind = "pretrained"
    description = "stanza's Chinese tokenizer (zh-hans or zh-hant)"
    requires = ("stanza", "torch")
    distribution = "stanza"
    install = "pip install 'cws-bench[stanza]'"
    neural = True

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """No stanza models in the resources folder, or a model file that is not there."""
        lang = options.get("lang", "zh-hans")
        folder = os.fspath(options["dir"]) if options.get("dir") is not None else default_dir()
        if not os.path.isfile(os.path.join(folder, "resources.json")):
            return (
                f"no stanza models in {folder} (no resources.json there)",
                'fetch them once on a machine with network: python -c "import stanza; '
                f"stanza.download('{lang}', processors='tokenize', model_dir='{folder}')\"",
            )
        model_path = options.get("model_path")
        if model_path is not None and not os.path.isfile(model_path):
            return (f"model file {os.fspath(model_path)}: not found", "fix the path")
        return None

    def __init__(
        self,
        *,
        lang: str = "zh-hans",
        dir: str | os.PathLike[str] | None = None,
        package: str | None = None,
        model_path: str | os.PathLike[str] | None = None,
        device: str = "auto",
        batch_size: int = 64,
    ) -> None:
        super().__init__(
            lang=lang,
            dir=dir,
            package=package,
            model_path=model_path,
            device=device,
            batch_size=batch_size,
        )
        if int(batch_size) < 1:
            raise SegmenterError(self.name, f"batch_size must be at least 1, not {batch_size}")
        self.batch_size = int(batch_size)
        if lang not in LANGUAGES:
            raise SegmenterError(
                self.name, f"unknown language {lang!r}", f"use one of: {', '.join(LANGUAGES)}"
            )
        folder = os.fspath(dir) if dir is not None else default_dir()
        fetch = (
            'fetch the models once on a machine with network: python -c "import stanza; '
            f"stanza.download('{lang}', processors='tokenize', model_dir='{folder}')\", "
            "then pass that folder as dir"
        )
        if not os.path.isfile(os.path.join(folder, "resources.json")):
            raise SegmenterError(
                self.name, f"no stanza models in {folder} (no resources.json there)", fetch
            )
        if model_path is not None and not os.path.isfile(model_path):
            raise SegmenterError(self.name, f"model file {os.fspath(model_path)}: not found")
        self.device, self.gpu = resolve_device(self.name, device)
        import stanza

        options: dict[str, Any] = {}
        if package is not None:
            options["package"] = {"tokenize": package}
        if model_path is not None:
            options["tokenize_model_path"] = os.fspath(model_path)
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
                    **options,
                )
        except (FileNotFoundError, ValueError, KeyError) as e:
            raise SegmenterError(
                self.name, f"cannot load the {lang} tokenizer from {folder}: {e}", fetch
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
            described = f"the training data of {os.path.basename(os.fspath(model_path))}"
        else:
            described = f"the training data of stanza's {lang} tokenizer ({package or 'default'})"
        self.trained_on = TrainingData(described)

    def metadata(self) -> dict[str, Any]:
        """The base metadata plus ``model``: which models and where they run."""
        return {**super().metadata(), "model": dict(self.identity)}

    def _segment(self, lines: list[str]) -> list[list[str]]:
        out: list[list[str]] = []
        for start in range(0, len(lines), self.batch_size):
            batch = [self._document([], text=t) for t in lines[start : start + self.batch_size]]
            out.extend(words_of(document) for document in self.pipeline.bulk_process(batch))
        return out

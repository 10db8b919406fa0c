"""HanLP 2 (https://github.com/hankcs/HanLP): a tokenizer component loaded with ``hanlp.load``.

``model`` is a saved component's folder (its ``config.json`` names the
class) or one of HanLP's identifiers (``COARSE_ELECTRA_SMALL_ZH``,
``FINE_ELECTRA_SMALL_ZH``, ``CTB9_TOK_ELECTRA_BASE``... or their URLs), which
HanLP resolves in its own cache ($HANLP_HOME, default ~/.hanlp) and
downloads only when missing there. A tokenizer returns one list of words
per line; a multi-task model returns a ``Document`` whose ``tok/fine`` (or
``tok/coarse``, ``task``) entry is that list.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.segmenters.neural import folder_checksum, pieces, resolve_device

__all__ = ["HanlpSegmenter", "words_of"]


def words_of(output: Any, lines: int, task: str | None = None) -> list[list[str]]:
    """One list of words per line from what a HanLP component returns for a batch.

    >>> words_of([["商品", "和", "服务"], ["他说 ", "了"]], 2)
    [['商品', '和', '服务'], ['他说', '了']]
    >>> words_of({"tok/fine": [["商品", "和服", "务"]], "pos/ctb": [["NN", "NN", "NN"]]}, 1)
    [['商品', '和服', '务']]
    >>> words_of({"tok/coarse": [["商品和服务"]]}, 1, task="tok/coarse")
    [['商品和服务']]
    """
    if isinstance(output, dict):
        keys = [task] if task else [k for k in ("tok/fine", "tok/coarse", "tok") if k in output]
        keys = keys or sorted(k for k in output if str(k).startswith("tok"))
        if not keys or keys[0] not in output:
            raise TypeError(
                f"HanLP returned the tasks {sorted(output)}: no tokenization "
                f"{'named ' + repr(task) if task else '(tok/...)'} among them"
            )
        output = output[keys[0]]
    if not isinstance(output, list) or len(output) != lines:
        raise TypeError(f"HanLP returned {type(output).__name__} for a batch of {lines} lines")
    if lines and not all(isinstance(words, list) for words in output):
        raise TypeError("HanLP returned something else than one list of words per line")
    return [pieces(words) for words in output]


class HanlpSegmenter(Segmenter):
    """A HanLP 2 tokenizer (or the tokenization of a multi-task model).

    Args:
        model: a component folder, or a HanLP identifier or URL.
        task: the output entry of a multi-task model (default ``tok/fine``,
            else ``tok/coarse``).
        device: ``auto``, ``cpu`` or ``cuda:N``.
        batch_size: lines per call.
        download: let HanLP download an identifier missing from its cache
            ($HANLP_HOME, default ~/.hanlp); without it such an identifier
            is an error that says where HanLP looked.
    """

    name = "hanlp"
    kind = "pretrained"
    description = "HanLP 2 tokenizer (hanlp.load)"
    requires = ("hanlp", "torch")
    distribution = "hanlp"
    install = "pip install 'cws-bench[hanlp]'"
    neural = True

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """A model folder that is not there, or a named model not in HanLP's cache."""
        where = os.fspath(options.get("model", "COARSE_ELECTRA_SMALL_ZH"))
        if os.path.isdir(where) or options.get("download"):
            return None
        if where.startswith((".", "/", "~")):
            return (f"model folder {where}: no such folder", "fix the path")
        import hanlp
        from hanlp.utils.io_util import path_from_url

        cached = path_from_url(getattr(hanlp.pretrained.tok, where, where))
        if os.path.exists(cached) or os.path.exists(cached.removesuffix(".zip")):
            return None
        return (
            f"model {where!r} is not in HanLP's cache ({cached.removesuffix('.zip')})",
            "set download = true to let HanLP fetch it, or pass the folder of a saved "
            "HanLP component (model = '/path/to/folder')",
        )

    def __init__(
        self,
        *,
        model: str | os.PathLike[str] = "COARSE_ELECTRA_SMALL_ZH",
        task: str | None = None,
        device: str = "auto",
        batch_size: int = 32,
        download: bool = False,
    ) -> None:
        super().__init__(
            model=model, task=task, device=device, batch_size=batch_size, download=download or None
        )
        if int(batch_size) < 1:
            raise SegmenterError(self.name, f"batch_size must be at least 1, not {batch_size}")
        self.batch_size = int(batch_size)
        self.task = task
        where = os.fspath(model)
        local = os.path.isdir(where)
        if not local and where.startswith((".", "/", "~")):
            raise SegmenterError(self.name, f"model folder {where}: no such folder")
        self.device, self.gpu = resolve_device(self.name, device)
        import hanlp

        identifier = getattr(hanlp.pretrained.tok, where, where) if not local else where
        if not local and not download:
            from hanlp.utils.io_util import path_from_url

            cached = path_from_url(identifier)
            if not (os.path.exists(cached) or os.path.exists(cached.removesuffix(".zip"))):
                raise SegmenterError(
                    self.name,
                    f"model {where!r} is not in HanLP's cache ({cached.removesuffix('.zip')})",
                    "set download = true to let HanLP fetch it, or pass the folder of a saved "
                    "HanLP component (model = '/path/to/folder')",
                )
        devices = -1 if self.device == "cpu" else int(self.device.partition(":")[2] or 0)
        try:
            self.component = hanlp.load(identifier, devices=devices)
        except (FileNotFoundError, OSError, ValueError) as e:
            raise SegmenterError(
                self.name,
                f"cannot load model {where!r}: {type(e).__name__}: {str(e).splitlines()[0]}",
                "pass the folder of a saved HanLP component (model = '/path/to/folder', the "
                "one holding its config.json)",
            ) from e
        self.identity = {
            "model": os.path.abspath(where) if local else str(identifier),
            "checksum": folder_checksum(where) if local else None,
            "device": self.device,
            "gpu": self.gpu,
        }
        self.trained_on = TrainingData(f"the training data of {where}")

    def metadata(self) -> dict[str, Any]:
        """The base metadata plus ``model``: which model and where it runs."""
        return {**super().metadata(), "model": dict(self.identity)}

    def _segment(self, lines: list[str]) -> list[list[str]]:
        out: list[list[str]] = []
        for start in range(0, len(lines), self.batch_size):
            batch = lines[start : start + self.batch_size]
            out.extend(words_of(self.component(batch), len(batch), self.task))
        return out

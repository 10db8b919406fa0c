"""LTP 4 (https://github.com/HIT-SCIR/ltp): the HIT language technology platform, CWS only.

``LTP(path_or_name)`` loads either kind of LTP model from a folder (or a hub
name, from the local hub cache when the hub cannot be reached):

- the neural models (``LTP/tiny``, ``LTP/small``, ``LTP/base``...): a
  transformer with one head per task, a torch module moved to ``device``;
- the legacy model (``LTP/legacy``): ltp-extension's averaged perceptron
  (``cws_model.bin`` beside a ``config.json`` saying ``"nerual": false``),
  on the CPU.

Only the ``cws`` task runs (``pipeline(batch, tasks=["cws"]).cws``: one list
of words per line). LTP keeps whitespace inside its words (``他说 `` for
``他说 Hello``); whitespace is never part of a word, so words are cut there.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Mapping
from typing import Any

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.segmenters.neural import folder_checksum, pieces, resolve_device

__all__ = ["LtpSegmenter", "words_of"]


def words_of(output: Any) -> list[list[str]]:
    """The words of each line from what ``LTP.pipeline(batch, tasks=["cws"])`` returns.

    LTP 4.2 returns an ``LTPOutput`` whose ``cws`` is one list of words per
    line; ``return_dict=False`` gives a tuple whose first item is that list.

    >>> words_of({"cws": [["他说 ", "了"]]})
    [['他说', '了']]
    >>> words_of((["我们", "是 "], None))
    Traceback (most recent call last):
    ...
    TypeError: LTP returned something else than one list of words per line
    >>> words_of(([["我们", "是"]],))
    [['我们', '是']]
    """
    cws = output[0] if isinstance(output, tuple) else output["cws"]
    if not all(isinstance(words, list) for words in cws):
        raise TypeError("LTP returned something else than one list of words per line")
    return [pieces(words) for words in cws]


class LtpSegmenter(Segmenter):
    """LTP's segmentation (the ``cws`` task only).

    Args:
        model: a model folder, or a hub name (``LTP/small``, ``LTP/legacy``...).
        device: ``auto``, ``cpu``, ``cuda:N`` or ``mps`` (neural models only).
        batch_size: lines per ``pipeline`` call.
    """

    name = "ltp"
    kind = "pretrained"
    description = "LTP 4 (HIT), CWS task; neural or legacy perceptron model"
    requires = ("ltp", "torch")
    distribution = "ltp"
    install = "pip install 'cws-bench[ltp]'"
    neural = True

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """A model folder that is not there, or a hub model not cached offline."""
        from cws_bench.segmenters.neural import hub_model_problem

        return hub_model_problem(options.get("model", "LTP/small"))

    def __init__(
        self,
        *,
        model: str | os.PathLike[str] = "LTP/small",
        device: str = "auto",
        batch_size: int = 32,
    ) -> None:
        super().__init__(model=model, device=device, batch_size=batch_size)
        if int(batch_size) < 1:
            raise SegmenterError(self.name, f"batch_size must be at least 1, not {batch_size}")
        self.batch_size = int(batch_size)
        where = os.fspath(model)
        local = os.path.isdir(where)
        if not local and (where.startswith((".", "/", "~")) or where.count("/") > 1):
            raise SegmenterError(self.name, f"model folder {where}: no such folder")
        if local and not os.path.isfile(os.path.join(where, "config.json")):
            raise SegmenterError(
                self.name,
                f"model folder {where}: no config.json in it",
                "pass the folder of an LTP model (its config.json, weights and vocabularies)",
            )
        from ltp import LTP

        try:
            with contextlib.redirect_stdout(io.StringIO()):  # "Loading weights from ..."
                self.ltp = LTP(where)
        except Exception as e:  # hub errors come as several types
            raise SegmenterError(
                self.name,
                f"cannot load model {where!r}: {type(e).__name__}: {str(e).splitlines()[0]}",
                "pass the folder of a downloaded model (model = '/path/to/folder'), or fetch "
                f"it on a machine with network first: hf download {where}",
            ) from e
        if "cws" not in getattr(self.ltp, "supported_tasks", {"cws"}):
            raise SegmenterError(self.name, f"model {where!r} has no cws task")
        self.device, self.gpu = "cpu", None
        if hasattr(self.ltp, "to"):  # a neural model: a torch module
            self.device, self.gpu = resolve_device(self.name, device)
            self.ltp.to(self.device)
        self.identity: dict[str, Any] = {
            "model": os.path.abspath(where) if local else where,
            "checksum": folder_checksum(where) if local else None,
            "kind": "neural" if hasattr(self.ltp, "to") else "legacy",
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
            out.extend(words_of(self.ltp.pipeline(batch, tasks=["cws"])))
        return out

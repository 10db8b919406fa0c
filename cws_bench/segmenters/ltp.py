"""LTP 4 (https://github.com/HIT-SCIR/ltp): the HIT language technology platform, CWS only.

A model is a folder, or a hub name found in the local Hugging Face cache (downloaded,
with bounded waits, only when missing there:
:func:`cws_bench.segmenters.neural.hub_folder`): a neural model (``LTP/tiny``,
``LTP/small``, ``LTP/base``...) or the legacy averaged perceptron (``LTP/legacy``,
``cws_model.bin`` beside a ``config.json`` saying ``"nerual": false``), run by
``ltp.LTP`` on the CPU.

The neural models are run here, not by ``ltp.LTP``: LTP 4.2.14's ``pipeline`` calls
the tokenizer's ``batch_encode_plus`` (gone in transformers 5) and its hub loader passes
``use_auth_token`` (gone in huggingface_hub 1), and pinning transformers 4 would break
every other neural adapter. The adapter builds LTP's model with ``ltp_core``, runs the
encoder and the ``cws`` head and decodes as LTP does (:class:`_NeuralModel`); a line
longer than the encoder's positions is cut into overlapping windows as the
``transformers`` adapter cuts them. docs/NEURAL.md ("LTP's neural models") says it in
full.

LTP keeps whitespace inside its words (``他说 `` for ``他说 Hello``);
whitespace is never part of a word, so words are cut there.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cws_bench.display.units import plural
from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import TrainingData, option
from cws_bench.segmenters.neural import (
    HubSegmenter,
    batched,
    by_window,
    cut_at,
    device_option,
    folder_checksum,
    hub_folder,
    max_length_option,
    overlap_option,
    pieces,
    resolve_device,
    window_sizes,
)
from cws_bench.system.installed import installed_versions

__all__ = ["LtpSegmenter", "words_of"]

WEIGHTS = "pytorch_model.bin"


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


class _NeuralModel:
    """An LTP neural model's ``cws`` path: tokenizer, encoder, processor, head, labels."""

    def __init__(self, name: str, folder: str, config: dict[str, Any], device: str) -> None:
        import torch
        import transformers
        from ltp_core.models.utils import instantiate

        transformers.logging.set_verbosity_error()
        vocabulary = config.get("vocabs", {}).get("cws", ["I-W", "B-W"])
        if not vocabulary:
            raise SegmenterError(name, f"model {folder} has no cws task")
        self.labels = [str(label) for label in vocabulary]
        weights = os.path.join(folder, WEIGHTS)
        if not os.path.isfile(weights):
            raise SegmenterError(
                name,
                f"model folder {folder}: no {WEIGHTS} in it",
                "pass the folder of an LTP model (its config.json, weights and vocabularies)",
            )
        try:
            self.model = instantiate(config["model"])
            state = torch.load(weights, map_location="cpu", weights_only=True)
            loaded = self.model.load_state_dict(state, strict=False)
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(
                folder, config=self.model.backbone.config
            )
        except (KeyError, TypeError, ValueError, OSError, RuntimeError, ImportError) as e:
            raise SegmenterError(
                name,
                f"cannot load the LTP model in {folder}: {type(e).__name__}: "
                f"{(str(e).splitlines() or [''])[0]}",
                "pass the folder of an LTP neural model (config.json, pytorch_model.bin, "
                "vocab.txt and the tokenizer's files)",
            ) from e
        needed = ("backbone.", "processor.cws.", "task_heads.cws.")
        missing = [
            key
            for key in loaded.missing_keys
            if key.startswith(needed) and not key.endswith("position_ids")
        ]
        if missing:
            raise SegmenterError(
                name,
                f"the weights in {weights} lack {plural(len(missing), 'tensor')} of the cws task "
                f"(first: {missing[0]})",
                "the folder's config.json and pytorch_model.bin must come from the same model",
            )
        self.model.to(device).eval()
        self.device = device
        self.limit = int(getattr(self.model.backbone.config, "max_position_embeddings", 512)) - 2
        self._torch = torch

    def tags(self, texts: list[str]) -> list[list[tuple[int, str]]]:
        """For each text: ``(character offset, label)`` of each token that starts a new span.

        This is LTP's ``_cws_post`` up to the labels: the tokens between
        ``[CLS]`` and ``[SEP]``, padding stops them, empty spans are skipped,
        a token with the span of the one before is the same unit.
        """
        torch = self._torch
        encoded = self.tokenizer(
            texts, padding="longest", return_tensors="pt", return_offsets_mapping=True
        )
        offsets = encoded.pop("offset_mapping").tolist()
        inputs = {key: value.to(self.device) for key, value in encoded.items()}
        with torch.inference_mode():
            outputs = self.model.backbone(**inputs)
            hidden, mask = self.model.processor["cws"](outputs, inputs["attention_mask"])
            result = self.model.task_heads["cws"](hidden, mask)
            if result.crf is None:
                best = result.logits.argmax(dim=-1).cpu().tolist()
                keep = result.attention_mask.cpu().tolist()
                decoded = [[t for t, m in zip(row, on) if m] for row, on in zip(best, keep)]
            else:
                scores = torch.log_softmax(result.logits, dim=-1)
                decoded = result.crf.decode(scores, result.attention_mask)
        out = []
        for spans, labels in zip(offsets, decoded):
            units: list[tuple[int, str]] = []
            last = None
            for index, (start, end) in enumerate(spans[1:-1]):
                if start == 0 and end == 0:
                    break
                if start == end:
                    continue
                if (start, end) != last and index < len(labels):
                    units.append((start, self.labels[labels[index]]))
                last = (start, end)
            out.append(units)
        return out


class LtpSegmenter(HubSegmenter):
    """LTP's segmentation (the ``cws`` task only): a neural model, or a legacy perceptron."""

    name = "ltp"
    kind = "pretrained"
    description = "LTP 4 (HIT), CWS task; neural or legacy perceptron model"
    requires = ("ltp", "torch")
    distribution = "ltp"
    install = "pip install 'cws-bench[ltp]'"

    @dataclass(frozen=True)
    class Options:
        model: str = option("LTP/small", "a model folder, or a hub name (LTP/small, LTP/legacy...)")
        device: str = device_option()
        batch_size: int = option(32, "lines (neural: windows) per call", bounds="batch_size")
        max_length: int | None = max_length_option()
        overlap: int | None = overlap_option()

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import ltp  # noqa: F401 - an ImportError here says the library is missing

        self.batch_size, where = self.opts.batch_size, self.opts.model
        local = os.path.isdir(where)
        folder = where if local else hub_folder(self.name, where)
        config_file = os.path.join(folder, "config.json")
        if not os.path.isfile(config_file):
            raise SegmenterError(
                self.name,
                f"model folder {folder}: no config.json in it",
                "pass the folder of an LTP model (its config.json, weights and vocabularies)",
            )
        try:
            config = json.loads(Path(config_file).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise SegmenterError(self.name, f"{config_file}: not readable JSON: {e}") from e
        self.network: _NeuralModel | None = None
        self.device, self.gpu = "cpu", None
        if config.get("nerual", config.get("neural", True)):
            self.device, self.gpu = resolve_device(self.name, self.opts.device)
            self.network = _NeuralModel(self.name, folder, config, self.device)
            self.max_length, self.overlap = window_sizes(self.name, self.opts, self.network.limit)
        else:
            self.legacy = self._legacy(folder)
        self.identity: dict[str, Any] = {
            "model": os.path.abspath(where) if local else where,
            "folder": None if local else folder,
            "checksum": folder_checksum(folder),
            "kind": "neural" if self.network else "legacy",
            "device": self.device,
            "gpu": self.gpu,
            "versions": installed_versions("ltp", "ltp-core", "ltp-extension", "transformers"),
        }
        self.trained_on = TrainingData(f"the training data of {where}")

    def _legacy(self, folder: str) -> Any:
        from ltp import LTP

        try:
            with contextlib.redirect_stdout(io.StringIO()):  # "Loading weights from ..."
                legacy = LTP(folder)
        except Exception as e:  # the perceptron's loader raises several types
            raise SegmenterError(
                self.name,
                f"cannot load the legacy model in {folder}: {type(e).__name__}: "
                f"{(str(e).splitlines() or [''])[0]}",
                "pass the folder of an LTP model (its config.json, cws_model.bin...)",
            ) from e
        if "cws" not in getattr(legacy, "supported_tasks", {"cws"}):
            raise SegmenterError(self.name, f"model {folder!r} has no cws task")
        return legacy

    def _segment(self, lines: list[str]) -> list[list[str]]:
        if self.network is None:
            return [
                words
                for batch in batched(lines, self.batch_size)
                for words in words_of(self.legacy.pipeline(batch, tasks=["cws"]))
            ]
        return self._segment_neural(lines)

    def _segment_neural(self, lines: list[str]) -> list[list[str]]:
        from ltp_extension.algorithms import get_entities

        network = self.network
        assert network is not None
        sizes = self.max_length, self.overlap, self.batch_size
        owned = by_window(lines, *sizes, lambda texts: [dict(f) for f in network.tags(texts)])
        out = []
        for line, chars in zip(lines, owned):
            labelled = [(p, units[at]) for p, (units, at) in enumerate(chars) if at in units]
            starts = [labelled[start][0] for _, start, _ in get_entities([x for _, x in labelled])]
            out.append(cut_at(line, starts))
        return out

"""Hugging Face character taggers: any token-classification model that tags characters.

``ckiplab/bert-base-chinese-ws`` is one (labels ``B``/``I``); models tagged
``B/M/E/S`` or ``B/I/E/S``, with or without a prefix (``B-WORD``), work
alike, and ``label_map`` maps unusual label names (see
:func:`cws_bench.segmenters.neural.label_roles`).

The model sees the line's characters without its whitespace, each at one position
(:func:`~cws_bench.segmenters.neural.character_id`), so the words always join back to
the line and never span its whitespace. A line longer than ``max_length`` (by default
the model's position limit less its special tokens) is cut into windows overlapping by
``overlap`` characters, each character tagged by the window where it lies farthest from
an edge (:func:`by_window`). The identity (:meth:`TransformersSegmenter.metadata`)
records the model (hub name and revision, or folder and a checksum of its files), the
device, the dtype, the GPU and the versions of transformers and torch. docs/NEURAL.md
("The character tagger") says each in full.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import TrainingData, option
from cws_bench.segmenters.neural import (
    DTYPES,
    HubSegmenter,
    best_labels,
    by_window,
    character_id,
    cut_at,
    device_option,
    folder_checksum,
    hub_folder,
    label_roles,
    load_pretrained,
    max_length_option,
    overlap_option,
    resolve_device,
    special_tokens,
    tags_to_words,
    window_sizes,
    word_starts,
)
from cws_bench.segmenters.tagger_training import TrainingOptions
from cws_bench.system.installed import installed_versions

__all__ = ["TransformersSegmenter"]

#: What ``cws-bench train transformers`` writes beside the model: what it learned from.
TRAINING_RECORD = "cws_bench.json"


class TransformersSegmenter(HubSegmenter):
    """A Hugging Face token-classification model that tags each character (a folder in
    ``save_pretrained``'s layout, or a hub name, from the local hub cache first)."""

    name = "transformers"
    kind = "pretrained"
    description = "a Hugging Face character-tagging model (BERT-style, e.g. ckiplab's)"
    requires = ("transformers", "torch")
    distribution = "transformers"
    install = "pip install 'cws-bench[transformers]'"
    training_options = TrainingOptions  # train_tagger's, through from_training
    _scratch: Any = None  # the temporary folder of a model trained in this process

    @dataclass(frozen=True)
    class Options:
        model: str = option("ckiplab/bert-base-chinese-ws", "a model folder or a hub name")
        revision: str | None = option(None, "the hub revision (branch, tag or commit)")
        device: str = device_option()
        dtype: str = option("float32", "the weights' type", choices=DTYPES)
        batch_size: int = option(32, "windows per forward pass", bounds="batch_size")
        max_length: int | None = max_length_option()
        overlap: int | None = overlap_option()
        label_map: Mapping[str, str] | None = option(None, "label name -> B, M/I, E or S")

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import transformers

        opts = self.opts
        self.batch_size, self.dtype, where = opts.batch_size, opts.dtype, opts.model
        self.device, self.gpu = resolve_device(self.name, opts.device)
        local = Path(where).is_dir()
        transformers.logging.set_verbosity_error()
        transformers.utils.logging.disable_progress_bar()
        folder = where if local else hub_folder(self.name, where, opts.revision)
        self.tokenizer, self.model = load_pretrained(
            self.name,
            where,
            folder,
            transformers.AutoModelForTokenClassification,
            opts.dtype,
            "pass the folder of a token-classification model (save_pretrained's layout: "
            "config.json, the weights, the tokenizer's files): model = '/path/to/folder'",
        )
        self.model.to(self.device).eval()
        self.roles = label_roles(self.name, self.model.config.id2label, opts.label_map)
        self._prefix, self._suffix = special_tokens(self.tokenizer)
        limit = self._position_limit() - len(self._prefix) - len(self._suffix)
        self.max_length, self.overlap = window_sizes(self.name, opts, limit)
        # the model's id of one character: its tokenizer's single token, else unknown
        self.token_id = functools.cache(functools.partial(character_id, self.tokenizer))
        self.identity: dict[str, Any] = {
            "model": os.path.abspath(where) if local else where,
            "revision": None if local else self._commit(folder, opts.revision),
            "checksum": folder_checksum(where) if local else None,
            "device": self.device,
            "gpu": self.gpu,
            "dtype": opts.dtype,
            "versions": installed_versions("transformers", "torch", "tokenizers"),
        }
        self.folder = Path(where) if local else None
        recorded = _recorded_training(self.name, where) if local else None
        self.trained_on = recorded or TrainingData(f"the training data of {where}")

    @classmethod
    def from_training(
        cls, sentences: Iterable[Sequence[str]], **options: Any
    ) -> TransformersSegmenter:
        """Train a character tagger on gold ``sentences`` (``cws-bench train transformers``).

        The options are :class:`~cws_bench.segmenters.tagger_training.TrainingOptions`; the
        model segments on the training ``device`` and is kept in a temporary folder until
        :meth:`save`.
        """
        import tempfile

        from cws_bench.segmenters.tagger_training import train_tagger

        scratch = tempfile.TemporaryDirectory(prefix="cws-bench-tagger-")
        folder = Path(scratch.name) / "model"
        train_tagger(sentences, folder, **options)
        segmenter = cls(model=folder, device=str(options.get("device", "auto")))
        segmenter._scratch = scratch  # removed with the segmenter
        return segmenter

    def save(self, path: str | os.PathLike[str]) -> None:
        """Copy the model folder to ``path`` (a folder; replaced only if it holds a model)."""
        if self.folder is None:
            raise SegmenterError(self.name, "a hub model has no folder to save")
        from cws_bench.segmenters.tagger_training import replace_folder

        replace_folder(self.name, self.folder, Path(path))

    # -- set-up ---------------------------------------------------------------

    def _commit(self, folder: str, revision: str | None) -> str | None:
        """The commit of a hub snapshot (its folder's name in the hub cache)."""
        name = Path(folder).name
        if Path(folder).parent.name == "snapshots" and len(name) == 40:
            return name
        commit = getattr(self.model.config, "_commit_hash", None)
        return str(commit) if commit else revision

    def _position_limit(self) -> int:
        limits = [
            getattr(self.model.config, "max_position_embeddings", None),
            getattr(self.tokenizer, "model_max_length", None),
        ]
        known = [int(x) for x in limits if isinstance(x, int) and 0 < x < 1_000_000]
        if not known:
            return 512
        # RoBERTa-style models reserve positions for the padding offset.
        offset = int(getattr(self.model.config, "pad_token_id", 0) or 0) + 1
        if getattr(self.model.config, "model_type", "") in {"roberta", "xlm-roberta", "camembert"}:
            known = [min(known) - offset]
        return min(known)

    # -- segmenting -----------------------------------------------------------

    def _segment(self, lines: list[str]) -> list[list[str]]:
        sentences = ["".join(line.split()) for line in lines]
        out = []
        for line, characters, tags in zip(lines, sentences, self.tag(sentences)):
            words = tags_to_words(characters, tags)  # a line without whitespace is its words
            out.append(words if characters == line else cut_at(line, word_starts(line, words)))
        return out

    def tag(self, sentences: list[str]) -> list[list[str]]:
        """One role (B, M, E, S) per character of each sentence (no whitespace in them)."""
        found = by_window(sentences, self.max_length, self.overlap, self.batch_size, self.predict)
        return [[self.roles[labels[at]] for labels, at in line] for line in found]

    def predict(self, texts: list[str]) -> list[list[int]]:
        """The argmax label id of each character of each text (one batch)."""
        rows = [[self.token_id(c) for c in text] for text in texts]
        around = (self._prefix, self._suffix)
        return best_labels(self.model, rows, around, self.tokenizer.pad_token_id or 0)


def _recorded_training(name: str, folder: str) -> TrainingData | None:
    """What ``cws-bench train transformers`` recorded that the model in ``folder`` learned from."""
    import json

    record = Path(folder) / TRAINING_RECORD
    if not record.is_file():
        return None
    try:
        data = json.loads(record.read_text(encoding="utf-8"))["trained_on"]
        return TrainingData.from_dict(data) if data else None
    except (ValueError, KeyError, TypeError) as e:
        raise SegmenterError(
            name,
            f"{record}: not a training record cws-bench wrote ({type(e).__name__}: {e})",
            f"remove {TRAINING_RECORD} from the model folder, or train the model again",
        ) from e

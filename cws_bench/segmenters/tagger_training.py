"""Training a character tagger the ``transformers`` adapter loads: ``cws-bench train transformers``.

A BERT-style encoder with a token-classification head learns each character's label
(:data:`LABELS`: ``B`` begins a word, ``M`` is inside, ``E`` ends it, ``S`` is a word),
built from scratch or fine-tuned from a local pretrained folder (``init``, its head
replaced by a new 4-label one). docs/NEURAL.md, "Training a character tagger", gives
the options and their defaults, the held-out dev set and early stopping, and what the
folder written holds (``cws_bench.json``: the ``trained_on`` record the contamination
checks read). The model sees characters exactly as the adapter shows them
(:func:`cws_bench.segmenters.neural.character_id`), one position each, so what it
learns is what the adapter asks; sentences longer than ``max_length`` characters are
cut between words into pieces that fit (:func:`pieces_of`).
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from cws_bench.defaults import Bounds
from cws_bench.display.units import plural
from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import TrainingData, option, parse_options
from cws_bench.segmenters.hmm import tags_of
from cws_bench.segmenters.neural import (
    batched,
    best_labels,
    character_id,
    pieces,
    resolve_device,
    special_tokens,
    tags_to_words,
)
from cws_bench.segmenters.sources import TrainingCorpus, training_data

__all__ = [
    "LABELS",
    "TrainingOptions",
    "labels_of",
    "pieces_of",
    "replace_folder",
    "train_tagger",
]

NAME = "transformers"
LABELS = ("B", "M", "E", "S")  # as hmm's TAGS
_HEAD: dict[str, Any] = {
    "num_labels": len(LABELS),
    "id2label": dict(enumerate(LABELS)),
    "label2id": {label: i for i, label in enumerate(LABELS)},
}
SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
RECORD = "cws_bench.json"

_AT_LEAST_1 = Bounds(whole=True, low=1)
_POSITIVE = Bounds(whole=False, low=0, low_open=True)


@dataclass(frozen=True)
class TrainingOptions:
    """The options of :func:`train_tagger` (``cws-bench train transformers -O KEY=VALUE``)."""

    init: str | None = option(None, "a local pretrained folder to fine-tune (default: new)")
    layers: int = option(4, "encoder layers of a new model", bounds=_AT_LEAST_1)
    hidden: int = option(256, "hidden size of a new model", bounds=_AT_LEAST_1)
    heads: int | None = option(None, "attention heads (default hidden / 64)", bounds=_AT_LEAST_1)
    epochs: int = option(10, "passes over the training sentences", bounds=_AT_LEAST_1)
    batch_size: int = option(32, "sentences per step", bounds="batch_size")
    lr: float | None = option(None, "learning rate (5e-4 new, 5e-5 from init)", bounds=_POSITIVE)
    max_length: int = option(128, "characters per training piece", bounds=_AT_LEAST_1)
    min_count: int = option(1, "least count of a character in a new vocabulary", bounds=_AT_LEAST_1)
    dev: float | str = option(
        0.05, "held-out fraction, or a segmented file", bounds=Bounds(False, 0, 1, high_open=True)
    )
    patience: int = option(
        2, "evaluations without a better dev F1 before stopping", bounds=_AT_LEAST_1
    )
    eval_every: int | None = option(
        None, "steps between evaluations (default: an epoch)", bounds=_AT_LEAST_1
    )
    time_limit: float | None = option(None, "minutes", bounds=_POSITIVE)
    device: str = option("auto", "auto, cpu, cuda:N or mps")
    seed: int = option(0, "initialisation and batch order", bounds="seed")
    progress: bool = option(True, "a progress bar on a terminal")


def labels_of(words: Sequence[str]) -> list[int]:
    """The label id (index in :data:`LABELS`) of each character of ``words``.

    >>> [LABELS[i] for i in labels_of(["我们", "是", "中国人"])]
    ['B', 'E', 'S', 'B', 'M', 'E']
    """
    return [tag for word in words if word for tag in tags_of(word)]


def pieces_of(words: Sequence[str], size: int) -> list[list[str]]:
    """``words`` cut between words into pieces of at most ``size`` characters.

    A word longer than ``size`` is cut into parts of ``size`` characters (its
    labels then describe the parts, the best a window that size can learn).

    >>> pieces_of(["我们", "是", "中国人"], 3)
    [['我们', '是'], ['中国人']]
    >>> pieces_of(["一二三四五"], 2)
    [['一二'], ['三四'], ['五']]
    """
    out: list[list[str]] = []
    current: list[str] = []
    length = 0
    for word in words:
        parts = [word[i : i + size] for i in range(0, len(word), size)] or [word]
        for part in parts:
            if current and length + len(part) > size:
                out.append(current)
                current, length = [], 0
            current.append(part)
            length += len(part)
    if current:
        out.append(current)
    return out


def _check(settings: dict[str, Any]) -> None:
    """What the declaration cannot say: ``hidden`` against ``heads``."""
    heads = settings["heads"] or _default_heads(settings["hidden"])
    if settings["init"] is None and settings["hidden"] % heads:
        raise SegmenterError(
            NAME, f"hidden ({settings['hidden']}) must be a multiple of heads ({heads})"
        )


def _default_heads(hidden: int) -> int:
    return max(1, hidden // 64)


def _scratch_model(sentences: list[list[str]], folder: Path, settings: dict[str, Any]) -> Any:
    """A new tokenizer (the training characters) and an untrained BERT tagger."""
    import transformers

    counts = Counter(character for sentence in sentences for word in sentence for character in word)
    characters = sorted(c for c, n in counts.items() if n >= settings["min_count"])
    vocabulary = list(SPECIAL) + [c for c in characters if c not in SPECIAL]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizer(
        vocab={token: index for index, token in enumerate(vocabulary)},
        do_lower_case=False,
        tokenize_chinese_chars=True,
        strip_accents=False,
        model_max_length=settings["max_length"] + 2,
    )
    probe = vocabulary[-1]
    if tokenizer.encode(probe, add_special_tokens=False) != [len(vocabulary) - 1]:
        raise SegmenterError(
            NAME, f"the new tokenizer does not know {probe!r} (transformers changed?)"
        )
    hidden = settings["hidden"]
    config = transformers.BertConfig(  # type: ignore[call-arg]  # num_labels... go to **kwargs
        vocab_size=len(vocabulary),
        hidden_size=hidden,
        num_hidden_layers=settings["layers"],
        num_attention_heads=settings["heads"] or _default_heads(hidden),
        intermediate_size=4 * hidden,
        max_position_embeddings=settings["max_length"] + 2,
        **_HEAD,
    )
    return tokenizer, transformers.BertForTokenClassification(config)


def _pretrained_model(settings: dict[str, Any]) -> Any:
    """The tokenizer and a new 4-label tagger from the local folder ``init``."""
    import transformers

    init = Path(os.fspath(settings["init"])).expanduser()
    if not (init / "config.json").is_file():
        raise SegmenterError(
            NAME,
            f"init {init}: not a model folder (no config.json there)",
            "pass the folder of a downloaded model (e.g. fetched with `hf download "
            "bert-base-chinese --local-dir bert-base-chinese` on a machine with network)",
        )
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(init))
        model = transformers.AutoModelForTokenClassification.from_pretrained(
            str(init), ignore_mismatched_sizes=True, **_HEAD
        )
    except (OSError, ValueError) as e:
        raise SegmenterError(
            NAME, f"cannot load init {init}: {type(e).__name__}: {str(e).splitlines()[0]}"
        ) from e
    return tokenizer, model


class _Encoder:
    """Characters to model ids, as the adapter makes them."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.prefix, self.suffix = special_tokens(tokenizer)
        self.id = functools.cache(functools.partial(character_id, tokenizer))

    def __call__(self, characters: str) -> list[int]:
        return self.prefix + [self.id(character) for character in characters] + self.suffix


def _batches(
    examples: list[tuple[list[int], list[int]]], size: int, rng: random.Random
) -> list[list[tuple[list[int], list[int]]]]:
    """Shuffled batches of examples of similar length (sorted within pools of 50 batches)."""
    order = examples[:]
    rng.shuffle(order)
    pool = size * 50
    batches: list[list[tuple[list[int], list[int]]]] = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda example: len(example[0]))
        batches.extend(chunk[i : i + size] for i in range(0, len(chunk), size))
    rng.shuffle(batches)
    return batches


def _tensors(batch: Sequence[tuple[list[int], list[int]]], pad: int, torch: Any) -> Any:
    width = max(len(ids) for ids, _ in batch)
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    for row, (tokens, tags) in enumerate(batch):
        ids[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
        mask[row, : len(tokens)] = 1
        labels[row, : len(tags)] = torch.tensor(tags, dtype=torch.long)
    return ids, mask, labels


def _example(encode: _Encoder, words: list[str]) -> tuple[list[int], list[int]]:
    ids = encode("".join(words))
    tags = labels_of(words)
    front = len(encode.prefix)
    labels = [-100] * front + tags + [-100] * (len(ids) - front - len(tags))
    return ids, labels


def _dev_f1(model: Any, encode: _Encoder, dev: list[list[str]], settings: dict[str, Any]) -> float:
    """Word F1 of the model's segmentation of the dev pieces."""
    from cws_bench.scoring import score_sentences

    model.eval()
    predicted: list[list[str]] = []
    pad = encode.tokenizer.pad_token_id or 0
    for group in batched(["".join(words) for words in dev], settings["batch_size"] * 2):
        rows = [[encode.id(character) for character in text] for text in group]
        for text, best in zip(group, best_labels(model, rows, (encode.prefix, encode.suffix), pad)):
            predicted.append(tags_to_words(text, [LABELS[i] for i in best]))
    model.train()
    return float(score_sentences(dev, predicted).to_dict()["f1"])


def _dev_sentences(
    dev: Any, sentences: list[list[str]], rng: random.Random
) -> tuple[list[list[str]], list[list[str]], str]:
    """The training sentences, the dev sentences, and what the dev sentences are."""
    if isinstance(dev, str):
        source = TrainingCorpus(dev)
        return sentences, [s for s in map(pieces, source) if s], source.description
    count = min(int(len(sentences) * dev), 2000) if dev else 0
    if dev and count == 0 and len(sentences) > 1:
        count = 1
    order = list(range(len(sentences)))
    rng.shuffle(order)
    held_out = set(order[:count])
    train = [s for i, s in enumerate(sentences) if i not in held_out]
    return (
        train,
        [sentences[i] for i in sorted(held_out)],
        f"{plural(count, 'training sentence')} held out",
    )


def train_tagger(
    sentences: Iterable[Sequence[str]],
    output: str | os.PathLike[str],
    *,
    source: TrainingData | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Train a BMES character tagger on gold ``sentences`` and write its folder to ``output``
    (replacing a model there); returns what ``cws_bench.json`` in the folder records.

    ``source`` says what the sentences are (default: what a
    :class:`~cws_bench.segmenters.sources.TrainingCorpus` recorded); ``options`` are the
    fields of :class:`TrainingOptions`.

    Raises:
        SegmenterError: an unknown or bad option, no sentences, or an
            ``init`` folder that cannot be loaded.
    """
    parsed = parse_options(TrainingOptions, options, NAME, what="training option")
    settings = {f.name: getattr(parsed, f.name) for f in fields(parsed)}
    _check(settings)
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    device, _ = resolve_device(NAME, str(settings["device"]))
    rng = random.Random(settings["seed"])
    torch.manual_seed(settings["seed"])
    everything = [s for s in map(pieces, sentences) if s]
    data = training_data(sentences, source, "<sentences>")
    if not everything:
        raise SegmenterError(NAME, "no training sentences (the corpus is empty)")
    train, dev, dev_description = _dev_sentences(settings["dev"], everything, rng)
    folder = Path(os.fspath(output))
    staging = folder.with_name(f".{folder.name}.part-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    tokenizer, model, size = _starting_model(train, staging, settings)
    encode = _Encoder(tokenizer)
    examples = [_example(encode, piece) for words in train for piece in pieces_of(words, size)]
    dev_pieces = [piece for words in dev for piece in pieces_of(words, size)]
    model.to(device).train()
    started = time.monotonic()
    fitted = _fit(model, encode, examples, dev_pieces, settings, device, rng)
    model.to("cpu")
    record = {
        "trained_on": data.to_dict() if data else None,
        "options": settings,  # parse_options made every value plain
        "dev": dev_description,
        "dev_sentences": len(dev),
        "training_sentences": len(train),
        "best_dev_f1": fitted.best_f1 if fitted.best_f1 >= 0 else None,
        "evaluations": fitted.history,
        "steps": fitted.steps,
        "stopped_by": fitted.stopped,
        "seconds": round(time.monotonic() - started, 1),
        "device": device,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
    }
    model.save_pretrained(str(staging))
    tokenizer.save_pretrained(str(staging))
    text = json.dumps(record, ensure_ascii=False, indent=1)
    (staging / RECORD).write_text(text, encoding="utf-8")
    replace_folder(NAME, staging, folder, move=True)
    return record


def _starting_model(
    train: list[list[str]], staging: Path, settings: dict[str, Any]
) -> tuple[Any, Any, int]:
    """The tokenizer and model training starts from (new, or ``init``'s), and the piece
    size in characters (``max_length``, or less when the pretrained model's limit is)."""
    size = int(settings["max_length"])
    if settings["init"] is None:
        tokenizer, model = _scratch_model(train, staging, settings)
        if tokenizer.model_max_length < size + 2:
            raise SegmenterError(NAME, "the tokenizer's limit is below max_length")
    else:
        tokenizer, model = _pretrained_model(settings)
        limit = int(getattr(model.config, "max_position_embeddings", size + 2) or size + 2) - 2
        size = min(size, limit)
    return tokenizer, model, size


@dataclass
class _Fitted:
    """What a training loop did: the dev scores, the best, the steps and why it stopped."""

    history: list[dict[str, Any]] = field(default_factory=list)
    best_f1: float = -1.0
    steps: int = 0
    stopped: str = "epochs"


def _schedule(model: Any, settings: dict[str, Any], total: int) -> tuple[Any, Any]:
    """AdamW and a linear warm-up (a twentieth of the steps) then linear decay to zero."""
    import torch

    lr = settings["lr"] or (5e-5 if settings["init"] else 5e-4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warmup = max(1, total // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup))),
    )
    return optimizer, scheduler


def _fit(
    model: Any,
    encode: _Encoder,
    examples: list[tuple[list[int], list[int]]],
    dev_pieces: list[list[str]],
    settings: dict[str, Any],
    device: str,
    rng: random.Random,
) -> _Fitted:
    """Train ``model`` in place for the epochs, scoring dev every ``eval_every`` steps;
    stop when patience or the time limit runs out; load the best dev weights back."""
    import torch
    from tqdm import tqdm

    per_epoch = math.ceil(len(examples) / settings["batch_size"])
    total = per_epoch * settings["epochs"]
    optimizer, scheduler = _schedule(model, settings, total)
    pad = encode.tokenizer.pad_token_id or 0
    eval_every = settings["eval_every"] or per_epoch
    limit_s = settings["time_limit"] * 60 if settings["time_limit"] else math.inf
    started = time.monotonic()
    fitted = _Fitted()
    best_state = None
    waited = 0
    bar = tqdm(
        total=total,
        desc=f"training {NAME}",
        unit="step",
        file=sys.stderr,
        disable=None if settings["progress"] else True,
        dynamic_ncols=True,
    )

    def evaluate() -> bool:
        """Score dev, keep the best weights; True when patience has run out."""
        nonlocal best_state, waited
        if not dev_pieces:
            return False
        f1 = _dev_f1(model, encode, dev_pieces, settings)
        step = fitted.steps
        fitted.history.append({"step": step, "epoch": round(step / per_epoch, 3), "dev_f1": f1})
        bar.set_postfix(dev_f1=f"{f1:.4f}")
        if f1 > fitted.best_f1:
            fitted.best_f1, waited = f1, 0
            best_state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
            return False
        waited += 1
        return bool(waited >= settings["patience"])

    try:
        size, epochs = settings["batch_size"], range(settings["epochs"])
        for batch in (batch for _ in epochs for batch in _batches(examples, size, rng)):
            ids, mask, labels = (t.to(device) for t in _tensors(batch, pad, torch))
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            fitted.steps += 1
            bar.update(1)
            if fitted.steps % 20 == 0:
                last = fitted.history[-1:]
                dev = f", dev_f1={last[0]['dev_f1']:.4f}" if last else ""
                bar.set_postfix_str(f"loss={loss.item():.3f}{dev}")
            if fitted.steps % eval_every == 0 and evaluate():
                fitted.stopped = "patience"
                break
            if time.monotonic() - started > limit_s:
                fitted.stopped = "time_limit"
                break
        if fitted.steps % eval_every:
            evaluate()
    finally:
        bar.close()
    if best_state is not None:
        model.load_state_dict(best_state)
    return fitted


def replace_folder(name: str, source: Path, target: Path, *, move: bool = False) -> None:
    """Put the model folder ``source`` at ``target`` whole, or leave ``target`` as it was.

    ``target`` may be missing, empty, or a model folder cws-bench wrote (it
    holds ``cws_bench.json``); anything else is refused.
    """
    if target.exists() and not target.is_dir():
        raise SegmenterError(name, f"{target}: exists and is not a folder", "choose another path")
    if target.is_dir() and any(target.iterdir()) and not (target / RECORD).is_file():
        raise SegmenterError(
            name,
            f"{target}: a folder that holds something else than a model cws-bench wrote",
            "choose a new or empty folder",
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    if move:
        os.replace(source, staging)
    else:
        shutil.copytree(source, staging)
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        os.replace(target, old)
    os.replace(staging, target)
    shutil.rmtree(old, ignore_errors=True)

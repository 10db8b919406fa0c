"""The transformers adapter on the CPU: its overhead over the bare model, and batching.

Input: the SIGHAN 2005 PKU raw test input (1,945 lines, 172,733
characters), in memory. Model: a small randomly initialised BERT tagger
(hidden size 128, 2 layers, 4 heads, 512 positions, B/M/E/S labels) with a
vocabulary of the input's characters, saved with ``save_pretrained`` and
loaded by the adapter like any downloaded model. torch runs on one thread
(the machine's cores are shared), the same in every measurement.

Measurements (the best of --repeat runs, at most 3):
- ``direct``: the model alone on exactly the batches the adapter builds (the
  same windows, sorted by length, padded, with an attention mask), tensors
  built beforehand: only the forward passes and the argmax;
- ``adapter``: ``segment()`` on the raw lines at the same batch size: character
  ids, batching, the forward passes, stitching, decoding and the lossless-join
  check. Target: at most 10% over ``direct``;
- ``batch 1``: ``segment()`` with ``batch_size=1`` (one run): what length-sorted
  batching gains over one sentence at a time;
- within one more adapter run, the time spent in the model's calls and the
  rest (the adapter's own work), a split that load changes between runs
  cannot bias.

No GPU here: the issue's GPU figures (a base-size model at batch sizes 1, 32
and 256, float32 and float16, peak GPU memory) were not measured.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from common import table

from cws_bench.segmenters import get_segmenter
from cws_bench.text.io import iter_lines

BATCH = 32
TARGET = 0.10


class Timed:
    """A model whose calls (the forward passes) are timed."""

    def __init__(self, model) -> None:
        self.model = model
        self.seconds = 0.0

    def __call__(self, **inputs):
        started = time.perf_counter()
        output = self.model(**inputs)
        self.seconds += time.perf_counter() - started
        return output

    def __getattr__(self, name):
        """Everything else is the model's (its parameters, for the device)."""
        return getattr(self.model, name)


def build_model(folder: Path, characters: set[str]) -> None:
    import torch
    import transformers

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted(characters)]
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=512,
        max_position_embeddings=512,
        id2label={0: "B", 1: "M", 2: "E", 3: "S"},
        label2id={"B": 0, "M": 1, "E": 2, "S": 3},
    )
    torch.manual_seed(0)
    transformers.BertForTokenClassification(config).save_pretrained(folder)
    transformers.BertTokenizer(vocab={t: i for i, t in enumerate(vocab)}).save_pretrained(folder)


def direct_batches(segmenter, lines: list[str]) -> list[tuple[object, object]]:
    """The adapter's own batches, as tensors: sorted windows, padded, with a mask."""
    import torch

    from cws_bench.segmenters.neural import windows

    sentences = ["".join(line.split()) for line in lines if line.strip()]
    jobs = [
        sentence[start:end]
        for sentence in sentences
        for start, end in windows(len(sentence), segmenter.max_length, segmenter.overlap)
    ]
    jobs.sort(key=len, reverse=True)
    prefix, suffix = segmenter._prefix, segmenter._suffix
    batches = []
    for first in range(0, len(jobs), BATCH):
        rows = [
            prefix + [segmenter.token_id(c) for c in job] + suffix
            for job in jobs[first : first + BATCH]
        ]
        width = max(map(len, rows))
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = torch.tensor(row)
            mask[r, : len(row)] = 1
        batches.append((ids, mask))
    return batches


def run(args) -> list[dict]:
    try:
        import torch
    except ImportError:
        print("   torch is not installed (make neural): skipped")
        return []
    torch.set_num_threads(1)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    lines = list(iter_lines(args.shared / "icwb2-data" / "testing" / "pku_test.utf8"))
    characters = sum(len("".join(line.split())) for line in lines)
    repeat = max(1, min(args.repeat, 3))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "model"
        build_model(folder, {c for line in lines for c in line if not c.isspace()})
        segmenter = get_segmenter("transformers", model=str(folder), batch_size=BATCH, device="cpu")
        batch1 = get_segmenter("transformers", model=str(folder), batch_size=1, device="cpu")
        model = segmenter.model
        batches = direct_batches(segmenter, lines)

        def direct() -> None:
            with torch.inference_mode():
                for ids, mask in batches:
                    model(input_ids=ids, attention_mask=mask).logits.argmax(-1).tolist()

        def adapter() -> None:
            segmenter.segment(lines)

        # Interleaved, so that a busy moment of the shared machine hits both alike.
        direct_s, adapter_s = [], []
        direct()  # warm-up
        for _ in range(repeat):
            for times, function in ((direct_s, direct), (adapter_s, adapter)):
                started = time.perf_counter()
                function()
                times.append(time.perf_counter() - started)
        # The same split inside one adapter run (immune to the load changing between
        # runs): the time in the model's forward passes, and the rest.
        forward = Timed(model)
        segmenter.model = forward
        started = time.perf_counter()
        segmenter.segment(lines)
        inside_s = time.perf_counter() - started
        segmenter.model = model
        started = time.perf_counter()
        one = batch1.segment(lines)
        batch1_s = time.perf_counter() - started
        assert one == segmenter.segment(lines), "batch size 1 and 32 must agree"
    rows = [
        {
            "run": f"direct (batch {BATCH})",
            "seconds": min(direct_s),
            "chars_per_s": characters / min(direct_s),
        },
        {
            "run": f"adapter (batch {BATCH})",
            "seconds": min(adapter_s),
            "chars_per_s": characters / min(adapter_s),
        },
        {"run": "adapter (batch 1)", "seconds": batch1_s, "chars_per_s": characters / batch1_s},
    ]
    print(table(rows, ["run", "seconds", "chars_per_s"]))
    overhead = min(adapter_s) / min(direct_s) - 1
    speedup = batch1_s / min(adapter_s)
    verdict = "met" if overhead <= TARGET else "NOT met"
    print(f"   adapter overhead over the bare model: {overhead:+.1%}", end=" ")
    print(f"(target <= {TARGET:.0%}: {verdict})")
    print(f"   length-sorted batches of {BATCH} over batch size 1: {speedup:.1f}x")
    own = inside_s / forward.seconds - 1
    print(f"   within one adapter run: {forward.seconds:.2f} s in the model's forward passes,")
    print(f"   {inside_s - forward.seconds:.2f} s in the adapter's own work: {own:+.1%}")
    print("   GPU: not measured (no GPU on this machine)")
    for row in rows:
        row["characters"] = characters
    rows.append(
        {
            "overhead": overhead,
            "overhead_within_one_run": own,
            "batch_speedup": speedup,
            "target_met": overhead <= TARGET,
        }
    )
    return rows

"""The bundled ``neural`` bake-off, and a bake-off row of a tiny local transformers model."""

from __future__ import annotations

from pathlib import Path

import pytest

from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config, parse_config
from cws_bench.segmenters import segmenter_names

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def test_bundled_neural_configuration():
    config = load_config("neural")
    assert [c.name for c in config.corpora] == [
        "sighan2005-pku",
        "sighan2005-msr",
        "sighan2005-cityu",
        "sighan2005-as",
        "ud-zh-gsdsimp",
        "ud-zh-gsd",
    ]
    names = set(segmenter_names())
    assert all(spec.name in names for spec in config.segmenters)
    assert {"transformers", "ltp", "hanlp", "stanza", "pkuseg"} <= {
        spec.name for spec in config.segmenters
    }
    assert [spec.label for spec in config.segmenters if not spec.optional] == ["jieba"]


def tiny_model(folder: Path, seed: int) -> Path:
    torch = pytest.importorskip("torch", reason="torch is not installed (make neural)")
    transformers = pytest.importorskip(
        "transformers", reason="transformers is not installed (make neural)"
    )
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", *"我们是中国人的一他说了"]
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        id2label={0: "B", 1: "I"},
        label2id={"B": 0, "I": 1},
    )
    torch.manual_seed(seed)
    transformers.BertForTokenClassification(config).save_pretrained(folder)
    transformers.BertTokenizer(vocab={t: i for i, t in enumerate(vocab)}).save_pretrained(folder)
    return folder


def test_a_local_model_in_a_bakeoff_records_model_device_and_signature(tmp_path):
    """Both runs on one worker process, which imports torch once: the second run's model,
    another in the same folder, must not be the first one the worker kept."""
    from cws_bench.run.executors import LocalExecutor

    first = tiny_model(tmp_path / "model", seed=0)
    executor = LocalExecutor(1, retries=0)

    def run(model: Path, out: str):
        config = parse_config(
            {
                "name": "tiny",
                "resamples": 50,
                "corpora": [{"name": "sample", "split": "test", "dictionary": str(SAMPLE_DICT)}],
                "segmenters": [
                    {"name": "transformers", "label": "tiny", "options": {"model": str(model)}}
                ],
            },
            source=str(tmp_path / "tiny.toml"),
        )
        return run_bakeoff(config, output_dir=tmp_path / out, executor=executor, write=False)

    with executor:
        result = run(first, "a")
        (pair,) = result.pairs
        assert pair.status == "ok", pair.error
        model = result.environment["models"]["tiny"]
        assert model["model"] == str(first.resolve()) and model["device"] == "cpu"
        assert model["dtype"] == "float32" and model["gpu"] is None
        assert pair.segmenter_info["model"] == model
        # The same folder, the same options, another model in it: another signature.
        tiny_model(tmp_path / "model", seed=1)
        other = run(first, "b").pairs[0]
    assert other.segmenter_info["options"] == pair.segmenter_info["options"]
    assert other.signature != pair.signature
    assert other.scores != pair.scores  # the other model's output, not the kept one's


def test_the_neural_rows_run_offline_on_models_built_here(tmp_path, hanlp_model, stanza_model):
    """The bundled rows of the neural adapters, each pointed at a local model, in one bake-off.

    What docs/NEURAL.md tells a user without a model hub to do: copy the
    bundled configuration and set each row's ``model`` (or ``dir``) to a folder.
    """
    import json
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    import test_ltp
    import torch
    from ltp_core.models.utils import instantiate

    ltp = tmp_path / "ltp"
    ltp.mkdir()
    vocabulary = test_ltp.SPECIAL + test_ltp.PIECES + test_ltp.CHARACTERS
    ltp_config = test_ltp._neural_config(len(vocabulary), crf=True)
    torch.manual_seed(0)
    torch.save(instantiate(ltp_config["model"]).state_dict(), ltp / "pytorch_model.bin")
    (ltp / "config.json").write_text(json.dumps(ltp_config), encoding="utf-8")
    (ltp / "vocab.txt").write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    (ltp / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "BertTokenizer"}), encoding="utf-8"
    )
    stanza_dir, stanza_file = stanza_model
    local = {
        "ckip-bert-ws": {"model": str(tiny_model(tmp_path / "bert", seed=0))},
        "ltp": {"model": str(ltp)},
        "hanlp": {"model": str(hanlp_model)},
        "stanza": {"dir": str(stanza_dir), "model_path": str(stanza_file)},
    }
    bundled = load_config("neural")
    rows = [
        {"name": s.name, "label": s.label, "track": s.track, "options": local[s.label]}
        for s in bundled.segmenters
        if s.label in local
    ]
    config = parse_config(
        {
            "name": "neural-offline",
            "resamples": 50,
            "corpora": [{"name": "sample", "split": "test", "dictionary": str(SAMPLE_DICT)}],
            "segmenters": rows,
        },
        source=str(tmp_path / "neural-offline.toml"),
    )
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1, write=False)
    assert sorted(p.segmenter for p in result.pairs) == sorted(local)
    for pair in result.pairs:
        assert pair.status == "ok", (pair.segmenter, pair.error)
        assert pair.segmenter_info["model"]["checksum"]

"""The bundled ``neural`` bake-off, and a bake-off row of a tiny local transformers model."""

from __future__ import annotations

from pathlib import Path

import pytest

from cws_bench.bakeoff import load_config, parse_config, run_bakeoff
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
    first = tiny_model(tmp_path / "model", seed=0)

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
        return run_bakeoff(config, output_dir=tmp_path / out, jobs=1, write=False)

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

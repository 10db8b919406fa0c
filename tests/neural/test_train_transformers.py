"""Tests of ``cws-bench train transformers`` (cws_bench/segmenters/tagger_training.py).

The models are tiny (one layer, width 32) and the corpora small (the bundled
40-sentence sample, or twenty hand-segmented sentences), so each training
takes seconds on a CPU. A model that has seen its training sentences many
times segments them as they were segmented: that shows the characters, the
labels and the decoding line up between the trainer and the adapter.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.sources import train_segmenter
from cws_bench.segmenters.tagger_training import labels_of, pieces_of, train_tagger

pytestmark = [
    pytest.mark.needs("torch", reason="torch is not installed (make neural)"),
    pytest.mark.needs("transformers", reason="transformers is not installed (make neural)"),
]

SENTENCES = [
    "我们 是 中国 人 。",
    "他 说 了 ， 我们 在 北京 大学 。",
    "北京 大学 的 学生 在 研究 生命 起源 。",
    "我们 研究 中国 的 大学 。",
    "他 是 学生 ， 我们 也 是 学生 。",
]
TINY = {"layers": 1, "hidden": 32, "device": "cpu", "progress": False}


@pytest.fixture(scope="module")
def memorised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model trained from scratch on SENTENCES until it knows them (no dev set)."""
    folder = tmp_path_factory.mktemp("tagger") / "model"
    sentences = [line.split() for line in SENTENCES] * 4
    train_tagger(sentences, folder, epochs=20, batch_size=4, lr=3e-3, dev=0, seed=1, **TINY)
    return folder


def test_a_model_trained_from_scratch_segments_what_it_learned(memorised):
    segmenter = get_segmenter("transformers", model=str(memorised), device="cpu")
    raw = ["".join(line.split()) for line in SENTENCES]
    assert segmenter.segment(raw) == [line.split() for line in SENTENCES]
    # Characters it never saw are the unknown token: still one position, still lossless.
    assert "".join(segmenter.segment(["他说😀Ａ好"])[0]) == "他说😀Ａ好"
    # The windows are the positions it was trained with (128 characters by default).
    assert segmenter.max_length == 128
    record = json.loads((memorised / "cws_bench.json").read_text(encoding="utf-8"))
    assert record["options"]["layers"] == 1 and record["stopped_by"] == "epochs"


def test_the_training_corpus_is_recorded_for_contamination_checks(tmp_path):
    segmenter = train_segmenter(
        "transformers", "sample", split="test", epochs=1, seed=1, dev=0.1, **TINY
    )
    data = segmenter.trained_on
    assert (data.corpus, data.split, data.sentences) == ("sample", "test", 40)
    assert data.overlaps("sample", "test")
    from cws_bench.corpora import get_corpus

    assert data.checksum == get_corpus("sample").checksum("test")
    segmenter.save(tmp_path / "model")
    # Loaded from its folder, the adapter reports the same training data.
    loaded = get_segmenter("transformers", model=str(tmp_path / "model"), device="cpu")
    assert loaded.trained_on == data
    assert loaded.metadata()["trained_on"]["corpus"] == "sample"


def test_early_stopping_keeps_the_best_dev_weights(tmp_path):
    record = train_tagger(
        [line.split() for line in SENTENCES] * 6,
        tmp_path / "model",
        epochs=60,
        eval_every=1,
        patience=2,
        dev=0.2,
        seed=3,
        **TINY,
    )
    scores = [e["dev_f1"] for e in record["evaluations"]]
    assert record["stopped_by"] == "patience" and record["steps"] < 60 * 1
    assert record["best_dev_f1"] == max(scores)
    # The last evaluations did not beat the best (that is why it stopped).
    assert max(scores[-2:]) <= max(scores[:-2])
    assert record["dev_sentences"] == 6 and record["training_sentences"] == 24


def test_fine_tuning_from_a_local_folder(memorised, tmp_path):
    record = train_tagger(
        [line.split() for line in SENTENCES],
        tmp_path / "tuned",
        init=str(memorised),
        epochs=1,
        dev=0,
        device="cpu",
        progress=False,
    )
    assert record["options"]["init"] == str(memorised)
    segmenter = get_segmenter("transformers", model=str(tmp_path / "tuned"), device="cpu")
    assert "".join(segmenter.segment(["我们是中国人。"])[0]) == "我们是中国人。"
    with pytest.raises(SegmenterError, match=r"init .*: not a model folder \(no config\.json"):
        train_tagger([["我们"]], tmp_path / "x", init=str(tmp_path), **TINY)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"layers": 0}, "layers must be a whole number of at least 1, not 0"),
        ({"hidden": 30, "heads": 4}, r"hidden \(30\) must be a multiple of heads \(4\)"),
        ({"dev": 1.5}, "dev must be a number at least 0 and less than 1, not 1.5"),
        ({"nope": 1}, "no training option 'nope'"),
        ({"device": "cuda:7"}, "device cuda:7"),
    ],
)
def test_bad_options(tmp_path, options, message):
    with pytest.raises(SegmenterError, match=message):
        train_tagger([["我们", "是"]], tmp_path / "model", **{**TINY, **options})


def test_the_cli_trains_a_folder_the_adapter_loads(tmp_path):
    from cws_bench.cli import cli

    corpus = tmp_path / "gold.txt"
    corpus.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    output = tmp_path / "model"
    args = ["train", "transformers", str(corpus), "-o", str(output)]
    for key, value in {**TINY, "epochs": 2, "seed": 1}.items():
        args += ["-O", f"{key}={str(value).lower()}"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "trained transformers on gold.txt (5 sentences" in result.output
    assert (output / "config.json").is_file() and (output / "cws_bench.json").is_file()
    again = CliRunner().invoke(cli, args)  # a model folder cws-bench wrote is replaced
    assert again.exit_code == 0, again.output
    # A folder holding something else is never replaced.
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    refused = CliRunner().invoke(cli, [*args[:3], "-o", str(other), *args[5:]])
    assert refused.exit_code == 2 and "holds something else than a model" in refused.output
    assert (other / "notes.txt").read_text(encoding="utf-8") == "mine"
    unknown = CliRunner().invoke(cli, [*args, "-O", "nope=1"])
    assert unknown.exit_code == 2 and "no training option 'nope'" in unknown.output


def test_labels_and_pieces():
    assert labels_of(["中国人", "是", "我们"]) == [0, 1, 2, 3, 0, 2]
    assert pieces_of(["我们", "是", "中国", "人"], 4) == [["我们", "是"], ["中国", "人"]]

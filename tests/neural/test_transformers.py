"""Tests of cws_bench/segmenters/transformers.py on a tiny random BERT built here.

The model is a randomly initialised ``BertForTokenClassification`` with a
character vocabulary, saved with ``save_pretrained`` into ``tmp_path`` and
loaded by the adapter through the same code a downloaded model goes through.
The oracle runs the model on one sentence (or one window) at a time, with no
padding, and decodes the argmax tags by hand.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter

# Imported by the tests that run, not at collection: every xdist worker collects this
# module, and importing torch and transformers takes seconds.
pytestmark = [
    pytest.mark.needs("torch", reason="torch is not installed (make neural)"),
    pytest.mark.needs("transformers", reason="transformers is not installed (make neural)"),
]

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    *"我们是中国人的一他说了在北京大学生活好，。",
]
MAX_POSITIONS = 12  # 10 characters per window after [CLS] and [SEP]


def build_model(folder: Path, labels: list[str], seed: int = 0) -> Path:
    """A tiny random BERT tagger with ``labels``, saved into ``folder``."""
    import torch
    import transformers

    tokenizer = transformers.BertTokenizer(vocab={t: i for i, t in enumerate(VOCAB)})
    config = transformers.BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=MAX_POSITIONS,
        id2label=dict(enumerate(labels)),
        label2id={label: i for i, label in enumerate(labels)},
    )
    torch.manual_seed(seed)
    model = transformers.BertForTokenClassification(config)
    # Sharper logits than the initialisation's, so that no argmax is a near tie.
    with torch.no_grad():
        model.classifier.weight.mul_(50)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def bmes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("bmes"), ["B", "M", "E", "S"], seed=3)


def argmax_tags(model, tokenizer, characters: str, roles: dict[str, str]) -> list[str]:
    """Tags of one unpadded sequence: [CLS] + one id per character + [SEP]."""
    import torch

    ids = [tokenizer.cls_token_id]
    for c in characters:
        ids.append(VOCAB.index(c) if c in VOCAB else tokenizer.unk_token_id)
    ids.append(tokenizer.sep_token_id)
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0]
    labels = [model.config.id2label[int(i)] for i in logits.argmax(-1)[1:-1]]
    return [roles[label] for label in labels]


def decode(characters: str, tags: list[str]) -> list[str]:
    words: list[str] = []
    for i, (c, tag) in enumerate(zip(characters, tags)):
        if i == 0 or tag in "BS" or tags[i - 1] in "ES":
            words.append(c)
        else:
            words[-1] += c
    return words


@functools.cache
def load(folder: Path):
    import transformers

    model = transformers.AutoModelForTokenClassification.from_pretrained(folder).eval()
    return model, transformers.AutoTokenizer.from_pretrained(folder)


def oracle(folder: Path, line: str, roles: dict[str, str]) -> list[str]:
    """The per-sentence decode; a line over 10 characters in the windows worked out below."""
    model, tokenizer = load(folder)
    characters = "".join(line.split())
    if len(characters) <= 10:
        return decode(characters, argmax_tags(model, tokenizer, characters, roles))
    # 25 characters, windows of 10 overlapping by 2 (max_length // 4): (0, 10), (8, 18),
    # (15, 25). Each character is tagged by the window where it is farthest from an
    # edge, the earlier window on a tie (16 is 1 from an edge in both the second and
    # the third): 0-8 by the first, 9-16 by the second, 17-24 by the third.
    assert len(characters) == 25
    first = argmax_tags(model, tokenizer, characters[0:10], roles)
    second = argmax_tags(model, tokenizer, characters[8:18], roles)
    third = argmax_tags(model, tokenizer, characters[15:25], roles)
    tags = first[0:9] + second[1:9] + third[2:10]
    return decode(characters, tags)


LINES = [
    "我们是中国人",
    "他说了",
    "",
    "在北京大学生活好",
    "他在北京大学生活，我们是中国人的一个好学生。他说了",  # 25 characters: three windows
    "我",
    "   ",
    "他说😀Ａ好x中",  # emoji, a full-width letter, Latin: outside the vocabulary
    "北京大学生",
]


@pytest.mark.parametrize("batch_size", [1, 2, 3, 4, 64])
def test_equals_per_sentence_argmax_decode(bmes, batch_size):
    roles = {"B": "B", "M": "M", "E": "E", "S": "S"}
    segmenter = get_segmenter("transformers", model=str(bmes), batch_size=batch_size)
    assert segmenter.max_length == 10 and segmenter.overlap == 2
    expected = [oracle(bmes, line, roles) if line.strip() else [] for line in LINES]
    assert segmenter.segment(LINES) == expected
    # Not a trivial model: it makes words of several characters and single ones.
    lengths = {len(w) for words in expected for w in words}
    assert 1 in lengths and max(lengths) > 1


def test_output_joins_back_and_never_spans_whitespace(bmes):
    segmenter = get_segmenter("transformers", model=str(bmes))
    line = "他说 Hello\tWorld　了 😀"
    words = segmenter.segment([line])[0]
    assert "".join(words) == "".join(line.split())
    # Every whitespace-separated token of the line is a union of whole words.
    position, cuts = 0, set()
    for word in words:
        position += len(word)
        cuts.add(position)
    position = 0
    for token in line.split():
        position += len(token)
        assert position in cuts


@pytest.mark.parametrize(
    ("labels", "roles"),
    [
        (["B", "I"], {"B": "B", "I": "M"}),
        (["B", "I", "E", "S"], {"B": "B", "I": "M", "E": "E", "S": "S"}),
        (
            ["B-WORD", "M-WORD", "E-WORD", "S-WORD"],
            {"B-WORD": "B", "M-WORD": "M", "E-WORD": "E", "S-WORD": "S"},
        ),
        (
            ["seg_s", "seg_b", "seg_e", "seg_m"],
            {"seg_s": "S", "seg_b": "B", "seg_e": "E", "seg_m": "M"},
        ),
    ],
)
def test_label_schemes_from_the_config(tmp_path, labels, roles):
    folder = build_model(tmp_path, labels, seed=1)
    segmenter = get_segmenter("transformers", model=str(folder), batch_size=4)
    lines = [line for line in LINES if line.strip()]
    assert segmenter.segment(lines) == [oracle(folder, line, roles) for line in lines]


def test_label_map_and_unreadable_labels(tmp_path):
    folder = build_model(tmp_path, ["LABEL_0", "LABEL_1"], seed=2)
    with pytest.raises(SegmenterError) as caught:
        get_segmenter("transformers", model=str(folder))
    message = str(caught.value)
    assert "'LABEL_0', 'LABEL_1'" in message and "label_map" in message
    segmenter = get_segmenter(
        "transformers", model=str(folder), label_map={"LABEL_0": "B", "LABEL_1": "I"}
    )
    lines = ["我们是中国人", "在北京大学生活好"]
    roles = {"LABEL_0": "B", "LABEL_1": "M"}
    assert segmenter.segment(lines) == [oracle(folder, line, roles) for line in lines]


def test_identity_in_metadata_and_signature(tmp_path, bmes):
    import torch

    segmenter = get_segmenter("transformers", model=str(bmes), device="cpu", dtype="float32")
    model = segmenter.metadata()["model"]
    assert model["model"] == str(bmes.resolve())
    assert model["device"] == "cpu" and model["dtype"] == "float32" and model["gpu"] is None
    assert model["versions"]["torch"] == torch.__version__
    other = build_model(tmp_path / "other", ["B", "M", "E", "S"], seed=5)
    changed = get_segmenter("transformers", model=str(other)).metadata()["model"]
    assert len(model["checksum"]) == 32 and changed["checksum"] != model["checksum"]


def test_bfloat16_runs(bmes):
    import torch

    segmenter = get_segmenter("transformers", model=str(bmes), dtype="bfloat16")
    words = segmenter.segment(["他在北京大学生活，我们是中国人的一个好学生。他说了"])[0]
    assert "".join(words) == "他在北京大学生活，我们是中国人的一个好学生。他说了"
    assert segmenter.model.dtype == torch.bfloat16


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"device": "cuda:3"}, "torch sees"),
        ({"device": "tpu"}, "unknown device"),
        ({"dtype": "float8"}, "dtype must be one of float32, float16, bfloat16, not .float8."),
        ({"batch_size": 0}, "batch_size"),
        ({"max_length": 11}, "outside 1..10"),
        ({"max_length": 4, "overlap": 4}, "overlap"),
    ],
)
def test_bad_options(bmes, options, message):
    with pytest.raises(SegmenterError, match=message):
        get_segmenter("transformers", model=str(bmes), **options)


def test_missing_model(tmp_path):
    with pytest.raises(SegmenterError, match="no such folder"):
        get_segmenter("transformers", model=str(tmp_path / "absent" / "model"))
    # A hub name that is not in the local cache, the hub not allowed (HF_HUB_OFFLINE=1).
    with pytest.raises(
        SegmenterError,
        match=r"(?s)'nobody/no-such-model' is not in the local Hugging Face cache.*"
        r"hf download nobody/no-such-model --local-dir FOLDER",
    ):
        get_segmenter("transformers", model="nobody/no-such-model")


def test_a_folder_without_a_model_is_one_message(tmp_path):
    # neural.load_pretrained, shared with llm's local model: the model as given, the
    # library's first line, and what a model folder holds
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(
        SegmenterError, match=re.escape(f"cannot load model {str(tmp_path)!r}: ")
    ) as caught:
        get_segmenter("transformers", model=str(tmp_path))
    assert "token-classification model (save_pretrained's layout" in str(caught.value.hint)


def test_segmenters_listing_shows_the_device():
    import torch
    from click.testing import CliRunner

    from cws_bench.cli import cli
    from cws_bench.segmenters import list_segmenters

    expected = "cuda:0" if torch.cuda.is_available() else "cpu"
    infos = {info.name: info for info in list_segmenters()}
    assert infos["transformers"].available and infos["transformers"].device == expected
    assert infos["jieba"].device is None  # not a neural adapter
    result = CliRunner().invoke(cli, ["segmenters"])
    row = next(line for line in result.output.splitlines() if line.startswith("transformers "))
    assert row.endswith(f"[device: {expected}]")

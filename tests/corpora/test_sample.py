"""Tests of the project's sample corpus and its dictionary (corpora/sample, dictionaries/)."""

from __future__ import annotations

from pathlib import Path

import jieba
import pytest

from cws_bench.corpora import get_corpus
from cws_bench.corpora.sample import SampleCorpus, project_file
from cws_bench.errors import CorpusUnavailableError
from cws_bench.text.dictionary import load_dictionary

ROOT = Path(__file__).resolve().parents[2]
# Words the dictionary adds that are not gold words of the sample: traps for
# maximum matching (和尚 in 和尚未, 市长 in 南京市长江大桥, ...).
ADDED = {
    "乒乓", "北京", "南京", "和尚", "天会", "将来", "市长", "江大桥", "球拍", "生命", "的确",
    "说明", "起来",
}  # fmt: skip


@pytest.fixture(scope="module")
def corpus():
    return get_corpus("sample")


def test_sizes_and_alignment(corpus):
    gold = list(corpus.sentences("test"))
    raw = list(corpus.raw("test"))
    assert (len(gold), sum(map(len, gold))) == (40, 414)
    assert ["".join(words) for words in gold] == raw
    assert corpus.prediction_path() == ROOT / "corpora" / "sample" / "pred.txt"


def test_dictionary_is_gold_types_minus_oov_plus_traps(corpus):
    dictionary = corpus.dictionary()
    gold_types = corpus.split_dictionary("test").words
    assert dictionary.words == load_dictionary(ROOT / "dictionaries" / "sample.txt").words
    left_out = gold_types - dictionary.words
    added = dictionary.words - gold_types
    assert len(left_out) == 33
    assert added == ADDED
    assert {"研究生", "百分之十", "高速公路"} <= left_out


def test_pred_is_jiebas_default_output(corpus):
    tokenizer = jieba.Tokenizer()
    expected = [
        " ".join(w for w in tokenizer.cut(line) if w.strip()) for line in corpus.raw("test")
    ]
    pred = corpus.prediction_path().read_text(encoding="utf-8").splitlines()
    assert pred == expected


def test_project_files_from_package_data(tmp_path, monkeypatch):
    # An installed wheel carries the files under cws_bench/_data/ (setup.py copies them);
    # simulate one by pointing the package resources at such a folder.
    data = tmp_path / "cws_bench"
    (data / "_data" / "sample").mkdir(parents=True)
    (data / "_data" / "sample" / "gold.txt").write_text("我们 是\n", encoding="utf-8")
    monkeypatch.setattr("cws_bench.corpora.sample.resources.files", lambda package: data)
    assert project_file("sample", "gold.txt") == data / "_data" / "sample" / "gold.txt"
    # files missing from the package fall back to the source tree
    assert project_file("sample", "raw.txt") == ROOT / "corpora" / "sample" / "raw.txt"


def test_missing_everywhere(tmp_path, monkeypatch):
    monkeypatch.setattr("cws_bench.corpora.sample.resources.files", lambda package: tmp_path)
    monkeypatch.setattr("cws_bench.corpora.sample._SOURCE_FOLDERS", {"sample": tmp_path})
    with pytest.raises(CorpusUnavailableError, match="missing from this installation"):
        project_file("sample", "gold.txt")
    assert not SampleCorpus().availability().available


def test_data_dir_copy(tmp_path):
    (tmp_path / "gold.txt").write_text("我们 是\n", encoding="utf-8")
    (tmp_path / "raw.txt").write_text("我们是\n", encoding="utf-8")
    corpus = SampleCorpus(str(tmp_path))  # get_corpus' data_dir is for external data only
    assert list(corpus.sentences("test")) == [["我们", "是"]]
    assert list(corpus.raw("test")) == ["我们是"]

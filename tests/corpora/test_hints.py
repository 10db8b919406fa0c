"""A corpus that is not here says how to get it in the caller's terms, never a flag in the API.

The library names the data folder as a fix (``data_dir=FOLDER``); each command
names it with its own flag (``--data-dir FOLDER``).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora import get_corpus
from cws_bench.errors import CorpusUnavailableError
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.problems import ConfigurationError


@pytest.fixture
def no_ctb(monkeypatch, tmp_path):
    """CTB6 (licensed by the LDC) is never downloadable: an empty folder has none of it."""
    for name in ("CWS_BENCH_CTB6", "CWS_BENCH_DATA"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_the_api_names_the_parameter(no_ctb):
    corpus = get_corpus("ctb6", data_dir=str(no_ctb))
    with pytest.raises(CorpusUnavailableError) as caught:
        corpus.check_split("test")
    assert "data_dir=FOLDER" in str(caught.value)
    assert "--data-dir" not in str(caught.value)
    assert "data_dir=FOLDER" in corpus.availability().how_to_get()
    assert "data_dir=FOLDER" in corpus.metadata()["how_to_get"]


def test_every_corpus_hint_names_no_flag(no_ctb):
    from cws_bench.corpora import corpus_names

    for name in corpus_names():
        hint = get_corpus(name).availability().how_to_get() or ""
        assert "--" not in hint.replace("--no-", ""), (name, hint)


@pytest.mark.parametrize(
    "args",
    [["corpora", "info", "ctb6"], ["corpora", "list"], ["score", "ctb6:test", "pred.txt"]],
)
def test_a_command_names_its_flag(no_ctb, args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pred.txt").write_text("一 二\n", encoding="utf-8")
    result = CliRunner().invoke(cli, args)
    assert "--data-dir FOLDER" in result.output
    assert "data_dir=FOLDER" not in result.output


def test_a_bakeoff_lists_the_problem_in_the_callers_terms(no_ctb, tmp_path):
    config = tmp_path / "b.toml"
    config.write_text(
        '[[corpora]]\nname = "ctb6"\n\n[[segmenters]]\nname = "fmm"\n', encoding="utf-8"
    )
    with pytest.raises(ConfigurationError) as caught:
        run_bakeoff(config, output_dir=tmp_path / "out")
    assert "data_dir=FOLDER" in str(caught.value)
    result = CliRunner().invoke(cli, ["bakeoff", str(config), "-o", str(tmp_path / "o2")])
    assert result.exit_code == 2, result.output
    assert "--data-dir FOLDER" in result.output
    assert "data_dir=FOLDER" not in result.output

"""Every name the user types is looked up with a "did you mean" for a near miss."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError

ROOT = Path(__file__).resolve().parent.parent
PRED = ROOT / "corpora" / "sample" / "pred.txt"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["scor"], "No such command 'scor'; did you mean score?"),
        (["segmentrs"], "No such command 'segmentrs'; did you mean segmenters"),
        (["corpora", "lst"], "No such command 'lst'; did you mean list?"),
        (["metrics", "rankng"], "No such command 'rankng'; did you mean ranking?"),
    ],
)
def test_a_mistyped_command_suggests_the_closest(args, expected):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert expected in result.output


def test_corpora_list_lists_the_corpora():
    listed = CliRunner().invoke(cli, ["corpora", "list"])
    bare = CliRunner().invoke(cli, ["corpora"])
    assert listed.exit_code == 0 and listed.output == bare.output
    assert "sample" in listed.output


def test_a_mistyped_corpus_name_as_gold_suggests_the_corpus_with_its_split():
    result = CliRunner().invoke(cli, ["score", "sighan-pku:test", str(PRED)])
    assert result.exit_code == 2
    assert "did you mean sighan2005-pku:test" in result.output


def test_a_mistyped_bundled_configuration_suggests_the_closest():
    from cws_bench.run.config import load_config

    with pytest.raises(CwsBenchError, match="did you mean neural"):
        load_config("neurl")


def test_the_registries_use_the_same_suggestion():
    from cws_bench.corpora import get_corpus
    from cws_bench.segmenters import get_segmenter

    with pytest.raises(CwsBenchError) as corpus:
        get_corpus("sampel")
    assert corpus.value.hint == "did you mean sample?"
    with pytest.raises(CwsBenchError) as segmenter:
        get_segmenter("fmm", keeprun=True)
    assert (segmenter.value.hint or "").startswith("did you mean keep_runs? its options are")


def test_a_misspelt_file_suggests_the_near_file_names(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from cws_bench.cli import cli
    from cws_bench.scoring import score_files

    (tmp_path / "gold.txt").write_text("我们 是\n", encoding="utf-8")
    (tmp_path / "jieba-out.txt").write_text("我们 是\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["score", "gold.txt", "jieba-ot.txt"])
    assert result.exit_code == 2
    assert "File 'jieba-ot.txt' does not exist. Did you mean jieba-out.txt?" in result.stderr
    result = CliRunner().invoke(cli, ["score", "gld.txt", "jieba-out.txt"])
    assert result.exit_code == 2 and "did you mean gold.txt?" in result.stderr
    with pytest.raises(CwsBenchError) as caught:
        score_files("gold.txt", "jieba_out.txt")
    assert caught.value.hint == "did you mean jieba-out.txt?"
    # nothing near: the plain hint
    result = CliRunner().invoke(cli, ["score", "gold.txt", "zzzzzz.csv"])
    assert result.exit_code == 2 and "Did you mean" not in result.stderr

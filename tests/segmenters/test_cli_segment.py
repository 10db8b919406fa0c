"""Tests of cws_bench/cli/segment.py: cws-bench segmenters, segment and train."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.cli.options import parse_option
from cws_bench.scoring import score_files
from cws_bench.segmenters import SEGMENTERS
from cws_bench.text.io import read_segmented

SCRIPT = Path(__file__).resolve().parent / "characters.py"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def test_every_command_has_help_with_an_example():
    for command in ("segmenters", "segment", "train"):
        result = run(command, "--help")
        assert result.exit_code == 0
        assert "Example:" in result.output


def test_segmenters_lists_every_builtin():
    result = run("segmenters")
    assert result.exit_code == 0
    header, *rows = result.output.splitlines()
    assert header.split()[:4] == ["name", "kind", "version", "available"]
    assert {row.split()[0] for row in rows} >= set(SEGMENTERS)
    data = json.loads(run("segmenters", "--format", "json").output)
    pkuseg = next(item for item in data if item["name"] == "pkuseg")
    assert (
        pkuseg["install"] == "pip install numpy Cython && pip install --no-build-isolation pkuseg"
    )


def test_segment_stdin_to_stdout_with_a_dictionary(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("结婚\n和尚\n尚未\n南京市\n长江\n大桥\n", encoding="utf-8")
    result = run(
        "segment",
        "-s",
        "bimm",
        "--lexicon",
        str(words),
        "-",
        input="结婚的和尚未结婚的\n\n南京市长江大桥\n",
    )
    assert result.exit_code == 0, result.output
    assert result.output == "结婚 的 和 尚未 结婚 的\n\n南京市 长江 大桥\n"


def test_segment_file_with_separator_and_options(tmp_path):
    source = tmp_path / "raw.txt"
    source.write_text("2000年GDP增长\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    result = run(
        "segment",
        "-s",
        "fmm",
        "-O",
        'words=["年", "增长"]',
        "-O",
        "keep_runs=false",
        "--separator",
        "\\t",
        str(source),
        "-o",
        str(out),
        "--timing",
    )
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == "2\t0\t0\t0\t年\tG\tD\tP\t增长\n"
    assert "fmm 0.1.0: loaded in" in result.output and "characters/s" in result.output


def test_segment_with_an_external_command(tmp_path):
    source = tmp_path / "raw.txt"
    source.write_text("我们\n", encoding="utf-8")
    command = f"{sys.executable} {SCRIPT}"
    result = run("segment", "-s", "command", "-O", f"command={command}", str(source))
    assert result.exit_code == 0, result.output
    assert result.output == "我 们\n"
    crash = run("segment", "-s", "command", "-O", f"command={command} --crash", str(source))
    assert crash.exit_code == 2
    assert "exited with code 3" in crash.output and "Traceback (most recent" in crash.output
    assert crash.output.startswith("error: segmenter command:")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-s", "nope"], "unknown; known segmenters"),
        (["-s", "fmm"], "has no dictionary"),
        (["-s", "hmm"], "is not trained"),
        (["-s", "jieba", "--model", "__FILE__"], "no option 'model'"),
        (["-s", "fmm", "--dict", "missing.txt"], "missing.txt: no such file"),
        (["-s", "fmm", "-O", "words"], "expected KEY=VALUE"),
    ],
)
def test_segment_errors_exit_2_with_one_message(tmp_path, args, message):
    source = tmp_path / "raw.txt"
    source.write_text("我们\n", encoding="utf-8")
    args = [str(source) if a == "__FILE__" else a for a in args]
    result = run("segment", *args, str(source))
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_bad_output_line_names_the_input_line(tmp_path):
    source = tmp_path / "raw.txt"
    source.write_text("我们\n１９９８年\n", encoding="utf-8")
    command = f"{sys.executable} {SCRIPT} --normalize"
    result = run("segment", "-s", "command", "-O", f"command={command}", str(source))
    assert result.exit_code == 2
    assert f"{source}:2:" in result.output


def test_train_then_segment_with_the_model(tmp_path, icwb2):
    model = tmp_path / "sample.hmm.json"
    result = run("train", "hmm", "sample", "--split", "test", "-o", str(model), "-O", "alpha=0.5")
    assert result.exit_code == 0, result.output
    assert "trained hmm on sample:test" in result.output
    assert json.loads(model.read_text(encoding="utf-8"))["alpha"] == 0.5
    out = tmp_path / "out.txt"
    raw = icwb2 / "testing" / "pku_test.utf8"
    result = run("segment", "-s", "hmm", "--model", str(model), str(raw), "-o", str(out))
    assert result.exit_code == 0, result.output
    lines = list(read_segmented(out))
    assert len(lines) == 1945
    score = score_files(icwb2 / "gold" / "pku_test_gold.utf8", out)
    assert score.counts.mismatched_lines == 0 and score.f1 > 0.5


def test_train_a_word_list_from_a_file(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("结婚 的 和 尚未\n", encoding="utf-8")
    words = tmp_path / "words.txt"
    result = run("train", "fmm", str(gold), "-o", str(words))
    assert result.exit_code == 0, result.output
    assert words.read_text(encoding="utf-8").split() == sorted(["结婚", "的", "和", "尚未"])


def test_train_errors(tmp_path):
    result = run("train", "jieba", "sample", "-o", str(tmp_path / "m"))
    assert result.exit_code == 2 and "cannot be trained" in result.output
    result = run("train", "hmm", "no-such-corpus", "-o", str(tmp_path / "m"))
    assert result.exit_code == 2 and "neither a registered corpus nor a file" in result.output


def test_parse_option():
    assert parse_option("max-word-length=4") == ("max_word_length", 4)
    assert parse_option('command=sh -c "x"') == ("command", 'sh -c "x"')

"""Library hints in API terms, the command line's in its flags."""

from __future__ import annotations

import pickle
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.cli.options import cli_terms, record_command, rename_flags
from cws_bench.errors import CwsBenchError, Fix, LineCountMismatchError
from cws_bench.scoring import score_files
from cws_bench.segmenters import get_segmenter

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "corpora" / "sample" / "gold.txt"


def test_a_fix_in_api_terms():
    assert Fix("encoding", "gb18030").api() == 'encoding="gb18030"'
    assert Fix("allow_line_mismatch", True).api() == "allow_line_mismatch=True"
    assert Fix("resamples", 100).api() == "resamples=100"
    assert Fix("model", metavar="MODEL").api() == "model=MODEL"
    assert Fix("dictionary").api() == "dictionary=..."


def test_the_hint_names_each_fix_in_the_readers_terms():
    error = CwsBenchError(
        "bad", "pass {0}, or {1} with {0}", fixes=(Fix("encoding", "big5"), Fix("strict", True))
    )
    assert error.hint == 'pass encoding="big5", or strict=True with encoding="big5"'
    assert str(error) == f"bad\n  hint: {error.hint}"
    shout = error.describe(lambda fix: fix.parameter.upper())
    assert shout == "bad\n  hint: pass ENCODING, or STRICT with ENCODING"
    error.hint = "a plain hint {0}"  # set by hand: no fix any more
    assert (error.fixes, str(error)) == ((), "bad\n  hint: a plain hint {0}")
    copy = pickle.loads(pickle.dumps(CwsBenchError("m", "use {0}", fixes=(Fix("seed", 1),))))
    assert str(copy) == "m\n  hint: use seed=1"


def test_library_errors_name_api_parameters(tmp_path):
    two, one = tmp_path / "two.txt", tmp_path / "one.txt"
    two.write_text("a\nb\n", encoding="utf-8")
    one.write_text("a\n", encoding="utf-8")
    with pytest.raises(LineCountMismatchError) as caught:
        score_files(two, one)
    assert "pass allow_line_mismatch=True to score anyway" in str(caught.value)
    assert 'with method="sighan" only' in str(caught.value)
    assert "--" not in str(caught.value.hint)
    with pytest.raises(CwsBenchError) as caught:
        get_segmenter("fmm").segment(["南京"])
    assert caught.value.hint == "pass lexicon=FILE (one word a line) or corpus=NAME_OR_FILE"


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["segment", "-s", "fmm", "-"], "pass --lexicon FILE (one word a line) or --corpus "),
        (
            ["segment", "-s", "hmm", "-"],
            "and pass --model MODEL, or pass --corpus NAME_OR_FILE",
        ),
        (
            ["baseline", "save", "-s", "fmm", "--corpus", "sample", "-o", "{tmp}/b.json"],
            "pass --lexicon FILE (one word a line) or -O corpus=NAME_OR_FILE",
        ),
        (["score", str(GOLD), "{tmp}/one.txt"], "pass --allow-line-mismatch to score anyway"),
        (["score", str(GOLD), "{tmp}/gb.txt"], "looks like gb18030: pass --pred-encoding gb18030"),
    ],
)
def test_the_cli_names_the_same_fixes_with_its_flags(tmp_path, args, hint):
    (tmp_path / "one.txt").write_text("一\n", encoding="utf-8")
    (tmp_path / "gb.txt").write_bytes("第一行的文字\n".encode("gb18030") * 40)
    words = [word.format(tmp=tmp_path) for word in args]
    result = CliRunner().invoke(cli, words, input="南京\n")
    assert result.exit_code == 2, result.output
    assert hint in result.stderr
    assert "=FILE" not in result.stderr and "=True" not in result.stderr


def test_a_renamed_flag_needs_no_library_change():
    """cli_terms reads the running command's options: the flag, whatever it is called."""

    @click.command()
    @click.option("--enc", "encoding")
    @click.option("--loose", "allow_line_mismatch", is_flag=True)
    @click.option("-O", "--option", multiple=True)
    def command(**_: object) -> None:
        ctx = click.get_current_context()
        record_command(ctx, ctx.command)
        rename_flags({"segmenter.dictionary": "--enc"})
        terms = cli_terms(ctx)
        click.echo(terms(Fix("encoding", "gb18030")))
        click.echo(terms(Fix("allow_line_mismatch", True)))
        click.echo(terms(Fix("dictionary", metavar="FILE", segmenter=True)))
        click.echo(terms(Fix("corpus", "pku", segmenter=True)))
        click.echo(terms(Fix("seed", 3)))  # no flag: the API's name

    result = CliRunner().invoke(command, [])
    assert result.output.splitlines() == [
        "--enc gb18030",
        "--loose",
        "--enc FILE",
        "-O corpus=pku",
        "seed=3",
    ]


def test_score_files_names_the_encoding_parameter_of_the_file_at_fault(tmp_path):
    gb = tmp_path / "gb.txt"
    gb.write_bytes("第一行 的 文字\n".encode("gb18030") * 40)
    utf8 = tmp_path / "utf8.txt"
    utf8.write_text("第一行 的 文字\n", encoding="utf-8")
    cases = [
        ((gb, utf8), {}, "encoding"),
        ((utf8, gb), {}, "pred_encoding"),
        ((utf8, utf8), {"dictionary": gb}, "dictionary_encoding"),
    ]
    for (gold, pred), kwargs, parameter in cases:
        with pytest.raises(CwsBenchError) as caught:
            score_files(gold, pred, **kwargs)
        assert caught.value.fixes[0].parameter == parameter
        assert f'{parameter}="gb18030"' in str(caught.value.hint)


def test_executor_settings_hints_name_parameters_in_the_library_and_flags_on_the_command_line(
    tmp_path,
):
    from cws_bench.run.executors import ExecutorSettings, make_executor

    with pytest.raises(CwsBenchError) as caught:
        make_executor(ExecutorSettings(executor="local", scheduler="tcp://127.0.0.1:9"))
    assert caught.value.hint == 'use it with executor="dask"'
    raw = tmp_path / "raw.txt"
    raw.write_text("南京市长江大桥\n", encoding="utf-8")
    args = ["segment", "-s", "fmm", str(raw), "--executor", "local", "--scheduler", "tcp://x:1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert "hint: use it with --executor dask" in result.output

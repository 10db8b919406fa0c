"""Hints the command line gives must name options and commands that exist."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_a_gb18030_prediction_is_told_to_pass_pred_encoding(tmp_path):
    pred = tmp_path / "pred.txt"
    pred.write_bytes((SAMPLE / "pred.txt").read_text("utf-8").encode("gb18030"))
    result = invoke("score", str(SAMPLE / "gold.txt"), str(pred))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{pred}:1: byte offset 0: not valid utf-8" in result.stderr
    assert "pass --pred-encoding gb18030" in result.stderr
    assert "pass --encoding" not in result.stderr
    # ... and the hint works as given
    fixed = invoke("score", str(SAMPLE / "gold.txt"), str(pred), "--pred-encoding", "gb18030")
    assert fixed.exit_code == 0, fixed.output
    utf8 = invoke("score", str(SAMPLE / "gold.txt"), str(SAMPLE / "pred.txt"))
    assert fixed.stdout.splitlines()[1:] == utf8.stdout.splitlines()[1:]  # same scores


def test_a_gb18030_gold_is_told_to_pass_encoding(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_bytes((SAMPLE / "gold.txt").read_text("utf-8").encode("gb18030"))
    result = invoke("score", str(gold), str(SAMPLE / "pred.txt"))
    assert result.exit_code == 2
    assert "pass --encoding gb18030" in result.stderr
    fixed = invoke(
        "score", str(gold), str(SAMPLE / "pred.txt"), "--encoding", "gb18030",
        "--pred-encoding", "utf-8",
    )  # fmt: skip
    assert fixed.exit_code == 0, fixed.output


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_help_texts_name_only_commands_that_exist():
    """`train --help` named `cws-bench corpora list`, which does not exist."""
    commands = dict(_commands(cli))
    named = 0
    for path in commands:
        text = invoke(*path, "--help").output
        # `cws-bench ...` in the prose, and the example lines that start with cws-bench
        # (a mention the help wraps over two lines is read as one line)
        mentions = [" ".join(m.split()) for m in re.findall(r"`cws-bench ([^`]*)`", text)]
        mentions += re.findall(r"^\s+cws-bench (.*)$", text, flags=re.MULTILINE)
        for mention in mentions:
            words = " ".join(re.findall(r"^(?:[a-z][a-z-]*(?: |$))+", mention + " ")[0].split())
            parts = tuple(words.split())
            # the longest prefix that is a command must be followed by no sub-command word
            known = max(
                (parts[:n] for n in range(1, len(parts) + 1) if parts[:n] in commands),
                key=len,
                default=None,
            )
            assert known is not None, (path, words)
            rest = parts[len(known) :]
            if rest and isinstance(commands[known], click.Group):
                pytest.fail(f"`{' '.join(path)} --help` names a sub-command that does not exist: "
                            f"cws-bench {words}")  # fmt: skip
            named += 1
    assert named > 10


@pytest.mark.parametrize("command", ["segment", "train"])
def test_segment_and_train_take_the_data_dir_their_hints_name(command, tmp_path):
    args = {
        "segment": ["segment", "-s", "hmm", "--corpus", "sighan2005-msr", str(SAMPLE / "raw.txt")],
        "train": ["train", "hmm", "sighan2005-msr", "-o", str(tmp_path / "m.json")],
    }[command]
    empty = tmp_path / "nothing"
    empty.mkdir()
    result = invoke(*args, "--data-dir", str(empty))
    assert "No such option" not in result.output
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "--data-dir" in result.stderr  # the hint names an option the command has


def test_train_reads_a_corpus_from_the_data_dir(icwb2, tmp_path):
    model = tmp_path / "pku.hmm.json"
    result = invoke(
        "train", "hmm", "sighan2005-pku", "--split", "test", "--data-dir", str(icwb2),
        "-o", str(model),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    segmented = invoke(
        "segment", "-s", "hmm", "--corpus", "sighan2005-pku", "--split", "test",
        "--data-dir", str(icwb2), str(SAMPLE / "raw.txt"),
    )  # fmt: skip
    assert segmented.exit_code == 0, segmented.output
    from_model = invoke("segment", "-s", "hmm", "--model", str(model), str(SAMPLE / "raw.txt"))
    assert segmented.stdout == from_model.stdout and segmented.stdout.count("\n") == 40

"""Tests of the command line as a whole, and of ``cws-bench score``."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cws_bench import score_files
from cws_bench.cli import COMMANDS, cli

GOLD = "结婚 的 和 尚未 结婚 的 都 应该 好好 考虑 一下 人生 大事\n"
PRED = "结婚 的 和尚 未结婚 的 都 应该 好好考虑 一下 人生大事\n"
WORDS = "结婚\n尚未\n的\n和\n青年\n都\n应该\n好好考虑\n自己\n人生\n大事\n"


def invoke(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def all_commands(group: click.Group, ctx: click.Context, prefix=()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from all_commands(command, ctx, (*prefix, name))


def test_every_command_has_help_with_an_example():
    ctx = click.Context(cli)
    seen = list(all_commands(cli, ctx))
    assert {path[0] for path, _ in seen} == set(COMMANDS)
    for path, command in seen:
        result = invoke(*path, "--help")
        assert result.exit_code == 0, path
        if not isinstance(command, click.Group):
            assert "Example:" in (command.help or ""), f"{' '.join(path)} has no Example"


def test_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(cli, ["nope"])
    assert result.exit_code == 2


@pytest.fixture
def files(write):
    return write("gold.txt", GOLD), write("pred.txt", PRED), write("words.txt", WORDS)


def test_score_text(files):
    gold, pred, words = files
    result = invoke("score", gold, pred, "--dict", words)
    assert result.exit_code == 0
    out = result.output
    for label, value in [
        ("precision", "60.00"),
        ("recall", "46.15"),
        ("F1", "52.17"),
        ("OOV recall", "33.33"),
        ("IV recall", "50.00"),
    ]:
        assert any(line.split()[-1:] == [value] and label in line for line in out.splitlines())
    assert "signature: cws-bench:" in out


def test_score_json_matches_the_python_api(files):
    gold, pred, words = files
    data = json.loads(invoke("score", gold, pred, "--dict", words, "--format", "json").output)
    api = score_files(gold, pred, dictionary=words).to_dict()
    assert {k: data[k] for k in api} == api
    for key in (
        "precision",
        "recall",
        "f1",
        "gold_words",
        "pred_words",
        "correct_words",
        "oov_rate",
        "oov_recall",
        "iv_recall",
        "boundary_f1",
        "mismatched_lines",
    ):
        assert key in data


def test_score_csv(files):
    gold, pred, _ = files
    rows = list(csv.DictReader(io.StringIO(invoke("score", gold, pred, "--format", "csv").output)))
    assert len(rows) == 1
    assert float(rows[0]["f1"]) == pytest.approx(0.5217391304347826)
    assert rows[0]["oov_recall"] == ""  # absent without a dictionary


def test_score_reads_prediction_from_stdin(files):
    gold, _, _ = files
    result = invoke("score", gold, "-", "--format", "json", input=PRED)
    assert json.loads(result.output)["correct_words"] == 6


def test_score_details(files, tmp_path):
    gold, pred, _ = files
    details = tmp_path / "details.csv"
    assert invoke("score", gold, pred, "--details", details).exit_code == 0
    rows = list(csv.DictReader(details.open(encoding="utf-8")))
    assert rows == [
        {
            "line": "1",
            "gold_words": "13",
            "pred_words": "10",
            "correct_words": "6",
            "precision": "0.600000",
            "recall": "0.461538",
            "f1": "0.521739",
            "mismatched": "0",
            "skipped": "0",
        }
    ]


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        ("missing", [], "does not exist"),
        ("gb", [], "not valid utf-8"),
        ("lines", [], "has 2 lines"),
        ("differs", ["--strict"], "different characters"),
        ("empty_dict", ["--dict", "EMPTY"], "holds no word"),
    ],
)
def test_user_errors_exit_2_with_one_message(write, tmp_path, setup, args, message):
    gold = write("gold.txt", "我们 是\n学生\n")
    pred = {
        "missing": lambda: tmp_path / "missing.txt",
        "gb": lambda: write("pred.txt", "我们 是\n学生\n", "gb18030"),
        "lines": lambda: write("pred.txt", "我们 是\n学生\n多\n"),
        "differs": lambda: write("pred.txt", "我们 事\n学生\n"),
        "empty_dict": lambda: write("pred.txt", "我们 是\n学生\n"),
    }[setup]()
    args = [str(write("empty.txt", "\n \n")) if a == "EMPTY" else a for a in args]
    result = CliRunner().invoke(cli, ["score", str(gold), str(pred), *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_format_sighan_with_method_interval_is_a_usage_error(files):
    gold, pred, _ = files
    result = CliRunner().invoke(
        cli, ["score", str(gold), str(pred), "--format", "sighan", "--method", "interval"]
    )
    assert result.exit_code == 2
    assert "hint: use --method sighan" in result.output


def test_console_script_error_goes_to_stderr(write, tmp_path):
    gold = write("gold.txt", "我们\n")
    pred = write("pred.txt", "我们\n多\n")
    proc = subprocess.run(
        [sys.executable, "-c", "from cws_bench.cli import main; main()", "score", gold, pred],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: ")
    assert "has 1 line but" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 2  # the message and its hint


def test_warnings_go_to_stderr_not_into_json(write):
    gold = write("gold.txt", "我们 是\n")
    pred = write("pred.txt", "我们 事\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cws_bench.cli import main; main()",
            "score",
            gold,
            pred,
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["mismatched_lines"] == 1
    assert data["mismatch_examples"] == [{"line": 1, "gold": "我们 是", "pred": "我们 事"}]
    assert "warning: 1 line holds different characters" in proc.stderr


# ---------------------------------------------------------------------------
# Files and folders that cannot be read or written: one message, exit 2


SAMPLE_DICT = str(Path(__file__).resolve().parent.parent / "dictionaries" / "sample.txt")


def _output_commands(tmp_path: Path, write) -> dict[str, list[str]]:
    """Each command that writes a file or folder, with OUT where the output goes."""
    gold = str(write("gold.txt", "我们 是\n学生\n"))
    raw = str(write("raw.txt", "我们是\n学生\n"))
    config = write(
        "bakeoff.toml",
        f'[[corpora]]\ngold = "{gold}"\n[[segmenters]]\nname = "fmm"\n'
        f'options = {{ lexicon = "{SAMPLE_DICT}" }}\n',
    )
    baseline = tmp_path / "baseline.json"
    fmm = ["-s", "fmm", "-O", f"lexicon={SAMPLE_DICT}"]
    saved = invoke("baseline", "save", *fmm, "--corpus", gold, "-o", baseline, "--speed-runs", 1)
    assert saved.exit_code == 0, saved.output
    return {
        "bakeoff": ["bakeoff", str(config), "-o", "OUT", "--quiet", "--jobs", "1"],
        "segment": ["segment", *fmm, raw, "-o", "OUT"],
        "diff": ["diff", gold, gold, "-o", "OUT"],
        "corpora export": ["corpora", "export", "sample", "--as", "raw", "-o", "OUT"],
        "baseline save": ["baseline", "save", *fmm, "--corpus", gold, "-o", "OUT"],
        "check -o": ["check", "--baseline", str(baseline), "--format", "junit", "-o", "OUT"],
    }


COMMANDS_WITH_OUTPUT = ["bakeoff", "segment", "diff", "corpora export", "baseline save", "check -o"]


@pytest.mark.parametrize("command", COMMANDS_WITH_OUTPUT)
def test_an_output_below_a_file_exits_2_with_one_message(command, tmp_path, write):
    args = _output_commands(tmp_path, write)[command]
    blocker = write("a-file", "")
    out = str(blocker / "sub" / "out.txt")
    result = CliRunner().invoke(cli, [out if a == "OUT" else a for a in args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert str(blocker) in result.output


@pytest.mark.parametrize("command", COMMANDS_WITH_OUTPUT)
def test_an_output_folder_without_permission_exits_2(command, tmp_path, write, monkeypatch):
    import os
    import tempfile

    args = _output_commands(tmp_path, write)[command]
    locked = tmp_path / "locked"
    locked.mkdir()
    out = str(locked / "out.txt")
    real_mkstemp, real_makedirs = tempfile.mkstemp, os.makedirs

    # The tests may run as root, who can write anywhere: refuse writes under `locked` as a
    # folder without write permission would.
    def mkstemp(*a, dir=None, **k):
        if dir is not None and str(locked) in os.fspath(dir):
            raise PermissionError(13, "Permission denied", os.path.join(dir, "tmpXYZ"))
        return real_mkstemp(*a, dir=dir, **k)

    def makedirs(name, *a, **k):
        if str(locked) in os.fspath(name):
            raise PermissionError(13, "Permission denied", os.fspath(name))
        return real_makedirs(name, *a, **k)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(os, "makedirs", makedirs)
    result = CliRunner().invoke(cli, [out if a == "OUT" else a for a in args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "Permission denied" in result.output and str(locked) in result.output


def test_a_gold_file_that_cannot_be_read_exits_2(write):
    pred = write("pred.txt", "我们\n")
    result = CliRunner().invoke(cli, ["score", "/proc/self/mem", str(pred)])
    assert result.exit_code == 2
    assert result.output.startswith("error: /proc/self/mem: cannot be read")
    assert "Traceback" not in result.output


def test_an_unbalanced_quote_in_a_command_option_exits_2(write):
    raw = write("raw.txt", "我们\n")
    result = CliRunner().invoke(cli, ["segment", "-s", "command", "-O", "command=seg '", str(raw)])
    assert result.exit_code == 2
    assert "cannot be split into arguments: No closing quotation" in result.output
    assert "Traceback" not in result.output


# ---------------------------------------------------------------------------
# Fidelity details


def test_dict_is_read_in_the_gold_encoding_and_hints_name_the_file(write):
    # GB18030 gold, prediction and word list: --encoding gb18030 used to read
    # the word list as UTF-8 and exit 2 with "pass --encoding gb18030".
    gold = write("gold.gb", "我们 的 新 世纪\n", "gb18030")
    words = write("words.gb", "的\n新\n", "gb18030")
    result = invoke("score", gold, gold, "--encoding", "gb18030", "--dict", words,
                    "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["oov_rate"] == 0.5
    utf8_words = write("words.txt", "的\n新\n")  # "的" in UTF-8 is not valid GB18030
    result = CliRunner().invoke(
        cli, ["score", str(gold), str(gold), "--encoding", "gb18030", "--dict", str(utf8_words)]
    )
    assert result.exit_code == 2
    assert f"hint: {utf8_words} looks like utf-8: pass --dict-encoding utf-8" in result.output
    result = invoke("score", gold, gold, "--encoding", "gb18030", "--dict", utf8_words,
                    "--dict-encoding", "utf-8", "--format", "json")  # fmt: skip
    assert json.loads(result.stdout)["oov_rate"] == 0.5
    # A prediction in another encoding: the hint names it and --pred-encoding.
    pred = write("pred.txt", "我们 的 新 世纪\n")
    result = CliRunner().invoke(cli, ["score", str(gold), str(pred), "--encoding", "gb18030"])
    assert result.exit_code == 2
    assert f"hint: {pred} looks like utf-8: pass --pred-encoding utf-8" in result.output


def test_undefined_oov_recall_prints_as_in_the_script(write):
    gold = write("gold.txt", "我们 是\n")
    words = write("words.txt", "我们\n是\n")
    text = invoke("score", gold, gold, "--dict", words).stdout
    assert "OOV recall" in text
    assert [line.split()[-1] for line in text.splitlines() if "OOV recall" in line] == ["--"]
    assert (
        json.loads(invoke("score", gold, gold, "--dict", words, "--format", "json").stdout)[
            "oov_recall"
        ]
        is None
    )
    block = invoke("score", gold, gold, "--dict", words, "--format", "sighan").stdout
    assert "=== OOV Recall Rate:\t--" in block.splitlines()


def test_a_conllu_gold_is_read_as_conllu_or_refused_as_plain(write):
    # Read line by line, a CoNLL-U gold gave "different line counts", and the
    # hint --allow-line-mismatch led to F1 2.40% for a perfect prediction.
    gold = write(
        "gold.txt",
        "# text = 我们是\n1\t我们\t_\t_\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
        "2\t是\t_\t_\t_\t_\t1\tdep\t_\t_\n\n",
    )
    pred = write("pred.txt", "我们 是\n")
    for extra in ((), ("--gold-format", "conllu")):
        result = invoke("score", gold, pred, "--format", "json", *extra)
        assert json.loads(result.stdout)["f1"] == 1.0
    for extra in ((), ("--allow-line-mismatch",)):
        result = CliRunner().invoke(
            cli, ["score", str(gold), str(pred), "--gold-format", "plain", *extra]
        )
        assert result.exit_code == 2
        assert "looks like CoNLL-U" in result.output
        assert "--gold-format conllu" in result.output
        assert "--allow-line-mismatch" not in result.output


def test_a_registered_corpus_as_gold_with_its_standard_dictionary(write):
    from cws_bench.corpora import get_corpus

    corpus = get_corpus("sample")
    pred = write("pred.txt", "".join(" ".join(w) + "\n" for w in corpus.sentences("test")))
    data = json.loads(invoke("score", "sample:test", pred, "--format", "json").stdout)
    expected = score_files("sample", pred, dictionary=corpus.dictionary()).to_dict()
    assert data == {**expected, "mismatch_examples": [], "warnings": []}
    assert data["oov_rate"] is not None  # the standard dictionary, by default
    words = write("words.txt", "今天\n")
    data = json.loads(invoke("score", "sample", pred, "--dict", words, "--format", "json").stdout)
    assert data["oov_rate"] > 0.9
    result = CliRunner().invoke(cli, ["score", "no-such-corpus", str(pred)])
    assert result.exit_code == 2
    assert "no such file, nor a registered corpus" in result.output

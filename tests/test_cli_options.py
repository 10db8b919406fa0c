"""One meaning per flag across commands, the shared option decorators."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.defaults import DEFAULT_BATCH_SIZE
from cws_bench.metrics.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_GOLD = ROOT / "corpora" / "sample" / "gold.txt"
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def commands() -> list[tuple[str, click.Command]]:
    """Every command and subcommand, by its full name."""
    found = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(click.Context(command)):
                walk(command.get_command(click.Context(command), name), [*path, name])
        else:
            found.append((" ".join(path), command))

    walk(cli, [])
    return found


def visible(command: click.Command, flag: str) -> click.Option | None:
    for param in command.params:
        if isinstance(param, click.Option) and flag in param.opts and not param.hidden:
            return param
    return None


def test_the_command_list_is_whole():
    names = [name for name, _ in commands()]
    assert {"score", "diff", "segment", "train", "baseline save", "corpora info"} <= set(names)


@pytest.mark.parametrize(("name", "command"), commands(), ids=lambda x: str(x))
def test_each_flag_has_one_meaning(name, command):
    option = visible(command, "--dict")
    if option is not None:  # the OOV dictionary, the `dictionary` parameter of scoring
        assert option.name == "dictionary"
        assert "OOV" in (option.help or ""), name
    option = visible(command, "--lexicon")
    if option is not None:  # the segmenter's word list
        assert "not the OOV dictionary" in (option.help or "")
    option = visible(command, "--format")
    if option is not None:  # always the output format
        assert option.name == "fmt", name
        assert "auto" not in option.type.choices, name  # type: ignore[attr-defined]
    option = visible(command, "--input-format")
    if option is not None:
        assert option.default == "auto"
    option = visible(command, "-o")
    if option is not None:
        assert option.opts == ["-o", "--output"]
    option = visible(command, "--seed")
    if option is not None:
        assert option.default == DEFAULT_SEED, name
    option = visible(command, "--resamples")
    if option is not None:
        assert option.default == DEFAULT_RESAMPLES, name
    option = visible(command, "--batch-size")
    if option is not None:
        assert option.default == DEFAULT_BATCH_SIZE, name
    option = visible(command, "--quiet")
    if option is not None:
        assert option.is_flag
    option = visible(command, "--normalize")
    if option is not None:
        assert option.default == "none", name


@pytest.mark.parametrize(
    "name", ["score", "diff", "segment", "train", "baseline save", "corpora info", "bakeoff"]
)
def test_data_dir_is_on_every_command_that_reads_corpora(name):
    command = dict(commands())[name]
    assert visible(command, "--data-dir") is not None


@pytest.mark.parametrize(
    "name", ["score", "diff", "segment", "train", "check", "report", "corpora export"]
)
def test_output_is_on_every_command_that_writes_a_file(name):
    assert visible(dict(commands())[name], "-o") is not None


@pytest.mark.parametrize("name", ["score", "diff"])
def test_normalize_is_on_every_command_that_compares_text(name):
    assert visible(dict(commands())[name], "--normalize") is not None


def test_report_takes_markdown_as_every_other_format_option_does(tmp_path):
    from cws_bench.reports import REPORT_FORMATS

    assert REPORT_FORMATS["markdown"] is REPORT_FORMATS["md"]
    report = visible(dict(commands())["report"], "--format")
    assert list(report.type.choices) == list(REPORT_FORMATS)  # type: ignore[union-attr]
    for command_name in ("score", "metrics ranking", "report"):
        option = visible(dict(commands())[command_name], "--format")
        assert "markdown" in option.type.choices  # type: ignore[union-attr]


def test_no_default_seed_or_batch_size_is_written_twice():
    """The library's defaults are the constants (the bake-off's config and the baseline)."""
    from cws_bench.metrics.significance import DEFAULT_SEED as significance_seed
    from cws_bench.regression.recording import DEFAULT_BATCH_SIZE as baseline_batch
    from cws_bench.run.comparison import DEFAULT_SEED as comparison_seed
    from cws_bench.run.config import BakeoffConfig
    from cws_bench.segmenters.stream import DEFAULT_BATCH_SIZE as stream_batch

    assert comparison_seed == significance_seed == DEFAULT_SEED == 2005
    assert baseline_batch == stream_batch == DEFAULT_BATCH_SIZE
    fields = BakeoffConfig.__dataclass_fields__
    assert fields["seed"].default == DEFAULT_SEED
    assert fields["batch_size"].default == DEFAULT_BATCH_SIZE
    assert fields["resamples"].default == DEFAULT_RESAMPLES


# ---------------------------------------------------------------------------
# Old spellings: hidden, still working, with a one-line note


def test_train_format_still_works_as_input_format_with_a_note(tmp_path):
    new = CliRunner().invoke(
        cli,
        ["train", "hmm", str(SAMPLE_GOLD), "--input-format", "plain", "-o", str(tmp_path / "a")],
    )
    old = CliRunner().invoke(
        cli, ["train", "hmm", str(SAMPLE_GOLD), "--format", "plain", "-o", str(tmp_path / "b")]
    )
    assert new.exit_code == old.exit_code == 0, old.output
    assert "deprecated" not in new.stderr
    assert old.stderr.splitlines()[0] == "note: --format is deprecated here; use --input-format"
    a = json.loads((tmp_path / "a").read_text(encoding="utf-8"))
    b = json.loads((tmp_path / "b").read_text(encoding="utf-8"))
    a.pop("trained_on", None), b.pop("trained_on", None)
    assert a == b
    assert "--format" not in CliRunner().invoke(cli, ["train", "--help"]).output


def test_train_format_keeps_checking_its_values(tmp_path):
    result = CliRunner().invoke(
        cli, ["train", "hmm", str(SAMPLE_GOLD), "--format", "nope", "-o", str(tmp_path / "m")]
    )
    assert result.exit_code == 2
    assert "'nope' is not one of 'auto'" in result.stderr


def test_segment_dict_still_works_as_lexicon_with_a_note():
    text = "结婚的和尚未结婚的\n南京市长江大桥\n"
    new = CliRunner().invoke(
        cli, ["segment", "-s", "bimm", "--lexicon", str(SAMPLE_DICT), "-"], input=text
    )
    old = CliRunner().invoke(
        cli, ["segment", "-s", "bimm", "--dict", str(SAMPLE_DICT), "-"], input=text
    )
    assert new.exit_code == old.exit_code == 0, old.output
    assert new.stdout == old.stdout
    assert new.stderr == ""
    assert old.stderr == "note: --dict is deprecated here; use --lexicon\n"


def test_old_and_new_spelling_together_is_a_usage_error():
    result = CliRunner().invoke(
        cli,
        ["segment", "-s", "bimm", "--lexicon", str(SAMPLE_DICT), "--dict", str(SAMPLE_DICT), "-"],
        input="南京\n",
    )
    assert result.exit_code == 2
    assert "pass --lexicon or its old spelling --dict, not both" in result.stderr


def test_baseline_save_oov_dict_still_works_as_dict(tmp_path):
    runs = []
    for flag in ("--dict", "--oov-dict"):
        output = tmp_path / f"{flag.strip('-')}.json"
        result = CliRunner().invoke(
            cli,
            ["baseline", "save", "-s", "fmm", "--lexicon", str(SAMPLE_DICT), "--corpus",
             "sample", flag, str(SAMPLE_DICT), "--speed-runs", "1", "-o", str(output)],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        runs.append((result, json.loads(output.read_text(encoding="utf-8"))))
    (new, saved_new), (old, saved_old) = runs
    assert "deprecated" not in new.stderr
    assert "note: --oov-dict is deprecated here; use --dict" in old.stderr
    identity = [record["identity"] for record in saved_new["corpora"]]
    assert identity == [record["identity"] for record in saved_old["corpora"]]
    assert saved_new["segmenter"]["paths"] == ["lexicon"]  # --lexicon: fmm's word list


def test_segmenter_flags_win_over_the_same_raw_option():
    text = "南京市长江大桥\n"
    result = CliRunner().invoke(
        cli,
        ["segment", "-s", "fmm", "-O", "lexicon=missing.txt", "--lexicon", str(SAMPLE_DICT),
         "-"],
        input=text,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout == "南京市 长江 大桥\n"


def test_quiet_is_accepted_where_there_is_progress():
    result = CliRunner().invoke(
        cli, ["segment", "-s", "fmm", "--lexicon", str(SAMPLE_DICT), "--quiet", "-"], input="南京\n"
    )
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(
        cli, ["score", str(SAMPLE_GOLD), str(SAMPLE_GOLD), "--quiet", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["f1"] == 1.0


def test_corpora_info_and_export_read_a_file_in_encoding(tmp_path):
    gold = tmp_path / "gold.gb"
    gold.write_bytes("我们 是 学生\n南京市 长江 大桥\n".encode("gb18030"))
    result = CliRunner().invoke(cli, ["corpora", "info", str(gold), "--format", "json"])
    assert result.exit_code == 2
    assert "pass --encoding gb18030" in result.stderr  # the library's fix, with this flag
    result = CliRunner().invoke(
        cli, ["corpora", "info", str(gold), "--encoding", "gb18030", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["words"] == 6
    out = tmp_path / "raw.txt"
    args = ["corpora", "export", str(gold), "--as", "raw", "-o", str(out)]
    result = CliRunner().invoke(cli, [*args, "--encoding", "gb18030"])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == "我们是学生\n南京市长江大桥\n"


def test_the_word_list_is_lexicon_everywhere_and_dictionary_gets_a_did_you_mean(tmp_path):
    """fmm's word list was `--lexicon` on the command line but `dictionary` in a TOML row
    (where `dictionary` is also a corpus' OOV dictionary): one name, `lexicon`, in both."""
    from cws_bench.errors import SegmenterError
    from cws_bench.segmenters import get_segmenter

    said = "did you mean lexicon? (a segmenter's word list is `lexicon` (--lexicon)"
    fmm = get_segmenter("fmm", lexicon=str(SAMPLE_DICT))
    assert fmm.options == {"direction": "forward", "lexicon": str(SAMPLE_DICT), "keep_runs": True}
    with pytest.raises(SegmenterError, match="no option 'dictionary'") as caught:
        get_segmenter("fmm", dictionary=str(SAMPLE_DICT))
    assert said in str(caught.value)
    # -O dictionary=...: one line on stderr, exit 2
    result = CliRunner().invoke(
        cli, ["segment", "-s", "fmm", "-O", f"dictionary={SAMPLE_DICT}", "-"], input="南京\n"
    )
    assert result.exit_code == 2
    assert said in result.stderr and "Traceback" not in result.stderr
    # a TOML row: the same answer, naming the file; a corpus' dictionary stays what it was
    toml = tmp_path / "mine.toml"
    row = f'[[segmenters]]\nname = "fmm"\noptions = {{ dictionary = "{SAMPLE_DICT}" }}\n'
    corpus = f'[[corpora]]\nname = "sample"\nsplit = "test"\ndictionary = "{SAMPLE_DICT}"\n'
    toml.write_text(corpus + row, encoding="utf-8")
    result = CliRunner().invoke(cli, ["bakeoff", str(toml), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert said in result.stderr and "mine.toml" in result.stderr
    toml.write_text(corpus + row.replace("dictionary =", "lexicon ="), encoding="utf-8")
    args = ["bakeoff", str(toml), "-o", str(tmp_path / "out"), "--quiet", "-j", "1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output

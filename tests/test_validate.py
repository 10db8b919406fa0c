"""A bake-off is checked before anything runs: every problem at once, exit 2, nothing written."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config
from cws_bench.run.problems import ConfigurationError

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def write(folder: Path, body: str, name: str = "bakeoff.toml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


BROKEN = """
    name = "broken"
    resamples = 20

    [[corpora]]
    name = "sampel"

    [[corpora]]
    label = "mine"
    gold = "nothere.txt"

    [[corpora]]
    name = "sample"

    [[segmenters]]
    name = "fmm"
    options = { keeprun = false, words = ["我们"] }

    [[segmenters]]
    name = "jeiba"

    [[segmenters]]
    name = "hmm"
    options = { model = "no-such-folder/model.hmm.json" }
"""


def test_every_problem_is_reported_at_once_and_nothing_is_written(tmp_path):
    config = load_config(write(tmp_path, BROKEN))
    with pytest.raises(ConfigurationError) as caught:
        run_bakeoff(config, output_dir=tmp_path / "out", jobs=1)
    text = str(caught.value)
    assert len(caught.value.problems) == 5, text
    assert "no registered corpus 'sampel'; did you mean sample?" in text
    assert f"gold file {tmp_path / 'nothere.txt'}: no such file" in text
    assert "no option 'keeprun'; did you mean keep_runs?" in text
    assert "no registered segmenter 'jeiba'; did you mean jieba" in text
    # resolved against the TOML's folder, as the gold file is
    assert f"model file {tmp_path / 'no-such-folder/model.hmm.json'}: no such file" in text
    assert not (tmp_path / "out").exists()


def test_the_command_exits_2_and_writes_nothing(tmp_path):
    path = write(tmp_path, BROKEN)
    result = CliRunner().invoke(cli, ["bakeoff", str(path), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "5 problems, nothing was run" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_a_missing_split_of_a_registered_corpus_is_named_with_the_splits(tmp_path):
    body = """
        [[corpora]]
        name = "sample"
        split = "tset"
        [[segmenters]]
        name = "fmm"
        options = { words = ["我们"] }
    """
    with pytest.raises(ConfigurationError, match="no split 'tset'; did you mean test"):
        run_bakeoff(load_config(write(tmp_path, body)), output_dir=tmp_path / "out")


def test_an_optional_segmenter_whose_model_is_missing_is_skipped_with_a_note(tmp_path):
    body = f"""
        name = "skips"
        resamples = 20
        [[corpora]]
        name = "sample"
        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}
        [[segmenters]]
        name = "hmm"
        optional = true
        options = {{ model = "{tmp_path / "absent.hmm.json"}" }}
    """
    result = run_bakeoff(load_config(write(tmp_path, body)), jobs=1, write=False)
    assert [p.segmenter for p in result.pairs] == ["fmm"]
    (note,) = result.settings["notes"]
    assert note.startswith(f"skipped hmm: model file {tmp_path / 'absent.hmm.json'}: no such")
    assert "cws-bench train hmm" in note


def test_a_hub_model_that_is_not_cached_is_a_problem(tmp_path):
    pytest.importorskip("huggingface_hub", reason="the hub's cache check needs huggingface_hub")
    from cws_bench.segmenters.neural import hub_model_problem

    message, hint = hub_model_problem("someone/no-such-model-here")  # type: ignore[misc]
    assert message == "model someone/no-such-model-here: not in the local Hugging Face cache"
    assert hint.endswith("hf download someone/no-such-model-here")


def test_model_folders_that_are_paths_must_exist(tmp_path):
    from cws_bench.segmenters.neural import hub_model_problem

    assert hub_model_problem(tmp_path) is None
    assert hub_model_problem(f"{tmp_path}/gone") == (
        f"model folder {tmp_path}/gone: no such folder",
        "fix the path, or download the model",
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("[[corpus]]\nname = 'sample'\n", "unknown key corpus\n  hint: did you mean corpora?"),
        ("resample = 5\n", "unknown key resample\n  hint: did you mean resamples?"),
        (
            "[[corpora]]\nname = 'sample'\n[[segmenters]]\nname = 'fmm'\noptoins = {}\n",
            "unknown key optoins\n  hint: did you mean options?",
        ),
    ],
)
def test_unknown_keys_suggest_the_closest(tmp_path, body, expected):
    with pytest.raises(CwsBenchError) as caught:
        load_config(write(tmp_path, body))
    assert expected in str(caught.value)


def test_several_bad_tables_are_reported_together(tmp_path):
    body = (
        "resample = 5\n[[corpora]]\nname = 'sample'\n[[segmenters]]\nname = 'fmm'\noptoins = {}\n"
    )
    with pytest.raises(ConfigurationError) as caught:
        load_config(write(tmp_path, body))
    assert len(caught.value.problems) == 2


SELECTABLE = f"""
    name = "select"
    resamples = 20
    [[corpora]]
    name = "sample"
    [[corpora]]
    label = "again"
    gold = "{ROOT / "corpora" / "sample" / "gold.txt"}"
    [[segmenters]]
    name = "fmm"
    options = {{ lexicon = "{SAMPLE_DICT}" }}
    [[segmenters]]
    name = "bmm"
    options = {{ lexicon = "{SAMPLE_DICT}" }}
"""


def test_runs_can_be_cut_to_some_segmenters_and_corpora(tmp_path):
    config = load_config(write(tmp_path, SELECTABLE))
    result = run_bakeoff(
        config, jobs=1, write=False, only_segmenters=["bmm"], only_corpora=["again"]
    )
    assert [(p.corpus, p.segmenter) for p in result.pairs] == [("again", "bmm")]


def test_an_unknown_label_in_a_filter_is_an_error_with_a_suggestion(tmp_path):
    config = load_config(write(tmp_path, SELECTABLE))
    with pytest.raises(CwsBenchError, match="no segmenter labelled 'bnm'") as caught:
        run_bakeoff(config, write=False, only_segmenters=["bnm"])
    assert "did you mean bmm" in str(caught.value)


def test_the_command_filters_segmenters_and_corpora(tmp_path):
    path = write(tmp_path, SELECTABLE)
    out = tmp_path / "out"
    args = ["bakeoff", str(path), "-o", str(out), "--quiet", "-j", "1"]
    result = CliRunner().invoke(cli, [*args, "--segmenters", "fmm", "--corpora", "sample"])
    assert result.exit_code == 0, result.output
    assert "bmm" not in result.output and "again" not in result.output
    result = CliRunner().invoke(cli, [*args, "--corpora", "sampel"])
    assert result.exit_code == 2
    assert "did you mean sample" in result.output


SCRIPT = """
from cws_bench.run.bakeoff import run_bakeoff
{call}
"""


def run_script(tmp_path: Path, guarded: bool) -> subprocess.CompletedProcess:
    config = write(tmp_path, SELECTABLE)
    call = f"run_bakeoff({str(config)!r}, jobs=1, write=False, only_segmenters=['fmm'])"
    if guarded:
        call = f"if __name__ == '__main__':\n    {call}\n    print('done')"
    script = tmp_path / "script.py"
    script.write_text(SCRIPT.format(call=call), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_script_without_the_main_guard_gets_one_error_naming_the_fix(tmp_path):
    done = run_script(tmp_path, guarded=False)
    assert done.returncode == 1
    assert done.stderr.count("Traceback") == 1, done.stderr
    assert "bootstrapping phase" not in done.stderr
    assert 'if __name__ == "__main__":' in done.stderr
    assert "script.py:3: run_bakeoff is called at the top level" in done.stderr


def test_a_guarded_script_runs(tmp_path):
    done = run_script(tmp_path, guarded=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"


def test_a_run_over_several_corpora_prints_the_table_across_corpora(tmp_path):
    path = write(tmp_path, SELECTABLE)
    args = ["bakeoff", str(path), "-o", str(tmp_path / "out"), "--quiet", "-j", "1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    across = result.output[result.output.index("F1 by corpus") :].splitlines()
    header = ["segmenter", "sample", "again", "mean", "over", "worst", "corpus"]
    assert across[2].split() == header
    assert {line.split()[0] for line in across[4:6]} == {"fmm", "bmm"}
    one = CliRunner().invoke(cli, [*args, "--corpora", "sample"])
    assert one.exit_code == 0 and "F1 by corpus" not in one.output


def test_the_help_names_every_bundled_configuration_and_report_file():
    from cws_bench.configs import BUNDLED_CONFIGS
    from cws_bench.reports import REPORT_FILES

    bundled = {"default", "sighan2005", "neural", "domains", "tokenizers", "llm", "seeds"}
    assert set(BUNDLED_CONFIGS) == bundled
    text = " ".join(CliRunner().invoke(cli, ["bakeoff", "--help"]).output.split())
    assert "bundled name (default, domains, llm, neural, seeds, sighan2005, tokenizers)" in text
    assert f"Writes {len(REPORT_FILES)} files" in text
    assert all(name in text for name in REPORT_FILES.values())


def test_neural_rows_whose_models_are_not_here_are_skipped_when_optional(tmp_path, monkeypatch):
    # The library may be installed or not here: pretend it is, so only the model is missing.
    from cws_bench.run.validate import validate_config
    from cws_bench.segmenters.stanza import StanzaSegmenter

    monkeypatch.setattr(StanzaSegmenter, "missing", classmethod(lambda cls: []))
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "stanza"))
    body = """
        [[corpora]]
        name = "sample"
        [[segmenters]]
        name = "fmm"
        options = { words = ["我们"] }
        [[segmenters]]
        name = "stanza-hant"
        optional = true
    """
    notes: list[str] = []
    config = validate_config(load_config(write(tmp_path, body)), notes=notes)
    assert [s.label for s in config.segmenters] == ["fmm"]
    (note,) = notes
    assert note.startswith(f"skipped stanza-hant: no stanza models in {tmp_path / 'stanza'}")
    assert "stanza.download('zh-hant'" in note  # the preset's language, in the download hint
    required = load_config(write(tmp_path, body.replace("optional = true", "")))
    with pytest.raises(ConfigurationError, match="no stanza models in"):
        validate_config(required)


def test_relative_paths_all_resolve_against_the_tomls_folder(tmp_path, monkeypatch):
    # a TOML in conf/, its files beside it, the command run from elsewhere
    conf = tmp_path / "conf"
    conf.mkdir()
    sample = ROOT / "corpora" / "sample"
    (conf / "gold.txt").write_bytes((sample / "gold.txt").read_bytes())
    (conf / "pred.txt").write_bytes((sample / "pred.txt").read_bytes())
    (conf / "words.txt").write_bytes(SAMPLE_DICT.read_bytes())
    config = write(
        conf,
        """
        name = "beside"
        resamples = 20

        [[corpora]]
        label = "mine"
        gold = "gold.txt"
        dictionary = "words.txt"

        [[segmenters]]
        name = "file"
        label = "theirs"
        options = { path = "pred.txt" }

        [[segmenters]]
        name = "fmm"
        options = { lexicon = "words.txt" }

        [[segmenters]]
        name = "hmm"
        options = { corpus = "gold.txt", model = "./no-model.json" }
        optional = true
    """,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    loaded = load_config(config)
    options = {s.label: s.options for s in loaded.segmenters}
    assert options["theirs"]["path"] == str(conf / "pred.txt")
    assert options["fmm"]["lexicon"] == str(conf / "words.txt")
    assert options["hmm"] == {
        "corpus": str(conf / "gold.txt"),
        "model": str(conf / "no-model.json"),
    }
    assert loaded.corpora[0].dictionary == str(conf / "words.txt")
    result = run_bakeoff(loaded, jobs=1, write=False, only_segmenters=["theirs", "fmm"])
    assert {p.segmenter: p.status for p in result.pairs} == {"theirs": "ok", "fmm": "ok"}
    # a registered corpus, a hub model and the special words stay names
    named = write(
        conf,
        """
        [[corpora]]
        name = "sample"
        dictionary = "corpus:sample"

        [[segmenters]]
        name = "hmm"
        options = { corpus = "pd1998", model = "someone/a-model" }

        [[segmenters]]
        name = "fmm"
        options = { lexicon = "jieba" }
    """,
        "named.toml",
    )
    loaded = load_config(named)
    assert loaded.segmenters[0].options == {"corpus": "pd1998", "model": "someone/a-model"}
    assert loaded.segmenters[1].options == {"lexicon": "jieba"}
    assert loaded.corpora[0].dictionary == "corpus:sample"


def test_validation_names_the_resolved_path_of_a_missing_file(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    conf.mkdir()
    config = write(
        conf,
        """
        [[corpora]]
        name = "sample"
        dictionary = "gone-words.txt"

        [[segmenters]]
        name = "file"
        options = { path = "gone.txt" }
    """,
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["bakeoff", str(config), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    # resolved against the TOML's folder, shown from the working folder it lies in
    assert "segmented file conf/gone.txt: no such file" in result.stderr
    assert f"dictionary file {conf / 'gone-words.txt'}: no such file" in result.stderr


OUT_OF_RANGE = """
    name = "ranges"
    resamples = -5
    seed = -1
    timeout = 0
    batch_size = true
    correction = "holm"
    alpha = 1.5
    [settings]
    shard_chars = 0
    retries = 1.5
    [[corpora]]
    name = "sample"
    [[segmenters]]
    name = "fmm"
    optoins = {}
"""


def test_numeric_settings_out_of_range_are_refused_together_exit_2_nothing_written(tmp_path):
    path = write(tmp_path, OUT_OF_RANGE)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["bakeoff", str(path), "-o", str(out), "--quiet", "-j", "1"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "8 problems, nothing was run" in result.output
    for expected in (
        "resamples must be a whole number of at least 1, not -5",
        "seed must be a whole number of at least 0, not -1",
        "timeout must be a number more than 0, not 0",
        "batch_size must be a whole number of at least 1, not True",
        "alpha must be a number more than 0 and less than 1, not 1.5",
        "[settings] shard_chars must be a whole number of at least 1, not 0",
        "[settings] retries must be a whole number of at least 0, not 1.5",
        "unknown key optoins",
    ):
        assert expected in result.output
    assert not out.exists()


@pytest.mark.parametrize("resamples", [0, -5])
def test_no_resamples_is_refused_before_any_pair_runs(tmp_path, resamples):
    body = f"resamples = {resamples}\n[[corpora]]\nname = 'sample'\n[[segmenters]]\nname = 'fmm'\n"
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["bakeoff", str(write(tmp_path, body)), "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert f"resamples must be a whole number of at least 1, not {resamples}" in result.output
    assert not out.exists()


def test_a_configuration_built_in_python_and_the_run_arguments_are_checked_too(tmp_path):
    from dataclasses import replace

    config = replace(load_config(write(tmp_path, SELECTABLE)), resamples=0, timeout=-1.0)
    with pytest.raises(ConfigurationError) as caught:
        run_bakeoff(config, output_dir=tmp_path / "out", jobs=0, shard_timeout=float("nan"))
    text = str(caught.value)
    assert len(caught.value.problems) == 4, text
    assert "resamples must be a whole number of at least 1, not 0" in text
    assert "timeout must be a number more than 0, not -1.0" in text
    assert "[settings] jobs must be a whole number of at least 1, not 0" in text
    assert "[settings] timeout must be a number more than 0, not nan" in text
    assert not (tmp_path / "out").exists()


def test_the_options_of_a_setting_take_their_range_from_the_one_table():
    from cws_bench.defaults import BOUNDS

    options = {"seed": "score", "resamples": "score", "batch_size": "segment"}
    options |= {key: "bakeoff" for key in ("jobs", "shard_chars", "retries", "alpha", "resplits")}

    def option(command, name):
        found = cli.get_command(click.Context(cli), command)
        return next(p for p in found.params if p.name == name).type.bounds

    seen = {setting: option(command, setting) for setting, command in options.items()}
    seen["timeout"] = option("bakeoff", "shard_timeout")
    assert seen == BOUNDS


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["bakeoff", "--jobs", "0"], "0 is not in the range x>=1"),
        (["bakeoff", "--shard-timeout", "nan"], "must be a number more than 0, not nan"),
        (["score", "gold.txt", "--seed", "-1"], "-1 is not in the range x>=0"),
    ],
)
def test_an_option_out_of_range_is_a_usage_error(tmp_path, args, expected):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert expected in result.output


def test_a_folder_named_like_a_bundled_configuration_does_not_hide_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "domains").mkdir()  # e.g. the reports of an earlier `-o domains`
    notes: list[str] = []
    config = load_config("domains", notes=notes)
    assert config.source == "<bundled domains>"
    assert notes == ["domains: the bundled configuration (./domains is a folder, not a TOML file)"]
    result = CliRunner().invoke(cli, ["bakeoff", "domains", "--segmenters", "nothere"])
    assert result.exit_code == 2, result.output
    assert "no such bake-off configuration" not in result.output
    assert "note: domains: the bundled configuration" in result.output
    assert "no segmenter labelled 'nothere'" in result.output


def test_a_toml_file_named_like_a_bundled_configuration_is_taken_and_said(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, SELECTABLE, name="domains")
    notes: list[str] = []
    config = load_config("domains", notes=notes)
    assert config.name == "select" and config.source == "domains"
    assert notes and "the file ./domains, not the bundled configuration" in notes[0]
    assert load_config("default", notes=notes).source == "<bundled default>"
    assert len(notes) == 1  # nothing named default here: nothing to say


def test_a_folder_that_is_no_bundled_name_is_refused_saying_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    with pytest.raises(CwsBenchError, match=r"mine is a folder, not a TOML file"):
        load_config("mine")

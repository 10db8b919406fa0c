"""Tests of ``cws-bench diff``, ``baseline`` and ``check``, and of docs/REGRESSION.md."""

from __future__ import annotations

import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

# pytester runs pytest in this process; modules it would import for the first time inside
# a run are forgotten after it, and extension modules cannot be loaded twice.
import cws_bench.corpora
import cws_bench.metrics.significance
import cws_bench.regression.render
import cws_bench.segmenters.jieba
import cws_bench.segmenters.maxmatch  # noqa: F401
from cws_bench.cli import cli

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


# ---------------------------------------------------------------------------
# diff


@pytest.fixture
def segmentations(write):
    a = write("a.txt", "今天上午 ， 乒乓球 拍卖 完 了 。\n研究 人员 发现\n")
    b = write("b.txt", "今天 上午 ， 乒乓球拍 卖完 了 。\n研究人员 发现\n")
    gold = write("gold.txt", "今天 上午 ， 乒乓球 拍卖 完 了 。\n研究 人员 发现\n")
    return a, b, gold


def test_diff_text(segmentations):
    a, b, gold = segmentations
    result = invoke("diff", a, b, "--gold", gold)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"{a} → {b}: 2 lines, 2 changed (100.0%)"
    assert "1 change fixed agreement, 2 broke it, 0 neither; correct words 9 → 6 (-3)" in (
        result.stdout
    )
    without_gold = invoke("diff", a, b).stdout
    assert "against" not in without_gold and "changes: 3 (1 split, 1 merged" in without_gold


def test_diff_json_and_html_files(segmentations, tmp_path):
    a, b, gold = segmentations
    data = json.loads(
        invoke("diff", a, b, "--gold", gold, "--format", "json", "--seed", "3").stdout
    )
    assert data["against_gold"]["correct_words"]["change"] == -3
    assert data["against_gold"]["tests"]["f1"]["seed"] == 3
    page = tmp_path / "diff.html"
    result = invoke("diff", a, b, "--gold", gold, "--format", "html", "-o", page)
    assert result.exit_code == 0 and result.stdout == ""
    assert f"diff written to {page}" in result.stderr
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and '<mark class="fixed">今天 上午</mark>' in html


def test_diff_input_errors_exit_2(segmentations, write):
    a, _, _ = segmentations
    short = write("short.txt", "研究人员 发现\n")
    result = invoke("diff", a, short)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {a} has 2 lines but {short} has 1")
    other = write("other.txt", "今天上午 ， 乒乓球 拍卖 完 了 。\n研究 人员 发明\n")
    assert invoke("diff", a, other).exit_code == 0
    strict = invoke("diff", a, other, "--strict")
    assert strict.exit_code == 2 and "1 line holds different characters" in strict.stderr
    assert "Traceback" not in strict.output


# ---------------------------------------------------------------------------
# baseline and check


@pytest.fixture
def saved(experiment):
    path = experiment.folder / "baseline.json"
    result = invoke(
        "baseline", "save", "-s", "fmm", "-O", f"lexicon={experiment.words}",
        "--corpus", experiment.gold, "-o", path, "--speed-runs", "1",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return path


def test_save_prints_a_summary_and_writes_the_file(saved):
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["segmenter"] == {
        "name": "fmm",
        "registered": True,
        "version": "0.1.0",
        "options": {"lexicon": "words.txt"},
        "paths": ["lexicon"],
    }
    assert data["settings"]["speed_runs"] == 1
    shown = invoke("baseline", "show", saved).stdout
    assert shown.splitlines()[1].startswith("  gold: F1 100.00, P 100.00, R 100.00, OOV recall --")
    assert "bounds: largest drops f1 0 points; speed not checked" in shown


def test_check_exit_codes_and_accepting_a_change(experiment, saved):
    assert invoke("check", "--baseline", saved).exit_code == 0
    experiment.add_word()
    failed = invoke("check", "--baseline", saved, "--max-f1-drop", "0.5")
    assert failed.exit_code == 1
    assert "  FAIL  gold  F1 dropped 100.00 → 76.92 (-23.08 points)" in failed.stdout
    assert "option lexicon: words.txt changed since the baseline" in failed.stdout
    assert failed.stderr == ""  # a broken bound is not an error
    assert invoke("check", "--baseline", saved, "--max-f1-drop", "25").exit_code == 0
    assert (
        invoke("check", "--baseline", saved, "--fail-on-change", "--max-f1-drop", "25").exit_code
        == 1
    )
    updated = invoke("baseline", "update", saved)
    assert updated.exit_code == 0 and "F1 76.92" in updated.stdout
    assert invoke("check", "--baseline", saved).exit_code == 0


def test_bounds_stored_in_the_baseline_apply(experiment, tmp_path):
    path = tmp_path / "loose.json"
    saved = invoke(
        "baseline", "save", "-s", "fmm", "-O", f"lexicon={experiment.words}",
        "--corpus", experiment.gold, "-o", path, "--speed-runs", "1", "--max-f1-drop", "30",
    )  # fmt: skip
    assert saved.exit_code == 0
    experiment.add_word()
    assert invoke("check", "--baseline", path).exit_code == 0
    assert invoke("check", "--baseline", path, "--max-f1-drop", "1").exit_code == 1


def test_speed_bound_against_recorded_speeds(saved):
    data = json.loads(saved.read_text(encoding="utf-8"))
    for chars_per_s, code in ((1e15, 1), (1.0, 0)):
        data["corpora"][0]["speed"]["chars_per_s"] = chars_per_s
        saved.write_text(json.dumps(data), encoding="utf-8")
        result = invoke("check", "--baseline", saved, "--max-speed-drop", "50", "--speed-runs", "1")
        assert result.exit_code == code, result.output
        assert re.search(r"(ok  |FAIL)  gold  speed [\d,]+ → [\d,]+ characters/s", result.stdout)


def test_check_json_and_junit(experiment, saved, tmp_path):
    experiment.add_word()
    data = json.loads(invoke("check", "--baseline", saved, "--format", "json").stdout)
    assert data["passed"] is False and data["checks"][0]["new"] == 10 / 13
    report = tmp_path / "check.xml"
    result = invoke("check", "--baseline", saved, "--format", "junit", "-o", report)
    assert result.exit_code == 1
    assert result.stdout.startswith("cws-bench check: fmm against")  # the text still shows
    root = ET.parse(report).getroot()
    assert (root.get("tests"), root.get("failures")) == ("1", "1")
    failure = root.find("testsuite/testcase/failure")
    assert "allowed drop 0 points: at least 100.00" in failure.get("message")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-drop", "fscore=1"], "error: no score 'fscore' to bound"),
        (["--max-drop", "f1"], "expected METRIC=POINTS"),
        (["--max-speed-drop", "150"], "is not in the range"),
        (["-O", "no_such_option=1"], "no option 'no_such_option'"),
    ],
)
def test_check_usage_errors_exit_2(saved, args, message):
    result = invoke("check", "--baseline", saved, *args)
    assert result.exit_code == 2 and message in result.stderr
    assert "Traceback" not in result.output


def test_check_input_errors_exit_2(tmp_path, experiment, saved):
    bad = tmp_path / "bad.json"
    bad.write_text("[]", encoding="utf-8")
    result = invoke("check", "--baseline", bad)
    assert result.exit_code == 2 and "not a cws-bench baseline" in result.stderr
    experiment.gold.unlink()
    gone = invoke("check", "--baseline", saved)
    assert gone.exit_code == 2 and "gold.txt" in gone.stderr
    unknown = invoke("baseline", "save", "-s", "fmm", "--corpus", "nope", "-o", tmp_path / "x.json")
    assert (
        unknown.exit_code == 2 and "nope: neither a registered corpus nor a file" in unknown.stderr
    )
    assert not (tmp_path / "x.json").exists()


def _corrupt(data, where, value):
    """Set data[where...] = value (``None`` deletes the key, ``...`` cuts a list by one)."""
    *path, last = where
    target = data
    for key in path:
        target = target[key]
    if value is ...:
        target[last] = target[last][:-1]
    elif value is None and last != "f1":
        del target[last]
    else:
        target[last] = value


MALFORMED = {
    "bounds-list": (("bounds",), [], "bounds: [] is not of type 'object'"),
    "f1-text": (("corpora", 0, "scores", "f1"), "high", "'high' is not of type 'number'"),
    "f1-null": (("corpora", 0, "scores", "f1"), None, "None is not of type 'number'"),
    "f1-digit": (("corpora", 0, "scores", "f1"), 0.908, "scores.f1 is 0.908 but its counts"),
    "speed-runs-text": (("settings", "speed_runs"), "three", "'three' is not of type 'integer'"),
    "resamples-zero": (("settings", "resamples"), 0, "resamples: 0 is less than the minimum"),
    "no-corpora": (("corpora",), [], "corpora: [] should be non-empty"),
    "cut-counts": (("corpora", 0, "sentence_counts"), ..., "sentence_counts sum to"),
    "cut-segmentation": (("corpora", 0, "segmentation"), ..., "segmentation holds 4 words"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_baseline_exits_2_with_one_message(saved, case):
    where, value, message = MALFORMED[case]
    data = json.loads(saved.read_text(encoding="utf-8"))
    _corrupt(data, where, value)
    saved.write_text(json.dumps(data), encoding="utf-8")
    for command in (["check", "--baseline", saved], ["baseline", "show", saved]):
        result = invoke(*command)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert "a malformed baseline" in result.stderr and message in result.stderr


def test_a_bound_that_cannot_be_checked_fails_closed(saved):
    # No OOV dictionary: the OOV recall bound cannot be checked; that is no pass.
    result = invoke("check", "--baseline", saved, "--max-oov-recall-drop", "1")
    assert result.exit_code == 2, result.output
    assert "1 bound cannot be checked, so the check cannot pass" in result.stderr
    assert "oov" in result.stderr.lower()
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["bounds"] = {"drops": {}, "speed": None}
    saved.write_text(json.dumps(data), encoding="utf-8")
    nothing = invoke("check", "--baseline", saved)
    assert nothing.exit_code == 2 and "nothing to check" in nothing.stderr


# ---------------------------------------------------------------------------
# README


def readme_section() -> str:
    page = (ROOT / "docs" / "REGRESSION.md").read_text(encoding="utf-8")
    heading = "# Regression-test your tokenizer\n"
    assert page.startswith(heading)
    return page.split(heading, 1)[1].split("\n## ", 1)[0]


def test_readme_walkthrough_works_as_shown(pytester):
    """Run every command of docs/REGRESSION.md, compare shown output."""
    blocks = re.findall(r"```(sh|text|python)\n(.*?)```", readme_section(), flags=re.S)
    assert [kind for kind, _ in blocks].count("sh") >= 6
    last = None
    commands = 0
    for kind, body in blocks:
        if kind == "text":
            assert last is not None, "an output block must follow a command"
            assert last.stdout.rstrip("\n") == body.rstrip("\n")
            continue
        if kind == "python":
            first = body.splitlines()[0]
            if first.startswith("# test_"):  # a test module for the plugin
                (pytester.path / first[2:]).write_text(body, encoding="utf-8")
            else:  # the library example, run in the folder the commands filled
                exec(compile(body, "docs/REGRESSION.md", "exec"), {})
            continue
        for line in body.splitlines():
            command, _, comment = line.partition("  #")
            expected = int(comment.split("exit code")[1]) if "exit code" in comment else 0
            words = shlex.split(command)
            if not words:
                continue
            commands += 1
            if words == ["cd", "scratch"]:  # pytester.path stands for the scratch folder
                continue
            if words[0] == "printf":
                assert words[2] == ">"
                Path(words[3]).write_text(words[1].replace("\\n", "\n"), encoding="utf-8")
            elif words[0] == "cws-bench":
                last = CliRunner().invoke(cli, words[1:])
                assert last.exit_code == expected, (line, last.output)
            elif words[0] == "pytest":
                outcome = pytester.runpytest(*words[1:])
                outcome.assert_outcomes(passed=1)
            else:
                pytest.fail(f"unexpected line in README: {line}")
    assert commands >= 12
    assert (pytester.path / "cws_baselines" / "test_tokenizer_does_not_regress.json").is_file()
    assert ET.parse(pytester.path / "check.xml").getroot().get("failures") == "0"


def test_an_external_command_with_a_version(tmp_path, experiment_texts):
    script = tmp_path / "seg.py"
    script.write_text(
        "import sys\nfor line in sys.stdin:\n    print(' '.join(line.split()[0]) if line.strip() "
        "else '')\n",
        encoding="utf-8",
    )
    gold = tmp_path / "gold.txt"
    gold.write_text(experiment_texts["gold"], encoding="utf-8")
    path = tmp_path / "baseline.json"
    command = f"command={sys.executable} {script}"
    saved = invoke(
        "baseline", "save", "-s", "command", "-O", command, "-O", "version=1.0",
        "--corpus", gold, "-o", path, "--speed-runs", "1",
    )  # fmt: skip
    assert saved.exit_code == 0, saved.output
    # The script makes every character a word, and no gold word has one character: F1 0.
    assert "gold: F1 0.00" in saved.stdout
    assert "|seg:command|segver:1.0|" in saved.stdout
    assert invoke("check", "--baseline", path).exit_code == 0
    newer = invoke("check", "--baseline", path, "-O", "version=1.1")
    assert newer.exit_code == 0
    assert "segmenter command version changed 1.0 → 1.1" in newer.stdout
    assert (
        invoke("check", "--baseline", path, "-O", "version=1.1", "--fail-on-change").exit_code == 1
    )


def test_a_command_baseline_finds_its_script_from_any_folder_and_sees_it_change(
    tmp_path, experiment_texts, monkeypatch
):
    project = tmp_path / "project"
    project.mkdir()
    script = project / "seg.py"
    script.write_text(
        "import sys\nfor line in sys.stdin:\n    print(' '.join(line.split()))\n", encoding="utf-8"
    )
    (project / "gold.txt").write_text(experiment_texts["gold"], encoding="utf-8")
    monkeypatch.chdir(project)
    saved = invoke(
        "baseline", "save", "-s", "command", "-O", f"command={sys.executable} seg.py",
        "--corpus", "gold.txt", "-o", "baseline.json", "--speed-runs", "1",
    )  # fmt: skip
    assert saved.exit_code == 0, saved.output
    stored = json.loads((project / "baseline.json").read_text(encoding="utf-8"))
    assert stored["segmenter"]["options"]["command"] == [sys.executable, "seg.py"]
    (segmenter,) = {json.dumps(c["segmenter"]["options"]["command"]) for c in stored["corpora"]}
    assert "file:" in segmenter  # the script by its checksum
    # From another folder, the script is the one beside the baseline (else: not found).
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    same = invoke("check", "--baseline", project / "baseline.json", "--fail-on-change")
    assert same.exit_code == 0, same.output
    # An edit to the script is a changed experiment.
    script.write_text(script.read_text(encoding="utf-8") + "# tuned\n", encoding="utf-8")
    edited = invoke("check", "--baseline", project / "baseline.json", "--fail-on-change")
    assert edited.exit_code == 1, edited.output
    assert "option command changed" in edited.stdout


def test_check_refuses_an_unwritable_report_before_running(saved, tmp_path, monkeypatch):
    from cws_bench.regression import recording

    def rerun(*args, **kwargs):
        raise AssertionError("the check ran before finding that -o cannot be written")

    monkeypatch.setattr(recording, "rerun_baseline", rerun)
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    result = invoke("check", "--baseline", saved, "--format", "junit", "-o", blocker / "c.xml")
    assert result.exit_code == 2
    assert f"{blocker} is a file, not a folder" in result.stderr

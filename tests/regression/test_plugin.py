"""Tests of the pytest plugin (cws_bench/testing.py), run by pytest's own pytester."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import distributions

import pytest

# pytester runs pytest in this process and forgets the modules first imported during
# a run; an extension module (numpy's above all) cannot be loaded twice, so every module
# the plugin needs is imported here, once.
import cws_bench.corpora
import cws_bench.metrics.significance
import cws_bench.regression.render
import cws_bench.segmenters.maxmatch  # noqa: F401

pytest_plugins = ["pytester"]

TEST_MODULE = '''
from pathlib import Path

WORDS = set(Path(__file__).with_name("words.txt").read_text(encoding="utf-8").split())


def tokenize(text):
    """Forward maximum matching over words.txt, four characters at most."""
    out, i = [], 0
    while i < len(text):
        for size in range(min(4, len(text) - i), 0, -1):
            if size == 1 or text[i : i + size] in WORDS:
                out.append(text[i : i + size])
                i += size
                break
    return out


def test_tokenizer(cws_regression):
    cws_regression(tokenize, corpus="gold.txt", max_f1_drop=0.5)
'''


@pytest.fixture
def project(pytester, experiment_texts):
    pytester.makefile(".txt", gold=experiment_texts["gold"], words=experiment_texts["words"])
    pytester.makepyfile(test_tokenizer=TEST_MODULE)
    pytester.more_words = experiment_texts["more_words"]
    return pytester


def test_the_plugin_is_registered_as_a_pytest11_entry_point(pytester):
    # Every installed distribution, as pytest (pluggy) reads them.
    found = [
        (entry.name, entry.value)
        for dist in distributions()
        for entry in dist.entry_points
        if entry.group == "pytest11" and entry.value == "cws_bench.testing"
    ]
    assert found and set(found) == {("cws_bench", "cws_bench.testing")}
    # A fresh pytest process loads it by itself.
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*--cws-update-baseline*"])


def test_the_whole_loop(project):
    baseline = project.path / "cws_baselines" / "test_tokenizer.json"

    first = project.runpytest()
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(
        [
            "*no cws-bench baseline at cws_baselines/test_tokenizer.json: run pytest "
            "--cws-update-baseline to record one*"
        ]
    )
    assert "Traceback" not in first.stdout.str()

    recorded = project.runpytest("--cws-update-baseline")
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(
        ["*cws-bench baselines written*", "cws_baselines/test_tokenizer.json"]
    )
    assert baseline.is_file()

    project.runpytest().assert_outcomes(passed=1)

    (project.path / "words.txt").write_text(project.more_words, encoding="utf-8")
    regressed = project.runpytest()
    regressed.assert_outcomes(failed=1)
    regressed.stdout.fnmatch_lines(
        [
            "*cws-bench check: tokenize against cws_baselines/test_tokenizer.json: FAILED "
            "(1 of 1 bound broken)*",
            "*FAIL  gold  F1 dropped 100.00 → 76.92 (-23.08 points); allowed drop 0.5 points: "
            "at least 99.50*",
            "*what changed on gold (baseline → now): 1 of 2 lines, 1 change: 0 fixed "
            "agreement with the gold, 1 broke it, 0 neither*",
            "*merged         研究 人员 → 研究人员  (broke 1)*",
            "*to accept the change as the new baseline: pytest --cws-update-baseline*",
        ]
    )

    project.runpytest("--cws-update-baseline").assert_outcomes(passed=1)
    project.runpytest().assert_outcomes(passed=1)


def test_bounds_given_in_the_test_are_applied(project):
    project.runpytest("--cws-update-baseline").assert_outcomes(passed=1)
    (project.path / "words.txt").write_text(project.more_words, encoding="utf-8")
    module = project.path / "test_tokenizer.py"
    module.write_text(
        module.read_text(encoding="utf-8").replace("max_f1_drop=0.5", "max_f1_drop=25"),
        encoding="utf-8",
    )
    project.runpytest().assert_outcomes(passed=1)


def test_other_tokenizers_corpora_and_baseline_names(pytester):
    pytester.makepyfile(
        test_more="""
        import pytest
        from cws_bench.segmenters import get_segmenter


        def by_character(lines):
            return [list(line) for line in lines]


        def test_batch(cws_regression):
            cws_regression(by_character, "sample", batch=True, baseline="b/chars.json")


        @pytest.mark.parametrize("direction", ["fmm", "bmm"])
        def test_registered(cws_regression, direction):
            cws_regression(direction, "sample", options={"lexicon": "corpus:sample"})


        def test_segmenter_object(cws_regression):
            cws_regression(get_segmenter("fmm", lexicon="corpus:sample"), "sample")
        """
    )
    pytester.runpytest("--cws-update-baseline").assert_outcomes(passed=4)
    written = sorted(p.relative_to(pytester.path).as_posix() for p in pytester.path.rglob("*.json"))
    assert written == [
        "b/chars.json",
        "cws_baselines/test_registered-bmm.json",
        "cws_baselines/test_registered-fmm.json",
        "cws_baselines/test_segmenter_object.json",
    ]
    pytester.runpytest().assert_outcomes(passed=4)


def test_a_baseline_of_another_corpus_is_refused(project):
    project.runpytest("--cws-update-baseline").assert_outcomes(passed=1)
    module = project.path / "test_tokenizer.py"
    module.write_text(
        module.read_text(encoding="utf-8").replace('corpus="gold.txt"', 'corpus="sample"'),
        encoding="utf-8",
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*was recorded on gold, the test asks for sample*"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda data: data.update(bounds=[]), "bounds: [] is not of type 'object'"),
        (
            lambda data: data["settings"].update(speed_runs="three"),
            "'three' is not of type 'integer'",
        ),
        (lambda data: data["settings"].update(resamples=0), "0 is less than the minimum of 1"),
        (
            lambda data: data["corpora"][0]["scores"].update(f1="high"),
            "'high' is not of type 'number'",
        ),
    ],
    ids=["bounds-list", "speed-runs-text", "resamples-zero", "f1-text"],
)
def test_a_malformed_baseline_fails_the_test_with_one_message(project, edit, message):
    import json

    project.runpytest("--cws-update-baseline").assert_outcomes(passed=1)
    baseline = project.path / "cws_baselines" / "test_tokenizer.json"
    data = json.loads(baseline.read_text(encoding="utf-8"))
    edit(data)
    baseline.write_text(json.dumps(data), encoding="utf-8")
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*cws-bench: *test_tokenizer.json: a malformed baseline*{message}*"]
    )
    assert "Traceback" not in result.stdout.str()
    assert "cws_bench/" not in result.stdout.str()  # no frames of cws-bench's code


def test_the_plugin_is_inert_unless_used(pytester):
    pytester.makepyfile(test_plain="def test_nothing():\n    assert True\n")
    result = pytester.runpytest("--cws-update-baseline")
    result.assert_outcomes(passed=1)
    assert "cws-bench baselines written" not in result.stdout.str()
    assert not list(pytester.path.rglob("*.json"))


def test_importing_the_plugin_imports_nothing_else_of_cws_bench(tmp_path):
    code = (
        "import sys, cws_bench.testing\n"
        "print(sorted(m for m in sys.modules if m.startswith('cws_bench')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout
    assert out.strip() == "['cws_bench', 'cws_bench.testing']"

"""Tests of cws_bench/run/bakeoff.py: configurations, worker processes, cache, statistics."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.results.model import BakeoffResult
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import BakeoffConfig, load_config, parse_config
from cws_bench.scoring import score_files

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def write_config(folder: Path, body: str) -> Path:
    path = folder / "bakeoff.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


SMALL = f"""
    name = "small"
    seed = 7
    resamples = 200
    timeout = 120

    [[corpora]]
    name = "sample"
    split = "test"
    dictionary = "{SAMPLE_DICT}"

    [[segmenters]]
    name = "fmm"
    track = "closed"
    options = {{ lexicon = "{SAMPLE_DICT}" }}

    [[segmenters]]
    name = "jieba"
"""


# ---------------------------------------------------------------------------
# Configuration


def test_bundled_configurations_load():
    default = load_config(None)
    assert [c.label for c in default.corpora] == ["pd1998", "sample"]
    assert {"fmm", "bmm", "bimm", "hmm", "jieba"} <= {s.label for s in default.segmenters}
    assert {s.label for s in default.segmenters if s.optional} >= {"pkuseg", "snownlp", "thulac"}
    sighan = load_config("sighan2005")
    assert [c.name for c in sighan.corpora] == [
        "sighan2005-pku",
        "sighan2005-msr",
        "sighan2005-cityu",
        "sighan2005-as",
    ]


def test_placeholders_are_filled_per_corpus():
    config = load_config("sighan2005")
    fmm = next(s for s in config.segmenters if s.label == "fmm")
    assert fmm.options_for(config.corpora[1], "/data") == {
        "corpus": "sighan2005-msr",
        "data_dir": "/data",
    }
    # without --data-dir the data_dir option is left out
    assert fmm.options_for(config.corpora[0]) == {"corpus": "sighan2005-pku"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("name = 'x'\ncolour = 1\n", "unknown key colour"),
        (
            "[[corpora]]\nname = 'sample'\n[[segmenters]]\nname = 'fmm'\ntrack = 'half'\n",
            "track must be closed or open",
        ),
        ("[[corpora]]\nname = 'sample'\n", "at least one corpus and one segmenter"),
        (
            "[[corpora]]\nname = 'sample'\ngold = 'g.txt'\n[[segmenters]]\nname = 'fmm'\n",
            "either name",
        ),
        (
            "[[corpora]]\nname = 'sample'\n[[segmenters]]\nname = 'fmm'\n"
            "[[segmenters]]\nname = 'fmm'\n",
            "segmenter label used twice: fmm",
        ),
        ("[[corpora]\nname = 'sample'\n", "not valid TOML"),
        (
            "name = '../x'\n[[corpora]]\nname = 'sample'\n[[segmenters]]\nname = 'fmm'\n",
            "name '../x' is not a plain file name",
        ),
        (
            "name = '/tmp/x'\n[[corpora]]\nname = 'sample'\n[[segmenters]]\nname = 'fmm'\n",
            "name '/tmp/x' is not a plain file name",
        ),
    ],
)
def test_bad_configurations_name_the_problem(tmp_path, body, message):
    path = write_config(tmp_path, body)
    with pytest.raises(CwsBenchError, match=re.escape(message)):
        load_config(path)


def test_missing_configuration_file(tmp_path):
    with pytest.raises(CwsBenchError, match="no such bake-off configuration"):
        load_config(tmp_path / "nope.toml")


def test_relative_paths_are_relative_to_the_config(tmp_path):
    (tmp_path / "gold.txt").write_text("我们 是\n", encoding="utf-8")
    config = parse_config(
        {"corpora": [{"gold": "gold.txt"}], "segmenters": [{"name": "fmm"}]},
        source=str(tmp_path / "b.toml"),
    )
    assert config.corpora[0].gold == str(tmp_path / "gold.txt")
    assert config.corpora[0].label == "gold"


# ---------------------------------------------------------------------------
# Runs


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bakeoff")
    config = load_config(write_config(folder, SMALL))
    result = run_bakeoff(config, output_dir=folder / "out", jobs=2)
    return folder, config, result


def test_run_writes_every_report(small_run):
    folder, _, result = small_run
    out = folder / "out"
    for name in ("results.json", "results.csv", "leaderboard.md", "report.html", "leaderboard.tex"):
        assert (out / name).is_file(), name
    assert BakeoffResult.from_dict(json.loads((out / "results.json").read_text("utf-8"))) == result


def test_run_scores_equal_scoring_the_outputs_directly(small_run):
    _, _, result = small_run
    jieba = next(p for p in result.pairs if p.segmenter == "jieba")
    # corpora/sample/pred.txt is jieba 0.42.1's default-mode output on raw.txt
    direct = score_files(SAMPLE / "gold.txt", SAMPLE / "pred.txt", dictionary=SAMPLE_DICT)
    for key in ("precision", "recall", "f1", "oov_recall", "iv_recall", "correct_words"):
        assert jieba.scores[key] == direct.to_dict()[key], key


def test_pairs_have_intervals_speed_memory_and_signature(small_run):
    _, _, result = small_run
    assert [p.status for p in result.pairs] == ["ok", "ok"]
    for pair in result.pairs:
        f1 = pair.scores["f1"]
        assert pair.intervals["f1"].low <= f1 <= pair.intervals["f1"].high
        p, n = pair.scores["recall"], pair.scores["gold_words"]
        assert pair.sighan_intervals["recall"] == pytest.approx(2 * (p * (1 - p) / n) ** 0.5)
        assert pair.timing["chars_per_s"] > 0 and pair.timing["characters"] > 0
        assert pair.peak_memory_mib > 0
        assert "seg:" in pair.signature and "seed:7" in pair.signature
        assert pair.analysis["recall_by_length"]
    # fmm (closed) and jieba (open) are ranked apart: no comparison across tracks
    assert result.comparisons == ()


def test_rerun_uses_the_cache_and_gives_identical_scores(small_run):
    folder, config, first = small_run
    second = run_bakeoff(config, output_dir=folder / "out", jobs=2)
    assert all(p.cached for p in second.pairs)
    assert [p.scores for p in second.pairs] == [p.scores for p in first.pairs]
    assert second.comparisons == first.comparisons
    # an interrupted run: one pair's cache entry lost, only that pair runs again
    cache = sorted((folder / "out" / "cache").glob("*.json"))
    assert len(cache) == 2
    cache[0].unlink()
    third = run_bakeoff(config, output_dir=folder / "out", jobs=2)
    assert sorted(p.cached for p in third.pairs) == [False, True]
    assert [p.scores for p in third.pairs] == [p.scores for p in first.pairs]
    assert not list((folder / "out" / "cache").glob("*.tmp"))


def test_the_frame_has_one_row_per_pair(small_run):
    frame = small_run[2].to_frame()
    assert list(frame["segmenter"]) == ["fmm", "jieba"]
    assert frame.loc[frame.segmenter == "jieba", "f1"].item() == small_run[2].pairs[1].scores["f1"]


def test_a_crash_becomes_a_failed_row_and_the_rest_goes_on(tmp_path):
    crash = [sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"]
    body = f"""
        name = "broken"
        resamples = 50
        timeout = 120

        [[corpora]]
        name = "sample"

        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}

        [[segmenters]]
        name = "command"
        label = "crashes"
        options = {{ command = {json.dumps(crash)} }}
    """
    config = load_config(write_config(tmp_path, body))
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=2)
    status = {p.segmenter: (p.status, p.error) for p in result.pairs}
    assert status["fmm"] == ("ok", None)
    assert status["crashes"][0] == "failed" and "boom" in status["crashes"][1]
    assert "crashes" in (tmp_path / "out" / "leaderboard.md").read_text("utf-8")


def test_a_hang_becomes_a_timed_out_row(tmp_path):
    # Alone in its run, so the timeout can be short without another pair racing it.
    hang = [sys.executable, "-c", "import time; time.sleep(120)"]
    body = f"""
        name = "hangs"
        resamples = 50
        timeout = 1

        [[corpora]]
        name = "sample"

        [[segmenters]]
        name = "command"
        label = "hangs"
        options = {{ command = {json.dumps(hang)}, timeout = 600 }}
    """
    config = load_config(write_config(tmp_path, body))
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1, write=False)
    (pair,) = result.pairs
    assert pair.status == "timeout" and "1 s" in (pair.error or "")


def test_optional_segmenters_that_are_missing_are_skipped(tmp_path, monkeypatch):
    from cws_bench import segmenters

    real = segmenters.list_segmenters

    def without_jieba(**options):
        return [
            info
            if info.name != "jieba"
            else type(info)(
                **{
                    **{f: getattr(info, f) for f in info.__dataclass_fields__},
                    "available": False,
                    "install": "pip install jieba",
                }
            )
            for info in real(**options)
        ]

    monkeypatch.setattr(segmenters, "list_segmenters", without_jieba)
    body = SMALL.replace('name = "jieba"', 'name = "jieba"\n    optional = true')
    config = load_config(write_config(tmp_path, body))
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1, write=False)
    assert [p.segmenter for p in result.pairs] == ["fmm"]
    assert result.settings["notes"] == ["skipped jieba: not installed (pip install jieba)"]
    config = load_config(write_config(tmp_path, SMALL))
    with pytest.raises(CwsBenchError, match="not installed"):
        run_bakeoff(config, output_dir=tmp_path / "out", jobs=1, write=False)


def test_cli_runs_a_bakeoff_and_prints_the_leaderboard(small_run):
    folder = small_run[0]
    result = CliRunner().invoke(
        cli, ["bakeoff", str(folder / "bakeoff.toml"), "-o", str(folder / "out"), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "sample" in result.output and "jieba" in result.output


def test_cli_bad_configuration_exits_2(tmp_path):
    path = write_config(tmp_path, "name = 1\n[[corpora]]\nname = 'sample'\n")
    result = CliRunner().invoke(cli, ["bakeoff", str(path)])
    assert result.exit_code == 2
    assert "error:" in result.output and "Traceback" not in result.output


def test_config_round_trips_to_plain_data():
    config = load_config(None)
    data = config.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert isinstance(config, BakeoffConfig)


def test_a_bakeoff_without_neural_rows_does_not_import_torch(tmp_path):
    """Listing the installed segmenters asked torch for their device: seconds per run."""
    import importlib.util
    import subprocess

    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: nothing could import it")
    config = tmp_path / "bakeoff.toml"
    config.write_text(
        textwrap.dedent(
            f"""
            name = "no-torch"
            resamples = 50

            [[corpora]]
            name = "sample"

            [[segmenters]]
            name = "fmm"
            options = {{ lexicon = "{SAMPLE_DICT.as_posix()}" }}
            """
        ),
        encoding="utf-8",
    )
    code = (
        "import sys\n"
        "from cws_bench import run_bakeoff\n"
        f"result = run_bakeoff({str(config)!r}, output_dir={str(tmp_path / 'out')!r}, jobs=1)\n"
        "assert [pair.status for pair in result.pairs] == ['ok'], result.pairs\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_a_corpus_counted_by_its_own_method(tmp_path):
    """[[corpora]] method: that corpus' pairs are counted as `score --method sighan` counts
    them, the others by the run's method, and the captions name both."""
    from cws_bench.reports import render_markdown
    from cws_bench.run.config import parse_config
    from cws_bench.scoring import score_files
    from cws_bench.segmenters import get_segmenter

    gold = ROOT / "corpora" / "sample" / "gold.txt"
    config = parse_config(
        {
            "name": "methods",
            "resamples": 20,
            "corpora": [
                {"name": "sample"},
                {"label": "official", "gold": str(gold), "method": "sighan"},
            ],
            "segmenters": [
                {"name": "fmm", "options": {"lexicon": str(ROOT / "dictionaries" / "sample.txt")}}
            ],
        }
    )
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1)
    by = {pair.corpus: pair for pair in result.pairs}
    assert by["official"].scores["method"] == "sighan"
    assert by["sample"].scores["method"] == "interval"
    raw = [line.replace(" ", "") for line in gold.read_text(encoding="utf-8").splitlines()]
    pred = tmp_path / "fmm.txt"
    words = get_segmenter("fmm", lexicon=str(ROOT / "dictionaries" / "sample.txt")).segment(raw)
    pred.write_text("".join(" ".join(w) + "\n" for w in words), encoding="utf-8")
    official = score_files(gold, pred, method="sighan")
    assert by["official"].scores["correct_words"] == official.correct_words
    assert result.settings["corpus_methods"] == {"official": "sighan"}
    assert "interval counting; sighan counting on official" in render_markdown(result)


def test_a_corpus_method_that_does_not_resample_is_refused():
    from cws_bench.run.config import parse_config

    with pytest.raises(CwsBenchError, match="corpus s: method must be one of"):
        parse_config(
            {
                "name": "m",
                "corpora": [{"name": "sample", "label": "s", "method": "sighn"}],
                "segmenters": [{"name": "fmm"}],
            }
        )

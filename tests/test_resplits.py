"""Re-splits (issue 44; Gorman and Bedrick 2019): ``resplits = N`` trains and tests the
trainable rows on N random splits of a corpus' training and test sentences and counts how
often each pairwise verdict holds. The splits and the counts are checked against an
independent loop: the documented permutation, each row trained and run by hand, and the
verdicts of ``compare`` (the paired test of ``score --paired``) on each split."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli as main
from cws_bench.results.model import Comparison, Interval
from cws_bench.run.resplits import resplit_indices, tally_verdicts

SEED = 11
SPLITS = 3
RUN = ["--jobs", "1", "--resplits", str(SPLITS)]


def _comparison(corpus, a, b, difference, significant, in_family=True):
    return Comparison(
        corpus,
        a,
        b,
        "f1",
        difference,
        Interval(difference - 0.01, difference + 0.01),
        0.01 if significant else 0.5,
        significant,
        (0.01 if significant else 0.5) if in_family else None,
    )


def test_split_sizes_and_seeds():
    train, test = resplit_indices(30, 12, SEED, 2)
    assert (len(train), len(test)) == (30, 12)
    assert not set(train) & set(test) and set(train) | set(test) == set(range(42))
    again = resplit_indices(30, 12, SEED, 2)
    assert all((x == y).all() for x, y in zip((train, test), again))
    other = resplit_indices(30, 12, SEED, 3)[1]
    assert list(other) != list(test)


def test_verdict_counts_by_hand():
    standard = [
        _comparison("zx", "x", "y", 0.02, True),  # x beats y
        _comparison("zx", "x", "z", 0.0, False),  # no difference
        _comparison("zx", "y", "z", 0.01, True, in_family=False),  # outside every family
        _comparison("pku", "x", "y", -0.02, True),  # another corpus
    ]
    splits = {
        "zx@resplit1": [
            _comparison("zx@resplit1", "x", "y", 0.02, True),
            _comparison("zx@resplit1", "x", "z", -0.03, True),
        ],
        "zx@resplit2": [
            _comparison("zx@resplit2", "y", "x", 0.01, True),  # the other way round: y beats x
            _comparison("zx@resplit2", "x", "z", 0.01, False),
            _comparison("zx@resplit2", "y", "z", 0.01, True),
        ],
        "zx@resplit3": [
            _comparison("zx@resplit3", "x", "y", 0.01, False),
            _comparison("zx@resplit3", "x", "z", 0.01, True, in_family=False),  # not judged
        ],
    }
    rows = {(r["a"], r["b"]): r for r in tally_verdicts(standard, splits, "zx")}
    assert rows["x", "y"] == {
        "a": "x",
        "b": "y",
        "standard": "a",
        "counts": {"a": 1, "none": 1, "b": 1},
        "n": 3,
        "agree": 1,
    }
    assert rows["x", "z"]["standard"] == "none"
    assert rows["x", "z"]["counts"] == {"a": 0, "none": 1, "b": 1}
    assert (rows["x", "z"]["n"], rows["x", "z"]["agree"]) == (2, 1)
    # judged on a split only: counted, with no standard verdict
    assert rows["y", "z"]["standard"] is None and rows["y", "z"]["counts"]["a"] == 1
    assert rows["y", "z"]["agree"] is None


@pytest.fixture(scope="module")
def resplit_run(shared_corpora, tmp_path_factory):
    """fmm, bmm and hmm trained on zx, and jieba (pretrained), on the standard split and
    on three re-splits."""
    mccws = shared_corpora / "mccws"
    if not (mccws / "zx").is_dir():
        pytest.skip(f"the zx corpus is not in {mccws}")
    folder = tmp_path_factory.mktemp("resplits")
    (folder / "rs.toml").write_text(
        textwrap.dedent(
            f"""\
            name = "rs"
            seed = {SEED}
            resamples = 200
            resplits = 1

            [[corpora]]
            name = "zx"
            split = "test"

            [[corpora]]
            name = "sample"
            split = "test"

            [[segmenters]]
            name = "fmm"
            track = "closed"
            options = {{ corpus = "{{corpus}}", split = "train" }}
            corpora = ["zx"]

            [[segmenters]]
            name = "bmm"
            track = "closed"
            options = {{ corpus = "{{corpus}}", split = "train" }}
            corpora = ["zx"]

            [[segmenters]]
            name = "hmm"
            track = "closed"
            options = {{ corpus = "{{corpus}}" }}
            corpora = ["zx"]

            [[segmenters]]
            name = "jieba"
            track = "closed"
            """
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        main,
        # (the option replaces the TOML's 1)
        ["bakeoff", str(folder / "rs.toml"), "-o", str(folder / "out"), "--quiet", *RUN],
        env={"CWS_BENCH_MCCWS": os.fspath(mccws)},
    )
    assert result.exit_code == 0, result.output
    return mccws, folder / "out"


def test_resplits_match_an_independent_loop(resplit_run):
    from cws_bench.corpora import get_corpus
    from cws_bench.run.comparison import compare
    from cws_bench.segmenters import get_segmenter

    mccws, out = resplit_run
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    found = data["settings"]["resplits"]
    assert (found["n"], found["seed"]) == (SPLITS, SEED)
    assert "resplits:3|resplit-seed:11" in found["signature"]
    assert "sample" in found["skipped"]  # no training split
    zx = found["corpora"]["zx"]
    assert zx["retrained"] == ["bmm", "fmm", "hmm"]
    corpus = get_corpus("zx", data_dir=mccws)
    train = [s for s in corpus.sentences("train") if s]
    test = [s for s in corpus.sentences("test") if s]
    assert (zx["train"], zx["test"]) == (len(train), len(test))
    pool = [*train, *test]
    expected = {}
    labels = ("fmm", "bmm", "hmm", "jieba")
    for i in range(1, SPLITS + 1):
        # the documented split: the first n_test of default_rng((seed, i))'s permutation
        order = np.random.default_rng((SEED, i)).permutation(len(pool))
        gold = [pool[j] for j in sorted(order[: len(test)])]
        training = [pool[j] for j in sorted(order[len(test) :])]
        file = out.parent / f"train{i}.txt"
        file.write_text("".join(" ".join(s) + "\n" for s in training), encoding="utf-8")
        raw = ["".join(s) for s in gold]
        systems = {
            name: get_segmenter(name, corpus=os.fspath(file)).segment(raw) for name in labels[:3]
        }
        systems["jieba"] = get_segmenter("jieba").segment(raw)
        report = compare(gold, systems, dictionary=None, resamples=200, seed=SEED)
        for c in report.comparisons:
            key = (c.a, c.b) if labels.index(c.a) < labels.index(c.b) else (c.b, c.a)
            verdict = "none" if not c.significant else ("a" if c.difference > 0 else "b")
            if key != (c.a, c.b):
                verdict = {"a": "b", "b": "a"}.get(verdict, verdict)
            expected.setdefault(key, dict.fromkeys(("a", "none", "b"), 0))[verdict] += 1
    counted = {(p["a"], p["b"]): p["counts"] for p in zx["pairs"]}
    assert counted == expected
    assert all(p["n"] == SPLITS for p in zx["pairs"])
    standard = {(c["a"], c["b"]): c for c in data["comparisons"] if c["corpus"] == "zx"}
    for pair in zx["pairs"]:
        c = standard[pair["a"], pair["b"]]
        verdict = "none" if not c["significant"] else ("a" if c["difference"] > 0 else "b")
        assert pair["standard"] == verdict
        assert pair["agree"] == pair["counts"][verdict]


def test_the_reports_show_the_resplits(resplit_run):
    _, out = resplit_run
    markdown = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "Verdicts on 3 random re-splits of zx" in markdown
    assert "| a | b | standard split | a better | no difference | b better |" in markdown
    assert "No re-splits of sample: corpus sample has no training split." in markdown
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'class="resplits"' in html and "random re-splits of zx" in html


def test_a_rerun_takes_the_resplits_from_the_cache(resplit_run):
    mccws, out = resplit_run
    before = json.loads((out / "results.json").read_text(encoding="utf-8"))
    result = CliRunner().invoke(
        main,
        ["bakeoff", str(out.parent / "rs.toml"), "-o", str(out), *RUN],
        env={"CWS_BENCH_MCCWS": os.fspath(mccws)},
    )
    assert result.exit_code == 0, result.output
    after = json.loads((out / "results.json").read_text(encoding="utf-8"))
    zx = after["settings"]["resplits"]["corpora"]["zx"]
    assert zx["cached"] == zx["scored"] == 4 * SPLITS
    assert before["settings"]["resplits"]["corpora"]["zx"]["cached"] == 0
    for key in ("pairs", "train", "test", "retrained"):
        assert zx[key] == before["settings"]["resplits"]["corpora"]["zx"][key]


@pytest.mark.parametrize("value", ["-1", "2.5"])
def test_bad_resplits_are_one_clear_error(tmp_path, sample_bakeoff, value):
    config = tmp_path / "x.toml"
    config.write_text(sample_bakeoff("x", settings={"resplits": float(value)}), encoding="utf-8")
    result = CliRunner().invoke(main, ["bakeoff", str(config), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "resplits must be a whole number of at least 0" in result.output
    assert "Traceback" not in result.output
    result = CliRunner().invoke(
        main, ["bakeoff", str(config), "-o", str(tmp_path / "o"), "--resplits", value]
    )
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_a_run_without_resplits_records_none(tmp_path, sample_bakeoff):
    config = tmp_path / "x.toml"
    config.write_text(sample_bakeoff("x", settings={"resamples": 50}), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["bakeoff", str(config), "-o", str(tmp_path / "o"), "--quiet", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(Path(tmp_path / "o" / "results.json").read_text(encoding="utf-8"))
    assert "resplits" not in data["settings"] and "resplits" not in data["config"]


def test_resplits_that_cannot_run_leave_the_standard_reports(shared_corpora, tmp_path, monkeypatch):
    """A re-split bake-off refused by the validation (here: made so by a stand-in) is
    said under `skipped`; the standard split's reports are written all the same."""
    from dataclasses import replace

    from cws_bench.run import resplits
    from cws_bench.run.bakeoff import run_bakeoff
    from cws_bench.run.config import SegmenterSpec, parse_config

    monkeypatch.setenv("CWS_BENCH_MCCWS", os.fspath(shared_corpora / "mccws"))
    made = resplits.resplit_config

    def unknown_row(*args, **kwargs):
        derived, retrained = made(*args, **kwargs)
        return replace(derived, segmenters=(SegmenterSpec("nope", "no-such-segmenter"),)), retrained

    monkeypatch.setattr(resplits, "resplit_config", unknown_row)
    config = parse_config(
        {
            "name": "refused",
            "resamples": 50,
            "resplits": 2,
            "corpora": [{"name": "zx", "split": "test"}],
            "segmenters": [{"name": "fmm", "options": {"corpus": "{corpus}"}}],
        }
    )
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1)
    assert [p.status for p in result.pairs] == ["ok"]
    why = result.settings["resplits"]["skipped"]["zx"]
    assert why.startswith("its re-splits could not run: ") and "no-such-segmenter" in why
    markdown = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "No re-splits of zx: its re-splits could not run" in markdown

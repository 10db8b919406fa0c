"""Seeds as a dimension of a bake-off (issue 44): ``seeds = [...]`` on a trainable row, one
pair per seed, the distribution per row, and the two-level bootstrap over seeds and sentences,
checked against a direct reference loop and against the one-seed paired bootstrap."""

from __future__ import annotations

import json
import statistics
import textwrap
from pathlib import Path

import numpy as np
import pytest

from cws_bench.errors import CwsBenchError
from cws_bench.metrics.significance import (
    fscore_statistic,
    paired_bootstrap_test,
    seed_bootstrap_test,
)
from cws_bench.results.model import BakeoffResult
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import parse_config


def _counts(rng: np.random.Generator, n: int, quality: float) -> np.ndarray:
    """Per-sentence (correct, predicted, gold) word counts of a made-up system."""
    gold = rng.integers(3, 30, n)
    predicted = np.maximum(1, gold + rng.integers(-3, 4, n))
    correct = np.minimum(predicted, rng.binomial(gold, quality))
    return np.column_stack([correct, predicted, gold]).astype(np.int64)


def _reference(seeds_a, seeds_b, n_resamples, seed, confidence=0.95):
    """The two-level bootstrap written out loop by loop, from the documented draws."""
    n = seeds_a[0].shape[0]
    items = np.random.default_rng(seed).integers(0, n, (n_resamples, n))
    picker = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    picks_a = picker.integers(0, len(seeds_a), (n_resamples, len(seeds_a)))
    picks_b = picker.integers(0, len(seeds_b), (n_resamples, len(seeds_b)))

    def f1(c):
        correct, predicted, gold = c
        return 2 * correct / (predicted + gold)

    def pooled(seeds):
        return f1(sum(s.sum(axis=0) for s in seeds))

    observed = pooled(seeds_a) - pooled(seeds_b)
    deltas = []
    for r in range(n_resamples):
        total_a = np.zeros(3)
        for k in picks_a[r]:
            for i in items[r]:
                total_a += seeds_a[k][i]
        total_b = np.zeros(3)
        for k in picks_b[r]:
            for i in items[r]:
                total_b += seeds_b[k][i]
        deltas.append(f1(total_a) - f1(total_b))
    deltas = np.array(deltas)
    extreme = np.sum(np.abs(deltas - observed) >= abs(observed) - 1e-12 * max(1, abs(observed)))
    low, high = np.quantile(deltas, ((1 - confidence) / 2, (1 + confidence) / 2))
    return observed, (extreme + 1) / (n_resamples + 1), low, high, np.std(deltas, ddof=1)


def test_two_level_bootstrap_matches_the_reference_loop():
    rng = np.random.default_rng(7)
    seeds_a = [_counts(rng, 60, q) for q in (0.90, 0.86, 0.93)]
    seeds_b = [_counts(rng, 60, q) for q in (0.88, 0.89)]
    seeds_b = [np.column_stack([b[:, 0], b[:, 1], seeds_a[0][:, 2]]) for b in seeds_b]
    seeds_b = [np.column_stack([np.minimum(b[:, 0], b[:, 2]), b[:, 1], b[:, 2]]) for b in seeds_b]
    result = seed_bootstrap_test(seeds_a, seeds_b, fscore_statistic(), n_resamples=300, seed=11)
    difference, p_value, low, high, spread = _reference(seeds_a, seeds_b, 300, 11)
    assert result.difference == pytest.approx(difference, abs=1e-12)
    assert result.p_value == pytest.approx(p_value, abs=1e-12)
    assert (result.low, result.high) == pytest.approx((low, high), abs=1e-12)
    assert result.standard_error == pytest.approx(spread, abs=1e-12)
    assert result.test == "two-level bootstrap"


def test_one_seed_is_the_ordinary_paired_bootstrap():
    rng = np.random.default_rng(3)
    a, b = _counts(rng, 80, 0.9), _counts(rng, 80, 0.85)
    b[:, 2] = a[:, 2]
    b[:, 0] = np.minimum(b[:, 0], b[:, 2])
    one = seed_bootstrap_test([a], [b], fscore_statistic(), n_resamples=500, seed=5)
    plain = paired_bootstrap_test(a, b, fscore_statistic(), n_resamples=500, seed=5)
    for key in ("difference", "p_value", "low", "high", "wins", "standard_error"):
        assert getattr(one, key) == getattr(plain, key), key
    assert np.array_equal(one.null, plain.null)


def test_seed_variation_widens_the_interval():
    """Seeds that disagree make the difference less certain than one seed's sentences say."""
    rng = np.random.default_rng(5)
    base = _counts(rng, 100, 0.9)
    other = base.copy()
    other[:, 0] = np.maximum(0, other[:, 0] - rng.integers(0, 2, 100))
    spread_seeds = [base, other, base, other]
    one = seed_bootstrap_test([base], [other], fscore_statistic(), n_resamples=400)
    both = seed_bootstrap_test(spread_seeds, [other], fscore_statistic(), n_resamples=400)
    assert both.standard_error > one.standard_error


def test_seed_bootstrap_refuses_mismatched_seeds():
    with pytest.raises(ValueError, match="same items"):
        seed_bootstrap_test([np.ones((3, 3))], [np.ones((4, 3))], fscore_statistic())
    with pytest.raises(ValueError, match="at least one seed"):
        seed_bootstrap_test([], [np.ones((3, 3))], fscore_statistic())


# ---------------------------------------------------------------------------
# The configuration


def _config(**row):
    return {
        "name": "seeds",
        "corpora": [{"name": "sample"}],
        "segmenters": [{"name": "fmm", "track": "closed"}, row],
    }


def test_a_seeded_row_becomes_one_row_per_seed():
    row = {"name": "crf", "track": "closed", "seeds": [1, 2, 3], "options": {"corpus": "pd1998"}}
    config = parse_config(_config(**row))
    rows = config.segmenters[1:]
    assert [r.label for r in rows] == ["crf@seed1", "crf@seed2", "crf@seed3"]
    assert [r.options["seed"] for r in rows] == [1, 2, 3]
    assert {r.seed_of for r in rows} == {"crf"}
    assert all(r.seeds is None and r.options["corpus"] == "pd1998" for r in rows)
    assert config.segmenters[0].seed_of is None


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"name": "hmm", "seeds": [1, 2]}, "segmenter hmm has no seed option"),
        ({"name": "fmm", "seeds": [1]}, "segmenter fmm has no seed option"),
        ({"name": "crf", "seeds": [1, 1]}, "distinct non-negative integers"),
        ({"name": "crf", "seeds": []}, "distinct non-negative integers"),
        ({"name": "crf", "seeds": "1,2"}, "distinct non-negative integers"),
        ({"name": "crf", "seeds": [1], "options": {"seed": 3}}, "either seeds or options.seed"),
    ],
)
def test_bad_seeds_are_one_clear_error(row, message):
    with pytest.raises(CwsBenchError, match=message) as caught:
        parse_config(_config(**row), source="seeds.toml")
    assert "[[segmenters]] #2" in caught.value.message


# ---------------------------------------------------------------------------
# A bake-off with seeds


ROOT = Path(__file__).resolve().parent.parent
SAMPLE_GOLD = ROOT / "corpora" / "sample" / "gold.txt"


def _seeded_bakeoff(folder: Path, seeds: list[int]) -> Path:
    """A crf trained with ``seeds`` on half the sample, fmm and bmm, scored on the other half."""
    lines = SAMPLE_GOLD.read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "train.txt").write_text("".join(lines[::2]), encoding="utf-8")
    (folder / "test.txt").write_text("".join(lines[1::2]), encoding="utf-8")
    words = sorted({w for line in lines[::2] for w in line.split()})
    (folder / "words.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    models = folder / "models"
    crf = f'{{ corpus = "train.txt", epochs = 2, word_features = false, cache = "{models}" }}'
    config = folder / "seeds.toml"
    config.write_text(
        textwrap.dedent(
            f"""\
            name = "seeds"
            resamples = 200

            [[corpora]]
            label = "half"
            gold = "test.txt"
            dictionary = "words.txt"

            [[segmenters]]
            name = "fmm"
            track = "closed"
            options = {{ lexicon = "words.txt" }}

            [[segmenters]]
            name = "bmm"
            track = "closed"
            options = {{ lexicon = "words.txt" }}

            [[segmenters]]
            name = "crf"
            track = "closed"
            seeds = {json.dumps(seeds)}
            options = {crf}
            """
        ),
        encoding="utf-8",
    )
    return config


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> tuple[Path, BakeoffResult, BakeoffResult]:
    folder = tmp_path_factory.mktemp("seeded")
    config = _seeded_bakeoff(folder, [1, 2, 3])
    first = run_bakeoff(config, output_dir=folder / "out", jobs=1)
    models = sorted((folder / "models").glob("crf-*.npz"))
    stamps = [m.stat().st_mtime_ns for m in models]
    again = run_bakeoff(config, output_dir=folder / "out", jobs=1)
    assert [m.stat().st_mtime_ns for m in models] == stamps  # nothing trained again
    return folder, first, again


def test_one_pair_and_one_cached_model_per_seed(seeded):
    folder, first, again = seeded
    labels = [p.segmenter for p in first.pairs]
    assert labels == ["fmm", "bmm", "crf@seed1", "crf@seed2", "crf@seed3"]
    assert all(p.ok for p in first.pairs)
    assert len(list((folder / "models").glob("crf-*.npz"))) == 3  # one model per seed
    f1 = [p.f1 for p in first.pairs[2:]]
    assert len(set(f1)) > 1  # the seeds change the model
    assert all(p.cached for p in again.pairs)  # the rerun trains and segments nothing
    assert [p.f1 for p in again.pairs[2:]] == f1


def test_the_row_shows_the_distribution_over_seeds(seeded):
    _, result, _ = seeded
    f1 = [p.f1 for p in result.pairs[2:]]
    summary = result.settings["seeds"]["half"]["crf"]
    assert summary["seeds"] == [1, 2, 3]
    assert summary["pairs"] == ["crf@seed1", "crf@seed2", "crf@seed3"]
    assert summary["scores"]["f1"] == {
        "mean": pytest.approx(statistics.fmean(f1), abs=1e-6),
        "sd": pytest.approx(statistics.stdev(f1), abs=1e-6),
        "min": min(f1),
        "max": max(f1),
        "n": 3,
    }
    recall = [p.recall for p in result.pairs[2:]]
    assert summary["scores"]["recall"]["mean"] == pytest.approx(statistics.fmean(recall))
    board = result.leaderboard("half")
    assert sorted(p.segmenter for p in board) == ["bmm", "crf", "fmm"]  # one row, not three
    row = next(p for p in board if p.segmenter == "crf")
    assert row.f1 == pytest.approx(statistics.fmean(f1), abs=1e-6)
    # results.json keeps the per-seed pairs and the summary
    stored = BakeoffResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert stored.settings["seeds"] == result.settings["seeds"]
    assert [p.segmenter for p in stored.leaderboard("half")] == [p.segmenter for p in board]


def test_seeded_rows_are_compared_by_the_two_level_bootstrap(seeded):
    _, result, _ = seeded
    pairs = {(c.a, c.b): c for c in result.comparisons}
    assert set(pairs) == {("fmm", "bmm"), ("fmm", "crf"), ("bmm", "crf")}  # no per-seed pairs
    comparison = pairs["fmm", "crf"]
    assert comparison.adjusted_p_value is not None  # in the closed track's family
    assert len([c for c in result.comparisons if c.adjusted_p_value is not None]) == 3
    # the seeded row's F is the one of its counts summed over the seeds
    runs = result.pairs[2:]
    correct = sum(p.correct_words for p in runs)
    pooled = 2 * correct / sum(p.pred_words + p.gold_words for p in runs)
    assert comparison.difference == pytest.approx(result.pairs[0].f1 - pooled, abs=1e-12)
    assert comparison.interval.low <= comparison.difference <= comparison.interval.high


def test_leaderboard_and_terminal_show_one_row_and_the_spread(seeded):
    folder, result, _ = seeded
    from cws_bench.display.units import Units
    from cws_bench.reports.tables import seed_lines
    from cws_bench.reports.text import render_leaderboard

    f1 = [p.f1 for p in result.pairs[2:]]
    unit = Units("percent")
    line = seed_lines("half", result.settings, unit)[0]
    mean, sd = unit.score(statistics.fmean(f1)), unit.score(statistics.stdev(f1))
    assert line.startswith(f"crf, 3 seeds (1, 2, 3): F {mean} ± {sd} ")
    assert f"({unit.score(min(f1))}–{unit.score(max(f1))})" in line
    markdown = (folder / "out" / "leaderboard.md").read_text(encoding="utf-8")
    text = render_leaderboard(result)
    for shown, cell in ((markdown, "| closed |"), (text, "  closed  ")):
        ranked = [row for row in shown.splitlines() if cell in row]
        assert len(ranked) == 3  # crf once, not once per seed
        assert not any("@seed" in row for row in ranked)
        assert "3 seeds (1, 2, 3): F " in shown
    assert not any(row.startswith("| seeds |") for row in markdown.splitlines())  # not a fact


def test_html_and_latex_show_the_spread_over_seeds(seeded):
    """report.html and leaderboard.tex give the line the Markdown gives: mean ± sd and
    min–max of F, P, R and OOV recall over the seeds."""
    import html as html_module

    folder, result, _ = seeded
    f1 = [p.f1 for p in result.pairs[2:]]
    from cws_bench.display.units import Units

    unit = Units("percent")
    mean, sd = unit.score(statistics.fmean(f1)), unit.score(statistics.stdev(f1))
    low, high = unit.score(min(f1)), unit.score(max(f1))
    page = html_module.unescape((folder / "out" / "report.html").read_text(encoding="utf-8"))
    assert f"crf, 3 seeds (1, 2, 3): F {mean} ± {sd} ({low}–{high}), P " in page
    latex = (folder / "out" / "leaderboard.tex").read_text(encoding="utf-8")
    assert f"crf, 3 seeds (1, 2, 3): F {mean} $\\pm$ {sd} ({low}–{high}), P " in latex


def test_cli_refuses_seeds_on_a_row_without_a_seed_option(tmp_path):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    config = tmp_path / "bad.toml"
    config.write_text(
        'name = "bad"\n[[corpora]]\nname = "sample"\n'
        '[[segmenters]]\nname = "hmm"\ntrack = "closed"\nseeds = [1, 2]\n',
        encoding="utf-8",
    )
    run = CliRunner().invoke(cli, ["bakeoff", str(config), "-o", str(tmp_path / "out")])
    assert run.exit_code == 2, run.output
    assert "[[segmenters]] #1: seeds given, but segmenter hmm has no seed option" in run.output
    assert "Traceback" not in run.output
    assert not (tmp_path / "out").exists()


def test_the_bundled_seeds_bakeoff_has_two_five_seed_rows():
    from cws_bench.run.config import load_config

    config = load_config("seeds")
    seeded = {s.seed_of for s in config.segmenters if s.seed_of}
    assert seeded == {"crf-bmes", "crf-bi"}
    assert [s.options["seed"] for s in config.segmenters if s.seed_of == "crf-bi"] == [
        1,
        2,
        3,
        4,
        5,
    ]
    assert all(s.track == "closed" for s in config.segmenters)


def test_seeds_option_and_selection_of_a_seeded_row(tmp_path):
    from click.testing import CliRunner

    from cws_bench.cli import cli
    from cws_bench.run.config import load_config, with_seeds
    from cws_bench.run.validate import select

    config = with_seeds(load_config("seeds"), [7, 8])
    labels = [s.label for s in config.segmenters]
    assert labels == [
        "fmm",
        "hmm",
        "crf-bmes@seed7",
        "crf-bmes@seed8",
        "crf-bi@seed7",
        "crf-bi@seed8",
    ]
    assert [s.options["seed"] for s in config.segmenters[2:]] == [7, 8, 7, 8]
    chosen = select(config, segmenters=["crf-bi", "fmm"])
    assert [s.label for s in chosen.segmenters] == ["fmm", "crf-bi@seed7", "crf-bi@seed8"]
    plain = parse_config(_config(name="crf", options={"corpus": "pd1998"}))
    assert [s.label for s in with_seeds(plain, [3]).segmenters] == ["fmm", "crf@seed3"]
    with pytest.raises(CwsBenchError, match="no segmenter of the configuration has a seed"):
        with_seeds(load_config("default"), [1, 2])
    bad = CliRunner().invoke(cli, ["bakeoff", "default", "--seeds", "1,x", "-o", str(tmp_path)])
    assert bad.exit_code == 2
    assert "--seeds: give non-negative whole numbers separated by commas" in bad.output


def test_train_seeds_writes_one_model_per_seed(tmp_path):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    lines = SAMPLE_GOLD.read_text(encoding="utf-8").splitlines(keepends=True)
    gold = tmp_path / "train.txt"
    gold.write_text("".join(lines[::2]), encoding="utf-8")
    output = tmp_path / "half.crf.npz"
    args = ["train", "crf", str(gold), "-o", str(output), "-O", "epochs=2"]
    run = CliRunner().invoke(cli, [*args, "-O", "word_features=false", "--seeds", "4,9"])
    assert run.exit_code == 0, run.output
    written = sorted(p.name for p in tmp_path.glob("half.crf*"))
    assert written == ["half.crf.seed4.npz", "half.crf.seed9.npz"]
    first, second = (np.load(tmp_path / name) for name in written)
    assert any(not np.array_equal(first[key], second[key]) for key in first.files)
    hmm = CliRunner().invoke(cli, ["train", "hmm", str(gold), "-o", str(tmp_path / "h.json")])
    assert hmm.exit_code == 0
    bad = CliRunner().invoke(
        cli, ["train", "hmm", str(gold), "-o", str(tmp_path / "h.json"), "--seeds", "1,2"]
    )
    assert bad.exit_code == 2
    assert "--seeds: training hmm draws on no seed" in bad.output


def test_f1_by_corpus_has_one_row_per_seeded_segmenter(seeded):
    from cws_bench.results.model import PairResult

    _, result, _ = seeded
    moved = tuple(
        PairResult(**{**vars_of(p), "corpus": "other"}) for p in result.pairs
    )  # the same rows on a second corpus
    seeds = {**result.settings["seeds"], "other": result.settings["seeds"]["half"]}
    both = BakeoffResult(
        "two", result.config, result.pairs + moved, settings={**result.settings, "seeds": seeds}
    )
    matrix = both.across_corpora()
    assert matrix is not None
    assert sorted(row.segmenter for row in matrix.rows) == ["bmm", "crf", "fmm"]
    crf = next(row for row in matrix.rows if row.segmenter == "crf")
    f1 = statistics.fmean(p.f1 for p in result.pairs[2:])
    assert crf.f1["other"] == pytest.approx(f1, abs=1e-6)


def vars_of(pair):
    return {name: getattr(pair, name) for name in pair.__dataclass_fields__}

"""An organiser's bake-off: a folder of submissions, checked whole before anything runs."""

from __future__ import annotations

import json
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import CorpusSpec, SegmenterSpec, load_config
from cws_bench.run.problems import ConfigurationError
from cws_bench.segmenters import get_segmenter

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"

CONFIG = """
    name = "organiser"
    resamples = 60
    seed = 7
    {settings}

    [[corpora]]
    label = "first"
    gold = "first_gold.txt"
    raw = "first_raw.txt"

    [[corpora]]
    label = "second"
    gold = "second_gold.txt"
    raw = "second_raw.txt"

    [[submissions]]
    folder = "submitted"
    pattern = "{{participant}}/{{corpus}}.txt"

    [[submissions.participants]]
    name = "A"
    track = "closed"
    description = "forward maximum matching"

    [[submissions.participants]]
    name = "B"
    track = "closed"

    [[submissions.participants]]
    name = "C"
    track = {{ first = "closed", second = "open" }}
"""


def segment(name: str, lines: list[str]) -> list[str]:
    segmenter = get_segmenter(name, lexicon=str(SAMPLE_DICT))
    return [" ".join(words) for words in segmenter.segment(lines)]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two corpora cut from the sample, and participants A (fmm), B (bmm), C (bimm)
    with a file for each corpus."""
    gold = (SAMPLE / "gold.txt").read_text(encoding="utf-8").splitlines()
    raw = (SAMPLE / "raw.txt").read_text(encoding="utf-8").splitlines()
    for label, part in (("first", slice(0, 20)), ("second", slice(20, 40))):
        (tmp_path / f"{label}_gold.txt").write_text("\n".join(gold[part]) + "\n", "utf-8")
        (tmp_path / f"{label}_raw.txt").write_text("\n".join(raw[part]) + "\n", "utf-8")
        for participant, name in (("A", "fmm"), ("B", "bmm"), ("C", "bimm")):
            out = tmp_path / "submitted" / participant / f"{label}.txt"
            out.parent.mkdir(parents=True, exist_ok=True)
            lines = segment(name, raw[part])
            if participant == "C":  # bimm agrees with fmm here: C merges two words
                lines[0] = lines[0].replace(" ", "", 1)
            out.write_text("\n".join(lines) + "\n", "utf-8")
    return tmp_path


def write_config(folder: Path, settings: str = "") -> Path:
    path = folder / "bakeoff.toml"
    path.write_text(textwrap.dedent(CONFIG.format(settings=settings)), encoding="utf-8")
    return path


def test_submissions_expand_into_file_rows(folder: Path):
    config = load_config(write_config(folder))
    rows = {s.label: s for s in config.segmenters}
    assert list(rows) == ["A", "B", "C (closed)", "C (open)"]
    assert {s.name for s in rows.values()} == {"file"}
    assert rows["A"].track == "closed" and rows["A"].description == "forward maximum matching"
    assert rows["C (closed)"].corpora == ("first",) and rows["C (open)"].corpora == ("second",)
    assert {s.participant for s in rows.values()} == {"A", "B", "C"}
    second = config.corpora[1]
    assert rows["B"].options_for(second)["path"] == str(folder / "submitted/B/second.txt")
    # {label} is the corpus' label in any option, {corpus} its registered name
    spec = SegmenterSpec("x", "file", options={"path": "{label}/{corpus}.txt"})
    pku = CorpusSpec(label="pku", name="sighan2005-pku")
    assert spec.options_for(pku)["path"] == "pku/sighan2005-pku.txt"


def test_every_bad_file_is_reported_at_once_and_nothing_is_written(folder: Path):
    sub = folder / "submitted"
    (sub / "A" / "second.txt").unlink()  # missing
    lines = (sub / "B" / "first.txt").read_text("utf-8").splitlines()
    (sub / "B" / "first.txt").write_text("\n".join(lines[:-3]) + "\n", "utf-8")  # short
    raw = (folder / "first_raw.txt").read_text("utf-8")
    (sub / "C" / "first.txt").write_text(raw, "utf-8")  # raw text
    (sub / "C" / "second.txt").write_bytes((sub / "A" / "first.txt").read_bytes())  # swapped
    (sub / "B" / "second.txt").write_bytes(
        b"\xff\xfe" + (sub / "B" / "second.txt").read_bytes()
    )  # not UTF-8
    config = write_config(folder)
    with pytest.raises(ConfigurationError) as caught:
        run_bakeoff(config, output_dir=folder / "out", jobs=1)
    found = [str(p) for p in caught.value.problems]
    assert len(found) == 5, found
    text = "\n".join(found)
    assert "participant A: segmented file" in text and "A/second.txt: no such file" in text
    assert "B/first.txt: 17 lines, the input of first has 20" in text
    assert "C/first.txt looks like raw, unsegmented text" in text
    assert "C/second.txt: its text is the input of first, not of second" in text
    assert "B/second.txt:1: byte offset 0: not valid utf-8" in text
    assert not (folder / "out").exists()
    result = CliRunner().invoke(cli, ["bakeoff", str(config), "-o", str(folder / "out")])
    assert result.exit_code == 2
    assert "5 problems, nothing was run" in result.output
    assert not (folder / "out").exists()


def test_a_missing_file_of_a_file_row_is_found_before_the_run(tmp_path: Path):
    config = tmp_path / "bakeoff.toml"
    config.write_text(
        textwrap.dedent(
            f"""
            name = "files"
            [[corpora]]
            name = "sample"
            [[segmenters]]
            name = "file"
            label = "gone"
            options = {{ path = "{tmp_path / "gone.txt"}" }}
            """
        ),
        encoding="utf-8",
    )
    with pytest.raises(ConfigurationError) as caught:
        run_bakeoff(config, output_dir=tmp_path / "out", jobs=1)
    assert "gone.txt: no such file" in str(caught.value.problems[0])
    assert not (tmp_path / "out").exists()


def test_a_line_whose_text_differs_is_scored_and_counted_not_failed(folder: Path):
    path = folder / "submitted" / "B" / "first.txt"
    lines = path.read_text("utf-8").splitlines()
    lines[4] = "这 不是 那 一 行"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    result = run_bakeoff(write_config(folder), output_dir=folder / "out", jobs=1)
    (pair,) = [p for p in result.pairs if (p.corpus, p.segmenter) == ("first", "B")]
    assert pair.status == "ok"
    assert pair.scores["mismatched_lines"] == 1
    assert any("1 line holds different characters" in w for w in pair.warnings)
    assert all(p.status == "ok" for p in result.pairs)
    latex = (folder / "out" / "leaderboard.tex").read_text("utf-8")
    assert "was it produced from this input" not in latex and "pass -O" not in latex


def test_a_failed_pairs_hint_stays_out_of_the_latex(folder: Path):
    # an ordinary file row looks lines up by their text: a differing line fails it
    path = folder / "submitted" / "B" / "first.txt"
    lines = path.read_text("utf-8").splitlines()
    lines[4] = "这 不是 那 一 行"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    config = folder / "files.toml"
    config.write_text(
        textwrap.dedent(
            f"""
            name = "files"
            resamples = 20
            [[corpora]]
            label = "first"
            gold = "first_gold.txt"
            raw = "first_raw.txt"
            [[segmenters]]
            name = "file"
            label = "B"
            options = {{ path = "{path}" }}
            """
        ),
        encoding="utf-8",
    )
    result = run_bakeoff(config, output_dir=folder / "out", jobs=1)
    (pair,) = result.pairs
    assert pair.status == "failed" and "hint:" in (pair.error or "")
    latex = (folder / "out" / "leaderboard.tex").read_text("utf-8")
    assert "segments this input line" in latex
    assert "hint:" not in latex and "adapter must" not in latex
    assert not (folder / "out" / "scorecards").exists()  # no participant, no scorecard


def test_a_late_submission_runs_alone(folder: Path):
    config = write_config(folder)
    text = config.read_text("utf-8")
    early = text.split('[[submissions.participants]]\nname = "C"')[0]
    config.write_text(early, encoding="utf-8")
    first = run_bakeoff(config, output_dir=folder / "out", jobs=1)
    assert {p.segmenter for p in first.pairs} == {"A", "B"}
    config.write_text(text, encoding="utf-8")  # C's files came late
    second = run_bakeoff(config, output_dir=folder / "out", jobs=1)
    cached = {(p.corpus, p.segmenter): p.cached for p in second.pairs}
    assert cached == {
        ("first", "A"): True,
        ("first", "B"): True,
        ("first", "C (closed)"): False,
        ("second", "A"): True,
        ("second", "B"): True,
        ("second", "C (open)"): False,
    }
    # a corrected file is scored again, the others are not
    path = folder / "submitted" / "A" / "first.txt"
    path.write_text(path.read_text("utf-8").replace(" ", "", 1), "utf-8")
    third = run_bakeoff(config, output_dir=folder / "out", jobs=1)
    again = {(p.corpus, p.segmenter) for p in third.pairs if not p.cached}
    assert again == {("first", "A")}


def test_results_record_each_submitted_files_sha256(folder: Path):
    import hashlib

    run_bakeoff(write_config(folder), output_dir=folder / "out", jobs=1)
    data = json.loads((folder / "out" / "results.json").read_text("utf-8"))
    files = {(f["corpus"], f["segmenter"]): f for f in data["settings"]["submissions"]}
    path = folder / "submitted" / "C" / "second.txt"
    entry = files["second", "C (open)"]
    assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert entry["participant"] == "C" and entry["path"] == str(path)
    modified = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    assert entry["modified"] == modified.isoformat(timespec="seconds")
    assert entry["signature"].startswith("cws-bench:")
    assert len(files) == 6
    (pair,) = [p for p in data["pairs"] if (p["corpus"], p["segmenter"]) == ("second", "C (open)")]
    assert pair["segmenter_info"]["sha256"] == entry["sha256"]


def test_one_scorecard_per_participant(folder: Path):
    result = run_bakeoff(write_config(folder), output_dir=folder / "out", jobs=1)
    cards = sorted(p.name for p in (folder / "out" / "scorecards").iterdir())
    assert cards == ["A.md", "B.md", "C.md"]
    ranked = [p.segmenter for p in result.leaderboard("first", "closed")]
    card = (folder / "out" / "scorecards" / "C.md").read_text("utf-8")
    assert card.startswith("# C: scorecard of organiser")
    rank = ranked.index("C (closed)") + 1
    (pair,) = [p for p in result.pairs if (p.corpus, p.segmenter) == ("first", "C (closed)")]
    f1 = f"{100 * pair.scores['f1']:.2f}"
    low, high = 100 * pair.intervals["f1"].low, 100 * pair.intervals["f1"].high
    assert f"| C (closed) | closed | {rank} of {len(ranked)} |" in card
    assert f"| {f1} | \\[{low:.2f}, {high:.2f}\\] |" in card
    assert "Scores are percentages with two decimals" in card
    assert f"SHA-256 `{pair.segmenter_info['sha256']}`" in card
    assert "## second" in card and "| C (open) | open |" in card
    a = (folder / "out" / "scorecards" / "A.md").read_text("utf-8")
    assert "forward maximum matching" in a and "C (open)" not in a


# ---------------------------------------------------------------------------
# The official counting as a setting


def sighan_f(gold: list[str], pred: list[str], tmp: Path) -> float:
    """The SIGHAN script's F of files, by the file scorer (the independent recount)."""
    from cws_bench.scoring import score_files

    (tmp / "g.txt").write_text("\n".join(gold) + "\n", "utf-8")
    (tmp / "p.txt").write_text("\n".join(pred) + "\n", "utf-8")
    return float(score_files(tmp / "g.txt", tmp / "p.txt", method="sighan").f1)


def test_sighan_counting_intervals_and_tests_are_those_of_resampled_files(
    folder: Path, tmp_path: Path
):
    # two lines whose text differs: the script's diff and the interval alignment count
    # the reversed one apart
    path = folder / "submitted" / "B" / "first.txt"
    lines = path.read_text("utf-8").splitlines()
    lines[2] = " ".join(reversed(lines[2].split()))
    lines[7] = lines[7][:-2]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    config = write_config(folder, settings='method = "sighan"')
    result = run_bakeoff(config, output_dir=folder / "out", jobs=1)
    interval = run_bakeoff(write_config(folder), output_dir=folder / "out2", jobs=1)
    gold = (folder / "first_gold.txt").read_text("utf-8").splitlines()
    preds = {
        name: (folder / "submitted" / name / "first.txt").read_text("utf-8").splitlines()
        for name in ("A", "B")
    }
    pairs = {p.segmenter: p for p in result.pairs if p.corpus == "first"}
    other = {p.segmenter: p for p in interval.pairs if p.corpus == "first"}
    assert pairs["B"].scores["f1"] == pytest.approx(sighan_f(gold, preds["B"], tmp_path))
    assert pairs["B"].scores["f1"] != pytest.approx(other["B"].scores["f1"])  # not the same count
    assert pairs["B"].signature.startswith("cws-bench:") and "method:sighan" in pairs["B"].signature
    assert "(sighan counting: the official SIGHAN script's diff" in (
        folder / "out" / "leaderboard.md"
    ).read_text("utf-8")
    # the recount: the same resampled sentence indices, the script's counting run again
    rng = np.random.default_rng(7)
    draws = rng.integers(0, len(gold), (60, len(gold)))
    replicates = {
        name: np.array(
            [sighan_f([gold[i] for i in d], [pred[i] for i in d], tmp_path) for d in draws]
        )
        for name, pred in preds.items()
    }
    for name in ("A", "B"):
        low, high = np.quantile(replicates[name], (0.025, 0.975))
        assert pairs[name].intervals["f1"].low == pytest.approx(low)
        assert pairs[name].intervals["f1"].high == pytest.approx(high)
    (test,) = [c for c in result.comparisons if c.corpus == "first" and {c.a, c.b} == {"A", "B"}]
    sign = 1 if test.a == "A" else -1
    deltas = sign * (replicates["A"] - replicates["B"])
    difference = sign * (pairs["A"].scores["f1"] - pairs["B"].scores["f1"])
    assert test.difference == pytest.approx(difference)
    extreme = np.count_nonzero(np.abs(deltas - difference) >= abs(difference) - 1e-12)
    assert test.p_value == pytest.approx((extreme + 1) / 61)


def test_score_paired_with_the_sighan_method_resamples_its_counts(folder: Path, tmp_path: Path):
    from cws_bench.run.comparison import compare

    gold_path = folder / "first_gold.txt"
    gold = gold_path.read_text("utf-8").splitlines()
    preds = {name: folder / "submitted" / name / "first.txt" for name in ("A", "B")}
    path = preds["B"]
    lines = path.read_text("utf-8").splitlines()
    lines[3] = lines[3].replace(" ", "", 2)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    report = compare(gold_path, preds, method="sighan", resamples=40, seed=3)
    rng = np.random.default_rng(3)
    draws = rng.integers(0, len(gold), (40, len(gold)))
    texts = {n: p.read_text("utf-8").splitlines() for n, p in preds.items()}
    for row in report.rows:
        recount = [
            sighan_f([gold[i] for i in d], [texts[row.name][i] for i in d], tmp_path) for d in draws
        ]
        low, high = np.quantile(recount, (0.025, 0.975))
        assert row.intervals["f1"].low == pytest.approx(low)
        assert row.intervals["f1"].high == pytest.approx(high)
        assert row.result.f1 == pytest.approx(sighan_f(gold, texts[row.name], tmp_path))
    cli = CliRunner().invoke(
        __import__("cws_bench.cli", fromlist=["cli"]).cli,
        [
            "score",
            str(gold_path),
            str(preds["A"]),
            str(preds["B"]),
            "--method",
            "sighan",
            "--paired",
        ],
    )
    assert cli.exit_code == 0, cli.output
    assert "sighan counting" in cli.output and "paired bootstrap tests" in cli.output


def conll18_f(gold: list[str], pred: list[str], tmp: Path) -> float:
    """The CoNLL 2018 evaluation's Words F of segmented files (the independent recount)."""
    from cws_bench.scoring.conll18 import evaluate, load_segmented

    (tmp / "g.txt").write_text("\n".join(gold) + "\n", "utf-8")
    (tmp / "p.txt").write_text("\n".join(pred) + "\n", "utf-8")
    return evaluate(load_segmented(tmp / "g.txt"), load_segmented(tmp / "p.txt")).words.f1


def test_conll18_counting_in_a_bake_off(folder: Path, tmp_path: Path):
    result = run_bakeoff(
        write_config(folder, settings='method = "conll18"'), output_dir=folder / "out", jobs=1
    )
    gold = (folder / "second_gold.txt").read_text("utf-8").splitlines()
    pred = (folder / "submitted" / "B" / "second.txt").read_text("utf-8").splitlines()
    (pair,) = [p for p in result.pairs if (p.corpus, p.segmenter) == ("second", "B")]
    assert pair.scores["f1"] == pytest.approx(conll18_f(gold, pred, tmp_path))
    assert "method:conll18" in pair.signature and pair.scores["method"] == "conll18"
    draws = np.random.default_rng(7).integers(0, len(gold), (60, len(gold)))
    recount = [conll18_f([gold[i] for i in d], [pred[i] for i in d], tmp_path) for d in draws]
    low, high = np.quantile(recount, (0.025, 0.975))
    assert (pair.intervals["f1"].low, pair.intervals["f1"].high) == pytest.approx((low, high))
    # the evaluation scores no text that differs: that participant's pair fails, with its reason
    path = folder / "submitted" / "A" / "first.txt"
    lines = path.read_text("utf-8").splitlines()
    lines[4] = "这 不是 那 一 行"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    again = run_bakeoff(
        write_config(folder, settings='method = "conll18"'), output_dir=folder / "out", jobs=1
    )
    failed = {(p.corpus, p.segmenter): str(p.error) for p in again.pairs if not p.ok}
    assert list(failed) == [("first", "A")]
    assert (
        "line 5: the concatenation of tokens in gold and in system differ" in failed["first", "A"]
    )


def test_a_late_participants_own_run_merges_with_the_first_and_joins_the_files(folder: Path):
    from cws_bench.reports import load_results

    config = write_config(folder)
    text = config.read_text("utf-8")
    head, _, rest = text.partition("[[submissions.participants]]")
    blocks = [
        "[[submissions.participants]]" + b for b in rest.split("[[submissions.participants]]")
    ]
    config.write_text(head + "".join(blocks[:2]), encoding="utf-8")  # A and B on time
    run_bakeoff(config, output_dir=folder / "early", jobs=1)
    late = folder / "late.toml"
    late.write_text(head.replace('"organiser"', '"organiser-late"') + blocks[2], "utf-8")
    run_bakeoff(late, output_dir=folder / "late", jobs=1)  # C alone, later
    merged = load_results([folder / "early", folder / "late"])
    assert {p.segmenter for p in merged.pairs} == {"A", "B", "C (closed)", "C (open)"}
    files = {(f["corpus"], f["segmenter"]) for f in merged.settings["submissions"]}
    assert files == {(c, s) for c in ("first", "second") for s in ("A", "B")} | {
        ("first", "C (closed)"),
        ("second", "C (open)"),
    }
    # the merged table says which row came when: each file's time and the run that scored it
    from cws_bench.reports import render_report

    late_file = folder / "submitted" / "C" / "second.txt"
    modified = datetime.fromtimestamp(late_file.stat().st_mtime, timezone.utc)
    board = render_report(merged, "md")
    (line,) = [
        row for row in board.splitlines() if row.startswith("| submitted C (open) on second")
    ]
    assert f"modified {modified.isoformat(timespec='seconds')}" in line
    assert "scored by run organiser-late" in line

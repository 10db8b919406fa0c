"""One unit policy: every command that prints scores takes --scale and --digits, says its
unit, prints p-values one way, and signs its LaTeX tables and paired comparisons fully."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench import compare, score_files
from cws_bench.cli import cli
from cws_bench.display.units import Units, format_p_value
from cws_bench.regression.diff import diff_files

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_PRED = ROOT / "corpora" / "sample" / "pred.txt"
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


def run(*args: object) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def other_pred(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample prediction with the first two words of every line joined."""
    path = tmp_path_factory.mktemp("units") / "joined.txt"
    lines = SAMPLE_PRED.read_text(encoding="utf-8").splitlines()
    joined = []
    for line in lines:
        words = line.split()
        joined.append(" ".join(["".join(words[:2]), *words[2:]]) if len(words) > 1 else line)
    path.write_text("\n".join(joined) + "\n", encoding="utf-8")
    return path


def test_units_by_hand():
    # 317 correct of 371 predicted words: precision 0.854447...
    value = 317 / 371
    assert Units().score(value) == "85.44"
    assert Units("fraction").score(value) == "0.854"
    assert Units("fraction", 4).score(value) == "0.8544"
    assert Units("percent", 0).score(value) == "85"
    assert Units().label == "scores in %" and Units("fraction").label == "scores as fractions"
    with pytest.raises(ValueError, match="scale"):
        Units("permille")  # type: ignore[arg-type]
    assert [format_p_value(p) for p in (0.0412, 0.000999, 0.001, 1.0)] == [
        "0.041",
        "< 0.001",
        "0.001",
        "1.000",
    ]


def test_score_text_in_fractions_from_the_cli_and_the_api():
    text = run("score", "sample:test", SAMPLE_PRED, "--scale", "fraction", "--digits", "3")
    assert "(interval counting, scores as fractions)" in text.splitlines()[0]
    assert re.search(r"precision\s+0\.854$", text, flags=re.M)
    api = score_files("sample:test", SAMPLE_PRED).render(
        "text", gold="sample:test", pred=str(SAMPLE_PRED), scale="fraction", digits=3
    )
    assert text.rstrip("\n") == api
    default = run("score", "sample:test", SAMPLE_PRED)
    assert re.search(r"precision\s+85\.44$", default, flags=re.M)


def test_p_values_print_one_way_in_score_paired_and_diff(other_pred):
    paired = run("score", "sample:test", SAMPLE_PRED, other_pred, "--paired")
    (line,) = [line for line in paired.splitlines() if " - " in line and "[" in line]
    p_text = re.search(r"p (= [0-9.]+|< 0\.001)", line)
    assert p_text is not None and "p=" not in paired
    report = compare("sample:test", [SAMPLE_PRED, other_pred], confidence=False)
    (comparison,) = report.comparisons
    assert p_text.group(1).removeprefix("= ") == format_p_value(comparison.p_value)
    diff = run("diff", SAMPLE_PRED, other_pred, "--gold", "sample:test")
    result = diff_files(SAMPLE_PRED, other_pred, "sample:test")
    f1_row = next(line for line in diff.splitlines() if line.strip().startswith("F1 "))
    assert f1_row.rstrip().endswith(format_p_value(result.gold.tests["f1"].p_value))


def test_paired_signatures_carry_seed_and_resamples(other_pred):
    text = run("score", "sample:test", SAMPLE_PRED, other_pred, "--paired", "--resamples", "300")
    signature = next(line for line in text.splitlines() if "signature:" in line)
    assert signature.endswith("|seed:2005|resamples:300")
    plain = run("score", "sample:test", SAMPLE_PRED, other_pred)  # no resampling: no seed
    assert "seed:" not in plain and "resamples:" not in plain


def test_the_signature_is_under_score_latex_table(other_pred):
    tex = run("score", "sample:test", SAMPLE_PRED, other_pred, "--paired", "--format", "latex")
    end, caption = tex.index("\\end{tabular}"), tex.index("\\caption")
    signature = tex.index("Signature: \\texttt{cws-bench:")
    assert end < signature < caption
    assert "seed:2005\\textbar{}resamples:1000}" in tex
    assert "word recall, precision and F1 (\\%, interval counting" in tex
    fraction = run("score", "sample:test", SAMPLE_PRED, "--format", "latex", "--scale", "fraction")
    assert "F1 (fractions, interval counting" in fraction and "0.854" in fraction


def test_diff_and_check_take_the_scale(tmp_path, other_pred):
    diff = run("diff", SAMPLE_PRED, other_pred, "--gold", "sample:test", "--scale", "fraction")
    assert "scores as fractions; p:" in diff
    assert re.search(r"precision\s+0\.854\s", diff)
    from cws_bench.regression.baseline_file import save_baseline
    from cws_bench.regression.recording import record_baseline

    path = tmp_path / "baseline.json"
    save_baseline(
        record_baseline("fmm", ["sample"], options={"lexicon": str(SAMPLE_DICT)}, speed_runs=1),
        path,
    )
    percent = run("check", "--baseline", path, "--speed-runs", "1")
    fraction = run("check", "--baseline", path, "--speed-runs", "1", "--scale", "fraction")
    f1 = next(line for line in percent.splitlines() if "F1 stayed" in line)
    f1_fraction = next(line for line in fraction.splitlines() if "F1 stayed" in line)
    value = float(re.search(r"F1 stayed ([0-9.]+)", f1).group(1))
    value_fraction = float(re.search(r"F1 stayed ([0-9.]+)", f1_fraction).group(1))
    assert value_fraction == pytest.approx(value / 100, abs=0.0006)
    assert "(+0.000 as a fraction)" in f1_fraction and "(+0.00 points)" in f1


def test_bakeoff_and_report_take_the_scale_and_sign_leaderboard_tex(tmp_path, sample_bakeoff):
    config = tmp_path / "units.toml"
    config.write_text(sample_bakeoff("units", settings={"resamples": 100}), encoding="utf-8")
    out = tmp_path / "out"
    printed = run("bakeoff", config, "-o", out, "--quiet", "--scale", "percent")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    f1 = {p["segmenter"]: p["scores"]["f1"] for p in results["pairs"]}
    assert f"{100 * f1['fmm']:.2f}" in printed
    assert "Scores are percentages with two decimals (interval counting)" in printed
    markdown = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert f"**{100 * max(f1.values()):.2f}**" in markdown
    # one default for every command and report: percentages with two decimals
    default = run("report", out / "results.json", "--format", "latex")
    assert f"{100 * max(f1.values()):.2f}" in default
    assert "(\\%, interval counting)" in default
    fraction = run("report", out / "results.json", "--format", "latex", "--scale", "fraction")
    assert f"{max(f1.values()):.3f}" in fraction and "(fractions, interval counting)" in fraction
    end, caption = default.index("\\end{tabular}"), default.index("\\caption")
    signature = default.index("Signature (all rows): \\texttt{cws-bench:")
    assert end < signature < caption
    assert "seed:2005\\textbar{}resamples:100" in default
    assert "segmenter" not in default[signature : default.index("\n", signature)]
    digits = run("report", out / "results.json", "--format", "text", "--digits", "4")
    assert f"{100 * f1['fmm']:.4f}" in digits  # percentages, four decimals


def test_metrics_generation_and_ranking_take_the_scale(tmp_path):
    (tmp_path / "p.txt").write_text("今天天气很好\n我们去公园\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("今天天气很好\n我们去公园玩\n", encoding="utf-8")
    args = ("metrics", "generation", "--pred", tmp_path / "p.txt", "--ref", tmp_path / "r.txt")
    args = (*args, "-m", "em")
    # exact match: one line of two
    assert re.search(r"^\s*char\s+50\.00$", run(*args), flags=re.M)
    fraction = run(*args, "--scale", "fraction")
    assert "(scores as fractions)" in fraction and re.search(r"^\s*char\s+0\.500$", fraction, re.M)
    run_file, qrels = tmp_path / "run.trec", tmp_path / "qrels.trec"
    run_file.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n", encoding="utf-8")
    qrels.write_text("q1 0 d2 1\n", encoding="utf-8")
    # the one relevant document at rank 2: reciprocal rank 1/2
    ranking = ("metrics", "ranking", qrels, run_file, "-m", "mrr")
    assert re.search(r"mrr\s+50\.00$", run(*ranking), flags=re.M)
    assert re.search(r"mrr\s+0\.5000$", run(*ranking, "--scale", "fraction", "--digits", "4"), re.M)


def test_score_latex_and_leaderboard_tex_share_one_style_and_one_unit(tmp_path, sample_bakeoff):
    # the same two segmentations, once through `score`, once through a bake-off
    config = tmp_path / "style.toml"
    config.write_text(sample_bakeoff("style", settings={"resamples": 100}), encoding="utf-8")
    out = tmp_path / "out"
    run("bakeoff", config, "-o", out, "--quiet")
    board = (out / "leaderboard.tex").read_text(encoding="utf-8")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    scores = {p["segmenter"]: p["scores"] for p in results["pairs"]}
    fmm, bmm = tmp_path / "fmm.txt", tmp_path / "bmm.txt"
    for name, path in (("fmm", fmm), ("bmm", bmm)):
        run(
            "segment",
            "-s",
            name,
            "-O",
            f"lexicon={SAMPLE_DICT}",
            ROOT / "corpora" / "sample" / "raw.txt",
            "-o",
            path,
        )
    table = run(
        "score",
        "sample:test",
        f"fmm={fmm}",
        f"bmm={bmm}",
        "--dict",
        SAMPLE_DICT,
        "--format",
        "latex",
        "--confidence",
        "--paired",
        "--resamples",
        "100",
    )

    def header(tex: str) -> list[str]:
        line = tex.splitlines()[tex.splitlines().index("\\toprule") + 1]
        return [cell.strip() for cell in line.removesuffix("\\\\").split("&")]

    # one column order: R, P, F, the F interval, R_oov, R_iv (the leaderboard adds chars/s)
    expected = ["R", "P", "F", "F 95\\% CI", "R\\textsubscript{oov}", "R\\textsubscript{iv}"]
    assert header(table)[2:] == expected
    assert header(board)[2:8] == expected
    # one unit, said in both captions, and the same figures
    for tex in (table, board):
        assert "F1 (\\%, interval counting" in tex
        assert f"{100 * scores['fmm']['recall']:.2f}" in tex
        assert f"{100 * scores['fmm']['precision']:.2f}" in tex
    # one superscript style (upright letters), wherever a row beats another
    assert "$^{" not in table.replace("$^{\\mathrm{", "")
    assert "$^{" not in board.replace("$^{\\mathrm{", "")


def test_one_share_formatter_for_counts() -> None:
    """Issue 41, item 4: the share of a count (one decimal and a %) is display.units.share
    wherever it is printed; a score is display.units.percent (two decimals, no sign)."""
    from cws_bench.corpora.overlap import Overlap
    from cws_bench.display.units import percent, share

    assert (share(1, 3), share(2, 3), share(0, 0), share(0, 0, empty="0.0%")) == (
        "33.3%",
        "66.7%",
        "--",
        "0.0%",
    )
    assert (percent(0.123449), percent(0.5), percent(None)) == ("12.34", "50.00", "--")
    assert Overlap(sentences=3, exact=1, normalized=2).describe("the training split") == (
        "1 of 3 test sentences (33.3%) is in the training split; 2 (66.7%) after "
        "normalising width and punctuation"
    )
    assert (
        Overlap(sentences=0, exact=0, normalized=0)
        .describe("x")
        .startswith("0 of 0 test sentences (--) are in x; 0 (--)")
    )


def test_no_module_writes_its_own_percent_formatter() -> None:
    package = Path(__file__).resolve().parent.parent / "cws_bench"
    pattern = re.compile(r"def (\w*percent\w*|_?pct|_share|format_percent)\(")
    found = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    )
    assert found == ["display/units.py"]

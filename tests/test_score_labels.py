"""Multi-system score rows named NAME=PATH, and a LaTeX caption true to its columns."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from cws_bench.cli import cli

ROOT = Path(__file__).resolve().parent.parent
GOLD = str(ROOT / "corpora" / "sample" / "gold.txt")
PRED = str(ROOT / "corpora" / "sample" / "pred.txt")


def rows(output: str) -> list[list[str]]:
    return [line.split() for line in output.splitlines()[2:4]]


def test_name_equals_path_names_the_rows():
    result = CliRunner().invoke(
        cli, ["score", GOLD, f"mine={PRED}", f"perfect={GOLD}", "--resamples", "20"]
    )
    assert result.exit_code == 0, result.output
    assert [row[:2] for row in rows(result.output)] == [["a", "perfect"], ["b", "mine"]]
    # 317 correct of 371 predicted and 414 gold words (the single-file score)
    assert rows(result.output)[1][2:5] == ["85.44", "76.57", "80.76"]


def test_unlabelled_rows_keep_their_file_names_and_a_path_with_equals_stays_a_path(tmp_path):
    odd = tmp_path / "a=b.txt"
    shutil.copy(PRED, odd)
    result = CliRunner().invoke(cli, ["score", GOLD, str(odd), f"gold={GOLD}", "--resamples", "20"])
    assert result.exit_code == 0, result.output
    assert [row[1] for row in rows(result.output)] == ["gold", str(odd)]


def test_a_missing_labelled_file_is_a_usage_error():
    result = CliRunner().invoke(cli, ["score", GOLD, "mine=no-such-file.txt", PRED])
    assert result.exit_code == 2
    assert "'no-such-file.txt' does not exist" in result.output


def test_a_baseline_given_by_path_takes_its_label():
    result = CliRunner().invoke(
        cli,
        ["score", GOLD, f"mine={PRED}", f"gold={GOLD}", "--baseline", GOLD, "--resamples", "20"],
    )
    assert result.exit_code == 0, result.output
    assert "gold - mine" in result.output or "mine - gold" in result.output


def test_the_latex_caption_names_intervals_only_when_a_column_shows_them():
    base = ["score", GOLD, f"mine={PRED}", f"gold={GOLD}", "--format", "latex", "--resamples", "20"]
    paired = CliRunner().invoke(cli, [*base, "--paired"])
    assert paired.exit_code == 0, paired.output
    caption = next(line for line in paired.output.splitlines() if "caption" in line)
    assert "95\\% intervals" not in caption and "95% intervals" not in caption
    both = CliRunner().invoke(cli, [*base, "--paired", "--confidence"])
    caption = next(line for line in both.output.splitlines() if "caption" in line)
    assert "95\\% intervals" in caption

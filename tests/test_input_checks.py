"""A raw-text prediction and swapped gold and prediction are warned about, not silently scored."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.scoring import score_files

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"


def test_a_raw_text_prediction_is_warned_about():
    result = score_files(SAMPLE / "gold.txt", SAMPLE / "raw.txt")
    assert result.f1 == 0.0  # no gold word of several characters is a predicted word
    (warning,) = [w for w in result.warnings if "unsegmented" in w]
    assert warning.startswith(f"{SAMPLE / 'raw.txt'} looks like raw, unsegmented text: 40 of")


def test_a_segmented_prediction_is_not():
    result = score_files(SAMPLE / "gold.txt", SAMPLE / "pred.txt")
    assert not [w for w in result.warnings if "unsegmented" in w or "swapped" in w]


def test_the_command_prints_the_warning_and_still_scores():
    result = CliRunner().invoke(cli, ["score", str(SAMPLE / "gold.txt"), str(SAMPLE / "raw.txt")])
    assert result.exit_code == 0
    assert "warning: " in result.stderr and "looks like raw, unsegmented text" in result.stderr


def test_a_raw_gold_asks_whether_the_files_are_swapped():
    result = score_files(SAMPLE / "raw.txt", SAMPLE / "gold.txt")
    assert any("(the gold) looks like raw" in w and "swapped" in w for w in result.warnings)


def test_files_named_the_other_way_round_are_warned_about(tmp_path):
    gold, pred = tmp_path / "pku_test_gold.txt", tmp_path / "pku_pred.txt"
    shutil.copy(SAMPLE / "gold.txt", gold)
    shutil.copy(SAMPLE / "pred.txt", pred)
    swapped = score_files(pred, gold)
    assert any("named like a prediction" in w for w in swapped.warnings)
    right = score_files(gold, pred)
    assert not any("swapped" in w for w in right.warnings)


# The checks run whatever the gold is: a registered corpus, a file in another format,
# standard input; and whatever the prediction is (standard input too).


def test_a_raw_text_prediction_is_warned_about_against_a_corpus():
    result = score_files("sample:test", SAMPLE / "raw.txt")
    assert any("raw.txt looks like raw, unsegmented text" in w for w in result.warnings)


def test_a_raw_gold_corpus_file_in_another_format_is_checked_too(tmp_path):
    # the sample gold as CoNLL-U (read as sentences), the raw text as the prediction
    conllu = tmp_path / "gold.conllu"
    blocks = []
    for line in (SAMPLE / "gold.txt").read_text(encoding="utf-8").splitlines():
        rows = [f"{i}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_" for i, w in enumerate(line.split(), 1)]
        blocks.append("\n".join(rows) + "\n")
    conllu.write_text("\n".join(blocks), encoding="utf-8")
    result = score_files(conllu, SAMPLE / "raw.txt")
    assert any("looks like raw, unsegmented text" in w for w in result.warnings)


def test_the_command_warns_for_a_corpus_gold_and_for_standard_input():
    raw = (SAMPLE / "raw.txt").read_text(encoding="utf-8")
    gold = (SAMPLE / "gold.txt").read_text(encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["score", "sample:test", str(SAMPLE / "raw.txt")])
    assert result.exit_code == 0 and "looks like raw, unsegmented text" in result.stderr
    result = runner.invoke(cli, ["score", "sample:test", "-"], input=raw)
    assert result.exit_code == 0 and "<stdin> looks like raw, unsegmented text" in result.stderr
    # a raw gold read from standard input: swapped, by its content
    result = runner.invoke(cli, ["score", "-", str(SAMPLE / "gold.txt")], input=raw)
    assert result.exit_code == 0
    assert "(the gold) looks like raw" in result.stderr and "swapped" in result.stderr
    # and a right pair read from standard input is not warned about
    result = runner.invoke(cli, ["score", "sample:test", "-"], input=gold)
    assert "unsegmented" not in result.stderr and "swapped" not in result.stderr


def test_swapped_files_are_caught_by_content_whatever_their_names(tmp_path):
    # names that say nothing: only the content tells that the gold is raw text
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    shutil.copy(SAMPLE / "raw.txt", first)
    shutil.copy(SAMPLE / "gold.txt", second)
    result = score_files(first, second)
    assert any("a.txt (the gold) looks like raw" in w and "swapped" in w for w in result.warnings)


def test_the_sharded_scorer_gives_the_same_warnings():
    from cws_bench.run.executors import LocalExecutor
    from cws_bench.run.sharded import score_sharded

    with LocalExecutor(1, retries=0) as executor:
        for gold, pred in (
            (SAMPLE / "gold.txt", SAMPLE / "raw.txt"),
            (SAMPLE / "raw.txt", SAMPLE / "gold.txt"),
        ):
            sharded = score_sharded(gold, pred, executor=executor, shard_chars=400)
            assert sharded.warnings == score_files(gold, pred).warnings
            assert any("raw" in w for w in sharded.warnings)


def test_the_sharded_scorer_checks_the_lines_the_in_process_one_checks(tmp_path):
    # Three raw predictions for four gold lines, scored with --allow-line-mismatch: the
    # missing prediction is scored as an empty line, and the in-process scorer checks
    # it with the others (3 of 4 lines one word: not raw enough to warn). The sharded
    # scorer used to check only the lines both files have, and warned.
    gold, pred = tmp_path / "gold.txt", tmp_path / "out.txt"
    gold.write_text("我们 是 学生\n他们 是 老师\n你们 好 吗\n今天 天气 好\n", encoding="utf-8")
    pred.write_text("我们是学生\n他们是老师\n你们好吗\n", encoding="utf-8")
    from cws_bench.run.executors import LocalExecutor
    from cws_bench.run.sharded import score_sharded

    in_process = score_files(gold, pred, allow_line_mismatch=True)
    assert not any("raw" in w for w in in_process.warnings)
    with LocalExecutor(1, retries=0) as executor:
        sharded = score_sharded(
            gold, pred, executor=executor, shard_chars=10, allow_line_mismatch=True
        )
    assert sharded.warnings == in_process.warnings
    assert sharded == in_process

"""``cws-bench score`` is one library call, ``cws_bench.run.score.score_predictions``.

The command parses and prints; which scorer runs (one prediction in process or in
shards, several compared, a method that scores whole files through its registered
object) is decided in the library, so the Python API gives what the command prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.scoring import methods as methods_module
from cws_bench.scoring import score_files

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"
CONLLU = "1\tAB\t_\tX\t_\t_\t0\tdep\t_\t_\n2\tC\t_\tX\t_\t_\t0\tdep\t_\t_\n\n"


def test_conll18_is_reached_through_its_registered_method(write):
    # By hand (as tests/test_conll18.py works them): gold AB C, system AB C: all correct.
    gold, pred = write("g.conllu", CONLLU), write("s.txt", "AB C\n")
    result = methods_module.get_method("conll18", line_pairs=False).score_whole_files(gold, pred)
    assert (result.words.correct, result.words.gold, result.words.system) == (2, 2, 2)
    from cws_bench.run.score import score_predictions

    scored = score_predictions(str(gold), [(None, str(pred))], method="conll18", fmt="json")
    command = CliRunner().invoke(
        cli, ["score", str(gold), str(pred), "--method", "conll18", "--format", "json"]
    )
    assert command.exit_code == 0, command.output
    assert json.loads(command.stdout) == json.loads(scored.render("json")) == result.to_dict()


@dataclass(frozen=True)
class _Lines:
    """A toy result of a whole-file method: the two files' line counts."""

    gold: int
    pred: int

    def render(self, fmt: str = "text") -> str:
        return f"{self.gold} {self.pred}"


class _LinesMethod(methods_module.CountingMethod):
    name = "lines"
    description = "the two files' line counts"
    counts_line_pairs = False

    def score_whole_files(self, gold, pred, **settings):  # type: ignore[no-untyped-def]
        count = [len(Path(path).read_text(encoding="utf-8").splitlines()) for path in (gold, pred)]
        return _Lines(*count)


def test_a_registered_whole_file_method_needs_no_special_case(write, monkeypatch):
    from cws_bench.run.score import score_predictions

    monkeypatch.setitem(methods_module._REGISTRY, "lines", _LinesMethod())
    gold, pred = write("g.txt", "a b\nc\nd\n"), write("p.txt", "ab\ncd\n")
    assert score_predictions(str(gold), [(None, str(pred))], method="lines").render("text") == "3 2"
    with pytest.raises(CwsBenchError, match="the lines method scores one prediction"):
        score_predictions(str(gold), [(None, str(pred)), (None, str(gold))], method="lines")


def test_the_library_decides_one_prediction_or_a_comparison():
    from cws_bench.run.score import score_predictions

    gold, pred = str(SAMPLE / "gold.txt"), str(SAMPLE / "pred.txt")
    one = score_predictions(gold, [(None, pred)])
    assert one.result == score_files(gold, pred)
    table = score_predictions(gold, [("mine", pred)], fmt="markdown", resamples=10)
    assert table.result is None and "mine" in table.render("markdown")
    with pytest.raises(CwsBenchError, match="per_line applies to one prediction") as info:
        score_predictions(gold, [(None, pred), (None, gold)], per_line=True)
    assert info.value.hint == "leave out per_line=..."
    # The command names its own flag for it.
    command = CliRunner().invoke(cli, ["score", gold, pred, gold, "--details", "d.csv"])
    assert command.exit_code == 2 and "leave out --details" in command.stderr


def test_sharded_scoring_is_the_same_call_with_an_executor():
    from cws_bench.run.executors import LocalExecutor
    from cws_bench.run.score import score_predictions

    gold, pred = str(SAMPLE / "gold.txt"), str(SAMPLE / "raw.txt")
    with LocalExecutor(1, retries=0) as executor:
        sharded = score_predictions(gold, [(None, pred)], executor=executor, shard_chars=300)
    assert sharded.result == score_files(gold, pred)
    assert any("raw" in warning for warning in sharded.warnings("text"))


def test_the_comparison_settings_reach_compare():
    from cws_bench.run.score import score_predictions

    gold, pred = str(SAMPLE / "gold.txt"), str(SAMPLE / "pred.txt")
    scored = score_predictions(
        gold, [(None, pred), (None, gold)], paired=True, correction="bonferroni", resamples=10
    )
    assert scored.compared and scored.output.correction == "bonferroni"

"""One way for a result to render itself and one unknown-format error (issue 41, item 5)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora.stats import STATISTICS_FORMATS, CorpusStatistics, render_corpus_list
from cws_bench.display.formats import Renderable, render_in
from cws_bench.errors import CwsBenchError, UnknownFormatError
from cws_bench.metrics.classification import ClassificationReport
from cws_bench.metrics.impurity import SplitCriteria
from cws_bench.metrics.ranking import RankingReport
from cws_bench.metrics.throughput import ServingMetrics
from cws_bench.run.comparison import ComparisonReport
from cws_bench.scoring import RESULT_FORMATS, ScoreResult, score_sentences
from cws_bench.scoring.conll18 import FORMATS as CONLL18_FORMATS
from cws_bench.segmenters.as_tokenizers import TokenizerComparison
from cws_bench.segmenters.registry import render_segmenters

ROOT = Path(__file__).resolve().parent.parent
RESULTS = [
    ScoreResult,
    ComparisonReport,
    RankingReport,
    TokenizerComparison,
    CorpusStatistics,
    ClassificationReport,
    SplitCriteria,
    ServingMetrics,
]


@pytest.mark.parametrize("cls", RESULTS, ids=lambda cls: cls.__name__)
def test_an_unknown_format_names_the_formats_the_result_has(cls: Any) -> None:
    bare: Any = object.__new__(cls)  # the format is checked before anything is rendered
    with pytest.raises(UnknownFormatError) as raised:
        bare.render("xml")
    error = raised.value
    assert isinstance(error, CwsBenchError) and isinstance(error, ValueError)
    assert error.known == cls.FORMATS
    assert str(error) == f"unknown format 'xml'\n  hint: use one of: {', '.join(cls.FORMATS)}"
    if issubclass(cls, Renderable):
        assert all(callable(getattr(cls, f"to_{name}")) for name in cls.FORMATS)


def test_the_functions_with_their_own_table_raise_the_same_error() -> None:
    for render, known in [
        (lambda: render_segmenters([], "xml"), ("text", "json")),
        (lambda: render_corpus_list([], "xml"), STATISTICS_FORMATS),
    ]:
        with pytest.raises(UnknownFormatError) as raised:
            render()
        assert raised.value.known == known


def test_input_formats_name_what_they_are() -> None:
    from cws_bench.corpora import read_corpus
    from cws_bench.reports import render_report
    from cws_bench.scoring.inputs import gold_sentences

    cases = [
        (lambda: read_corpus(ROOT / "corpora/sample/gold.txt", format="xml"), "corpus format"),
        (lambda: gold_sentences("g.txt", "xml", "utf-8", None), "gold format"),
        (lambda: render_report(object(), "xml"), "report format"),  # type: ignore[arg-type]
    ]
    for call, what in cases:
        with pytest.raises(UnknownFormatError, match=f"^unknown {what} 'xml'\n  hint: use one of"):
            call()


def test_options_go_to_the_formats_that_take_them() -> None:
    result = score_sentences([["结婚", "的"]], [["结婚", "的"]])
    assert result.render("json", gold="g", pred="p", digits=1) == result.to_json()
    assert result.render("text", gold="g", digits=1) == result.to_text(gold="g", digits=1)

    def a(x: int, *, y: int = 0) -> str:
        return f"{x}{y}"

    def b(x: int, **rest: int) -> str:
        return f"{x}{sorted(rest)}"

    table: dict[str, Callable[..., str]] = {"a": a, "b": b}
    assert render_in("a", table, 1, y=2, z=3) == "12"
    assert render_in("b", table, 1, y=2) == "1['y']"


def _choices(*args: str) -> list[str]:
    """The --format choices a command's --help lists."""
    text = CliRunner().invoke(cli, [*args, "--help"]).output
    found = re.search(r"--format \[([^\]]+)\]", text.replace("\n", " ").replace("  ", " "))
    assert found, text
    return [choice.strip() for choice in found.group(1).split("|")]


def test_the_command_lines_choices_are_the_results_formats() -> None:
    from cws_bench.run.comparison import REPORT_FORMATS

    assert _choices("score") == list(dict.fromkeys([*RESULT_FORMATS, *REPORT_FORMATS]))
    results: dict[str, Any] = {
        "classification": ClassificationReport,
        "ranking": RankingReport,
        "impurity": SplitCriteria,
        "throughput": ServingMetrics,
    }
    for command, cls in results.items():
        assert _choices("metrics", command) == list(cls.FORMATS), command
    assert _choices("corpora", "info") == list(STATISTICS_FORMATS)
    assert set(_choices("segmenters")) == {"text", "json"}
    for fmt in _choices("segmenters"):
        render_segmenters([], fmt)
    assert list(CONLL18_FORMATS) == ["text", "json"]


def test_no_module_writes_its_own_unknown_format_message() -> None:
    pattern = re.compile(r"unknown (\{|[a-z ]*format)|choose from text")
    package = ROOT / "cws_bench"
    found = [
        f"{path.relative_to(package)}:{number}"
        for path in package.rglob("*.py")
        if path.name not in ("errors.py", "formats.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line) and "raise" in line
    ]
    assert found == []


def test_the_regression_commands_choices_are_their_tables() -> None:
    from cws_bench.cli import regression as cli_regression
    from cws_bench.regression import render

    assert cli_regression.DIFF_FORMATS == render.DIFF_FORMATS == tuple(_choices("diff"))
    assert cli_regression.CHECK_FORMATS == render.CHECK_FORMATS == tuple(_choices("check"))
    with pytest.raises(UnknownFormatError, match="use one of: text, json, junit"):
        render.render_check(object(), "xml")  # type: ignore[arg-type]

"""Tests of cws_bench/scoring/methods.py: the counting methods as registered objects."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cws_bench import scoring
from cws_bench.errors import CwsBenchError
from cws_bench.scoring import score_files, score_sentences
from cws_bench.scoring.methods import (
    CountingMethod,
    IntervalMethod,
    get_method,
    line_methods,
    methods,
    register_method,
)
from cws_bench.scoring.sighan import SighanCounts

PACKAGE = Path(scoring.__file__).resolve().parent.parent


def test_the_registry_names_every_method_once():
    assert [m.name for m in methods()] == ["interval", "sighan", "conll18"]
    assert line_methods() == ("interval", "sighan") == scoring.METHODS
    assert all(get_method(m.name, line_pairs=False) is m for m in methods())


def test_an_unknown_method_is_refused_with_the_names_to_use():
    with pytest.raises(CwsBenchError, match="unknown scoring method 'lcs'") as info:
        get_method("lcs")
    assert info.value.hint == "use one of: interval, sighan"
    with pytest.raises(CwsBenchError, match="unknown scoring method 'lcs'"):
        score_sentences([["我"]], [["我"]], method="lcs")  # type: ignore[arg-type]


def test_a_whole_file_method_is_refused_by_the_line_scorers():
    with pytest.raises(CwsBenchError, match="conll18 method scores whole files") as info:
        score_sentences([["我"]], [["我"]], method="conll18")  # type: ignore[arg-type]
    assert "cws_bench.scoring.conll18.evaluate_files" in info.value.hint


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="already registered"):
        register_method(IntervalMethod())


def test_each_method_carries_its_quirks():
    interval, sighan = get_method("interval"), get_method("sighan")
    assert (interval.keeps_byte_order_mark, sighan.keeps_byte_order_mark) == (False, True)
    assert interval.scores_missing_predictions and not sighan.scores_missing_predictions
    assert interval.resamples_sentences and sighan.resamples_sentences  # per-line counts
    assert get_method("conll18", line_pairs=False).has_sentence_rows  # in a bake-off
    assert interval.zero() is None and sighan.zero() == SighanCounts()
    assert not get_method("conll18", line_pairs=False).counts_line_pairs


def test_the_sighan_method_glues_the_marks_to_the_first_line_only():
    sighan = get_method("sighan")
    lines = (["哈 哈哈", "我们 是"], ["哈 哈哈", "我们 是"])
    plain = sighan.count_lines(*lines, None)
    assert (plain.matched, plain.substitutions) == (4, 0)
    marked = sighan.count_lines(*lines, None, ("\ufeff", ""))
    # "\ufeff哈" is another word than "哈": one substitution on the first line.
    assert (marked.matched, marked.substitutions) == (3, 1)


def test_byte_order_marks_are_read_only_where_the_method_keeps_them(write):
    gold = write("gold.txt", "\ufeff哈 哈哈\n")
    pred = write("pred.txt", "哈 哈哈\n")
    assert get_method("sighan").byte_order_marks(gold, pred, "utf-8", "utf-8") == ("\ufeff", "")
    assert get_method("sighan").byte_order_marks(None, pred, "utf-8", "utf-8") == ("", "")
    assert get_method("sighan").byte_order_marks(gold, pred, "gb18030", "utf-8") == ("", "")
    assert get_method("interval").byte_order_marks(gold, pred, "utf-8", "utf-8") == ("", "")
    # ... and so counted: the interval method drops the mark, the sighan method keeps it.
    assert score_files(gold, pred).f1 == 1.0
    assert score_files(gold, pred, method="sighan").sighan.matched == 1


def test_a_result_reads_its_words_and_fields_through_its_method(write):
    gold = write("gold.txt", "我们 是 学生\n")
    pred = write("pred.txt", "我们 是学生\n")
    interval = score_files(gold, pred)
    sighan = score_files(gold, pred, method="sighan")
    assert (interval.gold_words, interval.pred_words, interval.correct_words) == (3, 2, 1)
    assert (sighan.gold_words, sighan.pred_words, sighan.correct_words) == (3, 2, 1)
    assert "substitutions" not in interval.to_dict()
    fields = {k: sighan.to_dict()[k] for k in ("insertions", "deletions", "substitutions")}
    assert fields == {"insertions": 0, "deletions": 1, "substitutions": 1}
    # Boundary figures are the interval ones under both methods.
    assert sighan.boundary_f1 == interval.boundary_f1


def test_the_sighan_summary_block_is_the_methods(write):
    gold = write("gold.txt", "我们 是 学生\n")
    pred = write("pred.txt", "我们 是学生\n")
    result = score_files(gold, pred, method="sighan")
    block = get_method("sighan").summary_block(result.sighan, "pred.txt", has_dictionary=False)
    # insertions, deletions, substitutions, changes, gold, predicted, R, P, F, OOV figures
    numbers = ["0", "1", "1", "2", "3", "2", "0.333", "0.500", "0.400", "--", "--", "--"]
    assert block.splitlines()[-1] == "\t".join(["###", "pred.txt", *numbers])


def _method_name_comparisons(path: Path) -> list[str]:
    """Comparisons of something named ``method`` with a registered method's name."""
    names = {m.name for m in methods()}
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        named = any(
            (isinstance(s, ast.Name) and s.id == "method")
            or (isinstance(s, ast.Attribute) and s.attr == "method")
            for s in sides
        )
        constant = any(isinstance(s, ast.Constant) and s.value in names for s in sides)
        if named and constant:
            found.append(f"{path.name}:{node.lineno}")
    return found


SCORERS = [
    *sorted(str(path.relative_to(PACKAGE)) for path in (PACKAGE / "scoring").glob("*.py")),
    "run/sharded.py",
    "run/comparison.py",
]


@pytest.mark.parametrize("module", [name for name in SCORERS if "methods" not in name])
def test_the_scorers_ask_the_registry_instead_of_comparing_names(module):
    assert _method_name_comparisons(PACKAGE / module) == []


def test_the_name_check_finds_a_comparison(tmp_path):
    path = tmp_path / "x.py"
    path.write_text('if method == "sighan":\n    pass\nif self.method != "interval":\n    pass\n')
    assert _method_name_comparisons(path) == ["x.py:1", "x.py:3"]


def test_a_counting_method_subclass_needs_only_its_name():
    class Plain(CountingMethod):
        name = "plain"
        description = "test"

    plain = Plain()
    assert plain.zero() is None and plain.count_lines(["a"], ["a"], None) is None
    assert repr(plain) == "<counting method 'plain'>"

"""Messages count things in the right number: "1 empty gold line skipped", not "1 ... lines"
(issue 46), through one helper, :func:`cws_bench.display.units.plural`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cws_bench.display.units import plural
from cws_bench.errors import LineCountMismatchError
from cws_bench.results.model import BakeoffResult, PairResult
from cws_bench.scoring import score_sentences

PACKAGE = Path(__file__).resolve().parents[1] / "cws_bench"


@pytest.mark.parametrize(
    ("count", "noun", "plural_form", "expected"),
    [
        (0, "line", None, "0 lines"),
        (1, "line", None, "1 line"),
        (2, "line", None, "2 lines"),
        (1944, "sentence", None, "1,944 sentences"),
        (1, "corpus", "corpora", "1 corpus"),
        (3, "corpus", "corpora", "3 corpora"),
        (None, "word", None, "— words"),
    ],
)
def test_plural(count, noun, plural_form, expected):
    assert plural(count, noun, plural_form) == expected


def test_one_empty_gold_line_is_one_line_in_the_text_and_the_warning():
    # one empty gold line where the prediction has words (line 1), one scored line
    result = score_sentences([[], ["我们"]], [["多", "余"], ["我们"]])
    assert result.counts.skipped_lines == 1
    assert "  sentences: 1 scored, 1 empty gold line skipped, 0 with differing text" in (
        result.to_text().splitlines()
    )
    (warning,) = [w for w in result.warnings if "empty gold" in w]
    assert warning.startswith("1 empty gold line where the prediction has words, skipped")
    # two of them: plural again
    two = score_sentences([[], [], ["我们"]], [["多"], ["余"], ["我们"]])
    assert "2 empty gold lines skipped" in two.to_text()


def test_one_line_of_a_file_is_one_line():
    error = LineCountMismatchError("gold.txt", 1, "pred.txt", 2)
    assert error.message.startswith("gold.txt has 1 line but pred.txt has 2")


def test_the_result_repr_counts_in_the_right_number():
    pair = PairResult("sample", "fmm", "fmm", "closed", "ok", scores={"f1": 0.9})
    text = repr(BakeoffResult("one", {}, (pair,)))
    assert "1 segmenter × 1 corpus, 1 pair;" in text


# "{n} line(s)", "{n} pair(s)": a count followed by a noun with "(s)" is what the helper replaces
_HEDGED = re.compile(r"\{[^{}]+\}[ \w-]{0,30}?\w\(s\)")


def test_no_message_hedges_its_plural_with_parenthesised_s():
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _HEDGED.search(line)
    ]
    assert not found, "count with plural() instead:\n" + "\n".join(found)

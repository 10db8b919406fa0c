"""Inputs that look wrong before their scores say so: a prediction that is raw text,
gold and prediction given the other way round.

The scorer scores whatever it is given; these checks look at the first lines
(:data:`SAMPLE_LINES`) of the two sides and return warnings the result
carries (the command line prints them). Nothing here changes a number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import islice

from cws_bench.display.units import plural

__all__ = ["SAMPLE_LINES", "input_warnings", "names_look_swapped"]

SAMPLE_LINES = 2000
"""Lines of each side looked at."""
MIN_LINES = 3
"""Lines with several words needed before a side is called unsegmented."""
SHARE = 0.9
"""Share of those lines that must be one word for a side to look unsegmented."""

_PRED_NAMES = {"pred", "preds", "prediction", "predictions", "out", "output", "system", "hyp"}
_GOLD_NAMES = {"gold", "ref", "refs", "reference", "references", "truth"}


def _unsegmented(sides: Iterable[tuple[str, str]]) -> tuple[int, int]:
    """(lines where the first side has several words, those where the second has one)."""
    several = single = 0
    for this, other in sides:
        if len(this.split()) > 1:
            several += 1
            single += len(other.split()) == 1
    return several, single


def _looks_unsegmented(several: int, single: int) -> bool:
    return several >= MIN_LINES and single >= SHARE * several


def names_look_swapped(gold_name: str, pred_name: str) -> bool:
    """Whether the file names say prediction for GOLD and gold for PRED.

    >>> names_look_swapped("out/pku_pred.txt", "data/pku_test_gold.utf8")
    True
    >>> names_look_swapped("pku_test_gold.utf8", "pku_pred.txt")
    False
    """

    def words(name: str) -> set[str]:
        stem = re.split(r"[\\/]", name)[-1]
        return {w.lower() for w in re.split(r"[^A-Za-z]+", stem) if w}

    gold, pred = words(gold_name), words(pred_name)
    return bool(gold & _PRED_NAMES) and bool(pred & _GOLD_NAMES) and not gold & _GOLD_NAMES


def input_warnings(
    gold_lines: Iterable[str], pred_lines: Iterable[str], gold_name: str, pred_name: str
) -> list[str]:
    """Warnings about the inputs: a raw-text prediction, a raw-text gold, swapped names.

    ``gold_lines`` and ``pred_lines`` are the two sides' lines, words separated
    by whitespace; only the first :data:`SAMPLE_LINES` are read.

    >>> input_warnings(["我们 是 学生"] * 3, ["我们是学生"] * 3, "gold.txt", "out.txt")[0][:44]
    'out.txt looks like raw, unsegmented text: 3 '
    """
    pairs = list(islice(zip(gold_lines, pred_lines), SAMPLE_LINES))
    warnings = []
    several, single = _unsegmented(pairs)
    if _looks_unsegmented(several, single):
        warnings.append(
            f"{pred_name} looks like raw, unsegmented text: {single} of the "
            f"{plural(several, 'line')} where the gold has several words are one word in it "
            f"(read among the first {plural(len(pairs), 'line')}); segment it first "
            "(e.g. with cws-bench segment)"
        )
    several, single = _unsegmented((pred, gold) for gold, pred in pairs)
    if _looks_unsegmented(several, single):
        warnings.append(
            f"{gold_name} (the gold) looks like raw, unsegmented text: {single} of the "
            f"{plural(several, 'line')} where the prediction has several words are one word in it; "
            "are the gold and the prediction swapped? The gold comes first"
        )
    elif names_look_swapped(gold_name, pred_name):
        warnings.append(
            f"the gold {gold_name} is named like a prediction and the prediction {pred_name} "
            "like a gold standard: are they swapped? The gold comes first"
        )
    return warnings

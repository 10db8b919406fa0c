"""A small experiment every regression test can rerun: fmm over a word list, on a gold file.

With the first word list fmm reproduces the gold exactly; adding 研究人员 makes
it merge 研究 人员 (2 of the 4 gold words of line 1 lost): P 5/6, R 5/7, F1 10/13.
"""

from __future__ import annotations

from pathlib import Path

import pytest

GOLD = "研究 人员 发现 问题\n今天 上午 下雨\n"
WORDS = "研究\n人员\n发现\n问题\n今天\n上午\n下雨\n"
MORE_WORDS = WORDS + "研究人员\n"


class Experiment:
    """A folder with gold.txt and words.txt, and helpers to record and rerun on them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.gold = folder / "gold.txt"
        self.words = folder / "words.txt"
        self.gold.write_text(GOLD, encoding="utf-8")
        self.words.write_text(WORDS, encoding="utf-8")

    def add_word(self) -> None:
        self.words.write_text(MORE_WORDS, encoding="utf-8")

    def record(self, **kwargs):
        from cws_bench.regression.recording import record_baseline

        kwargs.setdefault("speed_runs", 1)
        kwargs.setdefault("min_run_seconds", 0.0)
        return record_baseline(
            "fmm", [str(self.gold)], options={"lexicon": str(self.words)}, **kwargs
        )


@pytest.fixture
def experiment(tmp_path: Path) -> Experiment:
    return Experiment(tmp_path)


@pytest.fixture
def experiment_texts() -> dict[str, str]:
    """The experiment's files as text: gold, words, and the words with 研究人员 added."""
    return {"gold": GOLD, "words": WORDS, "more_words": MORE_WORDS}

"""rjieba (https://github.com/messense/rjieba-py): jieba-rs, the Rust port of jieba."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.text.dictionary import parse_dictionary_line
from cws_bench.text.io import iter_lines

__all__ = ["RJiebaSegmenter"]


def _user_words(path: str | os.PathLike[str]) -> list[tuple[str, int | None, str | None]]:
    """``(word, freq, tag)`` of each line of a jieba user dictionary."""
    entries = []
    for line in iter_lines(path):
        word = parse_dictionary_line(line)
        if word is None:
            continue
        rest = line.strip().lstrip("\ufeff").strip()[len(word) :].split()
        freq = int(rest[0]) if rest and rest[0].isdigit() else None
        tag = rest[-1] if rest and not rest[-1].isdigit() else None
        entries.append((word, freq, tag))
    return entries


class RJiebaSegmenter(Segmenter):
    """jieba-rs through rjieba: jieba's algorithm and dictionary, compiled."""

    name = "rjieba"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "rjieba: jieba-rs, the Rust port of jieba (default mode)"
    requires = ("rjieba",)
    distribution = "rjieba"
    install = "pip install 'cws-bench[rjieba]'"

    @dataclass(frozen=True)
    class Options:
        hmm: bool = option(True, "let the HMM join characters the dictionary lacks")
        user_dict: str | None = option(
            None, "a jieba user dictionary (word [freq] [tag] a line)", file="user dictionary"
        )

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import rjieba

        self.hmm = self.opts.hmm
        self.tokenizer = rjieba.Jieba()
        if self.opts.user_dict is not None:
            for word, freq, tag in _user_words(self.opts.user_dict):
                self.tokenizer.add_word(word, freq, tag)
        self.trained_on = TrainingData("jieba-rs' bundled dictionary")

    def _segment(self, lines: list[str]) -> list[list[str]]:
        cut = self.tokenizer.cut
        hmm = self.hmm
        return [cut(line, hmm) for line in lines]

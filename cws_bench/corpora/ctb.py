"""``ctb6``: the Penn Chinese Treebank 6.0 in its standard segmentation split, user-supplied.

CTB6 (LDC2007T36) is licensed by the Linguistic Data Consortium, so
cws-bench can neither ship nor download it. A user with a licence points the
tool at the standard split files (the split of Yang and Xue 2012, used by the
multi-criteria CWS work: ``ctb6.train.seg``, ``ctb6.dev.seg``,
``ctb6.test.seg``, one sentence a line, words separated by spaces) with
``--data-dir`` or ``$CWS_BENCH_CTB6``; the folder may hold them directly or in
``ctb/`` or ``ctb6/``. Files named ``train.txt``, ``dev.txt`` and
``test.txt`` are accepted too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from cws_bench.corpora.base import Availability, Corpus, environment_data_dir, unavailable
from cws_bench.corpora.readers import read_plain
from cws_bench.text.io import PathLike

__all__ = ["CTB6", "DATA_VARIABLE"]

DATA_VARIABLE = "CWS_BENCH_CTB6"
CATALOGUE = "https://catalog.ldc.upenn.edu/LDC2007T36"
_NAMES = ("ctb6.{split}.seg", "{split}.txt")


class CTB6(Corpus):
    """The Penn Chinese Treebank 6.0 segmentation split (see the module's documentation).

    Args:
        data_dir: the folder with the split files (default ``$CWS_BENCH_CTB6``).
    """

    name = "ctb6"
    title = "Penn Chinese Treebank 6.0 (CTB6), standard segmentation split"
    splits = ("train", "dev", "test")
    script = "Simplified"
    domain = "news, magazines, broadcast"
    standard = "CTB (Penn Chinese Treebank) segmentation guidelines (Xia 2000)"
    licence = "LDC licence (LDC2007T36): not redistributable; bring your own copy"
    citation = (
        "Xue, N., Xia, F., Chiou, F.-D. and Palmer, M. (2005). The Penn Chinese TreeBank: "
        "Phrase structure annotation of a large corpus. Natural Language Engineering 11(2)."
    )
    source = CATALOGUE
    note = "User-supplied only: the LDC licence forbids cws-bench to ship or download it."
    dictionary_split = "train"
    external_data = True

    def __init__(self, data_dir: PathLike | None = None) -> None:
        if data_dir is None:
            data_dir = environment_data_dir(DATA_VARIABLE)
        self.data_dir = Path(data_dir).expanduser() if data_dir is not None else None

    def _file(self, split: str) -> Path | None:
        if self.data_dir is None:
            return None
        for folder in (self.data_dir, self.data_dir / "ctb", self.data_dir / "ctb6"):
            for pattern in _NAMES:
                path = folder / pattern.format(split=split)
                if path.is_file():
                    return path
        return None

    def _how_to_get(self) -> str:
        return (
            f"CTB6 is licensed by the LDC: get it from {CATALOGUE}, make the standard split "
            "files ctb6.train.seg, ctb6.dev.seg, ctb6.test.seg (one sentence a line, words "
            f"separated by spaces) and pass their folder with {{0}} or {DATA_VARIABLE}"
        )

    def availability(self) -> Availability:
        files = {split: self._file(split) for split in self.splits}
        splits = tuple(split for split, path in files.items() if path is not None)
        if not splits:
            return self.missing(self._how_to_get())
        location = str(next(path for path in files.values() if path is not None).parent)
        how = None if len(splits) == len(self.splits) else self._how_to_get()
        return Availability(True, location, how, splits)

    def _sentences(self, split: str) -> Iterator[list[str]]:
        path = self._file(split)
        if path is None:  # pragma: no cover - check_split saw it a moment ago
            raise unavailable(f"corpus {self.name}: no {split} file", self._how_to_get())
        return read_plain(path)

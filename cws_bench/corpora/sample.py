"""``sample``: the project's own small corpus, written for cws-bench.

Forty sentences segmented by hand in the PKU conventions (``corpora/sample/``):
``gold.txt`` (gold words), ``raw.txt`` (the same text unsegmented) and
``pred.txt`` (jieba 0.42.1's default-mode output on ``raw.txt``, a ready-made
prediction for demos). Its dictionary is ``dictionaries/sample.txt``, built so
that the sample has OOV words and maximum-matching traps (dictionaries/README.md).

The files live once, in ``corpora/sample/`` and ``dictionaries/`` of the
source tree. A built wheel carries copies under ``cws_bench/_data/`` (setup.py
copies them at build time), so the corpus also works from an installed
package; a checkout or editable install reads the source tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from cws_bench.corpora.base import Availability, Corpus
from cws_bench.errors import CorpusUnavailableError
from cws_bench.text.dictionary import Dictionary, load_dictionary
from cws_bench.text.io import iter_lines, read_segmented

__all__ = ["SampleCorpus", "project_file"]

# The source tree: cws_bench/corpora/sample.py -> the project root.
_CHECKOUT = Path(__file__).resolve().parent.parent.parent
# where each shipped folder is in the source tree
_SOURCE_FOLDERS = {
    "sample": _CHECKOUT / "corpora" / "sample",
    "dictionaries": _CHECKOUT / "dictionaries",
}


def project_file(folder: str, name: str) -> Path:
    """A data file the project ships: ``project_file("sample", "gold.txt")``.

    Looks in the installed package's ``_data/<folder>/`` first, then in the
    source tree (``corpora/sample/``, ``dictionaries/``).

    Raises:
        CorpusUnavailableError: the file is in neither place.
    """
    packaged = resources.files("cws_bench") / "_data" / folder / name
    if packaged.is_file():
        return Path(str(packaged))
    checkout = _SOURCE_FOLDERS[folder] / name
    if checkout.is_file():
        return checkout
    raise CorpusUnavailableError(
        f"the project's {folder}/{name} is missing from this installation",
        "reinstall cws-bench (the wheel ships it under cws_bench/_data/)",
    )


class SampleCorpus(Corpus):
    """The project's 40-sentence sample (PKU conventions), one split: ``test``.

    Args:
        data_dir: a folder with ``gold.txt`` and ``raw.txt`` to read instead
            of the project's (a copy being edited, say); the dictionary stays
            ``dictionaries/sample.txt``.
    """

    name = "sample"
    title = "cws-bench sample corpus (40 sentences, hand-segmented, PKU conventions)"
    splits = ("test",)
    script = "Simplified"
    domain = "news (written for cws-bench)"
    standard = "PKU (Peking University) guidelines"
    citation = "cws-bench's own sample corpus"
    licence = "MIT (part of cws-bench)"
    source = "corpora/sample/ in the cws-bench source tree"
    note = (
        "written for the project; dictionary: dictionaries/sample.txt "
        "(gold word types minus 33 OOV words, plus 21 maximum-matching traps); "
        "pred.txt is jieba 0.42.1's output"
    )
    dictionary_split = None

    def __init__(self, data_dir: str | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else None

    def _file(self, name: str) -> Path:
        if self.data_dir is not None:
            path = self.data_dir / name
            if not path.is_file():
                raise CorpusUnavailableError(f"corpus sample: {path} does not exist")
            return path
        return project_file("sample", name)

    def availability(self) -> Availability:
        try:
            gold = self._file("gold.txt")
        except CorpusUnavailableError as e:
            return Availability(False, None, e.hint or e.message)
        return Availability(True, str(gold.parent), None, self.splits)

    def _sentences(self, split: str) -> Iterator[list[str]]:
        return read_segmented(self._file("gold.txt"))

    def _raw(self, split: str) -> Iterator[str]:
        return iter_lines(self._file("raw.txt"))

    def prediction_path(self) -> Path:
        """``pred.txt``: jieba 0.42.1's default-mode segmentation of ``raw.txt``."""
        return self._file("pred.txt")

    def _word_list(self) -> Dictionary:
        return load_dictionary(project_file("dictionaries", "sample.txt"))

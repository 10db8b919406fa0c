"""The Universal Dependencies Chinese GSD treebanks (``ud-zh-gsdsimp``, ``ud-zh-gsd``).

UD_Chinese-GSD (Traditional characters) and UD_Chinese-GSDSimp (the same
sentences in Simplified characters), CC BY-SA 4.0, from
https://github.com/UniversalDependencies. Splits ``train``, ``dev`` and
``test`` in CoNLL-U (``zh_gsd-ud-<split>.conllu``,
``zh_gsdsimp-ud-<split>.conllu``), read with
:func:`cws_bench.corpora.readers.read_conllu`; the raw input of a sentence is
its ``# text``.

Where the files are: ``data_dir`` (``--data-dir``) or ``$CWS_BENCH_UD_CHINESE``,
either the treebank folder itself or a folder holding it (``gsdsimp/``,
``UD_Chinese-GSDSimp/``, any subfolder with the ``.conllu`` files). The
standard dictionary is the word types of ``train``; without it the OOV
figures are absent, not made up from another split.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from cws_bench.corpora.base import Availability, Corpus
from cws_bench.corpora.readers import iter_conllu
from cws_bench.errors import CorpusUnavailableError
from cws_bench.io import PathLike

__all__ = ["DATA_VARIABLE", "UniversalDependencies", "gsd", "gsdsimp"]

DATA_VARIABLE = "CWS_BENCH_UD_CHINESE"
_RELEASES = "https://github.com/UniversalDependencies/UD_{folder}"


def _depth(folder: Path, top: Path) -> int:
    return len(folder.relative_to(top).parts)


class UniversalDependencies(Corpus):
    """A UD treebank read for segmentation (the FORM of each token).

    Args:
        treebank: the file stem, e.g. ``zh_gsdsimp``.
        folder: the repository name after ``UD_``, e.g. ``Chinese-GSDSimp``.
        data_dir: the treebank folder or a folder holding it (default
            ``$CWS_BENCH_UD_CHINESE``).
        multiword: how multi-word tokens are read (see ``read_conllu``).
    """

    splits = ("train", "dev", "test")
    licence = "CC BY-SA 4.0"
    dictionary_split = "train"
    external_data = True

    def __init__(
        self,
        treebank: str,
        folder: str,
        *,
        name: str,
        title: str,
        script: str,
        data_dir: PathLike | None = None,
        multiword: str = "token",
    ) -> None:
        self.treebank = treebank
        self.folder = folder
        self.name = name
        self.title = title
        self.script = script
        self.source = _RELEASES.format(folder=folder)
        self.note = (
            "CoNLL-U FORM column; raw input is each sentence's # text. "
            "The standard dictionary needs the train split."
        )
        if data_dir is None and os.environ.get(DATA_VARIABLE):
            data_dir = os.environ[DATA_VARIABLE]
        self.data_dir = Path(data_dir).expanduser() if data_dir is not None else None
        self.multiword = multiword

    def _file_name(self, split: str) -> str:
        return f"{self.treebank}-ud-{split}.conllu"

    def _folder(self) -> Path | None:
        """The folder holding this treebank's files, or None."""
        if self.data_dir is None or not self.data_dir.is_dir():
            return None
        # the folder itself, its subfolders and theirs (ud-chinese/gsdsimp/...)
        candidates = [self.data_dir]
        for depth in range(2):
            candidates += sorted(
                p
                for parent in candidates[:]
                if _depth(parent, self.data_dir) == depth
                for p in parent.iterdir()
                if p.is_dir()
            )
        for folder in candidates:
            if any((folder / self._file_name(split)).is_file() for split in self.splits):
                return folder
        return None

    def _how_to_get(self) -> str:
        return (
            f"get the treebank from {self.source} (releases: "
            f"https://universaldependencies.org) and pass its folder with --data-dir "
            f"or {DATA_VARIABLE}"
        )

    def availability(self) -> Availability:
        folder = self._folder()
        if folder is None:
            location = str(self.data_dir) if self.data_dir is not None else None
            return Availability(False, location, self._how_to_get())
        splits = tuple(s for s in self.splits if (folder / self._file_name(s)).is_file())
        how = None
        if len(splits) < len(self.splits):
            missing = ", ".join(s for s in self.splits if s not in splits)
            how = f"{missing} not in {folder}: {self._how_to_get()}"
        return Availability(True, str(folder), how, splits)

    def path(self, split: str) -> Path:
        """The CoNLL-U file of a split."""
        self.check_split(split)
        folder = self._folder()
        if folder is None:  # pragma: no cover - check_split saw it a moment ago
            raise CorpusUnavailableError(f"corpus {self.name} is not available", self._how_to_get())
        return folder / self._file_name(split)

    def _read(self, split: str) -> Iterator:
        return iter_conllu(self.path(split), multiword=self.multiword)  # type: ignore[arg-type]

    def _sentences(self, split: str) -> Iterator[list[str]]:
        for sentence in self._read(split):
            yield sentence.words

    def _raw(self, split: str) -> Iterator[str]:
        for sentence in self._read(split):
            yield sentence.text

    def tagged(self, split: str) -> Iterator[list[tuple[str, str]]]:
        """Yield the sentences of a split as ``(word, UPOS)`` pairs."""
        for sentence in self._read(self.check_split(split)):
            yield list(zip(sentence.words, sentence.tags))


def gsdsimp(data_dir: PathLike | None = None, **options: str) -> UniversalDependencies:
    """``ud-zh-gsdsimp``: UD Chinese GSDSimp (Simplified)."""
    return UniversalDependencies(
        "zh_gsdsimp",
        "Chinese-GSDSimp",
        name="ud-zh-gsdsimp",
        title="Universal Dependencies Chinese GSDSimp (Simplified)",
        script="Simplified",
        data_dir=data_dir,
        **options,
    )


def gsd(data_dir: PathLike | None = None, **options: str) -> UniversalDependencies:
    """``ud-zh-gsd``: UD Chinese GSD (Traditional)."""
    return UniversalDependencies(
        "zh_gsd",
        "Chinese-GSD",
        name="ud-zh-gsd",
        title="Universal Dependencies Chinese GSD (Traditional)",
        script="Traditional",
        data_dir=data_dir,
        **options,
    )

"""The SIGHAN 2005 bakeoff corpora (``sighan2005-pku``, ``-msr``, ``-cityu``, ``-as``).

Emerson (2005), "The Second International Chinese Word Segmentation
Bakeoff". The data is the ``icwb2-data`` release; for each corpus it holds
the gold test segmentation, the raw test input, the word types of the
training set (the bakeoff's OOV dictionary) and the training corpus:

=========  ================================  ===============================
corpus     test gold                         training corpus
=========  ================================  ===============================
pku        ``gold/pku_test_gold.utf8``       ``training/pku_training.utf8``
msr        ``gold/msr_test_gold.utf8``       ``training/msr_training.utf8``
cityu      ``gold/cityu_test_gold.utf8``     ``training/cityu_training.utf8``
as         ``gold/as_testing_gold.utf8``     ``training/as_training.utf8``
=========  ================================  ===============================

with ``testing/<corpus>_test.utf8`` and ``gold/<corpus>_training_words.utf8``.
Each file also comes in its legacy encoding (``.txt``: CP936 for pku and
msr, Big5 for cityu and as; the AS training corpus as ``.b5``); the UTF-8
file is read when present, the legacy one otherwise (CP936 read as its
superset GB18030, Big5 as Big5-HKSCS).

Where the data comes from, in order: ``data_dir`` (``--data-dir``), then
``$CWS_BENCH_SIGHAN2005``, each an ``icwb2-data`` folder, a folder holding
one, or the released zip; then the copy downloaded into the user's cache
folder (``cws-bench corpora download sighan2005-pku``) from
:data:`RELEASE_URL` (or ``$CWS_BENCH_SIGHAN2005_URL``). Zip members are
extracted once into the cache folder.

The zip's own hash is not known to us, so each file is checked instead: the
SHA-256 of every test file and word list is pinned (:data:`PINNED_SHA256`,
taken from files exactly as released). A file that differs is an error
naming it and both hashes; a file with no pinned hash (the training corpora)
is read and recorded as ``unverified`` in :meth:`Sighan2005.verification`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from cws_bench.corpora.base import Availability, unavailable
from cws_bench.corpora.download import (
    download_file,
    extract_members,
    open_zip,
)
from cws_bench.corpora.fileset import CheckedFiles
from cws_bench.errors import CwsBenchError
from cws_bench.text.checksums import hash_hex
from cws_bench.text.dictionary import Dictionary, load_dictionary
from cws_bench.text.io import PathLike, iter_lines, read_segmented

__all__ = [
    "DATA_VARIABLE",
    "PINNED_SHA256",
    "RELEASE_URL",
    "URL_VARIABLE",
    "Sighan2005",
]

RELEASE_URL = "http://sighan.cs.uchicago.edu/bakeoff2005/data/icwb2-data.zip"
DATA_VARIABLE = "CWS_BENCH_SIGHAN2005"
URL_VARIABLE = "CWS_BENCH_SIGHAN2005_URL"
ARCHIVE_NAME = "icwb2-data.zip"
TOP_FOLDER = "icwb2-data"

# SHA-256 of the released files (icwb2-data, as distributed by SIGHAN).
PINNED_SHA256: dict[str, str] = {
    "gold/as_testing_gold.utf8": "75acac0f0d457187d4b5dbc66227fb887ad172bca617125054db10f56c72bc20",
    "gold/as_training_words.utf8": (
        "e70a54d88390ab21fa8d38cf6df80a25d51a5cdf70821da5591f3972933c6254"
    ),
    "gold/cityu_test_gold.txt": "4d34c2c8ff58ab05a4cbe3f4dd29d5740d3cf31970bc0fbb723a845e578e9ac3",
    "gold/cityu_test_gold.utf8": (
        "2785b66a6f7c0e72f34e35859da383a81d721deb1c673a85786f0152e014935a"
    ),
    "gold/cityu_training_words.utf8": (
        "2a1542c4232b6d8d0ea66eb2365fdaccd915386ff9674016758159d6d2323604"
    ),
    "gold/msr_test_gold.utf8": "cd1a8473841f1b2fcddd14d12599ad8872e6167feb64807af5bac2f6a32cb75d",
    "gold/msr_training_words.utf8": (
        "d5328d5cc8576c8e008e70ad33882aae4ce2cbbbf6cd1130c59a66a248961b8c"
    ),
    "gold/pku_test_gold.txt": "0993d2c010b605b2e8d47f45ddb07929845ccf124b4fd1610cd290b24a205113",
    "gold/pku_test_gold.utf8": "913f78b20b17ea1e154f6246644d7d624b2710641f109a15daee9d63c9fb88d4",
    "gold/pku_training_words.utf8": (
        "68fdbcef065d315e5dc3dc4c0e1b68997b1849141ba93b8fa2325fb088b5b0f3"
    ),
    "testing/as_test.utf8": "fa5052f0082a5884e9d4302a4108f9de06907215561b859c74cf1bed6ab35393",
    "testing/cityu_test.txt": "9ae701e3853481d4626fccd4695689e5a627f89f3176faa8be99cb103613530b",
    "testing/cityu_test.utf8": "1cdfcf0ab9f7b9a60b05448222d32fc93b428e7e8cde238e3af56a0bb500b116",
    "testing/msr_test.utf8": "8068b0c5a8f309e2ff2ba88dc26de7a8dac2f2684c9c7d8094337d9ce272f601",
    "testing/pku_test.txt": "1cf3b10b3917794f51ff79798a003e495e517493bf0160d93ff933f40c2a3cb1",
    "testing/pku_test.utf8": "48c2655b535ea33802c873373f3176e57d39ba1a45a4dbba164e9125d7ce149e",
}

_KINDS = ("test_gold", "test_raw", "words", "train")


@dataclass(frozen=True)
class _Spec:
    code: str
    title: str
    script: str
    legacy_encoding: str
    note: str
    domain: str = "news"
    stand_in: str | None = None  # Corpus.training_stand_in

    def candidates(self, kind: str) -> tuple[tuple[str, str], ...]:
        """(relative path, encoding) pairs for one kind of file, UTF-8 first."""
        legacy = self.legacy_encoding
        stem = {
            "test_gold": f"gold/{self.code}_test_gold",
            "test_raw": f"testing/{self.code}_test",
            "words": f"gold/{self.code}_training_words",
            "train": f"training/{self.code}_training",
        }[kind]
        if self.code == "as" and kind == "test_gold":
            stem = "gold/as_testing_gold"  # the release's own spelling
        legacy_suffix = ".b5" if self.code == "as" and kind == "train" else ".txt"
        return ((f"{stem}.utf8", "utf-8"), (f"{stem}{legacy_suffix}", legacy))


_SPECS = {
    "pku": _Spec(
        "pku",
        "SIGHAN 2005 bakeoff: Peking University (PKU)",
        "Simplified",
        "gb18030",
        "PKU standard (People's Daily text); full-width digits and Latin letters",
        # People's Daily 1998 is PKU's text and standard: it trains in place of
        # pku_training when that is not here (every bake-off and `train` find it here)
        stand_in="pd1998:train+test",
    ),
    "msr": _Spec(
        "msr",
        "SIGHAN 2005 bakeoff: Microsoft Research Asia (MSR)",
        "Simplified",
        "gb18030",
        "MSR standard: long named entities and numbers kept whole",
    ),
    "cityu": _Spec(
        "cityu",
        "SIGHAN 2005 bakeoff: City University of Hong Kong (CityU)",
        "Traditional",
        "big5hkscs",
        "Hong Kong text in Traditional characters",
        "news (Hong Kong)",
    ),
    "as": _Spec(
        "as",
        "SIGHAN 2005 bakeoff: Academia Sinica (AS)",
        "Traditional",
        "big5hkscs",
        "Taiwan text in Traditional characters; words separated by U+3000",
        "balanced (Sinica corpus, Taiwan)",
    ),
}


def _zip_prefix(names: list[str]) -> str | None:
    """The folder the icwb2-data layout sits in inside a zip (``icwb2-data/``), or None."""
    for name in names:
        for marker in ("gold/", "testing/", "training/"):
            if name.startswith(marker):
                return ""
            at = name.find("/" + marker)
            if at >= 0:
                return name[: at + 1]
    return None


class Sighan2005(CheckedFiles):
    """One corpus of the SIGHAN 2005 bakeoff.

    Splits: ``test`` (the gold test set; raw input: the official test input)
    and ``train`` (the training corpus, when the data has it). The standard
    dictionary is the released training word list.

    Args:
        code: ``pku``, ``msr``, ``cityu`` or ``as``.
        data_dir: an ``icwb2-data`` folder, a folder holding one, or the
            released zip (default ``$CWS_BENCH_SIGHAN2005``, then the cache).
        url: where to download from (default ``$CWS_BENCH_SIGHAN2005_URL``,
            then :data:`RELEASE_URL`).
        download, verify, cache, progress: see
            :class:`~cws_bench.corpora.fileset.CheckedFiles`.
    """

    splits = ("test", "train")
    official_method = "sighan"
    licence = "SIGHAN 2005 bakeoff data: research use only (no commercial use, no redistribution)"
    source = RELEASE_URL
    citation = (
        "Emerson, T. (2005). The Second International Chinese Word Segmentation Bakeoff. SIGHAN-4."
    )
    dictionary_split = None
    downloadable = True
    pinned = PINNED_SHA256
    data_variable = DATA_VARIABLE
    cache_name = "sighan2005"
    mismatch = "this is not the file SIGHAN released (edited or re-encoded?); use the official data"

    def __init__(
        self, code: str, data_dir: PathLike | None = None, *, url: str | None = None, **options: Any
    ) -> None:
        if code not in _SPECS:
            raise CwsBenchError(f"no SIGHAN 2005 corpus {code!r}; use one of {', '.join(_SPECS)}")
        self.spec = _SPECS[code]
        self.name, self.title, self.script = f"sighan2005-{code}", self.spec.title, self.spec.script
        self.domain, self.training_stand_in = self.spec.domain, self.spec.stand_in
        self.standard = f"{code.upper() if code != 'cityu' else 'CityU'} guidelines (SIGHAN 2005)"
        self.note = (
            f"{self.spec.note}. Some raw test lines differ from the gold text "
            "(the release's own quirk); scoring aligns them."
        )
        super().__init__(data_dir, **options)
        self.url = url or os.environ.get(URL_VARIABLE) or RELEASE_URL
        if self.download_missing or url:
            self.source = self.url

    # -- where the data is ------------------------------------------------------

    def _source(self) -> tuple[str, Path] | None:
        """``("folder", root)`` or ``("zip", archive)``; None when nothing is found."""
        if self.data_dir is not None:
            path = self.data_dir
            if path.is_file():
                return ("zip", path)
            for root in (path, path / TOP_FOLDER):
                if any((root / folder).is_dir() for folder in ("gold", "testing", "training")):
                    return ("folder", root)
            if (path / ARCHIVE_NAME).is_file():
                return ("zip", path / ARCHIVE_NAME)
            return None
        archive = self.cache / ARCHIVE_NAME
        return ("zip", archive) if archive.is_file() else None

    def _how_to_get(self) -> str:
        return (
            f"download it with `cws-bench corpora download {self.name}` (from {self.url}), "
            f"or pass {{0}} (or set {DATA_VARIABLE}) to an icwb2-data folder or "
            f"{ARCHIVE_NAME}"
        )

    def _zip_members(self, archive: Path) -> dict[str, str]:
        """Member name -> relative path, for every file of this corpus in the zip."""
        with open_zip(archive) as zip_file:
            names = zip_file.namelist()
        prefix = _zip_prefix(names)
        if prefix is None:
            return {}
        present = set(names)
        members = {}
        for kind in _KINDS:
            for relative, _ in self.spec.candidates(kind):
                if prefix + relative in present:
                    members[prefix + relative] = relative
        return members

    def _files(self, source: tuple[str, Path]) -> dict[str, tuple[str, str]]:
        """kind -> (relative path, encoding) of the files the source holds."""
        kind_of_source, path = source
        zipped = set(self._zip_members(path).values()) if kind_of_source == "zip" else None

        def present(relative: str) -> bool:
            return relative in zipped if zipped is not None else (path / relative).is_file()

        found = [
            (kind, next((c for c in self.spec.candidates(kind) if present(c[0])), None))
            for kind in _KINDS
        ]
        return {kind: file for kind, file in found if file is not None}

    def availability(self) -> Availability:
        source = self._source()
        if source is None:
            return self.missing(self._how_to_get())
        files = self._files(source)
        splits = tuple(
            split
            for split, kinds in (("test", ("test_gold", "test_raw")), ("train", ("train",)))
            if all(kind in files for kind in kinds)
        )
        how = None
        if "train" not in splits:
            how = (
                f"the training corpus (training/{self.spec.code}_training.utf8) is not in "
                f"{source[1]}; it is in the full {ARCHIVE_NAME} release"
            )
        if "test" not in splits:
            how = self._how_to_get()
        return Availability(bool(splits), str(source[1]), how, splits)

    def download(self) -> Path:
        """Download the release into the cache (if not there yet); return the archive path.

        Raises:
            CwsBenchError: the download fails, or gives something that is not the release.
        """
        archive = self.cache / ARCHIVE_NAME
        if not archive.is_file():
            download_file(self.url, archive, progress=self.progress)
            try:
                if not self._zip_members(archive):
                    raise CwsBenchError(
                        f"{self.url} gave a zip without the icwb2-data layout",
                        f"check the address ({URL_VARIABLE})",
                    )
            except CwsBenchError:
                archive.unlink()
                raise
        return archive

    def _root(self) -> Path:
        """A folder with this corpus' files in the icwb2-data layout, extracting a zip once."""
        source = self._source()
        if source is None and self.download_missing and self.data_dir is None:
            self.download()
            source = self._source()
        if source is None:
            where = f" at {self.data_dir}" if self.data_dir is not None else ""
            raise unavailable(
                f"corpus {self.name}: no SIGHAN 2005 data found{where}", self._how_to_get()
            )
        kind, path = source
        if kind == "folder":
            return path
        stat = path.stat()
        key = hash_hex(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}", "checksum")
        root = self.cache / "extracted" / key / self.spec.code
        if not root.is_dir():
            status = extract_members(
                path,
                self._zip_members(path),
                root,
                pinned=PINNED_SHA256 if self.verify else None,
            )
            for relative, state in status.items():
                self._verified[root / relative] = state
        return root

    def _open(self, kind: str) -> tuple[Path, str]:
        """The file of one kind (verified against its pinned hash) and its encoding."""
        root = self._root()
        for relative, encoding in self.spec.candidates(kind):
            path = root / relative
            if path.is_file():
                self._check(path, relative)
                return path, encoding
        raise unavailable(
            f"corpus {self.name}: {self.spec.candidates(kind)[0][0]} is not in {root}",
            self.availability().hint,
        )

    # -- reading ------------------------------------------------------------------

    def _sentences(self, split: str) -> Iterator[list[str]]:
        path, encoding = self._open("test_gold" if split == "test" else "train")
        return read_segmented(path, encoding=encoding)

    def _raw(self, split: str) -> Iterator[str]:
        if split == "train":
            return super()._raw(split)
        path, encoding = self._open("test_raw")
        return iter_lines(path, encoding=encoding)

    def _word_list(self) -> Dictionary:
        path, encoding = self._open("words")
        dictionary = load_dictionary(path, encoding=encoding)
        return Dictionary(dictionary.words, f"{self.name}:words")

    def gold_path(self, split: str = "test") -> Path:
        """The gold file of a split, e.g. for ``cws-bench score`` (extracted if from a zip)."""
        self.check_split(split)
        return self._open("test_gold" if split == "test" else "train")[0]


# The registry's factories (cws_bench.corpora.registry.CORPORA): (data_dir=None, **options).
pku = partial(Sighan2005, "pku")
msr = partial(Sighan2005, "msr")
cityu = partial(Sighan2005, "cityu")
as_ = partial(Sighan2005, "as")

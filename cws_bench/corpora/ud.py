"""The Universal Dependencies Chinese treebanks whose tokens are words.

``ud-zh-gsdsimp``, ``ud-zh-gsd`` (Wikipedia), ``ud-zh-cfl`` (learners'
essays), ``ud-zh-hk`` (Hong Kong film subtitles and legislative proceedings,
Traditional, test only) and ``ud-zh-pud`` (the Parallel UD sentences: news and
Wikipedia translated from English and other languages, Traditional, test
only). Two Chinese UD treebanks are left out on purpose: Beginner is
annotated at the morpheme level and PatentChar at the character level, so
their tokens are not words and scoring a word segmenter on them would
measure a different task.

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

CFL, HK and PUD can also be downloaded (``cws-bench corpora download
ud-zh-hk``) from their GitHub repositories at release tag :data:`RELEASE`
(or from a mirror: ``url``, or ``$CWS_BENCH_UD_URL`` holding ``UD_Chinese-HK/`` ...),
file by file, each checked against its pinned SHA-256 (:data:`PINNED_SHA256`)
before it is renamed into the cache folder. Files in a folder of the user's
are read whatever release they come from; :meth:`UniversalDependencies.verification`
says whether they match the pinned ones.

Sizes (sentences / words), counted independently with ``awk`` over the
word lines: CFL test 451 / 7,256; GSDSimp dev 500 / 12,663, test 500 /
12,012; GSD dev 500 / 12,665, test 500 / 12,010.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from cws_bench.corpora.base import Availability, Corpus, environment_data_dir, unavailable
from cws_bench.corpora.download import cache_dir, download_file, file_sha256
from cws_bench.corpora.readers import iter_conllu
from cws_bench.text.io import PathLike

__all__ = [
    "DATA_VARIABLE",
    "PINNED_SHA256",
    "RELEASE",
    "UniversalDependencies",
    "cfl",
    "gsd",
    "gsdsimp",
    "hk",
    "pud",
]

DATA_VARIABLE = "CWS_BENCH_UD_CHINESE"
URL_VARIABLE = "CWS_BENCH_UD_URL"
RELEASE = "r2.17"
_RELEASES = "https://github.com/UniversalDependencies/UD_{folder}"
_RAW = "https://raw.githubusercontent.com/UniversalDependencies/UD_{folder}/{release}/"

# SHA-256 of the files of release RELEASE that cws-bench downloads.
PINNED_SHA256: dict[str, str] = {
    "zh_cfl-ud-test.conllu": "5eb666265585bc1cd1a04ea5ca2d94f2ddc6f00b782ae7dfe815e08504879923",
    "zh_hk-ud-test.conllu": "a71ff348dd1e45c2cd525ed537a78d6c4b6c5edc15a19641bedc0a8465de820e",
    "zh_pud-ud-test.conllu": "e12582af2e2bbc2e27155ca7dc12b6fc4a037dbc716e1f805d67e34ffb2596b3",
}


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

    splits: tuple[str, ...] = ("train", "dev", "test")
    licence = "CC BY-SA 4.0"
    standard = "Universal Dependencies (UD v2 Chinese tokenisation guidelines)"
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
        splits: tuple[str, ...] = ("train", "dev", "test"),
        domain: str = "",
        citation: str = "",
        download: bool = False,
        cache: PathLike | None = None,
        url: str | None = None,
        progress: bool = False,
    ) -> None:
        self.splits = splits
        self.domain = domain
        self.citation = citation
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
        if data_dir is None:
            data_dir = environment_data_dir(DATA_VARIABLE)
        self.data_dir = Path(data_dir).expanduser() if data_dir is not None else None
        self.multiword = multiword
        self.cache = cache_dir(cache) / "ud" / folder
        if url is None and os.environ.get(URL_VARIABLE):
            url = os.environ[URL_VARIABLE].rstrip("/") + f"/UD_{folder}/"
        self.url = (url or _RAW.format(folder=folder, release=RELEASE)).rstrip("/") + "/"
        self.downloadable = all(self._file_name(split) in PINNED_SHA256 for split in splits)
        self.download_missing = download
        self.progress = progress
        self._verified: dict[Path, str] = {}

    def _file_name(self, split: str) -> str:
        return f"{self.treebank}-ud-{split}.conllu"

    def _folder(self) -> Path | None:
        """The folder holding this treebank's files, or None."""
        if self.data_dir is None:
            if self.download_missing and self.downloadable and not self._in_cache():
                self.download()
            return self.cache if self._in_cache() else None
        if not self.data_dir.is_dir():
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

    def _in_cache(self) -> bool:
        return any((self.cache / self._file_name(split)).is_file() for split in self.splits)

    def download(self) -> Path:
        """Download the treebank's files of release :data:`RELEASE` into the cache folder.

        Each file goes to a temporary file, is checked against its pinned
        SHA-256 and only then renamed into place.

        Raises:
            CorpusUnavailableError: no pinned files for this treebank.
            CwsBenchError: the server cannot be reached or the transfer breaks off.
            ChecksumMismatchError: a file is not the released one (nothing kept).
        """
        if not self.downloadable:
            return super().download()
        for split in self.splits:
            name = self._file_name(split)
            target = self.cache / name
            if target.is_file() and file_sha256(target) == PINNED_SHA256[name]:
                continue
            download_file(
                self.url + name, target, sha256=PINNED_SHA256[name], progress=self.progress
            )
            self._verified[target] = "verified"
        return self.cache

    def verification(self) -> dict[str, str]:
        """File -> ``verified`` (the pinned release's bytes), ``differs`` or ``unverified``."""
        return {str(path): state for path, state in sorted(self._verified.items())}

    def _how_to_get(self) -> str:
        if self.downloadable:
            return (
                f"download it with `cws-bench corpora download {self.name}` (release "
                f"{RELEASE} from {self.url}), or pass its folder with {{0}} or "
                f"{DATA_VARIABLE}"
            )
        return (
            f"get the treebank from {self.source} (releases: "
            f"https://universaldependencies.org) and pass its folder with {{0}} "
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
            raise unavailable(f"corpus {self.name} is not available", self._how_to_get())
        path = folder / self._file_name(split)
        if path not in self._verified:
            expected = PINNED_SHA256.get(path.name)
            if expected is None:
                self._verified[path] = "unverified"
            else:
                same = file_sha256(path) == expected
                self._verified[path] = "verified" if same else "differs"
        return path

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
        domain="Wikipedia",
        citation=_GSD_CITATION,
        **options,  # type: ignore[arg-type]
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
        domain="Wikipedia",
        citation=_GSD_CITATION,
        **options,  # type: ignore[arg-type]
    )


def cfl(data_dir: PathLike | None = None, **options: object) -> UniversalDependencies:
    """``ud-zh-cfl``: UD Chinese CFL, essays of learners of Chinese (Simplified, test only)."""
    corpus = UniversalDependencies(
        "zh_cfl",
        "Chinese-CFL",
        name="ud-zh-cfl",
        title="Universal Dependencies Chinese CFL (learners' essays, Simplified)",
        script="Simplified",
        data_dir=data_dir,
        splits=("test",),
        domain="learner essays",
        citation=(
            "Lee, J., Leung, H. and Li, K. (2017). Towards Universal Dependencies for "
            "Learner Chinese. UDW 2017."
        ),
        **options,  # type: ignore[arg-type]
    )
    corpus.note += (
        " Sentence ids ending in /ori are the learners' originals, /crr native speakers' "
        "corrections; both are scored. Test only: no dictionary, so no OOV figures."
    )
    return corpus


def hk(data_dir: PathLike | None = None, **options: object) -> UniversalDependencies:
    """``ud-zh-hk``: UD Chinese HK, Hong Kong subtitles and legislative proceedings."""
    return UniversalDependencies(
        "zh_hk",
        "Chinese-HK",
        name="ud-zh-hk",
        title="Universal Dependencies Chinese HK (Hong Kong, Traditional)",
        script="Traditional",
        data_dir=data_dir,
        splits=("test",),
        domain="film subtitles, legislative proceedings",
        citation=(
            "Wong, T.-S., Gerdes, K., Leung, H. and Lee, J. (2017). Quantitative Comparative "
            "Syntax on the Cantonese-Mandarin Parallel Dependency Treebank. Depling 2017."
        ),
        **options,  # type: ignore[arg-type]
    )


def pud(data_dir: PathLike | None = None, **options: object) -> UniversalDependencies:
    """``ud-zh-pud``: the Chinese Parallel UD treebank (translated news and Wikipedia)."""
    return UniversalDependencies(
        "zh_pud",
        "Chinese-PUD",
        name="ud-zh-pud",
        title="Universal Dependencies Chinese PUD (parallel news and Wikipedia, Traditional)",
        script="Traditional",
        data_dir=data_dir,
        splits=("test",),
        domain="news, Wikipedia (translated)",
        citation=(
            "Zeman, D. et al. (2017). CoNLL 2017 Shared Task: Multilingual Parsing from Raw "
            "Text to Universal Dependencies. CoNLL 2017 (the Parallel UD treebanks)."
        ),
        **options,  # type: ignore[arg-type]
    )


_GSD_CITATION = (
    "Nivre, J. et al. (2016). Universal Dependencies v1: A Multilingual Treebank "
    "Collection. LREC 2016 (UD_Chinese-GSD, from Google's UD data)."
)

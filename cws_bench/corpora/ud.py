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
from functools import partial
from typing import NamedTuple

from cws_bench.corpora.fileset import PinnedFiles
from cws_bench.corpora.readers import ConlluSentence, iter_conllu
from cws_bench.errors import CwsBenchError
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

_GSD_CITATION = (
    "Nivre, J. et al. (2016). Universal Dependencies v1: A Multilingual Treebank "
    "Collection. LREC 2016 (UD_Chinese-GSD, from Google's UD data)."
)


class _Spec(NamedTuple):
    treebank: str  # the file stem
    folder: str  # the repository name after UD_
    title: str
    script: str
    domain: str
    citation: str
    splits: tuple[str, ...] = ("train", "dev", "test")
    note: str = ""


_SPECS = {
    "ud-zh-gsdsimp": _Spec(
        "zh_gsdsimp",
        "Chinese-GSDSimp",
        "Universal Dependencies Chinese GSDSimp (Simplified)",
        "Simplified",
        "Wikipedia",
        _GSD_CITATION,
    ),
    "ud-zh-gsd": _Spec(
        "zh_gsd",
        "Chinese-GSD",
        "Universal Dependencies Chinese GSD (Traditional)",
        "Traditional",
        "Wikipedia",
        _GSD_CITATION,
    ),
    "ud-zh-cfl": _Spec(
        "zh_cfl",
        "Chinese-CFL",
        "Universal Dependencies Chinese CFL (learners' essays, Simplified)",
        "Simplified",
        "learner essays",
        "Lee, J., Leung, H. and Li, K. (2017). Towards Universal Dependencies for "
        "Learner Chinese. UDW 2017.",
        ("test",),
        " Sentence ids ending in /ori are the learners' originals, /crr native speakers' "
        "corrections; both are scored. Test only: no dictionary, so no OOV figures.",
    ),
    "ud-zh-hk": _Spec(
        "zh_hk",
        "Chinese-HK",
        "Universal Dependencies Chinese HK (Hong Kong, Traditional)",
        "Traditional",
        "film subtitles, legislative proceedings",
        "Wong, T.-S., Gerdes, K., Leung, H. and Lee, J. (2017). Quantitative Comparative "
        "Syntax on the Cantonese-Mandarin Parallel Dependency Treebank. Depling 2017.",
        ("test",),
    ),
    "ud-zh-pud": _Spec(
        "zh_pud",
        "Chinese-PUD",
        "Universal Dependencies Chinese PUD (parallel news and Wikipedia, Traditional)",
        "Traditional",
        "news, Wikipedia (translated)",
        "Zeman, D. et al. (2017). CoNLL 2017 Shared Task: Multilingual Parsing from Raw "
        "Text to Universal Dependencies. CoNLL 2017 (the Parallel UD treebanks).",
        ("test",),
    ),
}


class UniversalDependencies(PinnedFiles):
    """A UD treebank read for segmentation (the FORM of each token).

    Args:
        name: the corpus name, e.g. ``ud-zh-gsdsimp``.
        data_dir: the treebank folder or a folder holding it, at any depth up to two
            (default ``$CWS_BENCH_UD_CHINESE``).
        multiword: how multi-word tokens are read (see ``read_conllu``).
        download, verify, cache, url, progress: see
            :class:`~cws_bench.corpora.fileset.PinnedFiles`; a file of the user's
            that differs from the pinned release is read, and reported by
            :meth:`~cws_bench.corpora.fileset.PinnedFiles.verification`.
    """

    licence = "CC BY-SA 4.0"
    standard = "Universal Dependencies (UD v2 Chinese tokenisation guidelines)"
    dictionary_split = "train"
    data_variable = DATA_VARIABLE
    subfolders = ("*", "*/*")
    strict = False

    def __init__(
        self,
        name: str,
        data_dir: PathLike | None = None,
        *,
        multiword: str = "token",
        url: str | None = None,
        **options: object,
    ) -> None:
        if name not in _SPECS:
            raise CwsBenchError(f"no UD treebank {name!r}; use one of {', '.join(_SPECS)}")
        spec = _SPECS[name]
        self.name, self.title, self.script = name, spec.title, spec.script
        self.splits, self.domain, self.citation = spec.splits, spec.domain, spec.citation
        self.source = _RELEASES.format(folder=spec.folder)
        self.note = (
            "CoNLL-U FORM column; raw input is each sentence's # text. "
            "The standard dictionary needs the train split." + spec.note
        )
        self.multiword = multiword
        self.split_files = {split: f"{spec.treebank}-ud-{split}.conllu" for split in spec.splits}
        self.pinned = {
            file: PINNED_SHA256[file] for file in self.split_files.values() if file in PINNED_SHA256
        }
        self.base_url = _RAW.format(folder=spec.folder, release=RELEASE)
        self.cache_name = f"ud/{spec.folder}"
        super().__init__(data_dir, **options)  # type: ignore[arg-type]
        if url is None and os.environ.get(URL_VARIABLE):
            url = os.environ[URL_VARIABLE].rstrip("/") + f"/UD_{spec.folder}/"
        self.url = (url or self.base_url).rstrip("/") + "/"

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

    def _read(self, split: str) -> Iterator[ConlluSentence]:
        return iter_conllu(self.path(split), multiword=self.multiword)  # type: ignore[arg-type]

    def _sentences(self, split: str) -> Iterator[list[str]]:
        return (sentence.words for sentence in self._read(split))

    def _raw(self, split: str) -> Iterator[str]:
        return (sentence.text for sentence in self._read(split))

    def tagged(self, split: str) -> Iterator[list[tuple[str, str]]]:
        """Yield the sentences of a split as ``(word, UPOS)`` pairs."""
        for sentence in self._read(self.check_split(split)):
            yield list(zip(sentence.words, sentence.tags))


# The registry's factories (cws_bench.corpora.registry.CORPORA): (data_dir=None, **options).
gsdsimp = partial(UniversalDependencies, "ud-zh-gsdsimp")
gsd = partial(UniversalDependencies, "ud-zh-gsd")
cfl = partial(UniversalDependencies, "ud-zh-cfl")
hk = partial(UniversalDependencies, "ud-zh-hk")
pud = partial(UniversalDependencies, "ud-zh-pud")

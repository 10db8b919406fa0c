"""Four freely available corpora of other domains and standards: ``sxu``, ``zx``, ``wtb``, ``udc``.

They are the members of the "10-in-1" multi-criteria set (Chen et al. 2017;
He et al. 2019) that anyone can get, as redistributed together by the public
``multi-criteria-cws`` repository (``data/other/``, commit :data:`COMMIT`).
Each keeps its own format and annotation standard:

=======  ============================  ============  ===================================
name     corpus                        domain        files (format)
=======  ============================  ============  ===================================
sxu      SIGHAN 2008 bakeoff, SXU      news          ``train.txt``, ``test.txt`` (plain)
zx       Zhuxian web novel             fiction       ``{train,dev,test}.zhuxian.wordpos``
                                                     (``word-pos``)
wtb      Chinese Weibo Treebank        microblogs    ``{train,dev,test}.conll`` (``conllx``)
                                                     and ``README.txt``
udc      UD Chinese (GSD, older        Wikipedia     ``{train,dev,test}.conll`` (``conllx``)
         release, Simplified)
=======  ============================  ============  ===================================

Sizes (sentences / words), counted independently with ``awk`` and checked by
``tests/corpora/test_mccws.py``: sxu train 17,115 / 528,238, test 3,654 /
113,527; zx train 2,373 / 67,648, dev 788 / 20,393, test 1,394 / 34,355;
wtb train 813 / 14,774, dev 95 / 1,843, test 92 / 1,860; udc train 3,997 /
98,608, dev 500 / 12,663, test 500 / 12,012.

Where the files are: ``data_dir`` (``--data-dir``) or ``$CWS_BENCH_MCCWS``,
the corpus folder itself (``.../sxu``) or a folder holding it (``sxu/`` or
``mccws/sxu/``); then the copy ``cws-bench corpora download NAME`` put in the
cache folder, fetched file by file from :data:`BASE_URL` (or
``$CWS_BENCH_MCCWS_URL``, a mirror). Every file's SHA-256 is pinned
(:data:`PINNED_SHA256`); a file that differs is an error naming it.

The Weibo treebank's licence asks that its README travel with any copy: it is
downloaded with the data, and :meth:`MultiCriteria.readme` returns it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from cws_bench.corpora.fileset import PinnedFiles
from cws_bench.corpora.readers import read_corpus, read_tagged
from cws_bench.errors import CwsBenchError
from cws_bench.text.io import PathLike

__all__ = ["BASE_URL", "COMMIT", "DATA_VARIABLE", "PINNED_SHA256", "MultiCriteria"]

REPOSITORY = "https://github.com/hankcs/multi-criteria-cws"
COMMIT = "24be488"
BASE_URL = f"https://raw.githubusercontent.com/hankcs/multi-criteria-cws/{COMMIT}/data/other/"
DATA_VARIABLE = "CWS_BENCH_MCCWS"
URL_VARIABLE = "CWS_BENCH_MCCWS_URL"

# SHA-256 of the files as published in data/other/ at COMMIT (path relative to data/other/).
PINNED_SHA256: dict[str, str] = {
    "sxu/train.txt": "4eed0c4ad7f85f852744761b056d261cfbf9370c98f45dd930c1302d32be135d",
    "sxu/test.txt": "dc326d786f8a41ec90f01544ac847f750a7c441a3be59e3edf25a6ba5530172b",
    "zx/train.zhuxian.wordpos": "b11d389a4c73833c6a7dfd7b98ab7973ca417dbc1aba438958bd861f8234f444",
    "zx/dev.zhuxian.wordpos": "59d54d5764972e4c7b679ee8c5bf2ab95d6f07786458491513c959e0949d9504",
    "zx/test.zhuxian.wordpos": "85cdcab13ce448ee22be359c18b5c218275f49005fc0a521704f625a8df0c9ea",
    "wtb/train.conll": "5599bb42d9a2bf435e2b74d4d99fae4737fdb721e8ec2e88188e72826cd621b0",
    "wtb/dev.conll": "261dcac2020eb1ceda8f8aa2e38cfc5437f7178bc14a0d5f9d4de70aa371bdf5",
    "wtb/test.conll": "f153c71043e5d8411c4023afbed534d822a89d5432e7aa8b0ab0863ff5b0175e",
    "wtb/README.txt": "6b9f0da043814ae6c95bf4ff9ad5e66d95cbd7f41cb2d7f818431ef99d83b9fa",
    "udc/train.conll": "933252500861e43091920b43311ef8d806404beeabbaa52b30e215d250140e2e",
    "udc/dev.conll": "f34a279d10f00921e1be0fe2d901a9fbab3cee11cd1eb4d5a2c46f55bb109765",
    "udc/test.conll": "62fb3d087201a1d562ee91aeae14063551137ef0ee0ce33a141413b8b5c1fe33",
}


@dataclass(frozen=True)
class _Spec:
    code: str
    title: str
    domain: str
    standard: str
    licence: str
    citation: str
    note: str
    format: str
    split_files: dict[str, str]
    companions: tuple[str, ...] = ()


_SPECS = {
    "sxu": _Spec(
        "sxu",
        "SIGHAN 2008 bakeoff: Shanxi University (SXU)",
        "news",
        "SXU (Shanxi University) guidelines, SIGHAN 2008 bakeoff",
        "SIGHAN 2008 bakeoff data: research use only",
        "Jin, G. and Chen, X. (2008). The Fourth International Chinese Language Processing "
        "Bakeoff: Chinese Word Segmentation, Named Entity Recognition and Chinese POS Tagging. "
        "SIGHAN-6.",
        "words separated by two spaces; full-width digits and Latin letters",
        "plain",
        {"train": "train.txt", "test": "test.txt"},
    ),
    "zx": _Spec(
        "zx",
        "Zhuxian (ZX), a web novel",
        "fiction",
        "CTB (Penn Chinese Treebank) guidelines",
        "research use (as redistributed with multi-criteria-cws)",
        "Zhang, M., Zhang, Y., Che, W. and Liu, T. (2014). Type-Supervised Domain "
        "Adaptation for Joint Segmentation and POS-Tagging. EACL 2014.",
        "word_POS tokens (CTB tags) separated by spaces; the tags are not used",
        "word-pos",
        {
            "train": "train.zhuxian.wordpos",
            "dev": "dev.zhuxian.wordpos",
            "test": "test.zhuxian.wordpos",
        },
    ),
    "wtb": _Spec(
        "wtb",
        "Chinese Weibo Treebank (WTB)",
        "microblogs",
        "CTB-style, starting from the Stanford segmenter's output, corrected by hand",
        "research use only; redistribution must keep README.txt (downloaded with the data)",
        "Wang, W. Y., Kong, L., Mazaitis, K. and Cohen, W. W. (2014). Dependency Parsing for "
        "Weibo: An Efficient Probabilistic Logic Programming Approach. EMNLP 2014.",
        "CoNLL-X, FORM in column 2; inter-annotator agreement 82.31% on 373 tokens (README.txt)",
        "conllx",
        {"train": "train.conll", "dev": "dev.conll", "test": "test.conll"},
        ("README.txt",),
    ),
    "udc": _Spec(
        "udc",
        "Universal Dependencies Chinese (GSD, an older release in Simplified characters)",
        "Wikipedia",
        "Universal Dependencies Chinese (GSD) tokenisation",
        "CC BY-SA 4.0",
        "Nivre, J. et al. (2016). Universal Dependencies v1: A Multilingual Treebank "
        "Collection. LREC 2016. (UD_Chinese-GSD, formerly UD_Chinese.)",
        "CoNLL-X, FORM in column 2; the same text as ud-zh-gsdsimp in an older release, "
        "with half-width punctuation",
        "conllx",
        {"train": "train.conll", "dev": "dev.conll", "test": "test.conll"},
    ),
}


class MultiCriteria(PinnedFiles):
    """One of ``sxu``, ``zx``, ``wtb``, ``udc`` (see the module's documentation).

    Args:
        code: the corpus name.
        data_dir, download, verify, cache, url, progress: see
            :class:`~cws_bench.corpora.fileset.PinnedFiles`.
    """

    source = REPOSITORY
    data_variable = DATA_VARIABLE
    url_variable = URL_VARIABLE
    dictionary_split = "train"
    script = "Simplified"

    def __init__(self, code: str, data_dir: PathLike | None = None, **options: object) -> None:
        if code not in _SPECS:
            raise CwsBenchError(
                f"no multi-criteria corpus {code!r}; use one of {', '.join(_SPECS)}"
            )
        spec = self.spec = _SPECS[code]
        self.name, self.title, self.domain = code, spec.title, spec.domain
        self.standard, self.licence, self.citation = spec.standard, spec.licence, spec.citation
        self.note = f"{spec.note}. From {REPOSITORY} data/other/{code}/ at commit {COMMIT}."
        self.splits = tuple(spec.split_files)
        self.split_files = spec.split_files
        self.companions = spec.companions
        self.pinned = {
            name: PINNED_SHA256[f"{code}/{name}"]
            for name in (*spec.split_files.values(), *spec.companions)
        }
        self.base_url = BASE_URL
        self.url_suffix = f"{code}/"
        self.cache_name = f"mccws/{code}"
        self.subfolders = (code, f"mccws/{code}")
        super().__init__(data_dir, **options)  # type: ignore[arg-type]
        if options.get("url"):
            self.source = self.url

    def _sentences(self, split: str) -> Iterator[list[str]]:
        return read_corpus(self.path(split), format=self.spec.format)

    def tagged(self, split: str) -> Iterator[list[tuple[str, str]]]:
        """Yield the sentences of a split as ``(word, POS)`` pairs (not for ``sxu``)."""
        if self.spec.format == "plain":
            raise CwsBenchError(f"corpus {self.name} has no part-of-speech tags")
        return read_tagged(self.path(split), format=self.spec.format)

    def readme(self) -> str | None:
        """The README that travels with the data (``wtb``), or None."""
        self.check_split(self.available_splits[0] if self.available_splits else self.splits[0])
        folder = self._folder()
        for name in self.companions:
            if folder is not None and (folder / name).is_file():
                self._check(folder / name, name)
                return (folder / name).read_text(encoding="utf-8")
        return None


# The registry's factories (cws_bench.corpora.registry.CORPORA): (data_dir=None, **options).
sxu = partial(MultiCriteria, "sxu")
zx = partial(MultiCriteria, "zx")
wtb = partial(MultiCriteria, "wtb")
udc = partial(MultiCriteria, "udc")

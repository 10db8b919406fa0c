"""Re-splits: how often a bake-off's verdicts hold on random splits of its corpora.

Gorman and Bedrick (2019, "We need to talk about standard splits", ACL)
found that a verdict reached on a corpus' standard train/test split often
does not hold on random splits of the same sentences. ``resplits = N`` in a
bake-off (``--resplits N``) tests that for every corpus with a training
split: its training and test sentences (the empty ones left out) are
pooled, and split ``i`` (1 to N) takes as its test part the first
``n_test`` sentences of the pool in the order of
``numpy.random.default_rng((seed, i)).permutation(n_train + n_test)`` (the
run's ``seed``), keeping the standard split's sizes; the rest is its
training part. A split does not depend on N, so a run with more splits
keeps the first ones.

The rows trained on that corpus' training split (the ``corpus`` option
names it, with ``split`` train or none) are trained again on each split's
training part; every other row (pretrained segmenters, rows trained
elsewhere) is scored as it is on each split's test part, and counts as
scored on data it has seen when it declares training on any split of the
corpus (a split's test part holds former training sentences). The rows of
participants' files are left out: their output is of the standard test set.
Each split is scored, tested and corrected as the standard split is (the
run's ``test``, ``correction``, ``alpha``), and each pairwise verdict (a
beats b significantly, no difference, b beats a) is counted over the
splits, beside the standard split's.

This module writes the splits (:func:`write_resplits`), makes the bake-off
that runs one corpus' splits (:func:`resplit_config`) and counts the
verdicts (:func:`tally_verdicts`); :func:`cws_bench.run.bakeoff.run_bakeoff`
runs it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cws_bench.run.config import BakeoffConfig, CorpusSpec, SegmenterSpec

__all__ = [
    "RESPLIT_MARK",
    "VERDICTS",
    "CorpusResplits",
    "resplit_config",
    "resplit_indices",
    "resplit_signature",
    "retrains_on",
    "tally_verdicts",
    "verdict_of",
    "write_resplits",
]

RESPLIT_MARK = "@resplit"
"""Between a corpus' label and a split's number in the label of its re-split."""

VERDICTS = ("a", "none", "b")
"""A pairwise verdict: a beats b significantly, no significant difference, b beats a."""


def resplit_indices(n_train: int, n_test: int, seed: int, index: int) -> tuple[Any, Any]:
    """Split ``index``'s training and test parts, as sorted positions in the pool (the
    training sentences, then the test sentences).

    >>> train, test = resplit_indices(6, 2, 2005, 1)
    >>> len(train), len(test), sorted([*train, *test]) == list(range(8))
    (6, 2, True)
    """
    import numpy as np

    order = np.random.default_rng((seed, index)).permutation(n_train + n_test)
    return np.sort(order[n_test:]), np.sort(order[:n_test])


@dataclass(frozen=True)
class CorpusResplits:
    """The re-splits of one corpus of the bake-off.

    Attributes:
        corpus: the corpus' label.
        labels: the splits' corpus labels (``<label>@resplit<i>``), in order.
        folder: where each split's ``<label>.train.txt``, ``<label>.test.txt`` and
            ``<label>.words.txt`` (the training part's word types, the OOV
            dictionary) are; named by their content.
        train: sentences in each training part (the standard split's).
        test: sentences in each test part.
    """

    corpus: str
    labels: tuple[str, ...]
    folder: str
    train: int
    test: int

    def part(self, label: str, kind: str) -> str:
        """The file of one split's ``train``, ``test`` or ``words``."""
        return os.path.join(self.folder, f"{label}.{kind}.txt")


def _nonempty(sentences: Iterable[Sequence[str]]) -> list[list[str]]:
    return [list(words) for words in sentences if any(words)]


def _write(path: str, lines: Iterable[str]) -> None:
    from cws_bench.text.io import atomic_write

    with atomic_write(path) as f:
        f.writelines(line + "\n" for line in lines)


def write_resplits(
    corpus: CorpusSpec, count: int, seed: int, root: str | os.PathLike[str], data_dir: str | None
) -> CorpusResplits | str:
    """Write ``count`` re-splits of a registered corpus with a training split under
    ``root``, or say why it has none (no registered corpus, no training split here,
    the standard split scored is the training split).

    The files go to a folder named by a digest of the pooled sentences, the seed and
    the count, so that a changed corpus never reuses older splits (and the run cache,
    keyed by content, reuses the pairs of unchanged ones).
    """
    from cws_bench.corpora import get_corpus
    from cws_bench.errors import CwsBenchError

    if corpus.name is None:
        return "files of one's own have no training split"
    if corpus.split == "train":
        return "the training split itself is scored"
    registered = get_corpus(corpus.name, data_dir=data_dir)
    if "train" not in registered.splits:
        return f"corpus {corpus.name} has no training split"
    try:
        train = _nonempty(registered.sentences("train"))
        test = _nonempty(registered.sentences(corpus.split))
    except CwsBenchError as e:
        return f"its training split is not here ({e.message})"
    if not train or not test:
        return "an empty training or test split"
    pool = [" ".join(words) for words in [*train, *test]]
    from cws_bench.text.checksums import hasher

    digest = hasher("checksum")
    digest.update(f"{seed}\0{count}\0{len(train)}\0".encode())
    for line in pool:
        digest.update(line.encode("utf-8") + b"\n")
    folder = Path(root) / f"{corpus.label}-{digest.hexdigest()}"
    folder.mkdir(parents=True, exist_ok=True)
    labels = tuple(f"{corpus.label}{RESPLIT_MARK}{i}" for i in range(1, count + 1))
    found = CorpusResplits(corpus.label, labels, os.fspath(folder), len(train), len(test))
    for index, label in enumerate(labels, start=1):
        if all(os.path.isfile(found.part(label, kind)) for kind in ("train", "test", "words")):
            continue
        train_part, test_part = resplit_indices(len(train), len(test), seed, index)
        words = sorted({w for i in train_part for w in pool[i].split(" ")})
        _write(found.part(label, "train"), (pool[i] for i in train_part))
        _write(found.part(label, "words"), words)
        _write(found.part(label, "test"), (pool[i] for i in test_part))
    return found


def retrains_on(spec: SegmenterSpec, corpus: CorpusSpec, data_dir: str | None = None) -> bool:
    """Whether a row learns from ``corpus``' training split (its ``corpus`` option names
    the corpus, its ``split`` is train or unset): such a row is trained again on each
    re-split's training part.

    >>> pd = CorpusSpec("pd1998", name="pd1998")
    >>> retrains_on(SegmenterSpec("hmm", "hmm", options={"corpus": "{corpus}"}), pd)
    True
    >>> retrains_on(SegmenterSpec("jieba", "jieba"), pd)
    False
    """
    options = spec.options_for(corpus, data_dir)
    return (
        corpus.name is not None
        and options.get("corpus") == corpus.name
        and options.get("split", "train") == "train"
    )


def resplit_config(
    config: BakeoffConfig,
    corpus: CorpusSpec,
    splits: CorpusResplits,
    shipped: Iterable[str] = (),
    data_dir: str | None = None,
) -> tuple[BakeoffConfig, set[str]]:
    """The bake-off of one corpus' re-splits, and the labels of its rows trained again.

    Its corpora are the splits' test parts (their training parts' word types the
    OOV dictionary); its rows those of ``config`` that run on ``corpus``, but for
    participants' files and the Python segmenters ``shipped`` (the caller gives
    them again), a row trained on ``corpus`` now on each split's training part.
    """
    corpora = tuple(
        replace(
            corpus,
            label=label,
            name=None,
            split="test",
            gold=splits.part(label, "test"),
            raw=None,
            format="plain",
            encoding="utf-8",
            dictionary="file:" + splits.part(label, "words"),
            optional=False,
        )
        for label in splits.labels
    )
    rows = []
    retrained = set()
    training = os.path.join(splits.folder, "{label}.train.txt")
    for spec in config.segmenters:
        if not spec.runs_on(corpus) or spec.label in shipped:
            continue
        if spec.participant is not None or spec.name == "file":
            continue
        if retrains_on(spec, corpus, data_dir):
            options = {k: v for k, v in spec.options.items() if k != "split"}
            spec = replace(spec, options={**options, "corpus": training})
            retrained.add(spec.label)
        rows.append(replace(spec, corpora=None))
    derived = replace(
        config,
        name=f"{config.name}-resplits",
        corpora=corpora,
        segmenters=tuple(rows),
        resplits=0,
    )
    return derived, retrained


def verdict_of(comparison: Any) -> str | None:
    """``a`` (a beats b significantly), ``b``, ``none`` (no significant difference), or
    None for a comparison outside every family (judged by no test).

    >>> from cws_bench.results.model import Comparison, Interval
    >>> c = Comparison("pku", "x", "y", "f1", -0.01, Interval(-0.02, -0.001), 0.01, True, 0.02)
    >>> verdict_of(c), verdict_of(replace(c, significant=False))
    ('b', 'none')
    """
    if comparison.adjusted_p_value is None:
        return None
    if not comparison.significant:
        return "none"
    return "a" if comparison.difference > 0 else "b"


def tally_verdicts(
    standard: Sequence[Any], splits: Mapping[str, Sequence[Any]], corpus: str
) -> list[dict[str, Any]]:
    """How often each pairwise verdict of ``corpus`` holds across its re-splits.

    Args:
        standard: the run's comparisons (those of ``corpus`` are read).
        splits: each split's label to its comparisons.

    Returns:
        One entry per pair of rows compared on the standard split or on a re-split:
        ``{"a", "b", "standard": verdict or None, "counts": {"a", "none", "b"}, "n":
        splits that judged the pair, "agree": splits whose verdict is the standard's}``.
    """
    found: dict[tuple[str, str], dict[str, Any]] = {}

    def entry(a: str, b: str) -> dict[str, Any]:
        if (a, b) not in found:
            counts = dict.fromkeys(VERDICTS, 0)
            found[a, b] = {"a": a, "b": b, "standard": None, "counts": counts, "n": 0}
        return found[a, b]

    for c in standard:
        if c.corpus == corpus and verdict_of(c) is not None:
            entry(c.a, c.b)["standard"] = verdict_of(c)
    for comparisons in splits.values():
        for c in comparisons:
            verdict = verdict_of(c)
            if verdict is None:
                continue
            if (c.a, c.b) not in found and (c.b, c.a) in found:
                row = found[c.b, c.a]  # the same pair, the other way round
                verdict = {"a": "b", "b": "a"}.get(verdict, verdict)
            else:
                row = entry(c.a, c.b)
            row["counts"][verdict] += 1
            row["n"] += 1
    for row in found.values():
        row["agree"] = row["counts"][row["standard"]] if row["standard"] else None
    return list(found.values())


def resplit_signature(count: int, seed: int, config: BakeoffConfig) -> str:
    """What makes the re-splits' counts: ``resplits:N|resplit-seed:S|test:...|...``.

    >>> from cws_bench.run.config import BakeoffConfig
    >>> resplit_signature(10, 2005, BakeoffConfig("x", (), ()))
    'resplits:10|resplit-seed:2005|split:numpy-default_rng(seed,i)|test:bootstrap|resamples:1000|correction:holm|alpha:0.05'
    """
    return "|".join(
        [
            f"resplits:{count}",
            f"resplit-seed:{seed}",
            "split:numpy-default_rng(seed,i)",
            f"test:{config.test}",
            f"resamples:{config.resamples}",
            f"correction:{config.correction}",
            f"alpha:{config.alpha:g}",
        ]
    )

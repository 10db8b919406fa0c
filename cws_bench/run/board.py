"""The board: every segmenter installable here on every gold corpus present, as one bake-off.

:func:`board_config` makes a :class:`~cws_bench.run.config.BakeoffConfig` from
the registries, not from a file:

- the corpora: every registered corpus whose test split is here
  (:meth:`~cws_bench.corpora.base.Corpus.availability`), scored as written,
  with its standard dictionary where it has one (else no OOV figures);
- the closed track: maximum matching (``fmm``, ``bmm``, ``bimm``) with each corpus' own
  training words, on the corpora that have them, and the ``hmm`` and ``crf``
  taggers trained on each corpus' training split where one is here;
- the open track: every pretrained segmenter of the registry whose library
  and model are here (``list_segmenters``, ``model_problem``), the LLM
  tokenizer presets among them.

What cannot run is an :class:`Absent` with why and how to add it, never a
failure. :func:`run_board` runs the configuration through
:func:`~cws_bench.run.bakeoff.run_bakeoff` (its cache, executors and reports)
and writes the site (:func:`cws_bench.reports.board.write_board`).

Each corpus is counted by its official method (``Corpus.official_method``): the
SIGHAN 2005 corpora by the bakeoff script's diff (``cws-bench score --method
sighan``), the others by intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cws_bench.errors import Fix, Terms
from cws_bench.run.config import BakeoffConfig, CorpusSpec, SegmenterSpec
from cws_bench.text.io import PathLike

if TYPE_CHECKING:
    from cws_bench.results.model import BakeoffResult

__all__ = [
    "BOARD_NAME",
    "DICTIONARY_BASELINES",
    "TAGGERS",
    "Absent",
    "Board",
    "board_config",
    "run_board",
    "segmenter_facts",
]

BOARD_NAME = "board"

DICTIONARY_BASELINES = ("fmm", "bmm", "bimm")
"""Closed track: maximum matching with each corpus' own training words."""

TAGGERS = ("hmm", "crf")
"""Closed track: trained on each corpus' training split."""

NEEDS_A_NAME = {
    "tokenizer": "a tokenizer you name (options: hf, sentencepiece, tiktoken, qwen)",
    "transformers": "a Hugging Face model you name (option model)",
    "llm": "an endpoint or a local model you name (options: endpoint, model)",
    "command": "a program you name (option command)",
    "file": "segmentations made elsewhere (option path)",
}
"""Registered names that are not a segmenter by themselves: each needs what it says."""


@dataclass(frozen=True)
class Absent:
    """A segmenter or corpus of the registries that is not on the board.

    Attributes:
        kind: ``segmenter`` or ``corpus``.
        name: its registered name.
        why: why it is not here.
        how: how to add it, or None.
    """

    kind: str
    name: str
    why: str
    how: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        how = f" ({self.how})" if self.how else ""
        return f"{self.kind} {self.name}: {self.why}{how}"


@dataclass(frozen=True)
class Board:
    """The board's bake-off configuration and what the registries hold that is not on it."""

    config: BakeoffConfig
    absent: tuple[Absent, ...]


@dataclass(frozen=True)
class _CorpusFacts:
    spec: CorpusSpec
    has_dictionary: bool
    has_train: bool


def _corpora(
    names: Sequence[str] | None, data_dir: str | None, terms: Terms
) -> tuple[list[_CorpusFacts], list[Absent]]:
    from cws_bench.corpora import corpus_names, get_corpus
    from cws_bench.run.problems import check_names

    known = corpus_names()
    if names is not None:
        check_names("corpus", list(names), known)
    present, absent = [], []
    for name in known if names is None else [n for n in known if n in names]:
        corpus = get_corpus(name, data_dir=data_dir)
        availability = corpus.availability()
        if "test" not in corpus.splits:
            absent.append(Absent("corpus", name, "has no test split (a word source, not gold)"))
            continue
        if "test" not in availability.splits:
            absent.append(Absent("corpus", name, "not here", availability.how_to_get(terms)))
            continue
        if corpus.dictionary_split is None:
            has_dictionary = True  # the corpus ships its word list beside the test set
        else:
            has_dictionary = corpus.dictionary_split in availability.splits
        has_train = "train" in availability.splits
        spec = CorpusSpec(
            label=name,
            name=name,
            split="test",
            dictionary=None if has_dictionary else "none",
            normalize="none",
            method=None if corpus.official_method == "interval" else corpus.official_method,
        )
        present.append(_CorpusFacts(spec, has_dictionary, has_train))
    return present, absent


def _segmenters(
    names: Sequence[str] | None, corpora: list[_CorpusFacts], data_dir: str | None
) -> tuple[list[SegmenterSpec], list[Absent]]:
    from cws_bench.run.problems import check_names
    from cws_bench.segmenters import check_segmenter_options, list_segmenters

    infos = list_segmenters(devices=False)
    if names is not None:
        check_names("segmenter", list(names), [info.name for info in infos])
    specs, absent = [], []
    data = {"data_dir": "{data_dir}"} if data_dir is not None else {}
    for info in infos:
        if names is not None and info.name not in names:
            continue
        if info.name in NEEDS_A_NAME or info.kind == "external":
            why = f"needs {NEEDS_A_NAME.get(info.name, 'options of your own')}"
            absent.append(Absent("segmenter", info.name, why, "add a row of it to a bake-off TOML"))
            continue
        if not info.available:
            absent.append(Absent("segmenter", info.name, info.reason or "not here", info.install))
            continue
        if info.name in DICTIONARY_BASELINES or info.name in TAGGERS:
            wanted = "has_dictionary" if info.name in DICTIONARY_BASELINES else "has_train"
            on = tuple(c.spec.label for c in corpora if getattr(c, wanted))
            if not on:
                what = "training words" if wanted == "has_dictionary" else "training split"
                absent.append(
                    Absent(
                        "segmenter",
                        info.name,
                        f"no corpus here has its {what} (closed track)",
                        "get a corpus' training data (cws-bench corpora)",
                    )
                )
                continue
            options: dict[str, Any] = {"corpus": "{corpus}", **data}
            if info.name in TAGGERS:
                options["split"] = "train"
            if info.name == "crf":
                options["cache"] = True
            specs.append(
                SegmenterSpec(
                    label=info.name, name=info.name, track="closed", options=options, corpora=on
                )
            )
            continue
        cls, presets = check_segmenter_options(info.name, {})
        problem = cls.model_problem(presets)
        if problem is not None:
            absent.append(Absent("segmenter", info.name, problem[0], problem[1]))
            continue
        specs.append(SegmenterSpec(label=info.name, name=info.name, track="open"))
    return specs, absent


def board_config(
    *,
    segmenters: Sequence[str] | None = None,
    corpora: Sequence[str] | None = None,
    data_dir: PathLike | None = None,
    resamples: int = 1000,
    terms: Terms = Fix.api,
) -> Board:
    """The board's bake-off: what the registries hold that is here, and what is not.

    Args:
        segmenters: only these registered segmenters [default: every one].
        corpora: only these registered corpora [default: every one].
        data_dir: where corpora that need local data are.
        resamples: bootstrap resamples of the intervals.
        terms: how the hints of absent corpora name a fix (the API's, or a command's flags).

    Raises:
        CwsBenchError: a name that is in neither registry (with the closest ones).
    """
    import os

    data = os.fspath(data_dir) if data_dir is not None else None
    facts, absent_corpora = _corpora(corpora, data, terms)
    specs, absent_segmenters = _segmenters(segmenters, facts, data)
    config = BakeoffConfig(
        name=BOARD_NAME,
        corpora=tuple(fact.spec for fact in facts),
        segmenters=tuple(specs),
        resamples=resamples,
        description="Every segmenter installable here on every gold corpus present "
        "(cws-bench board): closed track on each corpus' own training data, open track "
        "the pretrained segmenters and LLM tokenizers.",
    )
    return Board(config, (*absent_segmenters, *absent_corpora))


def segmenter_facts(names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per registered segmenter name, its distribution and licence as installed
    (``importlib.metadata``; None where the metadata says nothing)."""
    import importlib.metadata

    from cws_bench.segmenters.registry import segmenter_class

    facts: dict[str, dict[str, Any]] = {}
    for name in names:
        distribution = segmenter_class(name).distribution or "cws-bench"
        licence = None
        meta: Any
        try:
            meta = importlib.metadata.metadata(distribution)
        except importlib.metadata.PackageNotFoundError:
            meta = None
        if meta is not None:
            named = [*(meta.get_all("License-Expression") or []), *(meta.get_all("License") or [])]
            licence = next((str(value) for value in named if value), None)
            if not licence or len(licence) > 80:  # a whole licence text: the classifier's name
                classifiers = [
                    c.rsplit(" :: ", 1)[-1]
                    for c in meta.get_all("Classifier") or []
                    if c.startswith("License ::")
                ]
                licence = ", ".join(classifiers) or None
        facts[name] = {"distribution": distribution, "licence": licence}
    return facts


def run_board(
    board: Board,
    output_dir: PathLike,
    *,
    data_dir: PathLike | None = None,
    progress: bool = False,
    **run: Any,
) -> BakeoffResult:
    """Run the board's bake-off (reports and cache in ``output_dir``) and write its site there.

    ``run`` goes to :func:`~cws_bench.run.bakeoff.run_bakeoff` (jobs, executor,
    scheduler, use_cache, ...).
    """
    from cws_bench.reports.board import write_board
    from cws_bench.results.published import load_claims
    from cws_bench.run.bakeoff import run_bakeoff

    result = run_bakeoff(
        board.config, output_dir=output_dir, data_dir=data_dir, progress=progress, **run
    )
    facts = segmenter_facts([spec.name for spec in board.config.segmenters])
    labels = {spec.label: facts[spec.name] for spec in board.config.segmenters}
    write_board(result, Path(output_dir), absent=board.absent, claims=load_claims(), facts=labels)
    return result

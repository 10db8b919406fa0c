"""``audit``: several segmenters on text without gold (agreement, consistency, robustness).

The text (files, or a corpus' raw text) is segmented by each segmenter
through the run's machinery: in this process with
:func:`~cws_bench.segmenters.segment_file`, or in shards on an executor with
:func:`~cws_bench.run.sharded.segment_sharded`, into ``FOLDER/segmented/``,
each output kept under a key of its content (the segmenter's name, options
and the files they name, its libraries' versions, the input's checksum), so
a run again reuses what is done. Then one pass reads the outputs in lockstep,
line by line, and keeps only additive counts and bounded samples:

- **agreement**: each pair scored with the scorer's engine, one segmenter as
  gold (boundary F and word F are symmetric), the consensus
  (:func:`~cws_bench.analysis.agreement.consensus`) likewise; per-sentence
  rows (:class:`~cws_bench.analysis.agreement.BlockRows`) for the bootstrap
  intervals of :mod:`cws_bench.metrics.significance`;
- **consistency** (:mod:`cws_bench.analysis.consistency`), on the strings a
  first pass over the outputs counted;
- **robustness** (:mod:`cws_bench.analysis.robustness`): a seeded sample of
  sentences, perturbed, written to ``FOLDER/perturbed/`` and segmented the same way;
- **where to look**: a stratified sample of disagreeing sentences written to
  ``FOLDER/annotate/`` (the consensus as gold to correct, each segmenter's
  segmentation of the same lines, a TSV of the alternatives).
"""

from __future__ import annotations

import glob
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cws_bench.defaults import DEFAULT_BATCH_SIZE
from cws_bench.errors import CwsBenchError
from cws_bench.metrics.defaults import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from cws_bench.run.executors import Executor

__all__ = [
    "AuditSegmenter",
    "AuditSettings",
    "AuditText",
    "audit",
    "resolve_texts",
]

WORD_COLUMNS = 6  # correct, pred, gold words; correct, pred, gold boundaries
_FIELDS = ("correct", "pred", "gold", "correct_boundaries", "pred_boundaries", "gold_boundaries")
BATCH_LINES = 2000


@dataclass(frozen=True)
class AuditSegmenter:
    """A segmenter of the audit: its report label, registered name and options."""

    label: str
    name: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AuditText:
    """A text of the audit: a label and the raw file (one sentence a line)."""

    label: str
    path: str


@dataclass(frozen=True)
class AuditSettings:
    """Every setting that can change an audit's numbers (its signature).

    Attributes:
        seed, resamples, confidence: of the bootstrap intervals and of the samples.
        perturbations: which of :data:`~cws_bench.analysis.robustness.PERTURBATIONS`.
        perturb_sentences: the sentences (a seeded sample) each perturbation is tried on.
        sample: sentences exported for annotation (spread over the four strata).
        strings: the most strings the consistency check tracks.
        max_length: the longest tracked string.
        top: inconsistent strings listed per segmenter.
        row_cap: per-sentence rows kept for the bootstrap; past it, neighbouring rows are
            summed into blocks of 2, 4, ... sentences (memory: ``row_cap`` × (6 × (pairs +
            segmenters) + 2) × 8 bytes at most, 20 MB for three segmenters).
    """

    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    confidence: float = DEFAULT_CONFIDENCE
    perturbations: tuple[str, ...] = ("space", "width", "punct")
    perturb_sentences: int = 1000
    sample: int = 200
    strings: int = 50_000
    max_length: int = 8
    top: int = 20
    row_cap: int = 1 << 16


# ---------------------------------------------------------------- inputs


def resolve_texts(
    texts: Sequence[str], folder: str | os.PathLike[str], *, data_dir: str | None = None
) -> list[AuditText]:
    """The files the arguments name: files, globs, or a corpus' raw text ``NAME[:SPLIT]``
    (written once to ``FOLDER/inputs/NAME-SPLIT.txt``).

    Raises:
        CwsBenchError: an argument that is none of these.
    """
    found: list[AuditText] = []
    for text in texts:
        if os.path.isfile(text):
            found.append(AuditText(os.path.basename(text), text))
            continue
        if glob.has_magic(text):
            paths = sorted(p for p in glob.glob(text) if os.path.isfile(p))
            if not paths:
                raise CwsBenchError(f"{text}: no file matches", "check the pattern (quote it)")
            found += [AuditText(os.path.basename(p), p) for p in paths]
            continue
        found.append(_corpus_text(text, Path(folder), data_dir))
    labels = [t.label for t in found]
    return [
        AuditText(t.label if labels.count(t.label) == 1 else f"{i + 1}-{t.label}", t.path)
        for i, t in enumerate(found)
    ]


def _corpus_text(spec: str, folder: Path, data_dir: str | None) -> AuditText:
    from cws_bench.corpora import corpus_names, get_corpus, parse_corpus_spec
    from cws_bench.text.io import atomic_write

    name, split = parse_corpus_spec(spec)
    if name not in corpus_names():
        raise CwsBenchError(
            f"{spec}: neither a file nor a corpus",
            "give a raw text file, a glob, or a corpus as NAME[:SPLIT] (cws-bench corpora list)",
        )
    corpus = get_corpus(name, data_dir=data_dir)
    split = corpus.check_split(split or "test")
    path = folder / "inputs" / f"{name}-{split}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as f:
        for line in corpus.raw(split):
            f.write(line + "\n")
    return AuditText(f"{name}:{split}", str(path))


# ---------------------------------------------------------------- segmenting


def _key(segmenter: AuditSegmenter, source: str) -> str:
    from cws_bench import __version__
    from cws_bench.run.identity import library_versions
    from cws_bench.run.tasks import segmenter_key
    from cws_bench.text.checksums import file_checksum

    return json.dumps(
        {
            "segmenter": segmenter_key(segmenter.name, dict(segmenter.options)),
            "libraries": library_versions(segmenter.name),
            "input": file_checksum(source),
            "cws_bench": __version__,
        },
        sort_keys=True,
    )


@dataclass
class _Segmenting:
    """Segments the audit's files (in this process, or in shards on ``executor``) and times it."""

    executor: Executor | None
    batch_size: int
    segment_s: float = 0.0  # inside the segmenters (summed over workers)
    wall_s: float = 0.0  # the segmenting steps' wall time
    characters: int = 0
    cached: int = 0
    by_segmenter: dict[str, list[float]] = field(default_factory=dict)  # label -> [s, chars]

    def add(self, label: str, seconds: float, characters: int) -> None:
        self.segment_s += seconds
        self.characters += characters
        spent = self.by_segmenter.setdefault(label, [0.0, 0])
        spent[0] += seconds
        spent[1] += characters

    def segment(self, segmenter: AuditSegmenter, source: str, target: Path) -> None:
        """Segment ``source`` into ``target`` unless the key beside it says it is done."""
        key = _key(segmenter, source)
        key_file = target.with_suffix(".key")
        if target.is_file() and key_file.is_file() and key_file.read_text("utf-8") == key:
            self.cached += 1
            return
        from cws_bench.text.io import atomic_write

        target.parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        if self.executor is not None:
            from cws_bench.run.sharded import segment_sharded

            stats = segment_sharded(
                segmenter.name,
                source,
                target,
                executor=self.executor,
                options=dict(segmenter.options),
                batch_size=self.batch_size,
            )
            self.add(segmenter.label, stats.seconds, stats.characters)
        else:
            from cws_bench.run.executors import cached
            from cws_bench.run.tasks import segmenter_key
            from cws_bench.segmenters import get_segmenter, segment_file

            loaded = cached(  # kept in this process for the next text
                segmenter_key(segmenter.name, dict(segmenter.options)),
                lambda: get_segmenter(segmenter.name, **segmenter.options),
            )
            run = segment_file(loaded, source, target, batch_size=self.batch_size)
            self.add(segmenter.label, run.seconds, run.characters)
        self.wall_s += time.perf_counter() - started
        with atomic_write(key_file) as f:
            f.write(key)


# ---------------------------------------------------------------- the pass


def _read_lines(path: Path) -> Iterator[str]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            yield line.rstrip("\n")


def _batches(paths: Sequence[Path], name: str) -> Iterator[list[tuple[str, ...]]]:
    """The outputs' lines in lockstep, in batches; outputs of different lengths raise."""
    with ExitStack() as stack:
        files = [stack.enter_context(open(p, encoding="utf-8")) for p in paths]
        batch: list[tuple[str, ...]] = []
        while True:
            lines = [f.readline() for f in files]
            ends = [line == "" for line in lines]
            if all(ends):
                break
            if any(ends):
                raise CwsBenchError(
                    f"{name}: the segmenters' outputs have different numbers of lines "
                    f"({', '.join(str(p) for p in paths)})",
                    "remove the folder's segmented/ and run again",
                )
            batch.append(tuple(line.rstrip("\n") for line in lines))
            if len(batch) == BATCH_LINES:
                yield batch
                batch = []
        if batch:
            yield batch


def _pair_rows(gold: list[str], pred: list[str]) -> tuple[list[int], list[tuple[int, ...]]]:
    """The scorer's totals (COUNT_FIELDS) and each line's six agreement columns."""
    from cws_bench.scoring.engine import Scorer

    scorer = Scorer(None, method="interval", strict=False, per_line=True, max_examples=0)
    scorer.add_lines(gold, pred)
    rows: list[tuple[int, ...]] = [(0,) * WORD_COLUMNS] * len(gold)
    for line, counts in scorer.acc.lines or ():
        rows[line - 1] = tuple(getattr(counts, name) for name in _FIELDS)
    return scorer.acc.totals, rows


def _add_totals(into: list[int] | None, totals: list[int]) -> list[int]:
    return list(totals) if into is None else [a + b for a, b in zip(into, totals)]


def _score(totals: list[int] | None) -> tuple[float, float]:
    from cws_bench.scoring import SegCounts
    from cws_bench.scoring.scores import score_counts

    scores = score_counts(SegCounts(*(totals or [])), has_dictionary=False)
    return scores.boundary_f1, scores.f1


def _pair_scores(
    totals: list[int] | None, base: int, interval: Callable[[Sequence[int]], dict[str, Any]]
) -> dict[str, Any]:
    """Boundary and word F of summed totals, with intervals from the rows' columns at
    ``base`` (the six agreement columns of one pair)."""
    boundary_f1, word_f1 = _score(totals)
    return {
        "boundary_f1": boundary_f1,
        "boundary_f1_interval": interval([base + 3, base + 4, base + 5]),
        "word_f1": word_f1,
        "word_f1_interval": interval([base, base + 1, base + 2]),
    }


class _Pass:
    """The one pass over the outputs in lockstep: additive counts and bounded samples only.

    Each sentence's row holds six agreement columns per pair, six per segmenter against
    the consensus, then (all agree, 1).
    """

    def __init__(self, labels: list[str], settings: AuditSettings, tracker: Any) -> None:
        from cws_bench.analysis.agreement import STRATA, BlockRows, StratifiedSample

        self.labels = labels
        self.settings = settings
        self.tracker = tracker
        self.pairs = [(i, j) for i in range(len(labels)) for j in range(i + 1, len(labels))]
        self.width = WORD_COLUMNS * (len(self.pairs) + len(labels)) + 2
        self.rows = BlockRows(self.width, cap=settings.row_cap)
        self.pair_totals: list[list[int] | None] = [None] * len(self.pairs)
        self.consensus_totals: list[list[int] | None] = [None] * len(labels)
        per_stratum = max(1, settings.sample // len(STRATA))
        self.sample = StratifiedSample(len(STRATA), per_stratum, seed=settings.seed)
        self.perturb_pool = StratifiedSample(1, settings.perturb_sentences, seed=settings.seed + 1)
        self.sentences = self.characters = self.agreeing = 0

    def read_text(self, text: AuditText, row: Sequence[Path]) -> dict[str, Any]:
        """Add one text's outputs; its facts for the signature."""
        from cws_bench.text.checksums import file_checksum

        line_no = 0
        text_sentences = text_characters = 0
        for batch in _batches(row, text.label):
            split, votes, counted = self._score_batch(batch)
            for offset, line_tuple in enumerate(batch):
                line_no += 1
                added = self._add_sentence(
                    text.label,
                    line_no,
                    line_tuple,
                    split[offset],
                    votes[offset],
                    [lines[offset] for lines in counted],
                )
                if added:
                    text_sentences += 1
                    text_characters += added
        return {
            "label": text.label,
            "path": text.path,
            "checksum": file_checksum(text.path),
            "lines": line_no,
            "sentences": text_sentences,
            "characters": text_characters,
        }

    def _score_batch(
        self, batch: list[tuple[str, ...]]
    ) -> tuple[list[list[list[str]]], list[str], list[list[tuple[int, ...]]]]:
        """The batch's words, consensus lines, and each line's agreement columns (of each
        pair, then of each segmenter against the consensus); the totals added up."""
        from cws_bench.analysis.agreement import consensus

        columns = list(zip(*batch))
        split = [[line.split(" ") if line else [] for line in lines] for lines in batch]
        votes = [" ".join(consensus(words)) if words[0] else "" for words in split]
        counted = []
        for p, (i, j) in enumerate(self.pairs):
            totals, lines = _pair_rows(list(columns[i]), list(columns[j]))
            self.pair_totals[p] = _add_totals(self.pair_totals[p], totals)
            counted.append(lines)
        for k in range(len(self.labels)):
            totals, lines = _pair_rows(votes, list(columns[k]))
            self.consensus_totals[k] = _add_totals(self.consensus_totals[k], totals)
            counted.append(lines)
        return split, votes, counted

    def _add_sentence(
        self,
        label: str,
        line_no: int,
        line_tuple: tuple[str, ...],
        words: list[list[str]],
        vote: str,
        counted: list[tuple[int, ...]],
    ) -> int:
        """Add one line (every segmenter's words of it); its characters (0: an empty line,
        not a sentence)."""
        from cws_bench.analysis.agreement import contested_share, stratum

        text_str = "".join(words[0])
        if not text_str:
            return 0
        same = all(w == words[0] for w in words[1:])
        self.sentences += 1
        self.characters += len(text_str)
        self.agreeing += same
        row_values: list[int] = []
        for columns in counted:
            row_values.extend(columns)
        row_values += (int(same), 1)
        self.rows.add(row_values)
        self.tracker.add(line_no, text_str, words)
        self.perturb_pool.offer(0, (label, line_no, text_str, line_tuple))
        if not same:
            share = contested_share(words)
            where = stratum(share)
            if where is not None:
                self.sample.offer(where, (share, label, line_no, vote, line_tuple))
        return len(text_str)

    def agreement(self) -> dict[str, Any]:
        """The pairwise matrix, agreement with the consensus and the share of sentences on
        which all agree, each with its bootstrap interval (one draw of resamples for all:
        the same sentences)."""
        from cws_bench.metrics.significance import (
            SharedResamples,
            fscore_statistic,
            ratio_statistic,
        )

        settings, labels = self.settings, self.labels
        shared = SharedResamples(
            [self.rows.array()], n_resamples=settings.resamples, seed=settings.seed
        )

        def interval(columns: Sequence[int]) -> dict[str, Any]:
            correct, predicted, actual = columns
            statistic = fscore_statistic(
                true_positives=correct, predicted_positives=predicted, actual_positives=actual
            )
            found = shared.interval(0, statistic, confidence=settings.confidence)
            return {"low": found.low, "high": found.high}

        matrix = [
            {
                "a": labels[i],
                "b": labels[j],
                **_pair_scores(self.pair_totals[p], WORD_COLUMNS * p, interval),
            }
            for p, (i, j) in enumerate(self.pairs)
        ]
        with_consensus = [
            {
                "segmenter": label,
                **_pair_scores(
                    self.consensus_totals[k], WORD_COLUMNS * (len(self.pairs) + k), interval
                ),
            }
            for k, label in enumerate(labels)
        ]
        agree = shared.interval(
            0, ratio_statistic(self.width - 2, self.width - 1), confidence=settings.confidence
        )
        return {
            "pairs": matrix,
            "all_agree": {
                "sentences": self.agreeing,
                "share": agree.estimate,
                "low": agree.low,
                "high": agree.high,
            },
            "consensus": with_consensus,
            "block": self.rows.block,
        }


def _check_audit(
    texts: Sequence[AuditText], segmenters: Sequence[AuditSegmenter]
) -> list[dict[str, Any]]:
    """The segmenters' identities, once the arguments are checked (before any work)."""
    labels = [s.label for s in segmenters]
    if len(segmenters) < 2:
        raise CwsBenchError("an audit needs at least two segmenters", "name two or more")
    if len(set(labels)) != len(labels):
        raise CwsBenchError(f"segmenter labels repeat: {', '.join(labels)}", "label each once")
    if not texts:
        raise CwsBenchError("no text to audit", "name a file, a glob or a corpus")
    return [_identity(s) for s in segmenters]  # an unknown name fails before any work


def _segment_texts(
    texts: Sequence[AuditText],
    segmenters: Sequence[AuditSegmenter],
    root: Path,
    segmenting: _Segmenting,
    say: Callable[[str], None],
) -> list[list[Path]]:
    """Each text segmented by each segmenter (or found in the cache): the outputs, a row
    per text."""
    outputs: list[list[Path]] = []
    for index, text in enumerate(texts):
        row = []
        for segmenter in segmenters:
            target = root / "segmented" / segmenter.label / f"{index + 1}.txt"
            say(f"segmenting {text.label} with {segmenter.label}")
            segmenting.segment(segmenter, text.path, target)
            row.append(target)
        outputs.append(row)
    return outputs


def _count_strings(outputs: list[list[Path]], settings: AuditSettings) -> Any:
    """The first pass: the strings some segmenter produced, for the consistency check."""
    from cws_bench.analysis.consistency import CandidateCounter

    counter = CandidateCounter(cap=settings.strings, max_length=settings.max_length)
    for row in outputs:
        for path in row:
            for line in _read_lines(path):
                counter.add(line.split(" "))
    return counter


def _consistency_result(
    counter: Any, tracker: Any, labels: list[str], settings: AuditSettings
) -> dict[str, Any]:
    return {
        "tracked_strings": len(counter.strings()),
        "pruned": counter.pruned,
        "max_length": settings.max_length,
        "segmenters": [
            {
                "segmenter": label,
                "bands": tracker.bands(label),
                "top": [e.to_dict() for e in tracker.inconsistent(label)[: settings.top]],
            }
            for label in labels
        ],
    }


def _timing_result(
    segmenting: _Segmenting, characters: int, audit_s: float, started: float
) -> dict[str, Any]:
    return {
        "segment_s": segmenting.segment_s,
        "segment_wall_s": segmenting.wall_s,
        "segmented_characters": segmenting.characters,
        "cached_outputs": segmenting.cached,
        "segmenters": [
            {
                "segmenter": label,
                "segment_s": seconds,
                "characters": int(chars),
                "characters_per_second": chars / seconds if seconds > 0 else 0.0,
            }
            for label, (seconds, chars) in segmenting.by_segmenter.items()
        ],
        "audit_s": audit_s,
        "audit_characters_per_second": characters / audit_s if audit_s > 0 else 0.0,
        "total_s": time.perf_counter() - started,
    }


def audit(
    texts: Sequence[AuditText],
    segmenters: Sequence[AuditSegmenter],
    folder: str | os.PathLike[str],
    *,
    settings: AuditSettings | None = None,
    executor: Executor | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Audit ``segmenters`` on ``texts``; the result as plain data (what ``audit.json`` holds).

    The folder receives ``segmented/``, ``perturbed/`` and ``annotate/``; the
    reports are written by the caller (:func:`cws_bench.reports.audit.write_audit_reports`).

    Raises:
        CwsBenchError: fewer than two segmenters, duplicate labels, no text,
            a segmenter that failed.
    """
    from cws_bench.analysis.agreement import STRATA
    from cws_bench.analysis.consistency import Consistency

    settings = settings or AuditSettings()
    identities = _check_audit(texts, segmenters)
    labels = [s.label for s in segmenters]
    say = progress or (lambda message: None)
    root = Path(folder)
    started = time.perf_counter()
    segmenting = _Segmenting(executor, batch_size)
    outputs = _segment_texts(texts, segmenters, root, segmenting, say)

    audit_started = time.perf_counter()
    say("counting strings")
    counter = _count_strings(outputs, settings)
    state = _Pass(labels, settings, Consistency(labels, counter.strings()))
    text_facts = []
    for text, row in zip(texts, outputs):
        say(f"auditing {text.label}")
        text_facts.append(state.read_text(text, row))
    if not state.sentences:
        raise CwsBenchError("the text holds no sentence", "give a file with some text")
    agreement = state.agreement()

    say("writing the annotation sample")
    annotation = _write_sample(root / "annotate", labels, state.sample, STRATA)
    robustness = _robustness(root, segmenters, state.perturb_pool.items[0], settings, segmenting)
    audit_s = time.perf_counter() - audit_started - robustness.pop("segment_wall_s")
    return {
        "signature": {
            "segmenters": identities,
            "texts": text_facts,
            "settings": asdict(settings),
            "tie_rule": "a boundary where exactly half the segmenters cut goes the first "
            "segmenter's way",
        },
        "sentences": state.sentences,
        "characters": state.characters,
        "agreement": agreement,
        "consistency": _consistency_result(counter, state.tracker, labels, settings),
        "robustness": robustness,
        "annotation": annotation,
        "timing": _timing_result(segmenting, state.characters, audit_s, started),
    }


def _identity(segmenter: AuditSegmenter) -> dict[str, Any]:
    from cws_bench.run.identity import library_versions, options_identity

    return {
        "label": segmenter.label,
        "name": segmenter.name,
        "options": options_identity(segmenter.options),
        "libraries": library_versions(segmenter.name),
    }


def _ratio_interval(rows: Any, settings: AuditSettings) -> dict[str, Any]:
    """A share (hits / sentences, rows of both) with its bootstrap interval."""
    import numpy as np

    from cws_bench.metrics.significance import bootstrap_confidence_interval, ratio_statistic

    counts = np.asarray(rows, dtype=np.int64)
    found = bootstrap_confidence_interval(
        counts,
        ratio_statistic(0, 1),
        n_resamples=settings.resamples,
        confidence=settings.confidence,
        seed=settings.seed,
    )
    return {"share": found.estimate, "low": found.low, "high": found.high}


# ---------------------------------------------------------------- where to look


def _write_sample(
    folder: Path, labels: list[str], sample: Any, strata: Sequence[tuple[float, float]]
) -> dict[str, Any]:
    """Write the stratified sample: ``gold.txt`` (the consensus, to correct), one file per
    segmenter (its segmentation of the same lines) and ``alternatives.tsv``."""
    import csv

    from cws_bench.text.io import atomic_write

    chosen = []
    for index in reversed(range(len(strata))):  # the most contested first
        chosen += [(index, item) for item in sorted(sample.items[index], key=lambda x: -x[0])]
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_write(folder / "gold.txt") as f:
        for _, (_, _, _, vote, _) in chosen:
            f.write(vote + "\n")
    for k, label in enumerate(labels):
        with atomic_write(folder / f"{label}.txt") as f:
            for _, (_, _, _, _, lines) in chosen:
                f.write(lines[k] + "\n")
    with atomic_write(folder / "alternatives.tsv") as f:
        writer = csv.writer(f, delimiter="\t", lineterminator="\n")
        writer.writerow(["row", "text", "line", "stratum", "contested_share", "consensus", *labels])
        for row, (index, (share, text, line, vote, lines)) in enumerate(chosen, start=1):
            low, high = strata[index]
            writer.writerow([row, text, line, f"({low}, {high}]", f"{share:.4f}", vote, *lines])
    return {
        "folder": str(folder),
        "sentences": len(chosen),
        "strata": [
            {"stratum": f"({low}, {high}]", "disagreeing": seen, "sampled": len(items)}
            for (low, high), seen, items in zip(strata, sample.seen, sample.items)
        ],
    }


# ---------------------------------------------------------------- robustness


def _robustness(
    root: Path,
    segmenters: Sequence[AuditSegmenter],
    pool: list[Any],
    settings: AuditSettings,
    segmenting: _Segmenting,
) -> dict[str, Any]:
    from cws_bench.analysis.robustness import PERTURBATIONS, flipped, perturb
    from cws_bench.text.io import atomic_write

    notes: list[str] = []
    results: list[dict[str, Any]] = []
    wall = segmenting.wall_s
    pool = sorted(pool, key=lambda item: (item[0], item[1]))
    for kind in settings.perturbations:
        if kind not in PERTURBATIONS:
            raise CwsBenchError(
                f"unknown perturbation {kind!r}", f"choose from {', '.join(PERTURBATIONS)}"
            )
        convert = None
        if kind == "script":
            try:
                from cws_bench.text.normalize import get_normalizer

                convert = get_normalizer("s2t")
                convert("汉")
            except Exception as e:  # OpenCC missing or broken: skipped, said
                notes.append(f"script: skipped ({e})")
                continue
        made = [(item, perturb(kind, item[2], convert)) for item in pool]
        applied = [(item, p) for item, p in made if p is not None]
        if not applied:
            notes.append(f"{kind}: applies to none of the sampled sentences")
            continue
        source = root / "perturbed" / f"{kind}.txt"
        source.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(source) as f:
            for _, p in applied:
                f.write(p.line + "\n")
        for k, segmenter in enumerate(segmenters):
            target = root / "perturbed" / segmenter.label / f"{kind}.txt"
            segmenting.segment(segmenter, str(source), target)
            flips = []
            for (item, p), line in zip(applied, _read_lines(target)):
                original = item[3][k].split(" ") if item[3][k] else []
                flips.append(int(flipped(original, line.split(" ") if line else [], p)))
            share = _ratio_interval([(f, 1) for f in flips], settings)
            results.append(
                {
                    "perturbation": kind,
                    "segmenter": segmenter.label,
                    "sentences": len(flips),
                    "flipped": sum(flips),
                    "rate": share["share"],
                    "low": share["low"],
                    "high": share["high"],
                }
            )
    if "script" not in settings.perturbations:
        notes.append(
            "script (Simplified to Traditional): not run; no adapter declares that it reads "
            "both scripts: ask for it with --perturb ...,script"
        )
    wall = segmenting.wall_s - wall
    return {"sampled": len(pool), "rates": results, "notes": notes, "segment_wall_s": wall}

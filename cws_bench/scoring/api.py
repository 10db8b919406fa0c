"""The scorer's entry points: ``score_files`` (streamed files) and ``score_sentences``.

``score_files`` is one job (:class:`ScoringJob`) whose middle, a :class:`Counting`,
says how the lines both files have are counted: in this process
(:func:`count_in_process`), or in shards on an executor
(:class:`cws_bench.run.sharded.ShardedCounting`); the steps before and after are
the same, so are the warnings, checks and results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from cws_bench.defaults import STANDARD_DICTIONARY, DictionaryDefault
from cws_bench.errors import LineCountMismatchError
from cws_bench.scoring.engine import MAX_EXAMPLES, Scorer, hashed_blocks, kernel, paired_batches
from cws_bench.scoring.inputs import (
    check_plain,
    gold_sentences,
    normalized_dictionary,
    scoring_dictionary,
    sentence_blocks,
)
from cws_bench.scoring.methods import line_methods
from cws_bench.scoring.result import ScoreResult
from cws_bench.text.checksums import LineDigest, SentenceDigest
from cws_bench.text.io import (
    BackgroundHasher,
    PathLike,
    display_name,
    encoding_parameters,
    iter_line_blocks,
)
from cws_bench.text.joined import joined
from cws_bench.text.normalize import as_normalizer

if TYPE_CHECKING:
    from cws_bench.text.dictionary import Dictionary
    from cws_bench.text.normalize import Normalizer

__all__ = [
    "METHODS",
    "Counted",
    "Counting",
    "Method",
    "ScoringJob",
    "count_in_process",
    "score_files",
    "score_sentences",
]

Method = Literal["interval", "sighan"]
METHODS: tuple[str, ...] = line_methods()
"""The counting methods of line pairs (the registry of :mod:`cws_bench.scoring.methods`)."""


@dataclass
class ScoringJob:
    """One scoring of a prediction file against a gold: every form of :func:`score_files`
    (in process, or in shards) opens and finishes it the same way, only the middle, a
    :class:`Counting`, differs. ``gold_as_sentences`` is the gold's sentences (a corpus,
    another gold format), None for a plain file; ``scorer`` is set up for the job."""

    gold: PathLike
    pred: PathLike
    encoding: str
    pred_encoding: str
    gold_as_sentences: Iterator[list[str]] | None
    scorer: Scorer


@dataclass(frozen=True)
class Counted:
    """What a :class:`Counting` leaves besides the scorer's counts of the common lines.

    Attributes:
        gold_rest, pred_rest: the lines of the longer file past those both have.
        totals: the lines of (gold, prediction), empty ones counted.
        gold_checksum: the gold's sentence checksum (as ``score_sentences`` signs it).
    """

    gold_rest: list[str]
    pred_rest: list[str]
    totals: tuple[int, int]
    gold_checksum: str


Counting = Callable[[ScoringJob], Counted]
"""The middle of a scoring job: count the lines both files have into ``job.scorer``, and
keep the first line pairs as read in ``job.scorer.sample`` (what the input checks look
at), as :meth:`~cws_bench.scoring.engine.Scorer.add_lines` does."""


def count_in_process(job: ScoringJob) -> Counted:
    """The in-process middle: the files streamed through the kernel (or decoded lines)."""
    scorer, gold, pred, plain = job.scorer, job.gold, job.pred, job.gold_as_sentences is None
    # The gold's sentence checksum (as score_sentences and Corpus.checksum); a plain file's
    # from the UTF-8 bytes the kernel reads, on another core.
    digest = BackgroundHasher(LineDigest()) if plain else LineDigest()
    if kernel is not None and scorer.normalizer is None and plain:
        gold_rest, pred_rest = scorer.add_files(gold, pred, job.encoding, job.pred_encoding, digest)
    else:
        gold_rest, pred_rest = [], []
        batches = paired_batches(
            hashed_blocks(iter_line_blocks(gold, encoding=job.encoding), digest)
            if plain
            else sentence_blocks(job.gold_as_sentences or (), digest),
            iter_line_blocks(pred, encoding=job.pred_encoding),
        )
        for gold_lines, pred_lines, gold_left, pred_left in batches:
            if gold_lines:
                scorer.add_lines(gold_lines, pred_lines)
            gold_rest, pred_rest = gold_left or gold_rest, pred_left or pred_rest
    # Every line counts (empty ones too); empty lines at the end are not compared.
    totals = (scorer.line_no + len(gold_rest), scorer.line_no + len(pred_rest))
    return Counted(gold_rest, pred_rest, totals, digest.hexdigest())


def score_files(
    gold: PathLike,
    pred: PathLike,
    *,
    dictionary: Dictionary | Iterable[str] | PathLike | DictionaryDefault | None = (
        STANDARD_DICTIONARY
    ),
    normalize: str | Normalizer | None = None,
    encoding: str = "utf-8",
    pred_encoding: str | None = None,
    method: Method = "interval",
    beta: float = 1.0,
    strict: bool = False,
    allow_line_mismatch: bool = False,
    per_line: bool = False,
    max_examples: int = MAX_EXAMPLES,
    dictionary_encoding: str | None = None,
    gold_format: str = "auto",
    data_dir: PathLike | None = None,
    count: Counting | None = None,
) -> ScoreResult:
    """Score a segmented prediction file against a gold standard.

    The prediction holds one sentence a line, words separated by whitespace.
    The gold is a file in any gold format (plain segmented text, CoNLL-U,
    People's Daily ``word/POS``, BMES tags; detected unless ``gold_format``
    says which), or a registered corpus ``NAME[:SPLIT]`` (``sighan2005-pku:test``)
    when no file has that name. Sentence n of the gold pairs with line n of
    the prediction. Files are streamed: memory does not grow with their length
    (unless ``per_line`` keeps each line's counts in ``result.lines``).

    Line counts: a file has as many lines as ``wc -l`` counts, plus one for a
    last line without its newline; empty lines count, but empty lines at the
    end of either file are not compared.

    Args:
        pred: the prediction, or ``-`` for standard input.
        dictionary: for OOV/IV figures: a Dictionary, a dictionary file (read
            in ``dictionary_encoding``, by default the gold's encoding),
            ``jieba``, ``corpus:NAME[:SPLIT]``, words, or None (no OOV figures).
            By default (:data:`~cws_bench.defaults.STANDARD_DICTIONARY`) the
            standard dictionary of a corpus named as ``gold``, none for a file
            (:func:`~cws_bench.scoring.inputs.scoring_dictionary`).
        normalize: a normalisation of gold, prediction and dictionary (a spec
            such as ``width+t2s``, or a :class:`~cws_bench.text.normalize.Normalizer`).
        encoding: of the gold file, and of the prediction unless ``pred_encoding``.
        method: ``interval`` (a word is correct iff its character interval is
            a gold word's) or ``sighan`` (the official bakeoff script's diff).
        beta: F-beta weight, reported as ``fbeta`` beside F1.
        strict: raise instead of aligning lines whose characters differ.
        allow_line_mismatch: score files with different numbers of lines:
            extra prediction lines are ignored; gold lines past the prediction's
            end count as empty predictions (``interval``) or are not scored
            (``sighan``, as the script).
        max_examples: how many differing lines to keep as examples.
        gold_format: ``auto`` (:func:`cws_bench.corpora.readers.sniff_format`),
            ``plain``, ``conllu``, ``peoples-daily`` or ``bmes``.
        data_dir: where a registered corpus' data is (as ``get_corpus`` takes it).
        count: how the lines both files have are counted (a :class:`Counting`):
            :func:`count_in_process` by default, or
            :class:`cws_bench.run.sharded.ShardedCounting` (shards on an executor).

    Raises:
        CwsBenchError: a file is missing or undecodable, the line counts
            differ, or (``strict``) texts differ.
        CorpusFormatError: a file is in another gold format (CoNLL-U, ...).
        ShardFailedError: (sharded) a shard's worker kept dying or hanging.
    """
    # A decoding error's fix names the parameter that sets the encoding of the file at fault.
    files = [(dictionary, "dictionary_encoding"), (pred, "pred_encoding"), (gold, "encoding")]
    with encoding_parameters(files):
        pred_encoding = pred_encoding or encoding
        gold_as_sentences = gold_sentences(gold, gold_format, encoding, data_dir)
        check_plain(pred, encoding=pred_encoding, role="prediction")
        normalizer = as_normalizer(normalize)
        notes: list[str] = []
        words = normalized_dictionary(
            scoring_dictionary(
                gold,
                dictionary,
                data_dir=data_dir,
                encoding=dictionary_encoding or encoding,
                notes=notes,
            ),
            normalizer,
        )
        scorer = Scorer(
            words,
            method=method,
            strict=strict,
            per_line=per_line,
            max_examples=max_examples,
            normalizer=normalizer,
        )
        scorer.byte_order_marks = scorer.counter.byte_order_marks(
            gold if gold_as_sentences is None else None, pred, encoding, pred_encoding
        )
        job = ScoringJob(gold, pred, encoding, pred_encoding, gold_as_sentences, scorer)
        counted = (count or count_in_process)(job)
        names = (display_name(gold), display_name(pred))
        warnings = scorer.add_rest(
            counted.gold_rest,
            counted.pred_rest,
            counted.totals,
            names,
            allow_line_mismatch=allow_line_mismatch,
        )
        scorer.check_strict(*names)
        # Whatever the gold is (a file, a corpus, standard input): its first lines as read.
        warnings += scorer.input_warnings(*names)
        return scorer.result(counted.gold_checksum, [*notes, *warnings], beta=beta)


def _joined_sentences(sentences: Iterable[Sequence[str]], side: str) -> list[str]:
    """Each sentence's words joined by a space; a sentence that is a str is a TypeError."""
    if isinstance(sentences, str):
        raise TypeError(
            f"score_sentences() takes {side} as a list of sentences (lists of words), not a str"
        )
    lines = []
    for number, words in enumerate(sentences, start=1):
        if isinstance(words, str):
            shown = words if len(words) <= 30 else words[:29] + "…"
            raise TypeError(
                f"score_sentences() takes sentences as lists of words, but {side} sentence "
                f"{number} is a str ({shown!r}): split it first, e.g. "
                "[line.split() for line in lines]"
            )
        lines.append(joined(words, " "))  # a long sentence is not split to be joined
    return lines


def score_sentences(
    gold: Iterable[Sequence[str]],
    pred: Iterable[Sequence[str]],
    dictionary: Dictionary | Iterable[str] | PathLike | None = None,
    *,
    method: Method = "interval",
    normalize: str | Normalizer | None = None,
    beta: float = 1.0,
    strict: bool = False,
    per_line: bool = False,
) -> ScoreResult:
    """Score predicted sentences (lists of words) against gold sentences.

    Same counting and result as :func:`score_files`; sentences pair up in order and
    must be as many on both sides. A sentence given as a string, not a list of words,
    is refused (as :meth:`Segmenter.segment <cws_bench.segmenters.base.Segmenter.segment>`
    refuses one) rather than scored as single characters.

    >>> score_sentences([["我们", "是"]], [["我", "们", "是"]]).to_dict()["recall"]
    0.5
    >>> score_sentences(["结婚 的"], ["结 婚 的"])
    Traceback (most recent call last):
    ...
    TypeError: score_sentences() takes sentences as lists of words, but gold sentence 1 is a str ('结婚 的'): split it first, e.g. [line.split() for line in lines]

    Raises:
        TypeError: a sentence (or the whole of gold or pred) is a string.
    """  # noqa: E501
    normalizer = as_normalizer(normalize)
    dictionary = normalized_dictionary(scoring_dictionary(None, dictionary), normalizer)
    gold_lines = _joined_sentences(gold, "gold")
    pred_lines = _joined_sentences(pred, "pred")
    if len(gold_lines) != len(pred_lines):
        raise LineCountMismatchError("gold", len(gold_lines), "prediction", len(pred_lines))
    scorer = Scorer(
        dictionary, method=method, strict=strict, per_line=per_line, normalizer=normalizer
    )
    scorer.add_all(gold_lines, pred_lines)
    scorer.check_strict("gold", "prediction")
    digest = SentenceDigest()
    for line in gold_lines:
        digest.add_line(line)
    return scorer.result(digest.hexdigest(), [], beta=beta)

"""``cws-bench metrics``: the general metrics on your own files, one subcommand per module.

``classification``, ``generation``, ``ranking``, ``impurity`` and
``throughput`` are named after :mod:`cws_bench.metrics`' modules; ``sensitivity``
scores systems under several tokenizers (:mod:`cws_bench.segmenters.sensitivity`);
``classify`` stays as an alias of ``classification``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from cws_bench.cli.options import (
    RecordingGroup,
    beta_option,
    encoding_option,
    format_option,
    output_option,
    print_warnings,
    segmenter_names_option,
    segmenter_options_option,
    setting_option,
    stacked,
    units_options,
    write_output,
)
from cws_bench.display.units import plural
from cws_bench.metrics.ranking import RankingReport
from cws_bench.metrics.undefined import ZeroDivision

F = TypeVar("F", bound=Callable[..., Any])

TABLE_FORMATS = RankingReport.FORMATS
"""Every metrics subcommand's ``--format`` choices: the formats its result renders
itself in (the same four for each; tests/test_formats.py checks they agree)."""

ALIASES = {"classify": "classification"}
"""Old subcommand names that still work."""


_output_option = output_option(
    "Write the output to this file (atomically) instead of standard output.", default="-"
)

table_format_option = stacked(
    format_option(TABLE_FORMATS, "Output: a table, JSON, CSV, or a Markdown table."),
    _output_option,
)
"""``--format text|json|csv|markdown`` and ``-o FILE``: every subcommand's output options."""

table_options = stacked(table_format_option, encoding_option)
"""The output options, then ``--encoding``: what most subcommands end with."""


@contextmanager
def collected_warnings() -> Iterator[None]:
    """Print the library's warnings (undefined metrics, ...) once each on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        # ours are UserWarnings; others (a library's ResourceWarning) keep Python's filters
        warnings.simplefilter("always", UserWarning)
        yield
    print_warnings(dict.fromkeys(str(w.message) for w in caught))


def _split_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _zero_division(value: str) -> ZeroDivision:
    return "warn" if value == "warn" else float(value)


class _AliasedGroup(RecordingGroup):
    """A group whose old subcommand names (:data:`ALIASES`) still resolve, unlisted."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, ALIASES.get(cmd_name, cmd_name))

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        _, command, rest = super().resolve_command(ctx, args)
        return (command.name if command else None), command, rest


@click.group(cls=_AliasedGroup)
def metrics() -> None:
    """General metrics on your own files, one subcommand per metric module.

    classification (alias: classify), generation, ranking, impurity, throughput.

    \b
    Example:
        cws-bench metrics classification true.txt pred.txt
        cws-bench metrics generation --ref refs.txt --pred answers.txt --tokenizer all
        cws-bench metrics ranking qrels.trec run.trec --metric map,ndcg@10
        cws-bench metrics impurity tennis.csv --target play
        cws-bench metrics throughput requests.jsonl
    """


# ---------------------------------------------------------------------------
# classification


@metrics.command("classification")
@click.argument("true", type=click.Path(exists=True, dir_okay=False))
@click.argument("pred", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@table_format_option
@setting_option(
    "--digits",
    type=click.IntRange(1, 10),
    default=2,
    help="Decimals in the text report.",
)
@click.option(
    "--labels",
    "labels_text",
    default=None,
    help="Comma-separated labels to report, in this order (default: all, sorted).",
)
@beta_option("Report F-beta instead of F1.")
@setting_option(
    "--zero-division",
    "zero_division",
    type=click.Choice(["warn", "0", "1", "nan"]),
    default="warn",
    help="Value of an undefined precision/recall/F (scikit-learn's meaning).",
)
@click.option("--confusion", is_flag=True, help="Also print the confusion matrix.")
@encoding_option
def classify(
    true: str,
    pred: str,
    fmt: str,
    digits: int,
    labels_text: str | None,
    beta: float,
    zero_division: str,
    confusion: bool,
    encoding: str,
    output: str,
) -> None:
    """Classification report of PRED against TRUE, one label per line.

    Per label: precision, recall, F1 and support; then accuracy and the
    macro and weighted averages: scikit-learn's report to the character,
    except that when no label has a true positive scikit-learn prints
    supports as floats (2.0) and this prints them as counts (2).

    \b
    Example:
        cws-bench metrics classification true.txt pred.txt
        cws-bench metrics classification true.txt pred.txt --format json --confusion
    """
    from cws_bench.metrics.classification import classification_report, confusion_matrix
    from cws_bench.text.metric_files import read_label_files

    y_true, y_pred = read_label_files(true, pred, encoding=encoding)
    labels = _split_list(labels_text) if labels_text else None
    try:
        with collected_warnings():
            report = classification_report(
                y_true,
                y_pred,
                labels=labels,
                beta=beta,
                zero_division=_zero_division(zero_division),
            )
            matrix = confusion_matrix(y_true, y_pred, labels=labels) if confusion else None
    except ValueError as e:
        raise click.UsageError(str(e)) from e
    names = labels or sorted(set(y_true) | set(y_pred))
    shown = (names, matrix.tolist()) if matrix is not None else None
    write_output(report.render(fmt, digits=digits, confusion=shown), output)


# ---------------------------------------------------------------------------
# generation


def _check_generation_metrics(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> list[str]:
    from cws_bench.metrics.generation import METRICS
    from cws_bench.segmenters.as_tokenizers import DEFAULT_METRICS

    chosen = list(DEFAULT_METRICS) if value is None else _split_list(value)
    unknown = [m for m in chosen if m not in METRICS]
    if unknown or not chosen:
        raise click.BadParameter(
            f"unknown metric {unknown[0]!r}; choose from {', '.join(METRICS)}"
            if unknown
            else "no metric given"
        )
    return chosen


def _ref_option(help: str, *, required: bool = False) -> Callable[[F], F]:
    """``--ref/-r`` (repeatable): the reference files, passed on as ``refs``."""
    return click.option(
        "--ref",
        "-r",
        "refs",
        multiple=True,
        required=required,
        type=click.Path(exists=True, dir_okay=False),
        help=help,
    )


@metrics.command()
@click.argument("positional", nargs=-1, metavar="")
@_ref_option("A reference file, line i the reference of line i of --pred (repeat for several).")
@click.option(
    "--pred",
    "-p",
    type=click.Path(exists=True, dir_okay=False, allow_dash=True),
    help="The predictions, one text a line (- for stdin).",
)
@click.option(
    "--tokenizer",
    "-t",
    default="char",
    show_default=True,
    help="char, space, a segmenter name (see `cws-bench segmenters`), or all: "
    "char, space and every installed segmenter, one row each.",
)
@click.option(
    "--metric",
    "-m",
    "metric_names",
    default=None,
    show_default="em,f1,bleu,rouge (the library's DEFAULT_METRICS)",
    callback=_check_generation_metrics,
    help="Comma-separated: em (exact match), f1 (token P/R/F1), bleu, rouge (ROUGE-1/2/L), "
    "rouge-w, rouge-s, rouge-su (gap 4), rouge-lsum, weighted (weighted token P/R/F1: "
    "needs --weights), cider (CIDEr-D, as pycocoevalcap).",
)
@setting_option(
    "--multi-reference",
    type=click.Choice(["best", "pooled"]),
    default="best",
    help="ROUGE-1/2/S/SU with several references: the best one, or matches pooled over "
    "all of them (Lin 2004, eq. 1).",
)
@click.option(
    "--weights",
    "weights_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Token weights for -m weighted: a file of `token<TAB>weight` lines (an unlisted "
    "token weighs 1).",
)
@click.option(
    "--unclipped",
    is_flag=True,
    help="Weighted scores in the membership form: a token counts whenever the other side "
    "has it (default: clipped counts).",
)
@table_options
@units_options
def generation(
    positional: tuple[str, ...],
    refs: tuple[str, ...],
    pred: str | None,
    tokenizer: str,
    metric_names: list[str],
    multi_reference: str,
    weights_path: str | None,
    unclipped: bool,
    fmt: str,
    encoding: str,
    output: str,
    scale: str | None,
    digits: int | None,
) -> None:
    """Corpus-level generation scores of --pred against one or more --ref files.

    One text per line; line i of each --ref file is a reference for line i of
    --pred (named flags, as jiwer's -r/-h: swapping the files swaps P and R
    and changes BLEU). EM, token P/R/F1 and ROUGE (F1) are means over lines, each line
    against its best reference; BLEU is corpus BLEU (sacrebleu's numbers on
    the same tokens). Chinese text has no spaces, so the tokenizer decides
    what a token is: --tokenizer all shows how much the segmenter alone moves
    the scores.

    \b
    Example:
        cws-bench metrics generation --ref refs.txt --pred answers.txt
        cws-bench metrics generation -r refs1.txt -r refs2.txt -p answers.txt -t all -m f1,bleu
    """
    if positional:
        raise click.UsageError(
            "give the files as --ref REF (repeatable) and --pred PRED: positional files "
            f"({' '.join(positional)}) are not read, so that references and predictions "
            "are never swapped"
        )
    if not refs or pred is None:
        raise click.UsageError("give --ref REF (one or more) and --pred PRED")
    from cws_bench.segmenters.as_tokenizers import (
        TokenizerComparison,
        compare_tokenizers,
        generation_scores,
    )
    from cws_bench.text.metric_files import read_generation_files, read_token_weights

    predictions, references = read_generation_files(pred, refs, encoding=encoding)
    if "weighted" in metric_names and weights_path is None:
        raise click.UsageError("-m weighted needs --weights FILE (token<TAB>weight lines)")
    weights = None if weights_path is None else read_token_weights(weights_path, encoding=encoding)
    options: dict[str, Any] = {
        "multi_reference": multi_reference,
        "weights": weights,
        "clipped": not unclipped,
    }
    with collected_warnings():
        if tokenizer == "all":
            table = compare_tokenizers(predictions, references, metrics=metric_names, **options)
        else:
            row = generation_scores(
                predictions, references, tokenizer=tokenizer, metrics=metric_names, **options
            )
            table = TokenizerComparison(rows=(row,))
    print_warnings(f"tokenizer {name} skipped: {reason}" for name, reason in table.skipped.items())
    rendered = table.render(fmt, pred=pred, references=len(refs), scale=scale, digits=digits)
    write_output(rendered, output)


@metrics.command()
@_ref_option(
    "A reference file, line i a reference of line i of every --pred (repeat for several).",
    required=True,
)
@click.option(
    "--pred",
    "-p",
    "preds",
    multiple=True,
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A system's outputs, one text a line (repeat for each system; two or more show "
    "whether their order flips).",
)
@segmenter_names_option(
    "The tokenizers: char and segmenter names, comma-separated [default: char and every "
    "installed segmenter that needs no option]."
)
@segmenter_options_option
@table_options
@units_options
def sensitivity(
    refs: tuple[str, ...],
    preds: tuple[str, ...],
    names: str | None,
    raw_options: tuple[str, ...],
    fmt: str,
    encoding: str,
    output: str,
    scale: str | None,
    digits: int | None,
) -> None:
    """How much of a BLEU gap is the segmenter's: BLEU, ROUGE-L, CIDEr-D and token F1 of
    each --pred under each tokenizer, their range, and whether two systems' order flips.

    One text per line; line i of each --ref file is a reference for line i of each
    --pred. The systems are named by their files.

    \b
    Example:
        cws-bench metrics sensitivity -r refs.txt -p a.txt -p b.txt
        cws-bench metrics sensitivity -r refs.txt -p a.txt -p b.txt -s char,jieba,pkuseg
    """
    import os

    from cws_bench.cli.audit import segmenter_specs
    from cws_bench.segmenters.as_tokenizers import get_tokenizer
    from cws_bench.segmenters.sensitivity import metric_sensitivity
    from cws_bench.text.metric_files import read_generation_files

    systems: dict[str, list[str]] = {}
    references: list[list[str]] = []
    for path in preds:
        outputs, references = read_generation_files(path, refs, encoding=encoding)
        label = os.path.basename(path)
        systems[label if label not in systems else path] = outputs
    tokenizers = None
    if names is not None or raw_options:
        tokenizers = [
            get_tokenizer(s.name, **s.options) for s in segmenter_specs(names, raw_options, None)
        ]
    with collected_warnings():
        found = metric_sensitivity(systems, references, tokenizers=tokenizers)
    print_warnings(f"tokenizer {name} skipped: {reason}" for name, reason in found.skipped.items())
    write_output(found.render(fmt, scale=scale, digits=digits), output)


# ---------------------------------------------------------------------------
# ranking


def _check_ranking_metrics(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> list[str]:
    from cws_bench.metrics.ranking import DEFAULT_METRICS, parse_metric

    chosen = list(DEFAULT_METRICS) if value is None else _split_list(value)
    if not chosen:
        raise click.BadParameter("no metric given")
    for name in chosen:
        try:
            parse_metric(name)
        except ValueError as e:
            raise click.BadParameter(str(e)) from e
    return chosen


@metrics.command()
@click.argument("qrels", type=click.Path(exists=True, dir_okay=False))
@click.argument("run", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option(
    "--metric",
    "-m",
    "metric_names",
    default=None,
    show_default="map,mrr,ndcg@10,hit_rate@10,precision@10,recall@100 (the library's)",
    callback=_check_ranking_metrics,
    help="Comma-separated: map, mrr, ndcg, ndcg_burges, cg, dcg, dcg_burges, hit_rate, "
    "recall (each optionally @k), precision@k. ndcg and dcg have linear gain (the grade, "
    "as ranx and trec_eval), the _burges ones 2^grade - 1.",
)
@setting_option(
    "--relevance-level",
    type=int,
    default=1,
    help="The lowest grade that counts as relevant.",
)
@click.option("--per-query", is_flag=True, help="Also print every query's scores.")
@table_options
@units_options
def ranking(
    qrels: str,
    run: str,
    metric_names: list[str],
    relevance_level: int,
    per_query: bool,
    fmt: str,
    encoding: str,
    output: str,
    scale: str | None,
    digits: int | None,
) -> None:
    """Ranking scores of a TREC run file RUN against the judgements QRELS.

    The judgements come first, as the gold does in `score GOLD PRED` and
    `classification TRUE PRED`; files given the other way round (a run's six
    fields as QRELS, judgements' four as RUN) are refused, not swapped.

    RUN lines are `query Q0 document rank score tag` (documents are ranked by
    score, ties by document id descending, as trec_eval); QRELS lines are
    `query iteration document grade`. Scores are means over the queries of
    QRELS; a query the run lacks scores 0.

    \b
    Example:
        cws-bench metrics ranking qrels.trec run.trec
        cws-bench metrics ranking qrels.trec run.trec -m map@100,ndcg@10 --per-query
    """
    from cws_bench.text.metric_files import read_trec_qrels, read_trec_run, trec_file_kind

    kinds = (trec_file_kind(qrels, encoding), None if run == "-" else trec_file_kind(run, encoding))
    if kinds == ("run", "qrels"):
        raise click.UsageError(
            f"{qrels} looks like a run and {run} like judgements: the order is QRELS RUN "
            f"(cws-bench metrics ranking {run} {qrels})"
        )
    from cws_bench.metrics.ranking import evaluate_run

    judgements = read_trec_qrels(qrels, encoding=encoding)
    scores = read_trec_run(run, encoding=encoding)
    with collected_warnings():
        report = evaluate_run(
            judgements, scores, metrics=metric_names, relevance_level=relevance_level
        )
    print_warnings(
        f"{plural(len(queries), 'query', 'queries')} of {where} "
        f"{'has' if len(queries) == 1 else 'have'} no {what} in {other} and "
        f"{fate[len(queries) == 1]} (first: {queries[0]})"
        for queries, where, what, other, fate in (
            (report.missing_queries, qrels, "ranking", run, ("score 0", "score 0")),
            (report.unjudged_queries, run, "judgements", qrels, ("are left out", "is left out")),
        )
        if queries
    )
    rendered = report.render(
        fmt, per_query=per_query, run=run, qrels=qrels, scale=scale, digits=digits
    )
    write_output(rendered, output)


# ---------------------------------------------------------------------------
# impurity


@metrics.command()
@click.argument("data", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--target", required=True, help="The class column.")
@click.option(
    "--feature",
    "features",
    multiple=True,
    help="A feature column to score (repeatable; default: every column but the target).",
)
@setting_option(
    "--base",
    type=click.FloatRange(min=1.0, min_open=True),
    default=2.0,
    help="Logarithm base of the entropies (2: bits, 2.718281828459045: nats).",
)
@setting_option("--digits", type=click.IntRange(1, 15), default=6, help=None)
@table_options
def impurity(
    data: str,
    target: str,
    features: tuple[str, ...],
    base: float,
    digits: int,
    fmt: str,
    encoding: str,
    output: str,
) -> None:
    """Split criteria of decision trees for each feature of a CSV table DATA.

    Per feature: conditional entropy, information gain (ID3), split
    information and gain ratio (C4.5), Gini gain (CART); above them the
    target's entropy and Gini index. Every distinct value is one branch.

    \b
    Example:
        cws-bench metrics impurity tennis.csv --target play
        cws-bench metrics impurity tennis.csv --target play --feature outlook --format json
    """
    from cws_bench.metrics.impurity import split_criteria
    from cws_bench.text.metric_files import read_table

    table = read_table(data, encoding=encoding)
    try:
        with collected_warnings():
            criteria = split_criteria(table, target, features=list(features) or None, base=base)
    except ValueError as e:
        raise click.UsageError(f"{data}: {e}") from e
    write_output(criteria.render(fmt, name=data, digits=digits), output)


# ---------------------------------------------------------------------------
# throughput


COLUMNS = ("start", "first_token", "end", "input_tokens", "output_tokens")
"""The columns of a request log, in :func:`~cws_bench.metrics.throughput.serving_metrics`'
order."""


def _column_option(field: str, what: str) -> Callable[[F], F]:
    return click.option(
        "--" + field.replace("_", "-"),
        default=field,
        show_default=True,
        metavar="COLUMN",
        help=f"The column holding {what}.",
    )


@metrics.command()
@click.argument("log", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@_column_option("start", "when the request was sent")
@_column_option("first_token", "when its first output token arrived")
@_column_option("end", "when its last output token arrived")
@_column_option("input_tokens", "its prompt tokens")
@_column_option("output_tokens", "its generated tokens")
@click.option(
    "--log-format",
    type=click.Choice(["jsonl", "csv"]),
    default=None,
    help="The log's format [default: from the file name, else its first character].",
)
@click.option(
    "--skip-bad",
    is_flag=True,
    help="Leave out bad requests (end before start, a negative count, a missing value) "
    "and report how many, instead of stopping at the first.",
)
@table_options
def throughput(
    log: str,
    log_format: str | None,
    skip_bad: bool,
    fmt: str,
    encoding: str,
    output: str,
    **columns: str,
) -> None:
    """Serving throughput and latency of a request log LOG (JSONL or CSV, a request a row).

    Each request has a start, first-token and end time (seconds as numbers,
    or ISO 8601 times) and its input and output token counts. As vLLM's
    serving benchmark: throughputs over the wall span (last end - first
    start); TTFT = first token - start; TPOT = (end - first token) /
    (output tokens - 1) over requests with two or more output tokens;
    end-to-end latency = end - start; each with mean, p50, p90 and p99.

    \b
    Example:
        cws-bench metrics throughput requests.jsonl
        cws-bench metrics throughput log.csv --start sent --end done --format json
    """
    from cws_bench.errors import CwsBenchError
    from cws_bench.metrics.throughput import BadRequestError, serving_metrics
    from cws_bench.text.metric_files import read_request_log

    requests = read_request_log(
        log, columns=columns, log_format=log_format, encoding=encoding, skip_bad=skip_bad
    )
    try:
        result = serving_metrics(*(requests.fields[c] for c in COLUMNS), skip_bad=skip_bad)
    except BadRequestError as e:
        more = f" ({plural(e.bad - 1, 'more bad request')} after it)" if e.bad > 1 else ""
        raise CwsBenchError(
            f"{requests.where(e.index)}: {e.reason}{more}",
            "fix the log, or pass --skip-bad to leave bad requests out and count them",
        ) from None
    except ValueError as e:
        raise CwsBenchError(f"{requests.path}: {e}") from None
    print_warnings(
        f"{requests.path}: {plural(count, 'request')} left out: {reason}"
        for reason, count in result.skipped.items()
    )
    write_output(result.render(fmt, name=requests.path), output)

"""``cws-bench score``: score one segmentation file against its gold standard."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from cws_bench.cli.executor_options import character_bar, executor_options, open_executor
from cws_bench.cli.options import (
    DICT_HELP,
    alpha_option,
    beta_option,
    correction_option,
    data_dir_option,
    dict_encoding_option,
    dictionary_option,
    encoding_option,
    format_option,
    gold_format_option,
    normalize_option,
    output_option,
    print_warnings,
    quiet_option,
    resamples_option,
    seed_option,
    strict_option,
    test_option,
    units_options,
    write_output,
)
from cws_bench.defaults import DEFAULT_ALPHA, DEFAULT_SHARD_CHARS, DEFAULT_TEST, STANDARD_DICTIONARY
from cws_bench.errors import DecodingError
from cws_bench.scoring import (
    METHODS,
    ScoreResult,
    score_files,
    write_details,
)
from cws_bench.text.io import display_name

if TYPE_CHECKING:
    from cws_bench.run.executors import ExecutorSettings

FORMATS = ("text", "json", "csv", "sighan", "markdown", "latex")


def _labelled(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> tuple[tuple[str | None, str], ...]:
    """Each PRED as (label or None, path): ``NAME=PATH`` names its row; a path that itself
    holds ``=`` and exists stays a path."""
    import os

    out = []
    for value in values:
        label, equals, path = value.partition("=")
        if value == "-" or os.path.exists(value) or not equals or not label:
            label, path = "", value
        if path != "-" and not os.path.isfile(path):
            from cws_bench.suggest import close_files

            what = "is a folder" if os.path.isdir(path) else "does not exist"
            close = [] if os.path.isdir(path) else close_files(path)
            near = f" Did you mean {' or '.join(close)}?" if close else ""
            raise click.BadParameter(f"File {path!r} {what}.{near}", ctx=ctx, param=param)
        out.append((label or None, path))
    return tuple(out)


@click.command()
@click.argument("gold")
@click.argument("preds", metavar="[NAME=]PRED...", nargs=-1, required=True, callback=_labelled)
@dictionary_option(
    DICT_HELP + " Default: none, or the standard dictionary of a corpus named as GOLD.",
    metavar="DICT",
)
@gold_format_option("a GOLD file")
@data_dir_option(
    "Where a corpus named as GOLD or in --dict corpus:NAME keeps its data (e.g. icwb2-data)."
)
@normalize_option()
@click.option(
    "--method",
    type=click.Choice([*METHODS, "conll18"]),
    default=None,
    help="interval (default): a word is correct iff its character interval is a "
    "gold word's. sighan: the official bakeoff script's word-sequence diff. "
    "conll18: the CoNLL 2018 UD shared task's Words score (GOLD in CoNLL-U).",
)
@format_option(
    FORMATS,
    "Output format; 'sighan' prints the bakeoff script's summary block "
    "(and implies --method sighan); markdown and latex print the table of systems.",
)
@click.option(
    "--confidence",
    is_flag=True,
    help="Bootstrap 95% intervals of P, R and F1 per system, as the bake-off computes them.",
)
@click.option(
    "--paired",
    is_flag=True,
    help="Paired bootstrap tests of F1 between every two systems (letters of the "
    "systems each one beats significantly).",
)
@click.option(
    "--baseline",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Test every system against this prediction only (implies --paired).",
)
@test_option(
    DEFAULT_TEST,
    "The paired test: the paired bootstrap (Koehn 2004) or permutation, approximate "
    "randomization over sentences (Noreen 1989) with --resamples shuffles.",
)
@alpha_option(DEFAULT_ALPHA, "Significance level of the paired tests (0 < alpha < 1).")
@correction_option(
    "holm",
    "Multiple-comparison correction of the paired tests of several systems, as in a "
    "bake-off: Holm-Bonferroni, Bonferroni, Benjamini-Hochberg (fdr_bh), Westfall-Young's "
    "step-down max-T, or none.",
)
@resamples_option()
@seed_option("Resampling seed (the bake-off's default).")
@click.option(
    "--details",
    type=click.Path(dir_okay=False, writable=True),
    help="Also write one CSV row per line (line, counts, P/R/F) to this file.",
)
@output_option(
    "Write the output to this file (atomically) instead of standard output.", default="-"
)
@encoding_option
@click.option("--pred-encoding", default=None, help="Encoding of PRED if not that of GOLD.")
@dict_encoding_option("that of GOLD")
@beta_option("Also report F-beta with this beta.")
@strict_option(
    "Exit 2 when a line's predicted characters differ from the gold ones, "
    "instead of scoring through a character alignment."
)
@click.option(
    "--allow-line-mismatch",
    is_flag=True,
    help="Score files with different numbers of lines: missing predictions count as "
    "empty; with --method sighan only the lines both files have are scored, as the "
    "script does.",
)
@units_options
@quiet_option("No progress bar (with --executor).")
@executor_options
def score(
    gold: str,
    preds: tuple[tuple[str | None, str], ...],
    dictionary: str | None,
    gold_format: str,
    data_dir: str | None,
    normalize: str,
    method: str | None,
    fmt: str,
    confidence: bool,
    paired: bool,
    baseline: str | None,
    test: str,
    alpha: float,
    correction: str,
    resamples: int,
    seed: int,
    details: str | None,
    output: str,
    encoding: str,
    pred_encoding: str | None,
    dict_encoding: str | None,
    beta: float,
    strict: bool,
    allow_line_mismatch: bool,
    scale: str | None = None,
    digits: int | None = None,
    quiet: bool = False,
    sharding: ExecutorSettings | None = None,
) -> None:
    """Score a segmentation PRED (or - for stdin), or several, against the gold GOLD.

    PRED holds one sentence a line, words separated by whitespace (U+3000
    included). With several PREDs (or --confidence, --paired, --baseline)
    it prints one row per system, named NAME for a NAME=PRED and by its file
    name otherwise, best F1 first, with bootstrap intervals and
    paired significance tests computed as a bake-off does (same seed, same
    numbers). GOLD is a file in the same form or in another gold format
    (CoNLL-U, People's Daily, BMES; see --gold-format), or a registered
    corpus NAME[:SPLIT] (`cws-bench corpora`; split test by default), scored
    with its standard dictionary unless --dict says otherwise. Scores are
    printed as percentages with two decimals (--scale, --digits) and held as
    fractions in [0, 1] in JSON and CSV.

    \b
    Example:
        cws-bench score sighan2005-pku:test out.txt --data-dir icwb2-data
        cws-bench score pku_test_gold.utf8 out.txt --dict pku_training_words.utf8
        cws-bench score gold.txt out.txt --format sighan --dict words.txt
        cws-bench score gold.txt out.txt --dict jieba --normalize width
        cws-bench score gold.gb out.gb --encoding gb18030 --dict words.gb
        cws-bench score gold.txt jieba=a.txt pkuseg=b.txt --confidence --paired
        cws-bench score gold.txt a.txt b.txt --paired --test permutation --alpha 0.01
        cws-bench score gold.txt a.txt b.txt --baseline base.txt --format latex -o table.tex
    """
    labels = {path: label for label, path in preds if label is not None}
    if len(set(labels.values())) < len(labels):
        raise click.UsageError("each NAME=PRED needs its own NAME")
    paths = tuple(path for _, path in preds)
    if method == "conll18":
        if len(paths) != 1:
            raise click.UsageError("--method conll18 scores one prediction")
        from cws_bench.scoring.conll18 import score_command

        text = score_command(gold, paths[0], fmt, encoding, pred_encoding, dictionary, normalize)
        write_output(text, output)
        return
    if baseline is not None and baseline not in paths:
        paths = (*paths, baseline)
    many = len(paths) > 1 or confidence or paired or baseline is not None or fmt in TABLES
    if many:
        _check_one_prediction_options(fmt, details, sharding, strict, allow_line_mismatch, beta)
    elif fmt == "sighan":
        if method == "interval":
            raise click.UsageError("--format sighan needs --method sighan")
        method = "sighan"
    # The encoding parameter that reads each file, for a decoding error's hint.
    options = {display_name(pred): "pred_encoding" for pred in paths}
    options[gold] = "encoding"
    with _encoding_hints(options):
        if dictionary:
            options.setdefault(dictionary.removeprefix("file:"), "dict_encoding")
        common: dict[str, Any] = {
            # The library's default: the standard dictionary of a corpus named as GOLD.
            "dictionary": dictionary or STANDARD_DICTIONARY,
            "dictionary_encoding": dict_encoding,
            "method": method or "interval",
            "normalize": normalize,
            "encoding": encoding,
            "pred_encoding": pred_encoding,
            "gold_format": gold_format,
            "data_dir": data_dir,
        }
        if many:
            from cws_bench.run.comparison import compare

            systems: Any = list(paths)
            if labels:  # rows named NAME, the others by their file name
                systems = {labels.get(p, display_name(p)): p for p in paths}
                if len(systems) < len(paths):
                    raise click.UsageError("two predictions have the same name")
            report = compare(
                gold,
                systems,
                confidence=confidence,
                paired=paired,
                baseline=None if baseline is None else labels.get(baseline, baseline),
                resamples=resamples,
                seed=seed,
                test=test,
                alpha=alpha,
                correction=correction,
                **common,
            )
            if fmt != "text":  # the text table shows them as notes
                print_warnings(
                    f"{row.name}: {warning}"
                    for row in report.rows
                    for warning in row.result.warnings
                )
            write_output(report.render(fmt, scale=scale, digits=digits), output)
            return
        (pred,) = paths
        # One big file in shards (--executor): the same numbers, on worker processes.
        run = _sharded_score(sharding, quiet) if sharding is not None else score_files
        result = run(
            gold,
            pred,
            beta=beta,
            strict=strict,
            allow_line_mismatch=allow_line_mismatch,
            per_line=details is not None,
            **common,
        )
    print_warnings(result.warnings)
    if details is not None:
        write_details(result, details)
    write_output(result.render(fmt, gold=gold, pred=pred, scale=scale, digits=digits), output)


TABLES = ("markdown", "latex")
"""Formats that print the table of systems, even of one."""


def _check_one_prediction_options(
    fmt: str,
    details: str | None,
    sharding: ExecutorSettings | None,
    strict: bool,
    allow_line_mismatch: bool,
    beta: float,
) -> None:
    """Options that only make sense for one prediction: a usage error with several."""
    if fmt == "sighan":
        raise click.UsageError("--format sighan prints the block of one prediction")
    if details is not None:
        raise click.UsageError("--details writes the lines of one prediction")
    if sharding is not None:
        raise click.UsageError("--executor scores one prediction")
    if strict or allow_line_mismatch or beta != 1.0:
        raise click.UsageError("--strict, --allow-line-mismatch and --beta apply to one prediction")


@contextlib.contextmanager
def _encoding_hints(options: dict[str, str]) -> Iterator[None]:
    """A decoding error's hint names the option that sets the encoding of the file at fault."""
    try:
        yield
    except DecodingError as e:
        e.fixes = tuple(replace(fix, parameter=options.get(e.path, "encoding")) for fix in e.fixes)
        raise


def _sharded_score(sharding: ExecutorSettings, quiet: bool) -> Any:
    """score_files' twin that runs shards on the executor the options ask for."""
    from cws_bench.run.sharded import score_sharded

    def run(gold: str, pred: str, *, data_dir: str | None, **kwargs: Any) -> ScoreResult:
        bar_context = contextlib.nullcontext(None) if quiet else character_bar("score")
        with open_executor(sharding) as executor, bar_context as bar:
            return score_sharded(
                gold,
                pred,
                executor=executor,
                shard_chars=sharding.shard_chars or DEFAULT_SHARD_CHARS,
                progress=bar,
                **kwargs,
            )

    return run

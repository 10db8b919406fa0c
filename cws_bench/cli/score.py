"""``cws-bench score``: score one segmentation file against its gold standard."""

from __future__ import annotations

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
    rename_flags,
    resamples_option,
    seed_option,
    strict_option,
    test_option,
    units_options,
    write_output,
)
from cws_bench.defaults import STANDARD_DICTIONARY
from cws_bench.metrics.defaults import DEFAULT_ALPHA, DEFAULT_TEST
from cws_bench.scoring.methods import methods
from cws_bench.scoring.result import write_details

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
    labels = [label for label, _ in out if label is not None]
    if len(set(labels)) < len(labels):
        raise click.BadParameter("each NAME=PRED needs its own NAME", ctx=ctx, param=param)
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
    type=click.Choice([method.name for method in methods()]),
    default=None,
    help=" ".join(
        f"{m.name}{' (default)' if m.name == 'interval' else ''}: {m.description}."
        for m in methods()
    ),
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
@dict_encoding_option("that of GOLD", "dictionary_encoding")
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
    details: str | None,
    output: str,
    scale: str | None = None,
    digits: int | None = None,
    quiet: bool = False,
    sharding: ExecutorSettings | None = None,
    **settings: Any,
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
    from cws_bench.run.score import score_predictions

    rename_flags({"per_line": "--details"})  # the library's hints name its parameters
    # The library's default: the standard dictionary of a corpus named as GOLD.
    settings["dictionary"] = settings["dictionary"] or STANDARD_DICTIONARY
    # --executor: one big file in shards, the same numbers, on workers
    with (
        open_executor(sharding) as executor,
        character_bar("score", off=quiet or sharding is None) as bar,
    ):
        scored = score_predictions(
            gold,
            preds,
            per_line=details is not None,
            executor=executor,
            shard_chars=getattr(sharding, "shard_chars", None),
            progress=bar,
            **settings,
        )
    print_warnings(scored.warnings(settings["fmt"]))
    if details is not None and scored.result is not None:
        write_details(scored.result, details)
    write_output(scored.render(settings["fmt"], scale=scale, digits=digits), output)

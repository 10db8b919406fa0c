"""``cws-bench board``: every segmenter installable here on every gold corpus present, as a site."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cws_bench.cli.bakeoff import print_problems
from cws_bench.cli.executor_options import executor_options, run_arguments
from cws_bench.cli.options import (
    cli_terms,
    count_option,
    data_dir_option,
    selection_options,
    units_options,
)

if TYPE_CHECKING:
    from cws_bench.run.executors import ExecutorSettings


@click.command()
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False),
    required=True,
    help="Folder for the site, the bake-off's reports and the run cache.",
)
@executor_options(shard_chars=None, always=True)
@data_dir_option(
    help="Where corpora that need local data are (a folder holding icwb2-data/, mccws/, "
    "ud-chinese/)."
)
@selection_options(
    "name",
    "Only these registered segmenters (comma-separated) [default: every one here].",
    "Only these registered corpora (comma-separated) [default: every one here].",
)
@count_option("--resamples", default=1000, help="Bootstrap resamples of the intervals.")
@click.option("--no-cache", is_flag=True, help="Run every pair again, not from the run cache.")
@click.option("--quiet", is_flag=True, help="No progress.")
@units_options
def board(
    output: str,
    sharding: ExecutorSettings,
    data_dir: str | None,
    only_segmenters: list[str] | None,
    only_corpora: list[str] | None,
    resamples: int,
    no_cache: bool,
    quiet: bool,
    scale: str | None,
    digits: int | None,
) -> None:
    """Build the board: every segmenter whose library and model are here, on every gold
    corpus present, as a static site in OUTPUT.

    Closed track: maximum matching (fmm, bmm, bimm) with each corpus' training words, the hmm
    and crf taggers trained on each corpus' training split where it is here; open
    track: every pretrained segmenter and LLM tokenizer installed with its model. What
    is not here is listed on stderr and in the site with why and how to add it, never
    a failure. Runs as `cws-bench bakeoff` does (shards on worker processes or
    --executor dask, the run cache in OUTPUT/cache, so a rerun computes only new
    cells), then writes OUTPUT/index.html (F heatmap, sortable tables, claimed beside
    measured), corpora/*.html, segmenters/*.html, board.md, board.csv and board.json,
    beside the bake-off's reports. It opens from the file system, no server needed.

    \b
    Example:
        cws-bench board -o site --data-dir ../shared/corpora
        cws-bench board -o site --segmenters fmm,jieba --corpora sample,sighan2005-pku
    """
    from cws_bench.reports.tables import printed_in
    from cws_bench.run.board import board_config, run_board

    made = board_config(
        segmenters=only_segmenters,
        corpora=only_corpora,
        data_dir=data_dir,
        resamples=resamples,
        terms=cli_terms(click.get_current_context()),
    )
    for absent in made.absent:
        click.echo(f"not on the board: {absent}", err=True)
    if not made.config.segmenters or not made.config.corpora:
        raise click.UsageError("nothing to run: no segmenter or no corpus of the selection is here")
    with printed_in(scale, digits):
        result = run_board(
            made,
            output,
            data_dir=data_dir,
            progress=not quiet,
            use_cache=not no_cache,
            **run_arguments(sharding),
        )
    print_problems(result)
    scored = sum(pair.ok for pair in result.pairs)
    click.echo(
        f"board: cells scored {scored} of {len(result.pairs)} (segmenters: "
        f"{len(made.config.segmenters)}, corpora: {len(made.config.corpora)}); "
        f"open {output}/index.html",
        err=True,
    )

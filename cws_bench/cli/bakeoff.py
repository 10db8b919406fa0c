"""``cws-bench bakeoff``: run several segmenters over several corpora and write the reports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cws_bench.cli.executor_options import executor_options, run_arguments
from cws_bench.cli.options import (
    alpha_option,
    bounded,
    correction_option,
    data_dir_option,
    print_warnings,
    rename_flags,
    selection_options,
    test_option,
    units_options,
)
from cws_bench.display.units import plural
from cws_bench.metrics.defaults import DEFAULT_ALPHA

if TYPE_CHECKING:
    from cws_bench.results.model import BakeoffResult
    from cws_bench.run.executors import ExecutorSettings


class BakeoffCommand(click.Command):
    """The command whose help names the bundled configurations and the report files."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from cws_bench.configs import BUNDLED_CONFIGS
        from cws_bench.reports import REPORT_FILES

        files = list(REPORT_FILES.values())
        original = self.help or ""
        self.help = original.format(
            configs=", ".join(BUNDLED_CONFIGS),
            count=len(files),
            files=", ".join(files[:-1]) + f" and {files[-1]}",
        )
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = original


@click.command(cls=BakeoffCommand)
@click.argument("config", required=False, metavar="[CONFIG]")
@click.option(
    "-o",
    "--output",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for the reports and the run cache [default: reports/<run name>].",
)
@executor_options(shard_chars=None, always=True)
@data_dir_option(
    help="Where corpora that need local data are (e.g. the SIGHAN 2005 icwb2-data folder or zip)."
)
@selection_options(
    "label",
    "Run only these segmenters of the configuration (their labels, comma-separated).",
    "Run only on these corpora of the configuration (their labels, comma-separated).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Run every pair again instead of reusing finished ones from the run cache.",
)
@click.option(
    "--quiet",
    is_flag=True,
    help="No progress (off a terminal, progress is one line per finished pair).",
)
@click.option(
    "--allow-failures",
    is_flag=True,
    help="Exit 0 even when a pair failed or timed out (by default such a run exits 1).",
)
@correction_option(
    None,
    "Multiple-comparison correction of the significance letters within each track "
    "[default: the config's, else holm].",
)
@alpha_option(
    None,
    "Significance level of the paired tests (0 < alpha < 1) "
    f"[default: the config's, else {DEFAULT_ALPHA:g}].",
)
@test_option(
    None,
    "The paired test: bootstrap, or permutation (approximate randomization) "
    "[default: the config's, else bootstrap].",
)
@click.option(
    "--seeds",
    metavar="N,...",
    default=None,
    help="Run every segmenter with a seed option (crf, the transformer tagger, llm) once "
    "per seed, e.g. 1,2,3,4,5 (replaces the config's seeds).",
)
@click.option(
    "--resplits",
    type=bounded("resplits"),
    default=None,
    metavar="N",
    help="Also train and test on N random splits of each corpus' training and test "
    "sentences, and count how often each pairwise verdict holds "
    "[default: the config's, else 0].",
)
@units_options
def bakeoff(
    config: str | None,
    output: str | None,
    sharding: ExecutorSettings,
    data_dir: str | None,
    only_segmenters: list[str] | None,
    only_corpora: list[str] | None,
    no_cache: bool,
    quiet: bool,
    allow_failures: bool,
    seeds: str | None,
    scale: str | None,
    digits: int | None,
    **given: Any,
) -> None:
    """Run a bake-off: CONFIG is a TOML file or a bundled name ({configs}).

    Without CONFIG the default bake-off runs: People's Daily 1998 (test
    split) and the project's sample corpus, with maximum matching and an HMM
    trained on the People's Daily training split (closed track) and the
    installed off-the-shelf segmenters (open track). The configuration is
    checked first: every missing file, corpus or model and every unknown
    segmenter or option is reported at once (exit 2) before anything runs;
    --segmenters and --corpora run part of it, whose reports go to a
    sub-folder named by the filter (OUTPUT/only-jieba-on-zx/), never over
    the full run's. Each (segmenter, corpus)
    pair is cut into shards of whole batches, run on worker processes
    (--executor local, the default) or a Dask cluster (--executor dask,
    --scheduler), whose workers keep the segmenters they loaded; finished
    shards and pairs are cached, so an interrupted run picks up where it
    stopped. The numbers do not depend on the executor or the shard size.
    Writes {count} files ({files}), prints the leaderboard of each corpus
    and, over several corpora, the F1-by-corpus table. An organiser's
    [[submissions]] (a folder of participants' files, docs/BAKEOFF.md) are
    read and checked whole first, and get one scorecards/<participant>.md each;
    method = "sighan" in the TOML counts as the official script does.

    Tracks are ranked apart (closed, then open), each with its winner; a
    segmenter scored on its own training data is shown but never ranked.
    Exits 1 when a pair failed or timed out (after writing the reports),
    unless --allow-failures.

    \b
    Example:
        cws-bench bakeoff
        cws-bench bakeoff sighan2005 --data-dir ~/data/icwb2-data -o reports/sighan
        cws-bench bakeoff domains --data-dir ../shared/corpora --segmenters jieba,fmm
        cws-bench bakeoff my-bakeoff.toml --jobs 4
        cws-bench bakeoff my-bakeoff.toml --executor dask --scheduler tcp://10.0.0.5:8786
    """
    from dataclasses import replace

    from cws_bench.reports import REPORT_FILES
    from cws_bench.reports.scorecards import participants
    from cws_bench.reports.tables import printed_in
    from cws_bench.reports.text import render_text
    from cws_bench.run.bakeoff import reports_folder, run_bakeoff
    from cws_bench.run.config import load_config, parse_seeds, with_seeds

    rename_flags({"output_dir": "--output"})  # the report folder's hints name -o/--output
    chosen: list[str] = []
    loaded = load_config(config, notes=chosen)
    for note in chosen:
        click.echo(f"note: {note}", err=True)
    # --correction, --alpha, --test and --resplits replace the configuration's
    loaded = replace(loaded, **{key: value for key, value in given.items() if value is not None})
    if seeds is not None:
        loaded = with_seeds(loaded, parse_seeds(seeds))
    with printed_in(scale, digits):  # the reports written and the tables printed
        result = run_bakeoff(
            loaded,
            output_dir=output,
            data_dir=data_dir,
            use_cache=not no_cache,
            progress=not quiet,
            only_segmenters=only_segmenters,
            only_corpora=only_corpora,
            **run_arguments(sharding),
        )
        text = render_text(result)
    print_problems(result, warnings=True)
    # A skipped pair lacks data that is not here (a training split): said, not a failure.
    failed = [pair for pair in result.pairs if pair.status in ("failed", "timeout")]
    click.echo(text)
    folder = reports_folder(result.name, output, only_segmenters, only_corpora)
    cards = f" scorecards/ ({len(people)} participants)" if (people := participants(result)) else ""
    click.echo(f"reports in {folder}/: {' '.join(REPORT_FILES.values())}{cards}", err=True)
    if failed and not allow_failures:
        click.echo(
            f"error: {plural(len(failed), 'pair')} not scored (failed or timed out); "
            "pass --allow-failures to exit 0 anyway",
            err=True,
        )
        raise click.exceptions.Exit(1)


def print_problems(result: BakeoffResult, *, warnings: bool = False) -> None:
    """The run's notes, with ``warnings`` the segmenters' warnings, and each pair not scored."""
    for note in result.settings.get("notes", []):
        click.echo(f"note: {note}", err=True)
    if warnings:
        print_warnings(
            f"{note.who} on {corpus}: {note.text}"
            for corpus in result.corpora()
            for note in result.warnings(corpus)
        )
    for pair in result.pairs:
        if not pair.ok:
            click.echo(f"{pair.status}: {pair.segmenter} on {pair.corpus}: {pair.error}", err=True)

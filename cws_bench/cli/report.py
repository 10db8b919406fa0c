"""``cws-bench report``: re-render saved bake-off results, merging several runs."""

from __future__ import annotations

import click

from cws_bench.cli.options import format_option, output_option, units_options
from cws_bench.errors import CwsBenchError


@click.command()
@click.argument("results", nargs=-1, required=True, metavar="RESULTS.json|FOLDER...")
# The names of reports.REPORTS (tests/test_cli_options.py checks they agree), written out:
# importing the reports to read them would slow every `cws-bench --help` by 0.1-0.2 s.
@format_option(
    ["json", "csv", "markdown", "md", "html", "latex", "text"],
    "Report format: the bake-off's leaderboard.md (md or markdown), report.html, "
    "leaderboard.tex, results.csv, results.json, or the terminal's table.",
    default="md",
)
@output_option("Write the report to this file (atomically); default: standard output.")
@units_options
def report(
    results: tuple[str, ...],
    fmt: str,
    output: str | None,
    scale: str | None,
    digits: int | None,
) -> None:
    """Render saved results.json files again; several runs are merged into one.

    A FOLDER stands for its results.json (a bake-off's report folder). Runs
    are merged when they scored the same corpora (the same gold texts) with
    the same scoring settings (seed, resamples, confidence, alpha,
    correction); otherwise the error lists what differs. How each run was
    carried out (workers, shards, loads, wall time) may differ: the merged
    report keeps it per run.

    \b
    Example:
        cws-bench report reports/default/results.json --format latex -o table.tex
        cws-bench report reports/mine reports/theirs -o both.md
    """
    from cws_bench.reports import load_results, render_report
    from cws_bench.text.io import atomic_write

    text = render_report(load_results(results), fmt, scale=scale, digits=digits)
    if output is None or output == "-":
        click.echo(text, nl=False)
        return
    try:
        with atomic_write(output) as f:
            f.write(text)
    except OSError as e:
        raise CwsBenchError(
            f"{output}: cannot write the report ({e.strerror})", "pass another -o/--output"
        ) from e

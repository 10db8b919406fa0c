"""``cws-bench audit``: several segmenters on text without gold.

Parsing and printing only: :mod:`cws_bench.run.audit` audits,
:mod:`cws_bench.reports.audit` renders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from cws_bench.cli.executor_options import executor_options, open_executor
from cws_bench.cli.options import (
    batch_size_option,
    count_option,
    data_dir_option,
    parse_option,
    quiet_option,
    resamples_option,
    seed_option,
    segmenter_names_option,
    segmenter_options_option,
)

if TYPE_CHECKING:
    from cws_bench.run.audit import AuditSegmenter
    from cws_bench.run.executors import ExecutorSettings

__all__ = ["audit", "segmenter_specs"]


def segmenter_specs(
    names: str | None, raw_options: tuple[str, ...], config: str | None
) -> list[AuditSegmenter]:
    """The segmenters of ``--segmenters A,B``, ``-O NAME.KEY=VALUE`` and ``--config FILE``
    (audit's, and ``metrics sensitivity``'s tokenizers)."""
    from cws_bench.run.audit import AuditSegmenter

    found: list[AuditSegmenter] = []
    if config is not None:
        from cws_bench.run.config import load_config

        found += [
            AuditSegmenter(s.label, s.name, dict(s.options)) for s in load_config(config).segmenters
        ]
    options: dict[str, dict[str, Any]] = {}
    for text in raw_options:
        target, dot, rest = text.partition(".")
        if not dot or "=" in target:
            raise click.BadParameter(
                f"{text!r}: expected SEGMENTER.KEY=VALUE, e.g. fmm.lexicon=words.txt",
                param_hint="-O/--option",
            )
        key, value = parse_option(rest)
        options.setdefault(target, {})[key] = value
    listed = [n.strip() for n in (names or "").split(",") if n.strip()]
    found += [AuditSegmenter(n, n, options.get(n, {})) for n in listed]
    unknown = sorted(set(options) - set(listed))
    if unknown:
        raise click.BadParameter(
            f"options for {', '.join(unknown)}, which --segmenters does not list",
            param_hint="-O/--option",
        )
    if not found:
        raise click.UsageError("name the segmenters: --segmenters A,B,... or --config FILE")
    return found


@click.command()
@click.argument("texts", nargs=-1, required=True, metavar="TEXT...")
@segmenter_names_option("The segmenters, by registered name, comma-separated.")
@segmenter_options_option
@click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Take the segmenters from a bake-off TOML's [[segmenters]] (labels and options).",
)
@click.option(
    "-o",
    "--output",
    "folder",
    required=True,
    type=click.Path(file_okay=False),
    help="The folder of the reports, the segmentations (reused by a run again) and the "
    "sample to annotate.",
)
@data_dir_option("Where a corpus named as TEXT finds its files.")
@click.option(
    "--perturb",
    default="space,width,punct",
    show_default=True,
    metavar="KINDS",
    help="Perturbations of the robustness check (space, width, punct, script), "
    "comma-separated; empty: none.",
)
@count_option(
    "--perturb-sentences",
    default=1000,
    help="Sentences (a seeded sample) each perturbation is tried on.",
)
@count_option(
    "--sample",
    default=200,
    minimum=4,
    help="Disagreeing sentences exported for annotation (spread over four strata).",
)
@count_option(
    "--strings",
    default=50_000,
    help="The most strings the consistency check tracks (the most frequent).",
)
@count_option("--top", default=20, minimum=0, help="Inconsistent strings listed per segmenter.")
@resamples_option()
@seed_option("Seed of the bootstrap and of the samples.")
@batch_size_option
@quiet_option()
@executor_options
def audit(
    texts: tuple[str, ...],
    names: str | None,
    raw_options: tuple[str, ...],
    config: str | None,
    folder: str,
    data_dir: str | None,
    perturb: str,
    batch_size: int,
    quiet: bool,
    sharding: ExecutorSettings | None,
    **settings: int,
) -> None:
    """Audit segmenters on TEXT without gold: how much they agree, whether each cuts a
    string the same way everywhere, whether a stray space changes the rest of a
    sentence, and which sentences to annotate.

    TEXT: raw files (one sentence a line), globs, or a corpus' raw text as
    NAME[:SPLIT] (default split: test).

    \b
    Example:
        cws-bench audit logs/*.txt --segmenters jieba,pkuseg -o audit/
        cws-bench audit zx:test -s fmm,jieba,pkuseg -O fmm.lexicon=jieba -o audit/
        cws-bench audit crawl.txt --config bakeoff.toml -o audit/ --executor local -j 4
    """
    from cws_bench.reports.audit import audit_text, write_audit_reports
    from cws_bench.run.audit import AuditSettings, resolve_texts
    from cws_bench.run.audit import audit as run_audit

    segmenters = segmenter_specs(names, raw_options, config)
    # --perturb-sentences, --sample, --strings, --top, --resamples and --seed are settings
    perturbations = tuple(k.strip() for k in perturb.split(",") if k.strip())
    found = resolve_texts(texts, folder, data_dir=data_dir)

    def say(message: str) -> None:
        if not quiet:
            click.echo(message, err=True)

    with open_executor(sharding) as executor:
        result = run_audit(
            found,
            segmenters,
            folder,
            settings=AuditSettings(perturbations=perturbations, **settings),
            executor=executor,
            batch_size=batch_size,
            progress=say,
        )
    written = write_audit_reports(result, folder)
    click.echo(audit_text(result))
    say("wrote " + ", ".join(str(p) for p in written))

"""``cws-bench segmenters``, ``segment`` and ``train``: list, run and train segmenters."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import click

from cws_bench.cli.executor_options import character_bar, executor_options, open_executor
from cws_bench.cli.options import encoding_option

FORMATS = ("text", "json")


def parse_option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` -> (key, value); the value is read as JSON when it is JSON, else kept as text.

    >>> parse_option("keep_runs=false"), parse_option("timeout=30"), parse_option("command=seg -x")
    (('keep_runs', False), ('timeout', 30), ('command', 'seg -x'))
    """
    key, equals, value = text.partition("=")
    key = key.strip().replace("-", "_")
    if not equals or not key:
        raise click.BadParameter(f"{text!r}: expected KEY=VALUE", param_hint="-O/--option")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _count_lines(path: str) -> int | None:
    """Lines of a file, for the progress bar's total (None for stdin)."""
    if path == "-":
        return None
    count = 0
    last = b"\n"
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            count += block.count(b"\n")
            last = block[-1:]
    return count + (last != b"\n")


def _options(
    option: tuple[str, ...],
    dictionary: str | None,
    user_dict: str | None,
    model: str | None,
    corpus: str | None,
    split: str | None,
) -> dict[str, Any]:
    options = dict(parse_option(item) for item in option)
    for key, value in (
        ("dictionary", dictionary),
        ("user_dict", user_dict),
        ("model", model),
        ("corpus", corpus),
        ("split", split),
    ):
        if value is not None:
            options[key] = value
    return options


def _segmenter_option(function: Any) -> Any:
    from cws_bench.segmenters import segmenter_names

    return click.option(
        "-s",
        "--segmenter",
        "name",
        required=True,
        metavar="NAME",
        shell_complete=lambda ctx, param, incomplete: [
            n for n in segmenter_names() if n.startswith(incomplete)
        ],
        help="The segmenter (see `cws-bench segmenters`).",
    )(function)


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
def segmenters(fmt: str) -> None:
    """List the segmenters: kind, version, whether each is available, how to install it.

    Built-in adapters and those that packages register through the entry
    point group `cws_bench.segmenters` are listed alike.

    \b
    Example:
        cws-bench segmenters
        cws-bench segmenters --format json
    """
    from cws_bench.segmenters import list_segmenters

    infos = list_segmenters()
    if fmt == "json":
        click.echo(json.dumps([info.to_dict() for info in infos], ensure_ascii=False, indent=2))
        return
    rows = [("name", "kind", "version", "available", "description / how to install")]
    for info in infos:
        if info.available:
            note = info.description
            if info.device:  # a neural adapter: where device="auto" would run it
                note += f" [device: {info.device}]"
        else:
            note = f"install: {info.install}" if info.install else f"unavailable: {info.reason}"
        rows.append(
            (
                info.name,
                info.kind or "?",
                info.version or "-",
                "yes" if info.available else "no",
                note,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)]
        click.echo("  ".join([*cells, row[4]]))


@click.command()
@_segmenter_option
@click.argument("source", metavar="INPUT", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True, writable=True),
    default="-",
    show_default=True,
    help="Where the segmentation goes (- is standard output).",
)
@click.option(
    "--dict",
    "dictionary",
    help="Dictionary of the maximum-matching family (fmm, bmm, bimm): a file (one word a "
    "line, or jieba's 'word freq tag'), 'jieba', or 'corpus:NAME[:SPLIT]'. For jieba: a "
    "main dictionary replacing its own.",
)
@click.option(
    "--user-dict",
    type=click.Path(exists=True, dir_okay=False),
    help="User dictionary of jieba, rjieba, pkuseg or thulac.",
)
@click.option(
    "--model",
    type=click.Path(exists=True),
    help="A trained model: for hmm or crf, a file written by `cws-bench train hmm|crf`.",
)
@click.option(
    "--corpus",
    help="Learn from this corpus first: a registered corpus name or a segmented file "
    "(hmm and crf train on it; fmm/bmm/bimm use its words).",
)
@click.option("--split", help="The split of a registered --corpus (default: train).")
@click.option(
    "--data-dir",
    type=click.Path(exists=True),
    default=None,
    help="Where corpora that need local data are (e.g. the SIGHAN 2005 icwb2-data folder "
    "or zip), for --corpus and --dict corpus:NAME.",
)
@click.option(
    "-O",
    "--option",
    multiple=True,
    metavar="KEY=VALUE",
    help="Any option of the segmenter (repeatable); VALUE is read as JSON when it is "
    "JSON: -O keep_runs=false -O command='my-seg --stdin'.",
)
@click.option(
    "--separator",
    default=" ",
    show_default="one space",
    help="Between words in the output (\\t: a tab).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Lines handed to the segmenter at a time.",
)
@encoding_option
@click.option(
    "--timing",
    is_flag=True,
    help="Print on stderr how long loading and segmenting took, and the speed.",
)
@executor_options
def segment(
    name: str,
    source: str,
    output: str,
    dictionary: str | None,
    user_dict: str | None,
    model: str | None,
    corpus: str | None,
    split: str | None,
    data_dir: str | None,
    option: tuple[str, ...],
    separator: str,
    batch_size: int,
    encoding: str,
    timing: bool,
    sharding: dict[str, Any] | None,
) -> None:
    """Segment INPUT (one raw sentence a line; - for stdin) with a segmenter.

    The output holds one sentence a line, words separated by --separator.
    Whitespace in the input is never part of a word; every output line
    joins back to its input line without whitespace (checked).

    \b
    Example:
        cws-bench segment -s jieba pku_test.utf8 -o jieba.txt
        cws-bench segment -s fmm --dict pku_training_words.utf8 pku_test.utf8
        cws-bench segment -s hmm --model pd1998.hmm.json - < input.txt
        cws-bench segment -s hmm --corpus sighan2005-pku --data-dir icwb2-data in.txt
        cws-bench segment -s command -O command='python my_seg.py' input.txt
        cws-bench segment -s pkuseg big.txt -o out.txt --executor local --jobs 4
        cws-bench segment -s pkuseg big.txt -o out.txt --scheduler tcp://10.0.0.5:8786
    """
    from cws_bench.segmenters import get_segmenter, segment_file

    separator = separator.replace("\\t", "\t")
    options = _options(option, dictionary, user_dict, model, corpus, split)
    if data_dir is not None:
        options["data_dir"] = data_dir
    if sharding is not None:
        from cws_bench.sharded import segment_sharded

        with open_executor(sharding) as executor, character_bar(name) as bar:
            result = segment_sharded(
                name,
                source,
                output,
                executor=executor,
                options=options,
                separator=separator,
                encoding=encoding,
                batch_size=batch_size,
                shard_chars=sharding["shard_chars"],
                progress=bar,
            )
        if timing:
            for load in result.loads:
                click.echo(f"{load.worker}: loaded {name} in {load.seconds:.2f} s", err=True)
            click.echo(
                f"{name}: segmented {result.lines:,} lines ({result.characters:,} characters) "
                f"in {result.shards:,} shards on {executor.jobs} workers in {result.wall:.2f} s, "
                f"{result.characters_per_second:,.0f} characters/s",
                err=True,
            )
        return
    started = time.perf_counter()
    segmenter = get_segmenter(name, **options)
    loaded = time.perf_counter() - started
    total = None if source == "-" or not os.path.isfile(source) else _count_lines(source)
    from tqdm import tqdm

    # disable=None: no bar when stderr is not a terminal; delay: none for short inputs.
    with tqdm(total=total, unit=" lines", desc=name, disable=None, delay=1.0, leave=False) as bar:
        stats = segment_file(
            segmenter,
            source,
            output,
            separator=separator,
            encoding=encoding,
            batch_size=batch_size,
            progress=bar.update,
        )
    if timing:
        click.echo(
            f"{name} {segmenter.version}: loaded in {loaded:.2f} s; segmented {stats.lines:,} "
            f"lines ({stats.characters:,} characters) in {stats.seconds:.2f} s, "
            f"{stats.characters_per_second:,.0f} characters/s",
            err=True,
        )


@click.command()
@click.argument("name", metavar="SEGMENTER")
@click.argument("corpus")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="The model file to write (hmm: JSON; crf: .npz; fmm/bmm/bimm: a word list).",
)
@click.option("--split", help="The split of a registered CORPUS (default: train).")
@click.option(
    "--data-dir",
    type=click.Path(exists=True),
    default=None,
    help="Where corpora that need local data are (e.g. the SIGHAN 2005 icwb2-data folder "
    "or zip), for a registered CORPUS.",
)
@click.option(
    "--format",
    "fmt",
    default="auto",
    show_default=True,
    help="Format of a CORPUS file: plain, peoples-daily, conllu, bmes, or auto.",
)
@click.option(
    "-O",
    "--option",
    multiple=True,
    metavar="KEY=VALUE",
    help="An option of the segmenter (repeatable), e.g. -O alpha=0.5 for hmm, "
    "-O epochs=5 -O seed=1 for crf.",
)
@encoding_option
def train(
    name: str,
    corpus: str,
    output: str,
    split: str | None,
    data_dir: str | None,
    fmt: str,
    option: tuple[str, ...],
    encoding: str,
) -> None:
    """Train SEGMENTER (hmm, crf, or the word list of fmm/bmm/bimm) on CORPUS and save it.

    CORPUS is a registered corpus name (see `cws-bench corpora`) or a
    segmented file in any supported format (plain, People's Daily, CoNLL-U,
    BMES). Use the model with `cws-bench segment -s hmm --model MODEL`.

    \b
    Example:
        cws-bench train hmm pd1998 -o pd1998.hmm.json
        cws-bench train hmm my_gold.txt --format plain -o my.hmm.json
        cws-bench train crf pd1998 -o pd1998.crf.npz
        cws-bench train hmm sighan2005-pku --data-dir icwb2-data -o pku.hmm.json
        cws-bench segment -s hmm --model pd1998.hmm.json pku_test.utf8
    """
    from cws_bench.segmenters.sources import train_segmenter

    options = dict(parse_option(item) for item in option)
    started = time.perf_counter()
    segmenter = train_segmenter(
        name, corpus, split=split, format=fmt, encoding=encoding, data_dir=data_dir, **options
    )
    segmenter.save(output)
    data = segmenter.trained_on
    described = (
        f"{data.description} ({data.sentences:,} sentences, checksum {data.checksum})"
        if data
        else corpus
    )
    click.echo(
        f"trained {name} on {described} in {time.perf_counter() - started:.1f} s; wrote {output}",
        err=True,
    )

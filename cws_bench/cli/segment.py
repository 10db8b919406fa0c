"""``cws-bench segmenters``, ``segment`` and ``train``: list, run and train segmenters."""

from __future__ import annotations

import contextlib
import os
import time
from functools import partial
from typing import TYPE_CHECKING, Any

import click

from cws_bench.cli.executor_options import character_bar, executor_options, open_executor
from cws_bench.cli.options import (
    batch_size_option,
    data_dir_option,
    encoding_option,
    format_option,
    input_format_option,
    output_option,
    parse_option,
    quiet_option,
    raw_options_option,
    renamed_option,
    segmenter_option,
    segmenter_options,
    split_option,
)
from cws_bench.corpora.readers import FORMATS as CORPUS_FORMATS
from cws_bench.display.units import plural

if TYPE_CHECKING:
    from cws_bench.run.executors import ExecutorSettings


__all__ = ["segment", "segmenters", "train"]

FORMATS = ("text", "json")
INPUT_FORMATS = ("auto", *CORPUS_FORMATS)


def _count_lines(path: str) -> int:
    """Lines of a file, for the progress bar's total."""
    count = 0
    last = b"\n"
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            count += block.count(b"\n")
            last = block[-1:]
    return count + (last != b"\n")


def _written_file_option(flag: str, help: str, *name: str) -> Any:
    """``flag FILE``: a file the command writes besides its output (None: not written)."""
    return click.option(flag, *name, metavar="FILE", type=click.Path(dir_okay=False), help=help)


@click.command()
@click.argument("name", required=False)
@format_option(FORMATS)
def segmenters(name: str | None, fmt: str) -> None:
    """List the segmenters: kind, version, whether each is available, how to install it;
    with NAME, the options that segmenter takes (-O KEY=VALUE).

    Built-in adapters and those that packages register through the entry
    point group `cws_bench.segmenters` are listed alike.

    \b
    Example:
        cws-bench segmenters
        cws-bench segmenters --format json
        cws-bench segmenters crf
    """
    from cws_bench.segmenters.registry import list_segmenters, render_options, render_segmenters

    click.echo(render_options(name, fmt) if name else render_segmenters(list_segmenters(), fmt))


@click.command()
@segmenter_option()
@click.argument("source", metavar="INPUT", type=click.Path(dir_okay=False, allow_dash=True))
@output_option("Where the segmentation goes (- is standard output).", default="-")
@renamed_option("--dict", "lexicon", "--lexicon")
@segmenter_options()
@data_dir_option(
    "Where corpora that need local data are (e.g. the SIGHAN 2005 icwb2-data folder "
    "or zip), for --corpus and --lexicon corpus:NAME."
)
@click.option(
    "--separator",
    default=" ",
    show_default="one space",
    help="Between words in the output (\\t: a tab).",
)
@batch_size_option
@encoding_option
@click.option(
    "--timing",
    is_flag=True,
    help="Print on stderr how long loading and segmenting took, and the speed.",
)
@_written_file_option(
    "--fidelity",
    "Write one JSON object per input line: whether the segmenter's text differs from it "
    "(altered, inserted, deleted, substituted, refused, empty; llm).",
)
@_written_file_option(
    "--requests",
    "Write one JSON object per request the segmenter sent (start, first_token, end, "
    "input_tokens, output_tokens; llm): the log that metrics throughput reads.",
    "requests_log",
)
@_written_file_option(
    "--token-ids",
    "Write the token ids of every line (a tokenizer: -s tokenizer...), the file that "
    "`diff --token-ids` compares.",
)
@quiet_option()
@executor_options
def segment(
    name: str,
    source: str,
    output: str,
    options: dict[str, Any],
    data_dir: str | None,
    separator: str,
    encoding: str,
    timing: bool,
    token_ids: str | None,
    quiet: bool,
    sharding: ExecutorSettings | None,
    **settings: Any,
) -> None:
    """Segment INPUT (one raw sentence a line; - for stdin) with a segmenter.

    The output holds one sentence a line, words separated by --separator.
    Whitespace in the input is never part of a word; every output line
    joins back to its input line without whitespace (checked).

    \b
    Example:
        cws-bench segment -s jieba pku_test.utf8 -o jieba.txt
        cws-bench segment -s fmm --lexicon pku_training_words.utf8 pku_test.utf8
        cws-bench segment -s hmm --model pd1998.hmm.json - < input.txt
        cws-bench segment -s hmm --corpus sighan2005-pku --data-dir icwb2-data in.txt
        cws-bench segment -s command -O command='python my_seg.py' input.txt
        cws-bench segment -s llm -O base_url=URL -O model=NAME in.txt --fidelity f.jsonl
        cws-bench segment -s pkuseg big.txt -o out.txt --executor local --jobs 4
        cws-bench segment -s pkuseg big.txt -o out.txt --scheduler tcp://10.0.0.5:8786
    """
    from cws_bench.run.segment import segment_input

    if data_dir is not None:
        options["data_dir"] = data_dir
    record = None
    if token_ids is not None:  # a tokenizer's ids, written once the input is segmented
        from cws_bench.regression.tokens import record_file_token_ids

        record = partial(record_file_token_ids, source=source, path=token_ids, encoding=encoding)

    with contextlib.ExitStack() as stack:
        executor = stack.enter_context(open_executor(sharding))
        if sharding is not None:
            bar = stack.enter_context(character_bar(name, off=quiet))
        else:
            bar = stack.enter_context(_line_bar(name, source, quiet)).update
        result = segment_input(
            name,
            source,
            output,
            options=options,
            executor=executor,
            separator=separator.replace("\\t", "\t"),
            encoding=encoding,
            shard_chars=getattr(sharding, "shard_chars", None),
            progress=bar,
            token_ids=record,
            **settings,  # batch_size, fidelity, requests_log
        )
    for line in (*result.warnings, *(() if quiet or not result.summary else (result.summary,))):
        click.echo(line, err=True)
    for line in result.timing() if timing else ():
        click.echo(line, err=True)


def _line_bar(name: str, source: str, quiet: bool) -> Any:
    """A progress bar in lines (none when stderr is not a terminal; none for short inputs)."""
    from tqdm import tqdm

    total = None if source == "-" or not os.path.isfile(source) else _count_lines(source)
    disable = True if quiet else None
    return tqdm(total=total, unit=" lines", desc=name, disable=disable, delay=1.0, leave=False)


@click.command()
@click.argument("name", metavar="SEGMENTER")
@click.argument("corpus")
@output_option(
    "The model file to write (hmm: JSON; crf: .npz; fmm/bmm/bimm: a word list; "
    "transformers: a model folder).",
    required=True,
    allow_dash=False,
    dir_okay=True,
)
@split_option("The split of a registered CORPUS (default: train).")
@data_dir_option(
    "Where corpora that need local data are (e.g. the SIGHAN 2005 icwb2-data folder "
    "or zip), for a registered CORPUS."
)
@input_format_option(INPUT_FORMATS, "Format of a CORPUS file (auto: detected from its lines).")
@renamed_option("--format", "input_format", "--input-format", type=click.Choice(INPUT_FORMATS))
@raw_options_option(
    "An option of the segmenter (repeatable), e.g. -O alpha=0.5 for hmm, "
    "-O epochs=5 -O seed=1 for crf."
)
@encoding_option
@click.option(
    "--seeds",
    metavar="N,...",
    default=None,
    help="Train once per seed (crf, transformers), e.g. 1,2,3: the models go to OUTPUT "
    "with .seed<n> before its extension (pku.crf.seed1.npz) or after a folder's name.",
)
def train(
    name: str,
    corpus: str,
    output: str,
    split: str | None,
    data_dir: str | None,
    input_format: str,
    option: tuple[str, ...],
    encoding: str,
    seeds: str | None,
) -> None:
    """Train SEGMENTER (hmm, crf, transformers, or fmm/bmm/bimm's word list) on CORPUS; save it.

    CORPUS is a registered corpus name (see `cws-bench corpora`) or a
    segmented file in any supported format (plain, People's Daily, CoNLL-U,
    BMES). Use the model with `cws-bench segment -s hmm --model MODEL`.

    \b
    Example:
        cws-bench train hmm pd1998 -o pd1998.hmm.json
        cws-bench train hmm my_gold.txt --input-format plain -o my.hmm.json
        cws-bench train crf pd1998 -o pd1998.crf.npz
        cws-bench train hmm sighan2005-pku --data-dir icwb2-data -o pku.hmm.json
        cws-bench segment -s hmm --model pd1998.hmm.json pku_test.utf8
        cws-bench train transformers pd1998 -o pd1998-tagger -O layers=2 -O hidden=128
        cws-bench segment -s transformers -O model=pd1998-tagger pku_test.utf8
        cws-bench train crf pd1998 -o pd1998.crf.npz --seeds 1,2,3
    """
    from cws_bench.segmenters.registry import segmenter_class

    if os.path.isdir(output) and getattr(segmenter_class(name), "from_training", None) is None:
        raise click.BadParameter(f"{output} is a folder: {name} writes a file", param_hint="-o")
    from cws_bench.segmenters.sources import train_segmenter

    options = dict(parse_option(item) for item in option)
    runs = [(output, options)]
    if seeds is not None:
        from cws_bench.errors import CwsBenchError
        from cws_bench.run.config import parse_seeds
        from cws_bench.segmenters.sources import seed_output, trains_with_seed

        if not trains_with_seed(name):
            raise CwsBenchError(
                f"--seeds: training {name} draws on no seed",
                "seeds are for crf and transformers (the character taggers)",
            )
        if "seed" in options:
            raise CwsBenchError("give either --seeds or -O seed=N, not both")
        runs = [(seed_output(output, s), {**options, "seed": s}) for s in parse_seeds(seeds)]
    for path, settings in runs:
        started = time.perf_counter()
        segmenter = train_segmenter(
            name,
            corpus,
            split=split,
            format=input_format,
            encoding=encoding,
            data_dir=data_dir,
            **settings,
        )
        segmenter.save(path)
        data = segmenter.trained_on
        described = (
            f"{data.description} ({plural(data.sentences, 'sentence')}, checksum {data.checksum})"
            if data
            else corpus
        )
        click.echo(
            f"trained {name} on {described} in {time.perf_counter() - started:.1f} s; wrote {path}",
            err=True,
        )

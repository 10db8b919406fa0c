"""``cws-bench corpora``: list the named corpora, describe one, export it, download it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from cws_bench.cli.options import (
    RecordingGroup,
    cli_terms,
    data_dir_option,
    dictionary_option,
    encoding_option,
    format_option,
    input_format_option,
    output_option,
    quiet_option,
    split_option,
    stacked,
    units_options,
)
from cws_bench.corpora import Corpus, corpus_names, get_corpus, read_corpus
from cws_bench.corpora.readers import FORMATS
from cws_bench.corpora.stats import (
    STATISTICS_FORMATS,
    corpus_statistics,
    render_corpus_list,
    sentence_statistics,
)
from cws_bench.display.units import plural

OUTPUTS = STATISTICS_FORMATS


_data_dir_option = data_dir_option(
    "Where the corpus' files are (a folder, or icwb2-data.zip for SIGHAN 2005); "
    "default: the corpus' environment variable, then its usual place."
)


_format_option = format_option(OUTPUTS)
_quiet_option = quiet_option("No download progress bar.")
_source_options = stacked(
    input_format_option(["auto", *FORMATS], "When NAME is a file: its format."),
    encoding_option,
    _data_dir_option,
    click.option("--download", is_flag=True, help="Download the corpus first if it is not here."),
)


def _open_corpus(name: str, data_dir: str | None, download: bool, quiet: bool) -> Corpus | None:
    """The named corpus, downloaded first when asked; None when NAME is a file."""
    if name not in corpus_names() and Path(name).is_file():
        return None
    corpus = get_corpus(name, data_dir=data_dir)
    if download and corpus.downloadable:
        corpus = get_corpus(name, data_dir=data_dir, download=True, progress=not quiet)
    return corpus


@click.group(cls=RecordingGroup, invoke_without_command=True)
@_data_dir_option
@_format_option
@click.pass_context
def corpora(ctx: click.Context, data_dir: str | None, fmt: str) -> None:
    """List the named corpora: script, splits, whether they are here, how to get them.

    --data-dir here is where to look for the corpora whose data no Python
    package installs (SIGHAN 2005, Universal Dependencies).

    \b
    Example:
        cws-bench corpora
        cws-bench corpora --data-dir ../shared/corpora
        cws-bench corpora info sighan2005-pku --data-dir ../shared/corpora/icwb2-data
    """
    if ctx.invoked_subcommand is None:
        _list(data_dir, fmt)


@corpora.command("list")
@click.pass_context
def list_corpora(ctx: click.Context) -> None:
    """List the named corpora (what `cws-bench corpora` alone prints).

    \b
    Example:
        cws-bench corpora list
        cws-bench corpora --data-dir ../shared/corpora --format json list
    """
    assert ctx.parent is not None
    _list(ctx.parent.params["data_dir"], ctx.parent.params["fmt"])


def _list(data_dir: str | None, fmt: str) -> None:
    terms = cli_terms(click.get_current_context())
    cards = [get_corpus(name, data_dir=data_dir).metadata(terms) for name in corpus_names()]
    click.echo(render_corpus_list(cards, fmt))


@corpora.command()
@click.argument("name")
@split_option("Split to describe (default: test, when available).")
@dictionary_option(
    help="Dictionary for the OOV rate instead of the corpus' standard one: a file, "
    "'jieba', or corpus:NAME[:SPLIT]."
)
@_source_options
@click.option(
    "--overlap-with",
    multiple=True,
    metavar="NAME[:SPLIT]",
    help="Also count the split's sentences found in this corpus' split (default test), "
    "e.g. another corpus' test set; repeatable. The training split is always compared.",
)
@_quiet_option
@_format_option
@units_options
def info(
    name: str,
    split: str | None,
    dictionary: str | None,
    input_format: str,
    encoding: str,
    data_dir: str | None,
    download: bool,
    overlap_with: tuple[str, ...],
    quiet: bool,
    fmt: str,
    scale: str | None,
    digits: int | None,
) -> None:
    """Describe a corpus split: sentences, words, characters, types, OOV rate.

    NAME is a named corpus (see `cws-bench corpora`) or a gold file in any
    known format. The OOV rate is that of the split against the corpus'
    standard dictionary (SIGHAN: the training word list; others: the word
    types of the training split), or against --dict. For a named corpus it
    also counts the split's sentences found in its training split (exactly,
    and after normalising width and punctuation), and in --overlap-with.

    \b
    Example:
        cws-bench corpora info sample
        cws-bench corpora info pd1998 --split test --format json
        cws-bench corpora info gold.txt --dict words.txt
        cws-bench corpora info udc --overlap-with ud-zh-gsdsimp --data-dir ../shared/corpora
    """
    from cws_bench.corpora.words import resolve_dictionary

    given = (
        resolve_dictionary(dictionary, data_dir=data_dir, encoding=encoding) if dictionary else None
    )
    card: dict[str, Any] | None = None
    corpus = _open_corpus(name, data_dir, download, quiet)
    if corpus is None:
        sentences = read_corpus(name, format=input_format, encoding=encoding)
        statistics = sentence_statistics(sentences, given)
        title = name
    else:
        if split is None:
            available = corpus.available_splits
            split = "test" if "test" in available or not available else available[0]
        statistics = corpus_statistics(
            corpus, split, dictionary=given, overlap_with=overlap_with, data_dir=data_dir
        )
        title = f"{corpus.name}, {split} split: {corpus.title}"
        card = corpus.metadata(cli_terms(click.get_current_context()))
    click.echo(statistics.render(fmt, title=title, card=card, scale=scale, digits=digits))


@corpora.command()
@click.argument("name")
@click.option("--split", default="test", show_default=True, help="Split to export.")
@click.option(
    "--as",
    "kind",
    type=click.Choice(["raw", "gold"]),
    required=True,
    help="raw: the unsegmented input (SIGHAN: the official test input); "
    "gold: the gold words separated by spaces.",
)
@output_option("File to write (- for standard output); written atomically, UTF-8.", required=True)
@_source_options
@_quiet_option
def export(
    name: str,
    split: str,
    kind: str,
    output: str,
    input_format: str,
    encoding: str,
    data_dir: str | None,
    download: bool,
    quiet: bool,
) -> None:
    """Write a split's raw input or gold segmentation as plain text, one sentence a line.

    NAME is a named corpus (see `cws-bench corpora`) or a gold file in any
    known format (CoNLL-U, People's Daily, BMES, plain), as for `corpora
    info`; a file's raw input is its words joined without spaces. Run any
    external segmenter on the raw file, then score its output against the
    gold file with `cws-bench score`.

    \b
    Example:
        cws-bench corpora export pd1998 --split test --as raw -o pd_test_raw.txt
        cws-bench corpora export pd1998 --split test --as gold -o pd_test_gold.txt
        cws-bench corpora export zh_gsd-ud-test.conllu --as gold -o gsd_test_gold.txt
    """
    from cws_bench.text.io import atomic_write

    corpus = _open_corpus(name, data_dir, download, quiet)
    if corpus is None:
        sentences = read_corpus(name, format=input_format, encoding=encoding)
        lines: Iterator[str] = (("" if kind == "raw" else " ").join(w) for w in sentences)
        label = name
    else:
        lines = (
            corpus.raw(split)
            if kind == "raw"
            else (" ".join(words) for words in corpus.sentences(split))
        )
        label = f"{corpus.name} {split}"
    count = 0
    with atomic_write(output) as out:
        for line in lines:
            out.write(line)
            out.write("\n")
            count += 1
    if output != "-":
        click.echo(f"wrote {plural(count, 'line')} of {label} ({kind}) to {output}", err=True)


@corpora.command()
@click.argument("name")
@click.option(
    "--url",
    default=None,
    help="Download from this address instead of the official release "
    "(e.g. a mirror; the files are still checked against their pinned SHA-256).",
)
@_quiet_option
def download(name: str, url: str | None, quiet: bool) -> None:
    """Download a corpus into the user's cache folder, with a progress bar.

    SIGHAN 2005, the multi-criteria set (sxu, zx, wtb, udc) and the UD
    treebanks CFL, HK and PUD can be downloaded; every file is checked against
    its pinned SHA-256 (a download that differs is not kept).

    \b
    Example:
        cws-bench corpora download sighan2005-pku
        cws-bench corpora download wtb
    """
    corpus = get_corpus(name)
    if corpus.downloadable:
        corpus = get_corpus(name, url=url, progress=not quiet)
    archive = corpus.download()
    click.echo(f"{corpus.name}: {archive}")
    click.echo(f"  splits here: {', '.join(corpus.available_splits) or 'none'}")

"""``cws-bench diff``, ``baseline save/update/show`` and ``check``: regression-test a tokenizer.

``check`` exits 0 when every bound holds, 1 when a bound is broken (or, with
``--fail-on-change``, the experiment changed), and 2 on a usage or input
error (the group's one error path, cws_bench/cli/__init__.py).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from cws_bench.cli.executor_options import executor_options, open_executor
from cws_bench.cli.options import (
    RecordingGroup,
    batch_size_option,
    count_option,
    data_dir_option,
    dict_encoding_option,
    dictionary_option,
    encoding_option,
    format_option,
    gold_format_option,
    normalize_option,
    output_option,
    parse_option,
    print_warnings,
    raw_options_option,
    renamed_option,
    resamples_option,
    seed_option,
    segmenter_option,
    segmenter_options,
    stacked,
    strict_option,
    units_options,
    write_output,
    write_streamed,
)
from cws_bench.score_registry import bounded_scores

if TYPE_CHECKING:
    from cws_bench.regression.baseline import Bounds
    from cws_bench.run.executors import ExecutorSettings

F = TypeVar("F", bound=Callable[..., Any])

# regression.render's DIFF_FORMATS and CHECK_FORMATS, written out: importing it costs
# a second at start-up (tests/test_formats.py checks they agree).
DIFF_FORMATS = ("text", "json", "html")
CHECK_FORMATS = ("text", "json", "junit")


def _max_drop(text: str) -> tuple[str, float]:
    """``METRIC=POINTS`` -> (metric, points).

    >>> _max_drop("recall=0.5")
    ('recall', 0.5)
    """
    metric, _, value = text.partition("=")
    try:
        return metric.strip(), float(value)
    except ValueError:
        raise click.BadParameter(
            f"{text!r}: expected METRIC=POINTS, e.g. recall=0.5", param_hint="--max-drop"
        ) from None


_BOUNDS = ("max_f1_drop", "max_oov_recall_drop", "max_speed_drop", "max_token_lines", "max_p")


def bound_options(function: F) -> F:
    """The bounds of a check (``--max-f1-drop``, ``--max-oov-recall-drop``, ``--max-speed-drop``,
    ``--max-token-lines``, ``--max-p``, ``--max-drop``), passed on as one ``bounds``: a
    function of the stored bounds (None: none) to the :class:`Bounds` the library makes."""

    @functools.wraps(function)
    def wrapped(**kwargs: Any) -> Any:
        from cws_bench.regression.baseline import Bounds

        limits = {key: kwargs.pop(key) for key in _BOUNDS}
        drops = dict(_max_drop(item) for item in kwargs.pop("max_drop"))

        def bounds(base: Bounds | None = None) -> Bounds:
            return Bounds.from_limits(**limits, max_drop=drops, base=base)

        return function(bounds=bounds, **kwargs)

    return stacked(
        click.option(
            "--max-f1-drop",
            type=click.FloatRange(min=0),
            default=None,
            metavar="POINTS",
            help="Fail when F1 drops by more than this many percentage points (0.5: from "
            "80.76 to below 80.26) [baseline's bound, else 0: any drop fails].",
        ),
        click.option(
            "--max-oov-recall-drop",
            type=click.FloatRange(min=0),
            default=None,
            metavar="POINTS",
            help="Fail when OOV recall drops by more than this many percentage points.",
        ),
        click.option(
            "--max-speed-drop",
            type=click.FloatRange(min=0, max=100),
            default=None,
            metavar="PCT",
            help="Fail when the median speed (characters/s) drops by more than PCT percent. "
            "Speed is noisy (runs differ by 10-50%): bound it loosely, on the "
            "machine that made the baseline.",
        ),
        click.option(
            "--max-token-lines",
            type=click.IntRange(min=0),
            default=None,
            metavar="N",
            help="A tokenizer (-s tokenizer...): fail when the token ids of more than N lines "
            "changed [baseline's bound, else 0: any changed line fails].",
        ),
        click.option(
            "--max-p",
            type=click.FloatRange(0, 1, min_open=True, max_open=True),
            default=None,
            metavar="P",
            help="Fail a score below its bound only when the drop is significant: the paired "
            "bootstrap test over the same sentences gives p < P (e.g. 0.05) [baseline's, "
            "else every drop below the bound fails].",
        ),
        click.option(
            "--max-drop",
            multiple=True,
            metavar="METRIC=POINTS",
            help="A bound on any score (repeatable): "
            + ", ".join(s.name for s in bounded_scores())
            + ".",
        ),
    )(wrapped)  # type: ignore[return-value]


def _absolute(options: dict[str, Any]) -> dict[str, Any]:
    """The options with the files they name as absolute paths (a baseline runs from anywhere)."""
    return {
        key: os.path.abspath(value)
        if isinstance(value, str)
        and key in ("user_dict", "model", "lexicon", "path")
        and os.path.exists(value)
        else value
        for key, value in options.items()
    }


_data_dir_option = data_dir_option(
    "Where corpora that need local data keep it (e.g. the SIGHAN 2005 icwb2-data)."
)


def _speed_runs_option(default: int | None) -> Callable[[F], F]:
    return count_option(
        "--speed-runs",
        default=default,
        help="Timed runs over each corpus; speed is their median (each run lasts at least "
        "0.2 s, repeating a small corpus).",
    )


# ---------------------------------------------------------------------------
# diff


@click.command()
@click.argument("a")
@click.argument("b")
@click.option(
    "--text",
    type=click.Path(exists=True, dir_okay=False),
    metavar="RAW",
    help="A and B are segmenters (e.g. two tokenizers): run both over this raw text, one "
    "sentence a line, and diff their outputs and token ids.",
)
@stacked(
    *(
        click.option(
            f"-{side}",
            f"--{side.lower()}-option",
            multiple=True,
            metavar="KEY=VALUE",
            help=f"With --text: an option of segmenter {side} (repeatable){example}.",
        )
        for side, example in (("A", ", e.g. -A path=v1/tokenizer.json"), ("B", ""))
    )
)
@click.option(
    "--token-ids",
    nargs=2,
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="A_IDS B_IDS",
    help="The token-id files of A and B (`segment --token-ids`): also report the lines "
    "whose token ids changed, even where every boundary stayed.",
)
@click.option(
    "--corpus",
    metavar="LABEL",
    default=None,
    help="When A and B are baseline files: the corpus of theirs to compare (needed when "
    "they hold several).",
)
@click.option(
    "--gold",
    metavar="GOLD",
    help="A gold segmentation of the same text (a file in any --gold-format, or a corpus "
    "NAME[:SPLIT]): says which changes fixed or broke agreement with it, and tests ΔP/ΔR/ΔF1.",
)
@gold_format_option("the --gold file")
@dictionary_option(
    help="Dictionary for OOV figures: a file, 'jieba', or 'corpus:NAME[:SPLIT]'.",
    metavar="DICT",
)
@dict_encoding_option("--encoding's", "dictionary_encoding")
@_data_dir_option
@normalize_option("A, B, the gold and the dictionary", "comparing")
@format_option(
    DIFF_FORMATS,
    "text for the terminal, json for machines, html: one self-contained page with "
    "the changed sentences side by side.",
)
@output_option("Write the output to this file [default: standard output].")
@count_option(
    "--top",
    default=20,
    help="Patterns of change kept, most frequent first (text shows the first 10).",
)
@count_option(
    "--examples",
    "max_examples",
    default=5,
    minimum=0,
    help="Lines shown of each sort of token-id change (boundaries kept, moved) and of "
    "lines whose characters differ.",
)
@seed_option("Seed of the paired bootstrap test (with --gold).")
@resamples_option("Resamples of the paired bootstrap test (with --gold).")
@strict_option(
    "Exit 2 when a line holds different characters in A and B, instead of matching "
    "their words through a character alignment."
)
@encoding_option
@units_options
def diff(
    a: str,
    b: str,
    text: str | None,
    a_option: tuple[str, ...],
    b_option: tuple[str, ...],
    token_ids: tuple[str, str] | None,
    corpus: str | None,
    gold: str | None,
    fmt: str,
    output: str | None,
    scale: str | None,
    digits: int | None,
    **settings: Any,
) -> None:
    """Show what changed from segmentation A to segmentation B of the same text.

    A and B hold one sentence a line, words separated by whitespace (for
    example the output of tokenizer v1 and of v2). Reports the lines and
    words that changed and the kinds of change: a word split, words merged,
    a boundary moved, with the most frequent changes, their counts and an
    example line each. With --gold: whether each change fixed or broke
    agreement with the gold, the net change in correct words, and ΔP, ΔR,
    ΔF1 with a paired bootstrap p-value. The gold may be in any format score
    reads (CoNLL-U, People's Daily, BMES: detected) or a corpus NAME[:SPLIT],
    whose standard dictionary is the default --dict; --dict is read in
    --encoding unless --dict-encoding says otherwise.

    A tokenizer's output is compared by its token ids too (ids can change
    while every boundary stays): A and B may be two baseline files of a
    tokenizer (`baseline save -s tokenizer...`; --corpus picks one of their
    corpora), two segmentations with --token-ids, or, with --text RAW, two
    segmenters run over RAW.

    \b
    Example:
        cws-bench diff before.txt after.txt
        cws-bench diff v1-baseline.json v2-baseline.json
        cws-bench diff tokenizer-qwen2.5 tokenizer-qwen3.6 --text raw.txt
        cws-bench diff tokenizer tokenizer -A path=v1.json -B path=v2.json --text raw.txt
        cws-bench diff before.txt after.txt --gold gold.txt --dict words.txt
        cws-bench diff before.txt after.txt --gold zh_gsd-ud-test.conllu
        cws-bench diff before.txt after.txt --gold gold.txt --normalize width
        cws-bench diff before.txt after.txt --gold gold.txt --format html -o diff.html
    """
    from cws_bench.defaults import STANDARD_DICTIONARY
    from cws_bench.regression.diff import diff_files, diff_tokenizers
    from cws_bench.regression.render import render_diff, write_diff_json

    if text is None and (a_option or b_option):
        raise click.UsageError("-A and -B are options of segmenters: give --text RAW too")
    if text is not None and (token_ids or corpus):
        raise click.UsageError("--text runs A and B: leave out --token-ids and --corpus")
    # The library's default: the standard dictionary of a corpus named as --gold.
    settings["dictionary"] = settings["dictionary"] or STANDARD_DICTIONARY
    if text is not None:
        result = diff_tokenizers(
            text,
            a,
            b,
            gold,
            a_options=dict(parse_option(item) for item in a_option),
            b_options=dict(parse_option(item) for item in b_option),
            **settings,
        )
    else:
        for path in (a, b):
            if not os.path.isfile(path):
                raise click.BadParameter(
                    f"{path}: no such file (give --text RAW to run segmenters A and B)",
                    param_hint="A/B",
                )
        result = diff_files(a, b, gold, corpus=corpus, token_ids=token_ids, **settings)
    if fmt == "json":  # every changed line: written one at a time
        write_streamed(lambda out: write_diff_json(result, out), output, what="diff")
        return
    write_output(render_diff(result, fmt, scale=scale, digits=digits), output, what="diff")


# ---------------------------------------------------------------------------
# baseline


@click.group(cls=RecordingGroup)
def baseline() -> None:
    """Record a segmenter's scores and speed on corpora as a baseline file, or update one.

    \b
    Example:
        cws-bench baseline save -s jieba --corpus sample -o baseline.json
        cws-bench baseline update baseline.json
    """


@baseline.command("save")
@segmenter_option("The segmenter (see `cws-bench segmenters`); `command` runs any program.")
@segmenter_options(training=False)
@click.option(
    "--corpus",
    "corpora",
    multiple=True,
    required=True,
    metavar="NAME_OR_FILE",
    help="A registered corpus (NAME or NAME:SPLIT; default split test) or a segmented gold "
    "file (repeatable).",
)
@dictionary_option(
    "OOV dictionary for every corpus: a file, 'jieba', or 'corpus:NAME[:SPLIT]' "
    "[default: a registered corpus' standard dictionary; none for a file].",
    metavar="DICT",
)
@renamed_option("--oov-dict", "dictionary", "--dict", metavar="DICT")
@output_option(
    "The baseline file to write (JSON; paths inside are relative to its folder).",
    required=True,
    allow_dash=False,
)
@bound_options
@_speed_runs_option(3)
@batch_size_option
@click.option(
    "--no-segmentation",
    is_flag=True,
    help="Leave the segmentation out of the file (a check then cannot say what changed).",
)
@_data_dir_option
@executor_options(shard_chars=None)
def save(
    sharding: ExecutorSettings | None,
    name: str,
    options: dict[str, Any],
    corpora: tuple[str, ...],
    output: str,
    bounds: Callable[..., Bounds],
    no_segmentation: bool,
    **settings: Any,
) -> None:
    """Run a segmenter on corpora and save its scores, speed and signature as a baseline.

    The file records per corpus P, R, F1, OOV and IV recall, boundary
    scores and error kinds, the speed (the median of --speed-runs timed
    runs), the per-sentence counts, the segmentation, and the signature of
    the experiment (segmenter name, version and options, the content of
    files the options name, corpus and dictionary checksums, cws-bench
    version). Bounds given here are stored and used by `cws-bench check`
    unless it is given others.

    \b
    Example:
        cws-bench baseline save -s jieba --corpus sample -o baseline.json
        cws-bench baseline save -s jieba --user-dict words.txt --corpus sample -o base.json
        cws-bench baseline save -s hmm --model pd.hmm.json --corpus pd1998 --max-f1-drop 0.5 \\
            -o base.json
        cws-bench baseline save -s command -O command='python seg.py' -O version=2.1 \\
            --corpus gold.txt -o base.json
    """
    from cws_bench.regression.baseline_file import save_baseline
    from cws_bench.regression.recording import record_baseline
    from cws_bench.regression.render import render_baseline_text

    with open_executor(sharding) as executor:
        recorded = record_baseline(
            name,
            list(corpora),
            options=_absolute(options),
            bounds=bounds(),
            keep_segmentation=not no_segmentation,
            executor=executor,
            shard_chars=getattr(sharding, "shard_chars", None),
            **settings,  # dictionary, data_dir, speed_runs, batch_size
        )
    print_warnings(f"{r.label}: {w}" for r in recorded.records for w in r.warnings)
    save_baseline(recorded, output)
    click.echo(render_baseline_text(recorded, output))


@baseline.command("update")
@click.argument("path", metavar="BASELINE", type=click.Path(exists=True, dir_okay=False))
@_speed_runs_option(None)
@_data_dir_option
def update(path: str, speed_runs: int | None, data_dir: str | None) -> None:
    """Run BASELINE's configuration again and make the result the new baseline.

    This accepts a change: the same segmenter, options, corpora, settings
    and bounds, with today's scores, speed, versions and file checksums.

    \b
    Example:
        cws-bench baseline update baseline.json
    """
    from cws_bench.regression.baseline_file import load_baseline, save_baseline
    from cws_bench.regression.recording import rerun_baseline
    from cws_bench.regression.render import render_baseline_text

    old = load_baseline(path)
    new = rerun_baseline(old, data_dir=data_dir, speed_runs=speed_runs)
    print_warnings(f"{r.label}: {w}" for r in new.records for w in r.warnings)
    save_baseline(new, path)
    click.echo(render_baseline_text(new, path))


@baseline.command("show")
@click.argument("path", metavar="BASELINE", type=click.Path(exists=True, dir_okay=False))
def show(path: str) -> None:
    """Print what BASELINE holds: segmenter, scores, speed, signature and bounds.

    \b
    Example:
        cws-bench baseline show baseline.json
    """
    from cws_bench.regression.baseline_file import load_baseline
    from cws_bench.regression.render import render_baseline_text

    click.echo(render_baseline_text(load_baseline(path), path))


# ---------------------------------------------------------------------------
# check


@click.command()
@click.option(
    "--baseline",
    "path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="The baseline file (`cws-bench baseline save`).",
)
@bound_options
@click.option(
    "--fail-on-change",
    is_flag=True,
    help="Also fail when the experiment changed since the baseline: corpus or OOV "
    "dictionary checksum, segmenter version or options, files the options name, "
    "cws-bench version.",
)
@format_option(
    CHECK_FORMATS,
    "text for the terminal, json for machines, junit: JUnit XML (one test case per "
    "corpus and bound) for CI systems.",
)
@output_option(
    "Write the report in --format to this file; the text summary still goes to standard output."
)
@raw_options_option("Run with this segmenter option instead of the recorded one (repeatable).")
@_speed_runs_option(None)
@_data_dir_option
@units_options
@executor_options(shard_chars=None)
def check(
    sharding: ExecutorSettings | None,
    path: str,
    bounds: Callable[..., Bounds],
    fail_on_change: bool,
    fmt: str,
    output: str | None,
    option: tuple[str, ...],
    scale: str | None,
    digits: int | None,
    **settings: Any,
) -> None:
    """Rerun a baseline's configuration and compare: exit 1 when a bound is broken.

    Reruns the segmenter with the recorded options on the recorded corpora
    and checks each bound on each corpus: exit code 0 when all hold, 1 when
    one is broken (each listed with its old, new and allowed value), 2 on
    a usage or input error. Says so when the experiment itself changed
    (corpus checksum, segmenter version, a user dictionary, ...), and, when
    the baseline kept its segmentation, what changed in the output.

    \b
    Example:
        cws-bench check --baseline baseline.json
        cws-bench check --baseline baseline.json --max-f1-drop 0.5 --max-oov-recall-drop 2
        cws-bench check --baseline baseline.json --max-p 0.05
        cws-bench check --baseline baseline.json --max-speed-drop 30 --format junit -o check.xml
    """
    from cws_bench.regression.baseline_file import load_baseline
    from cws_bench.regression.check import check_baseline
    from cws_bench.regression.recording import rerun_baseline
    from cws_bench.regression.render import render_check

    if output is not None:
        from cws_bench.text.io import check_writable

        check_writable(output)  # before the rerun: exit 2 now, not after a long check
    stored = load_baseline(path)
    with open_executor(sharding) as executor:
        current = rerun_baseline(
            stored,
            options=_absolute(dict(parse_option(item) for item in option)),
            executor=executor,
            shard_chars=getattr(sharding, "shard_chars", None),
            **settings,  # data_dir, speed_runs
        )
    print_warnings(f"{r.label}: {w}" for r in current.records for w in r.warnings)
    result = check_baseline(stored, current, bounds(stored.bounds), fail_on_change=fail_on_change)
    accept = f"cws-bench baseline update {path}"
    options = {"baseline": path, "accept": accept, "scale": scale, "digits": digits}
    rendered = render_check(result, fmt, **options)
    write_output(rendered, output, what="check report")
    if output not in (None, "-"):  # the summary still goes to standard output
        click.echo(render_check(result, "text", **options))
    if not result.passed:
        raise click.exceptions.Exit(1)

"""Options and helpers that several commands share, written once.

Each option has one meaning and one spelling on every command:

* ``--dict`` is always the OOV dictionary (the ``dictionary`` parameter of
  the scoring functions, a corpus' ``dictionary`` in a TOML); a segmenter's own
  word list is ``--lexicon`` (its option ``lexicon``, in a TOML row too).
* ``--input-format`` is the format of an input corpus file; ``--format``
  always chooses the output format.
* ``-o/--output`` is where the output goes; ``--data-dir``, ``--normalize``,
  ``--quiet``, ``--seed``, ``--batch-size``, ``--gold-format``,
  ``--dict-encoding``, ``--strict`` and ``--beta`` mean the same everywhere, and
  the defaults of the last two are the library's one constant each
  (:data:`~cws_bench.metrics.significance.DEFAULT_SEED`,
  :data:`~cws_bench.segmenters.stream.DEFAULT_BATCH_SIZE`).

Old spellings keep working as hidden options that print a one-line
deprecation note (:func:`renamed_option`). Options are stacked decorators,
as sqlite-utils writes its ``output_options``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def stacked(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """Apply ``decorators`` as if written one above the other, the first on top."""

    def apply(function: F) -> F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


class _Bounded(click.ParamType):
    """What both bounded types add to click's range: the setting's
    :class:`~cws_bench.defaults.Bounds` asked after click's own conversion."""

    bounds: Any

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        problem = self.bounds.problem(number)
        if problem is not None:
            self.fail(problem, param, ctx)
        return number


class _BoundedInt(_Bounded, click.IntRange):
    """An IntRange that also asks the setting's Bounds."""

    def __init__(self, bounds: Any) -> None:
        low, high = bounds.low, bounds.high
        super().__init__(
            min=None if low is None else int(low),
            max=None if high is None else int(high),
            min_open=bounds.low_open,
            max_open=bounds.high_open,
        )
        self.bounds = bounds


class _BoundedFloat(_Bounded, click.FloatRange):
    """A FloatRange that also asks the setting's Bounds (which refuse nan and inf)."""

    def __init__(self, bounds: Any) -> None:
        super().__init__(
            min=bounds.low, max=bounds.high, min_open=bounds.low_open, max_open=bounds.high_open
        )
        self.bounds = bounds


def comma_list(what: str) -> Callable[[click.Context, click.Parameter, str | None], Any]:
    """A click callback for a comma-separated list (``--segmenters A,B``): the items, or
    None when the option is absent; an empty list is a usage error ("give at least one ...").
    """

    def parse(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str] | None:
        if value is None:
            return None
        items = [item.strip() for item in value.split(",") if item.strip()]
        if not items:
            raise click.BadParameter(f"give at least one {what}", ctx=ctx, param=param)
        return items

    return parse


def selection_options(word: str, segmenters: str, corpora: str) -> Callable[[F], F]:
    """``--segmenters`` and ``--corpora``, each a comma-separated ``WORD,...`` list (None:
    all), passed on as ``only_segmenters`` and ``only_corpora``; the rest is their help."""
    return stacked(
        *(
            click.option(
                f"--{kind}",
                f"only_{kind}",
                metavar=f"{word.upper()},...",
                callback=comma_list(word),
                help=help,
            )
            for kind, help in (("segmenters", segmenters), ("corpora", corpora))
        )
    )


def setting_option(*decls: str, type: Any, default: Any, help: str | None) -> Callable[[F], F]:
    """An option of one value of ``type``, its default shown when it has one."""
    return click.option(
        *decls, type=type, default=default, show_default=default is not None, help=help
    )


def count_option(*decls: str, default: int | None, help: str, minimum: int = 1) -> Callable[[F], F]:
    """An option counting something, at least ``minimum``."""
    return setting_option(*decls, type=click.IntRange(min=minimum), default=default, help=help)


def bounded(setting: str) -> click.ParamType:
    """The click type of a numeric setting's option: its range from the one table,
    :data:`cws_bench.defaults.BOUNDS`, that a bake-off's TOML is checked against.

    >>> bounded("resamples").convert("1000", None, None)
    1000
    >>> bounded("resamples").convert("0", None, None)
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: 0 is not in the range x>=1.
    """
    from cws_bench.defaults import BOUNDS

    bounds = BOUNDS[setting]
    return _BoundedInt(bounds) if bounds.whole else _BoundedFloat(bounds)


def encoding_option(function: F) -> F:
    """``--encoding``: the encoding of input text files."""
    return click.option(
        "--encoding",
        default="utf-8",
        show_default=True,
        help="Encoding of the input files: utf-8 (a BOM is fine), gb18030, big5hkscs, ...",
    )(function)


def print_warnings(warnings: Iterable[str]) -> None:
    """Print the library's warnings to stderr, one a line."""
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


def data_dir_option(help: str) -> Callable[[F], F]:
    """``--data-dir``: where corpora that need local data keep it (an existing path)."""
    return click.option("--data-dir", type=click.Path(exists=True), default=None, help=help)


DICT_HELP = (
    "Dictionary for OOV/IV figures: a file (one word a line, or jieba's 'word freq tag'), "
    "'jieba' (jieba's bundled dictionary), or 'corpus:NAME[:SPLIT]' (a corpus' standard "
    "dictionary, or the word types of one split)."
)


def dictionary_option(help: str = DICT_HELP, *, metavar: str | None = None) -> Callable[[F], F]:
    """``--dict`` (the ``dictionary`` parameter): the OOV dictionary, any word source of
    cws_bench.corpora.words."""
    return click.option("--dict", "dictionary", default=None, metavar=metavar, help=help)


def output_option(
    help: str,
    *,
    required: bool = False,
    default: str | None = None,
    allow_dash: bool = True,
    dir_okay: bool = False,
) -> Callable[[F], F]:
    """``-o/--output FILE``: where a command's output goes (``-`` is standard output).

    ``dir_okay``: the output may be a folder (a model folder ``train`` writes).
    """
    return click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=dir_okay, writable=True, allow_dash=allow_dash),
        required=required,
        default=default,
        show_default=default is not None,
        help=help,
    )


def format_option(
    choices: Sequence[str], help: str = "Output format.", *, default: str = "text"
) -> Callable[[F], F]:
    """``--format``: the output format, passed as ``fmt``."""
    return setting_option(
        "--format", "fmt", type=click.Choice(list(choices)), default=default, help=help
    )


def input_format_option(choices: Sequence[str], help: str) -> Callable[[F], F]:
    """``--input-format``: the format of an input corpus file (``auto`` sniffs it)."""
    return setting_option(
        "--input-format", type=click.Choice(list(choices)), default="auto", help=help
    )


def normalize_option(
    what: str = "gold, prediction and dictionary", when: str = "scoring"
) -> Callable[[F], F]:
    """``--normalize STEPS``: normalise every input alike (``what``) before ``when``."""
    return click.option(
        "--normalize",
        default="none",
        show_default=True,
        metavar="STEPS",
        help=f"Normalise {what} alike before {when}: 'width' "
        "(full-width ASCII to half-width), an OpenCC conversion such as 't2s' or 's2t', "
        "or steps joined by '+' (width+t2s).",
    )


def quiet_option(help: str = "No progress bar.") -> Callable[[F], F]:
    """``--quiet``: no progress bars (off a terminal there are none anyway)."""
    return click.option("--quiet", is_flag=True, help=help)


def seed_option(help: str) -> Callable[[F], F]:
    """``--seed``: the resampling seed, by default the library's one DEFAULT_SEED."""
    from cws_bench.metrics.defaults import DEFAULT_SEED

    return setting_option("--seed", type=bounded("seed"), default=DEFAULT_SEED, help=help)


def resamples_option(help: str = "Bootstrap resamples.") -> Callable[[F], F]:
    """``--resamples``: bootstrap resamples, by default the library's DEFAULT_RESAMPLES."""
    from cws_bench.metrics.defaults import DEFAULT_RESAMPLES

    return setting_option(
        "--resamples", type=bounded("resamples"), default=DEFAULT_RESAMPLES, help=help
    )


def alpha_option(default: float | None, help: str) -> Callable[[F], F]:
    """``--alpha``: the significance level, checked up front (0 < alpha < 1, ``BOUNDS``)."""
    return setting_option("--alpha", type=bounded("alpha"), default=default, help=help)


def correction_option(default: str | None, help: str) -> Callable[[F], F]:
    """``--correction``: the multiple-comparison correction of the paired tests (holm,
    bonferroni, fdr_bh, maxt or none: :data:`~cws_bench.metrics.defaults.CORRECTIONS`)."""
    from cws_bench.metrics.defaults import CORRECTIONS

    return setting_option(
        "--correction", type=click.Choice(CORRECTIONS), default=default, help=help
    )


def test_option(default: str | None, help: str) -> Callable[[F], F]:
    """``--test``: the paired test, bootstrap or permutation (approximate randomization)."""
    from cws_bench.metrics.defaults import TESTS

    return setting_option("--test", type=click.Choice(TESTS), default=default, help=help)


def batch_size_option(function: F) -> F:
    """``--batch-size``: lines per ``segment()`` call, by default DEFAULT_BATCH_SIZE."""
    from cws_bench.defaults import DEFAULT_BATCH_SIZE

    return setting_option(
        "--batch-size",
        type=bounded("batch_size"),
        default=DEFAULT_BATCH_SIZE,
        help="Lines handed to the segmenter at a time.",
    )(function)


def gold_format_option(gold: str) -> Callable[[F], F]:
    """``--gold-format``: the format of the gold file (``gold`` names it in the help)."""
    from cws_bench.scoring import GOLD_FORMATS

    return setting_option(
        "--gold-format",
        type=click.Choice(GOLD_FORMATS),
        default="auto",
        help=f"Format of {gold}: auto (detected), plain (one sentence a line), conllu, "
        "peoples-daily (word/POS) or bmes (char/TAG).",
    )


def dict_encoding_option(fallback: str, name: str = "dict_encoding") -> Callable[[F], F]:
    """``--dict-encoding``: the encoding of a ``--dict`` file, else ``fallback``'s (passed
    on as ``name``)."""
    return click.option(
        "--dict-encoding",
        name,
        default=None,
        help=f"Encoding of a --dict file if not {fallback}.",
    )


def strict_option(help: str) -> Callable[[F], F]:
    """``--strict``: refuse lines whose characters differ instead of aligning them."""
    return click.option("--strict", is_flag=True, help=help)


def beta_option(help: str) -> Callable[[F], F]:
    """``--beta``: the F-beta weight (1 is F1)."""
    return setting_option("--beta", type=click.FloatRange(min=0.0), default=1.0, help=help)


def parse_option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` -> (key, value); the value is read as JSON when it is JSON and reads
    back as written (``1.10`` stays text: a version is no number), else kept as text; the
    adapter's declaration converts text to the option's type.

    >>> parse_option("keep_runs=false"), parse_option("timeout=30"), parse_option("command=seg -x")
    (('keep_runs', False), ('timeout', 30), ('command', 'seg -x'))
    >>> parse_option("version=1.10"), parse_option("version=1.0")
    (('version', '1.10'), ('version', 1.0))
    """
    key, equals, value = text.partition("=")
    key = key.strip().replace("-", "_")
    if not equals or not key:
        raise click.BadParameter(f"{text!r}: expected KEY=VALUE", param_hint="-O/--option")
    try:
        decoded = json.loads(value)
    except json.JSONDecodeError:
        return key, value
    if isinstance(decoded, float) and json.dumps(decoded) != value.strip():
        return key, value
    return key, decoded


def segmenter_option(help: str = "The segmenter (see `cws-bench segmenters`).") -> Callable[[F], F]:
    """``-s/--segmenter NAME`` (required, completed from the registry), passed on as ``name``."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
        from cws_bench.segmenters import segmenter_names

        return [n for n in segmenter_names() if n.startswith(incomplete)]

    return click.option(
        "-s",
        "--segmenter",
        "name",
        required=True,
        metavar="NAME",
        shell_complete=complete,
        help=help,
    )


def segmenter_names_option(help: str) -> Callable[[F], F]:
    """``-s/--segmenters A,B,...``: several segmenters by name, passed on as ``names``."""
    return click.option("-s", "--segmenters", "names", metavar="A,B,...", default=None, help=help)


segmenter_options_option = click.option(
    "-O",
    "--option",
    "raw_options",
    multiple=True,
    metavar="SEGMENTER.KEY=VALUE",
    help="An option of one segmenter (repeatable): -O fmm.lexicon=words.txt.",
)
"""``-O SEGMENTER.KEY=VALUE`` (repeatable): an option of one of several segmenters
(``audit``, ``metrics sensitivity``)."""


def raw_options_option(help: str) -> Callable[[F], F]:
    """``-O KEY=VALUE`` (repeatable): any option of the segmenter, as ``option``."""
    return click.option("-O", "--option", multiple=True, metavar="KEY=VALUE", help=help)


OPTION_HELP = (
    "Any option of the segmenter (repeatable); VALUE is read as JSON when it is "
    "JSON: -O keep_runs=false -O command='my-seg --stdin'."
)

LEXICON_HELP = (
    "Word list of the maximum-matching family (fmm, bmm, bimm): a file (one word a "
    "line, or jieba's 'word freq tag'), 'jieba', or 'corpus:NAME[:SPLIT]'. For jieba: a "
    "main word list replacing its own dictionary. (The segmenter's option `lexicon`, "
    "-O lexicon=... or lexicon = ... in a TOML row; not the OOV dictionary, which is --dict "
    "where a command scores and a corpus' `dictionary` in a TOML.)"
)

# The segmenter's options that have flags of their own (the flag's parameter is the option).
_SEGMENTER_FLAGS = ("lexicon", "user_dict", "model", "corpus", "split")


def segmenter_options(*, training: bool = True) -> Callable[[F], F]:
    """The segmenter's options, passed on as one dict ``options`` (segmenter option -> value).

    ``-O KEY=VALUE`` (repeatable), ``--lexicon``, ``--user-dict``, ``--model``
    and, with ``training``, ``--corpus``/``--split`` (a corpus to learn from
    first). The flags win over ``-O`` of the same option. (``segment --dict``,
    the old spelling of ``--lexicon``, is a :func:`renamed_option` above this
    group: ``--dict`` is the OOV dictionary wherever a command scores.)
    """
    decorators: list[Callable[[Any], Any]] = [
        raw_options_option(OPTION_HELP),
        click.option("--lexicon", metavar="WORDS", default=None, help=LEXICON_HELP),
        click.option(
            "--user-dict",
            type=click.Path(exists=True, dir_okay=False),
            help="User dictionary of jieba, rjieba, pkuseg or thulac (its content is part "
            "of a baseline's signature).",
        ),
        click.option(
            "--model",
            type=click.Path(exists=True),
            help="A trained model: for hmm or crf, a file written by `cws-bench train hmm|crf`.",
        ),
    ]
    if training:
        decorators += [
            click.option(
                "--corpus",
                help="Learn from this corpus first: a registered corpus name or a segmented "
                "file (hmm and crf train on it; fmm/bmm/bimm use its words).",
            ),
            split_option("The split of a registered --corpus (default: train)."),
        ]

    # For hints: which flag sets each segmenter option here (cli_terms).
    flags = {
        f"segmenter.{key}": "--" + key.replace("_", "-")
        for key in _SEGMENTER_FLAGS
        if training or key not in ("corpus", "split")
    }

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapped(**kwargs: Any) -> Any:
            rename_flags(flags)
            options = dict(parse_option(item) for item in kwargs.pop("option"))
            for key in _SEGMENTER_FLAGS:
                value = kwargs.pop(key, None)
                if value is not None:
                    options[key] = value
            return function(options=options, **kwargs)

        return stacked(*decorators)(wrapped)  # type: ignore[return-value]

    return decorate


def split_option(help: str) -> Callable[[F], F]:
    """``--split``: a split of a registered corpus."""
    return click.option("--split", default=None, help=help)


def renamed_option(old: str, parameter: str, new: str, **kwargs: Any) -> Callable[[F], F]:
    """``old``, a hidden deprecated spelling of the option whose parameter is ``parameter``.

    The old spelling still works: its value goes to ``parameter`` and a one-line
    note on stderr names the new spelling ``new``. Both at once is a usage error.
    """
    dest = "deprecated_" + old.lstrip("-").replace("-", "_")

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapped(**values: Any) -> Any:
            value = values.pop(dest)
            if value is not None:
                ctx = click.get_current_context()
                if ctx.get_parameter_source(parameter) == click.core.ParameterSource.COMMANDLINE:
                    raise click.UsageError(f"pass {new} or its old spelling {old}, not both")
                click.echo(f"note: {old} is deprecated here; use {new}", err=True)
                values[parameter] = value
            return function(**values)

        option = click.option(old, dest, default=None, hidden=True, **kwargs)
        return option(wrapped)  # type: ignore[return-value]

    return decorate


def write_output(text: str, output: str | None, *, what: str | None = None) -> None:
    """``text`` to standard output, or to the file ``output`` through a temporary file.

    One newline ends the text. ``what`` names the output in a "written to
    FILE" line on stderr.
    """
    text = text.rstrip("\n")
    if output is None or output == "-":
        click.echo(text)
        return
    from cws_bench.text.io import atomic_write

    with atomic_write(output) as f:
        f.write(text + "\n")
    if what is not None:
        click.echo(f"{what} written to {output}", err=True)


def write_streamed(
    write: Callable[[IO[str]], None], output: str | None, *, what: str | None = None
) -> None:
    """As :func:`write_output`, the text written piece by piece by ``write`` (to standard
    output, or to a temporary file moved into place), one newline after it."""
    from cws_bench.text.io import atomic_write

    with atomic_write(output or "-") as f:
        write(f)
        f.write("\n")
    if what is not None and output not in (None, "-"):
        click.echo(f"{what} written to {output}", err=True)


# ---------------------------------------------------------------------------
# Library hints in the command line's terms
#
# The library's hints name API parameters (cws_bench.errors.Fix); the command
# that runs shows them with its own flags. The command and the flags some
# decorators rename (the segmenter group) are kept in the context's ``meta``,
# which every nested context shares.

COMMAND_META = "cws_bench.command"
FLAGS_META = "cws_bench.flags"


class SuggestingGroup(click.Group):
    """A group that answers an unknown command with the closest ones ("did you mean")."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if (
            name
            and not name.startswith("-")
            and not ctx.resilient_parsing
            and self.get_command(ctx, name) is None
        ):
            from cws_bench.suggest import did_you_mean

            commands = self.list_commands(ctx)
            hint = did_you_mean(name, commands) or f"the commands: {', '.join(commands)}"
            ctx.fail(f"No such command {name!r}; {hint}")
        return super().resolve_command(ctx, args)


class RecordingGroup(SuggestingGroup):
    """A group that remembers the command it runs, so an error can use its flags."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        record_command(ctx, command)
        return command


def record_command(ctx: click.Context, command: click.Command | None) -> None:
    """Remember ``command`` as the one that runs (the last one a group resolves), after the
    groups resolved on the way to it."""
    if command is not None:  # keyed by the depth of the group that resolved it
        depth = 0
        while ctx.parent is not None:
            ctx, depth = ctx.parent, depth + 1
        chain = ctx.meta.get(COMMAND_META, {})
        ctx.meta[COMMAND_META] = {**{d: c for d, c in chain.items() if d < depth}, depth: command}


def rename_flags(flags: dict[str, str]) -> None:
    """Say which flag names a library parameter in the running command (``parameter``, or
    ``segmenter.OPTION`` for a segmenter's option) when it is not the flag of that name."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta.setdefault(FLAGS_META, {}).update(flags)


def cli_terms(ctx: click.Context) -> Callable[[Any], str]:
    """How the running command names a :class:`~cws_bench.errors.Fix`: with its flags.

    A parameter the command has no flag for keeps its API name, except a
    segmenter's option on a command with ``-O``, shown as ``-O KEY=VALUE``. A flag of a
    group the command is under counts too (``cws-bench corpora --data-dir DIR list``),
    the command's own first.
    """
    chain = [command for _, command in sorted(ctx.meta.get(COMMAND_META, {}).items())]
    renamed: dict[str, str] = ctx.meta.get(FLAGS_META, {})
    options = [
        p
        for command in chain
        for p in getattr(command, "params", [])
        if isinstance(p, click.Option)
    ]
    by_name = {option.name: option for option in reversed(options)}
    by_flag = {flag: option for option in reversed(options) for flag in option.opts}

    def name(fix: Any) -> str:
        key = f"segmenter.{fix.parameter}" if fix.segmenter else fix.parameter
        if key in renamed:
            option = by_flag.get(renamed[key])
        else:  # a segmenter's option has a flag only where a decorator said so
            option = None if fix.segmenter else by_name.get(key)
        if option is not None and option.hidden:
            option = None
        if option is None:
            if fix.segmenter and "option" in by_name:
                value = fix.value if fix.value is not None else fix.metavar or "..."
                return f"-O {fix.parameter}={value}"
            return str(fix.api())
        flag = next((f for f in option.opts if f.startswith("--")), option.opts[0])
        if option.is_flag:
            return str(flag)
        if fix.value is not None:
            return f"{flag} {fix.value}"
        return f"{flag} {fix.metavar}" if fix.metavar else str(flag)

    return name


def units_options(function: F) -> F:
    """``--scale percent|fraction`` and ``--digits N``: how printed scores look, passed on as
    ``scale`` and ``digits`` (None: the library's default, cws_bench.display.units)."""
    return stacked(
        click.option(
            "--scale",
            type=click.Choice(["percent", "fraction"]),
            default=None,
            help="Print scores as percentages (93.43) or fractions (0.934) [default: percent; "
            "fraction in the bake-off's leaderboards]. JSON and CSV hold fractions.",
        ),
        click.option(
            "--digits",
            type=click.IntRange(0, 15),
            default=None,
            help="Decimals of printed scores [default: 2 of a percentage, 3 of a fraction].",
        ),
    )(function)

"""``--executor``, ``--scheduler``, ``--shard-chars``, ``--jobs``: running one big file in shards.

The options only parse; :mod:`cws_bench.run.executors` and :mod:`cws_bench.run.sharded`
do the work.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import click

from cws_bench.cli.options import bounded, setting_option, stacked
from cws_bench.defaults import DEFAULT_RETRIES, DEFAULT_SHARD_CHARS, EXECUTORS

if TYPE_CHECKING:  # the CLI imports the executors only when a command runs in shards
    from cws_bench.run.executors import Executor, ExecutorSettings

F = TypeVar("F", bound=Callable[..., Any])


def executor_options(
    function: F | None = None,
    *,
    shard_chars: int | None = DEFAULT_SHARD_CHARS,
    always: bool = False,
) -> Any:
    """The options of a sharded run, passed on as one
    :class:`~cws_bench.run.executors.ExecutorSettings` ``sharding`` (None: not sharded).

    Args:
        shard_chars: the default of ``--shard-chars`` (None: the command decides,
            e.g. the bake-off's configuration).
        always: pass the settings even without ``--executor``/``--scheduler`` (the
            bake-off always runs in shards).
    """
    if function is None:
        return lambda f: executor_options(f, shard_chars=shard_chars, always=always)
    fixed = shard_chars is not None  # else the bake-off's configuration decides
    options = stacked(
        click.option(
            "--executor",
            type=click.Choice(EXECUTORS),
            default=None,
            help="Cut the input into shards of whole lines and run them on worker "
            "processes (local) or a Dask cluster (dask); same output, same numbers.",
        ),
        click.option(
            "--scheduler",
            metavar="tcp://HOST:PORT",
            default=None,
            help="Address of a running Dask scheduler (implies --executor dask); without "
            "it, dask starts a local cluster on 127.0.0.1.",
        ),
        setting_option(
            "--shard-chars",
            type=bounded("shard_chars"),
            default=shard_chars,
            help="Characters per shard (with --executor)."
            if fixed
            else "Characters per shard, in whole batches [default: a bake-off config's "
            "[settings], else 20000].",
        ),
        click.option(
            "-j",
            "--jobs",
            type=bounded("jobs"),
            default=None,
            help="Worker processes of --executor local, or of the local Dask cluster "
            "(default: the CPU count).",
        ),
        click.option(
            "--shard-timeout",
            type=bounded("timeout"),
            default=None,
            metavar="SECONDS",
            help="Kill a worker whose shard runs longer, and run the shard again.",
        ),
        setting_option(
            "--retries",
            type=bounded("retries"),
            default=DEFAULT_RETRIES if fixed else None,
            help="Runs again of a shard whose worker died or hung, before the run fails"
            + ("." if fixed else f" [default: the config's, {DEFAULT_RETRIES}]."),
        ),
    )

    @functools.wraps(function)
    def wrapped(**kwargs: Any) -> Any:
        values = {key: kwargs.pop(key) for key in SETTINGS}
        sharding = None
        if always or values["executor"] is not None or values["scheduler"] is not None:
            from cws_bench.run.executors import ExecutorSettings  # only for a run in shards

            sharding = ExecutorSettings(timeout=values.pop("shard_timeout"), **values)
        return function(sharding=sharding, **kwargs)

    return options(wrapped)


SETTINGS = ("executor", "scheduler", "shard_chars", "jobs", "shard_timeout", "retries")
"""The options' parameters: :func:`~cws_bench.run.bakeoff.run_bakeoff`'s keyword arguments."""


def run_arguments(sharding: ExecutorSettings) -> dict[str, Any]:
    """The settings as :func:`~cws_bench.run.bakeoff.run_bakeoff`'s keyword arguments."""
    return {key: getattr(sharding, {"shard_timeout": "timeout"}.get(key, key)) for key in SETTINGS}


@contextlib.contextmanager
def open_executor(sharding: ExecutorSettings | None) -> Iterator[Executor | None]:
    """The executor the options ask for (None without one), closed on the way out (Ctrl-C
    too)."""
    if sharding is None:
        yield None
        return
    from cws_bench.run.executors import make_executor

    with make_executor(sharding) as executor:
        yield executor


@contextlib.contextmanager
def character_bar(desc: str, *, off: bool = False) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar in characters/s fed with (characters done, characters in all); None
    when ``off``. Quiet when stderr is not a terminal.
    """
    if off:
        yield None
        return
    from tqdm import tqdm

    with tqdm(
        unit=" chars", unit_scale=True, desc=desc, disable=None, delay=1.0, leave=False
    ) as bar:

        def update(characters: int, total: int) -> None:
            if bar.total != total:
                bar.total = total
            bar.update(characters)

        yield update

"""Options and helpers that several commands share, written once."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


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


def dictionary_option(help: str, *, metavar: str | None = None) -> Callable[[F], F]:
    """``--dict`` (the ``dictionary`` parameter): any word source of cws_bench.words."""
    return click.option("--dict", "dictionary", default=None, metavar=metavar, help=help)

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

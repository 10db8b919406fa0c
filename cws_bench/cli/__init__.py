"""The ``cws-bench`` command line: parses arguments, calls the library, prints.

Commands live in one module per family (``cws_bench/cli/<family>.py``) and
are imported lazily from the table below, so ``cws-bench score`` does not
pay for importing pandas or the segmenters. All logic lives in the library;
the Python API and the CLI give the same numbers because they run the same
functions.

Every error the user can cause is a :class:`~cws_bench.errors.CwsBenchError`;
it is caught here, in one place, and printed as one message on stderr with
exit code 2.
"""

from __future__ import annotations

import importlib
import signal
import sys
from typing import Any

import click

from cws_bench import __version__
from cws_bench.cli.options import SuggestingGroup, cli_terms, record_command
from cws_bench.errors import CwsBenchError, describe_os_error
from cws_bench.system.workers import (
    Interrupted,
    become_subreaper,
    block_stop_signals,
    finish_stop,
    install_stop_handler,
    kill_orphans,
    stop_quietly,
    stop_requested,
    stop_told,
)

__all__ = ["COMMANDS", "main"]

# name -> "module:attribute" of a click command; the single list of commands.
COMMANDS: dict[str, str] = {
    "audit": "cws_bench.cli.audit:audit",
    "bakeoff": "cws_bench.cli.bakeoff:bakeoff",
    "board": "cws_bench.cli.board:board",
    "baseline": "cws_bench.cli.regression:baseline",
    "check": "cws_bench.cli.regression:check",
    "corpora": "cws_bench.cli.corpora:corpora",
    "diff": "cws_bench.cli.regression:diff",
    "metrics": "cws_bench.cli.metrics:metrics",
    "report": "cws_bench.cli.report:report",
    "score": "cws_bench.cli.score:score",
    "segment": "cws_bench.cli.segment:segment",
    "segmenters": "cws_bench.cli.segment:segmenters",
    "train": "cws_bench.cli.segment:train",
}


class UserError(click.ClickException):
    """A CwsBenchError shown to the user: one message, exit code 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class Stopped(click.ClickException):
    """A run stopped by a signal: one line saying how to resume, exit code 128 + the signal."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        # click declares exit_code on the class; this instance carries its signal's code.
        object.__setattr__(self, "exit_code", exit_code)

    def show(self, file: Any = None) -> None:
        click.echo(self.format_message(), err=True)


class LazyGroup(SuggestingGroup):
    """A group that imports each command only when it is run or listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, attribute = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        record_command(ctx, command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CwsBenchError as e:
            if isinstance(e, Interrupted):
                raise Stopped(str(e), e.exit_code) from e
            signum = stop_requested()
            if signum is not None:  # the stop, wrapped on its way up (a segmenter's error)
                raise Stopped(_stopped_by(signum), 128 + signum) from e
            # The library's hint names API parameters; the user sees the command's flags.
            raise UserError(e.describe(cli_terms(ctx))) from e
        except KeyboardInterrupt:  # Ctrl-C outside the stop handler: no traceback
            signum = stop_requested() or signal.SIGINT
            raise Stopped(_stopped_by(signum), 128 + signum) from None
        except BrokenPipeError:
            raise
        except Exception as e:
            signum = stop_requested()
            if signum is not None:
                # The stop, swallowed on its way up by a library that raised its own error
                # instead (matplotlib's C++ drawing code turns it into "ValueError: Invalid
                # affine transformation matrix"): still one line and 128 + the signal.
                raise Stopped(_stopped_by(signum), 128 + signum) from e
            if isinstance(e, OSError):
                # A file or folder that cannot be read or written (a gold file under /proc,
                # an output folder below a file or without permission): one message, exit 2.
                raise UserError(describe_os_error(e)) from e
            raise


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cws-bench")
def cli() -> None:
    """cws-bench: score Chinese word segmenters exactly, on real corpora.

    \b
    Example:
        cws-bench score gold.txt pred.txt --dict words.txt
    """


def _remove_temporaries() -> None:
    from cws_bench.system.temporaries import remove_temporaries

    remove_temporaries()


def _stopped_by(signum: int) -> str:
    return f"interrupted by {signal.Signals(signum).name}"


def main() -> None:
    """Entry point of the ``cws-bench`` console script.

    SIGINT and SIGTERM are handled first of all, for every command: the run
    stops at a safe point, removes its temporary files, ends what it started,
    says one line and exits with 128 + the signal (130, 143); see
    :func:`cws_bench.system.workers.install_stop_handler`.
    """
    install_stop_handler(on_exit=_remove_temporaries)
    become_subreaper()  # a program's orphan comes back here, to be ended with the run
    code: int | str | None = 0
    try:
        cli(prog_name="cws-bench")
    except BrokenPipeError:  # e.g. `cws-bench ... | head`
        sys.stderr.close()
        code = 0
    except SystemExit as e:
        code = e.code
    except (Interrupted, KeyboardInterrupt):  # before a command took over (while parsing)
        code = 0  # said below
    stop_quietly()  # the command is over: a signal from now on is recorded, not raised
    kill_orphans()
    signum = stop_requested()
    if signum is not None:
        # Stopped by a signal: no interpreter teardown (it can hang on a thread or
        # abort in a library); the temporaries go and what the run started ends.
        if code in (0, None) or not isinstance(code, int) or code < 128:
            message, code = _stopped_by(signum), 128 + signum
        else:
            message = None
            stop_told()  # Stopped said it
        finish_stop(message, int(code))
    block_stop_signals()
    sys.exit(code)

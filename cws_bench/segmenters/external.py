"""Segmenters from outside Python: any command, or a file segmented elsewhere.

``command`` runs a program that reads raw lines on standard input and
writes one line of space-separated words per input line on standard output
(UTF-8 by default), once per batch, with a timeout. Any tokenizer in any
language can be benchmarked this way::

    cws-bench segment -s command -O command="java -jar seg.jar --stdin" input.txt

Each line is sent with its whitespace runs turned into one space, so a tab
or a U+2028 inside a line can never split it in two on the other side. A
program that crashes (non-zero exit), hangs (no answer within the timeout;
it is killed), writes invalid text or a different number of lines raises a
:class:`~cws_bench.errors.SegmenterError` naming the command, the batch's
lines and the tail of its standard error.

The program runs in a session (process group) of its own: when it exits,
times out or fails, or when the bake-off stops its worker, the whole group
is killed, so a ``sh -c '...'`` wrapper's children do not outlive it. Its
output is streamed, not kept whole: past :func:`output_limit` bytes (a
multiple of the input's) it is stopped with an error, so a program that
writes without end cannot fill the memory.

``file`` serves outputs produced elsewhere: a segmented file whose lines are
the segmentations of the input lines. Each input line is looked up by its
characters (whitespace removed) among the file's lines, in file order, so a
file for a different input is caught at its first line.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cws_bench.corpora import corpus_names
from cws_bench.corpora.download import file_sha256
from cws_bench.display.units import plural
from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import (
    Kind,
    Segmenter,
    SegmenterOutputError,
    TrainingData,
    option,
)
from cws_bench.system.workers import (
    command_ended,
    command_preexec,
    command_started,
    kill_orphans,
    kill_tree,
)
from cws_bench.text.checksums import SentenceDigest
from cws_bench.text.io import iter_lines, normalize_encoding

__all__ = ["CommandSegmenter", "FileSegmenter"]

DEFAULT_TIMEOUT = 600.0
STDERR_TAIL = 800
STDERR_KEEP = 16 * STDERR_TAIL  # bytes of standard error kept while a program runs
OUTPUT_FACTOR = 4  # output bytes allowed per input byte (see output_limit)
OUTPUT_SLACK = 1 << 16
PIPE_CHUNK = 1 << 16
POLL_S = 0.05  # how often a running program's exit is looked at
EXIT_GRACE = 0.25  # seconds a program's leftovers may hold its output open after it exits


def _tail(stderr: bytes | None, encoding: str) -> str:
    text = (stderr or b"").decode(encoding, errors="replace").strip()
    if not text:
        return "(nothing on stderr)"
    if len(text) > STDERR_TAIL:
        text = "…" + text[-STDERR_TAIL:]
    return "stderr: " + text.replace("\n", "\n    ")


class ProcessTimeout(Exception):
    """The program did not finish in time (it and its process group were killed)."""

    def __init__(self, stderr: bytes) -> None:
        super().__init__("timeout")
        self.stderr = stderr


class OutputTooLong(Exception):
    """The program wrote more than its input can explain (it and its group were killed)."""

    def __init__(self, limit: int, stderr: bytes) -> None:
        super().__init__(f"more than {limit} bytes")
        self.limit = limit
        self.stderr = stderr


def output_limit(input_bytes: int) -> int:
    """The most bytes a segmentation of ``input_bytes`` bytes may take.

    A segmentation is its input with spaces between the words: about twice
    the input at most. The bound leaves room for a change of encoding width
    (an ASCII digit written as a full-width one is 1 byte in, 3 out) and a
    little slack, and stops a program that writes without end long before
    it fills the memory.
    """
    return OUTPUT_FACTOR * input_bytes + OUTPUT_SLACK


def kill_group(pgid: int) -> None:
    """SIGKILL every process of a process group (nothing when it is empty)."""
    if os.name != "posix":  # pragma: no cover
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def run_process(
    argv: list[str],
    data: bytes,
    *,
    timeout: float,
    cwd: str | os.PathLike[str] | None = None,
    limit: int | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run a program on ``data`` in its own process group, streaming its output.

    The group (its children and grandchildren: ``sh -c '...'`` wrappers, a helper left
    running in the background) is killed as the module says, and also when this function
    is left by an exception (the bake-off stopping its worker). Standard output is read
    up to ``limit`` bytes (default :func:`output_limit` of the input).

    Raises:
        FileNotFoundError, PermissionError: the program cannot be started.
        ProcessTimeout: it did not finish within ``timeout`` seconds.
        OutputTooLong: it wrote more than ``limit`` bytes.
    """
    limit = output_limit(len(data)) if limit is None else limit
    deadline = time.monotonic() + timeout
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=os.name == "posix",
        preexec_fn=command_preexec(),  # it dies with this thread, even a killed one
    )
    command_started(proc.pid)
    pipes = _Pipes(proc, data, limit)
    try:
        pipes.pump(deadline)
        try:
            returncode = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise ProcessTimeout(bytes(pipes.stderr)) from None
    finally:
        _end(proc)
    return subprocess.CompletedProcess(argv, returncode, bytes(pipes.stdout), bytes(pipes.stderr))


class _Pipes:
    """A running program's pipes: its input written as it takes it, its output read as it
    comes (standard output up to ``limit`` bytes, the tail of standard error)."""

    def __init__(self, proc: subprocess.Popen[bytes], data: bytes, limit: int) -> None:
        self.proc = proc
        self.view = memoryview(data)
        self.written = 0
        self.limit = limit
        self.stdout = bytearray()
        self.stderr = bytearray()

    def pump(self, deadline: float) -> None:
        """Write and read until both outputs end; kill what holds them open after the
        program exited (:data:`EXIT_GRACE`)."""
        proc = self.proc
        assert proc.stdin is not None
        assert proc.stdout is not None
        assert proc.stderr is not None
        with selectors.DefaultSelector() as selector:
            if self.view:
                os.set_blocking(proc.stdin.fileno(), False)
                selector.register(proc.stdin, selectors.EVENT_WRITE)
            else:
                proc.stdin.close()
            selector.register(proc.stdout, selectors.EVENT_READ)
            selector.register(proc.stderr, selectors.EVENT_READ)
            outputs = 2  # stdout and stderr, until each reaches its end
            exited_at: float | None = None
            while outputs:
                now = time.monotonic()
                if now > deadline:
                    raise ProcessTimeout(bytes(self.stderr))
                if exited_at is None and proc.poll() is not None:
                    exited_at = now
                elif exited_at is not None and now - exited_at > EXIT_GRACE:
                    # The program is gone but something it started holds its
                    # output open: that something goes with the group, and so does
                    # a helper that left the group and came back to this process
                    # (a subreaper) as an orphan.
                    kill_group(proc.pid)
                    kill_orphans()
                for key, _ in selector.select(min(POLL_S, deadline - now)):
                    if key.fileobj is proc.stdin:
                        self._write(selector)
                    elif not self._read(key.fileobj):
                        selector.unregister(key.fileobj)
                        outputs -= 1

    def _write(self, selector: selectors.BaseSelector) -> None:
        """The next piece of the input, if the program takes it; stdin closed at its end."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            self.written += os.write(
                stdin.fileno(), self.view[self.written : self.written + PIPE_CHUNK]
            )
        except BlockingIOError:
            return
        except BrokenPipeError:
            self.written = len(self.view)  # it stopped reading: its exit code tells
        if self.written >= len(self.view):
            selector.unregister(stdin)
            stdin.close()

    def _read(self, pipe: Any) -> bool:
        """Read what ``pipe`` holds; False at its end."""
        chunk = os.read(pipe.fileno(), PIPE_CHUNK)
        if not chunk:
            return False
        if pipe is self.proc.stdout:
            self.stdout += chunk
            if len(self.stdout) > self.limit:
                raise OutputTooLong(self.limit, bytes(self.stderr))
        else:
            self.stderr += chunk
            del self.stderr[: max(0, len(self.stderr) - STDERR_KEEP)]
        return True


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill a program's group, what left the group (``setsid helper &``) and what it
    orphaned; close its pipes and reap it."""
    kill_tree(proc.pid)
    kill_group(proc.pid)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None and not stream.closed:
            stream.close()
    proc.kill()
    proc.wait()
    command_ended(proc.pid)
    kill_orphans()


def _training(trained_on: str | None) -> TrainingData | None:
    """What an external segmenter says it was trained on: a registered corpus, or words."""
    if not trained_on:
        return None
    return TrainingData(trained_on, corpus=trained_on if trained_on in corpus_names() else None)


_KIND_HELP = "what it is (default external: cws-bench cannot tell)"
_TRAINED_HELP = "what it was trained on (a corpus name or words), for warnings"


class CommandSegmenter(Segmenter):
    """Any program that segments standard input, one line in, one line of words out.

    ``command`` is a list of arguments, or one string split like a shell would (no
    shell runs: write ``sh -c '...'`` for pipes).
    """

    name = "command"
    kind: Kind = "external"  # type: ignore[misc]
    description = "any program: raw lines on stdin, space-separated words on stdout"

    @dataclass(frozen=True)
    class Options:
        command: str | Sequence[str] | None = option(None, "the program and its arguments")
        timeout: float = option(DEFAULT_TIMEOUT, "seconds one batch may take", bounds="timeout")
        batch_size: int | None = option(
            None, "lines per run of the program (default: a whole batch)", bounds="batch_size"
        )
        encoding: str = option("utf-8", "of its input and output", identity="changed")
        cwd: str | None = option(None, "the folder to run it in", folder="cwd")
        kind: Kind = option("external", _KIND_HELP, identity="changed")
        version: str | None = option(None, "a version to report (default unknown)")
        trained_on: str | None = option(None, _TRAINED_HELP)

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        command = self.opts.command
        if not command:
            raise SegmenterError(
                self.name,
                "needs the command to run",
                "pass -O command='PROGRAM ARGS' (it reads lines on stdin, writes words on stdout)",
            )
        try:
            self.argv = (
                shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
            )
        except ValueError as e:  # an unbalanced quote
            raise SegmenterError(
                self.name,
                f"command {command!r} cannot be split into arguments: {e}",
                "close the quote, or give the command as a list of arguments",
            ) from e
        self.display = command if isinstance(command, str) else shlex.join(self.argv)
        self.timeout, self.batch_size = float(self.opts.timeout), self.opts.batch_size
        self.encoding = normalize_encoding(self.opts.encoding)
        self.cwd = self.opts.cwd
        self.kind = self.opts.kind  # type: ignore[misc]
        self._version = self.opts.version or "unknown"
        self.trained_on = _training(self.opts.trained_on)

    @property
    def version(self) -> str:
        return self._version

    def _segment(self, lines: list[str]) -> list[list[str]]:
        size = self.batch_size or len(lines)
        out: list[list[str]] = []
        for first in range(0, len(lines), size):
            out.extend(self._run(lines[first : first + size], first))
        return out

    def _fail(self, message: str, first: int, count: int, stderr: bytes | None) -> SegmenterError:
        where = f"lines {first + 1}-{first + count} of the batch"
        error = SegmenterError(
            self.name,
            f"command {self.display!r} {message} on {where}\n    {_tail(stderr, self.encoding)}",
            "run the command by hand on those lines to see what goes wrong",
        )
        # which lines of the segment() call: a caller that knows where the batch came
        # from (a corpus, a file) names them its own way (see segmenters.stream)
        error.batch_lines = (first, count, where)  # type: ignore[attr-defined]
        return error

    def _run(self, lines: list[str], first: int) -> list[list[str]]:
        def fail(message: str, stderr: bytes | None) -> SegmenterError:
            return self._fail(message, first, len(lines), stderr)

        payload = "".join(" ".join(line.split()) + "\n" for line in lines)
        try:
            data = payload.encode(self.encoding)
        except UnicodeEncodeError as e:
            raise SegmenterError(
                self.name, f"a line cannot be written as {self.encoding}: {e.reason}"
            ) from e
        try:
            proc = run_process(self.argv, data, timeout=self.timeout, cwd=self.cwd)
        except FileNotFoundError as e:
            raise SegmenterError(
                self.name,
                f"command {self.display!r}: program {self.argv[0]!r} not found",
                "check the program name and that it is on PATH",
            ) from e
        except PermissionError as e:
            raise SegmenterError(
                self.name, f"command {self.display!r}: {self.argv[0]!r} is not executable"
            ) from e
        except ProcessTimeout as e:
            raise fail(f"did not finish within {self.timeout:g} s (killed)", e.stderr) from None
        except OutputTooLong as e:
            raise fail(
                f"wrote more than {e.limit:,} bytes for {len(data):,} bytes of input (a "
                "segmentation is about as long as its input; stopped and killed)",
                e.stderr,
            ) from None
        if proc.returncode != 0:
            raise fail(f"exited with code {proc.returncode}", proc.stderr)
        try:
            text = proc.stdout.decode(self.encoding)
        except UnicodeDecodeError as e:
            message = f"wrote bytes that are not {self.encoding} (byte offset {e.start})"
            raise fail(message, proc.stderr) from None
        if text.startswith("\ufeff"):
            text = text[1:]
        outputs = text.replace("\r\n", "\n").split("\n")
        if outputs and outputs[-1] == "":
            outputs.pop()
        if len(outputs) != len(lines):
            message = f"wrote {plural(len(outputs), 'line')} for {plural(len(lines), 'input line')}"
            raise fail(message, proc.stderr)
        return [output.split() for output in outputs]


class FileSegmenter(Segmenter):
    """Segmentations produced elsewhere, served from a segmented file.

    ``path`` holds one sentence a line, words separated by whitespace.
    """

    name = "file"
    kind: Kind = "external"  # type: ignore[misc]
    description = "segmentations produced elsewhere, read from a file"
    has_speed = False  # reading a file is not segmenting: no speed to report

    @dataclass(frozen=True)
    class Options:
        path: str | None = option(None, "the segmented file")
        encoding: str = option("utf-8", "its encoding", identity="changed")
        kind: Kind = option("external", _KIND_HELP, identity="changed")
        trained_on: str | None = option(None, _TRAINED_HELP)

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if self.opts.path is None:
            raise SegmenterError(self.name, "needs the segmented file", "pass -O path=FILE")
        self.path = path = self.opts.path
        encoding = self.opts.encoding
        self.kind = self.opts.kind  # type: ignore[misc]
        digest = SentenceDigest()
        self._lines: defaultdict[str, deque[tuple[int, list[str]]]] = defaultdict(deque)
        for number, line in enumerate(iter_lines(path, encoding=encoding), 1):
            words = line.split()
            digest.add(words)
            if words:
                self._lines["".join(words)].append((number, words))
        self._version = f"file:{digest.hexdigest()}"
        self.sha256 = file_sha256(path)
        self.trained_on = _training(self.opts.trained_on)

    def metadata(self) -> dict[str, Any]:
        """The adapter's metadata and the SHA-256 of the file's bytes (what was scored)."""
        return {**super().metadata(), "sha256": self.sha256}

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """A segmented file that is not there (checked before a bake-off starts)."""
        path = options.get("path")
        if path is None or os.path.isfile(os.fspath(path)):
            return None
        shown = os.path.relpath(path)  # relative to the working folder when inside it
        shown = os.fspath(path) if shown.startswith(os.pardir) else shown
        return (f"segmented file {shown}: no such file", "check the path")

    @property
    def version(self) -> str:
        """``file:`` and a short hash of the file's segmentations."""
        return self._version

    def _segment(self, lines: list[str]) -> list[list[str]]:
        out = []
        for index, line in enumerate(lines):
            queue = self._lines.get("".join(line.split()))
            if not queue:
                raise SegmenterOutputError(
                    self.name,
                    index,
                    f"no line of {self.path} segments this input line ({line.strip()[:40]!r}); "
                    "the file's lines must be the segmentations of the input lines: was it "
                    "produced from this input?",
                )
            out.append(queue.popleft()[1])
        return out

"""The one exception family of cws-bench.

Library code raises these and never prints or exits; ``cli.py`` turns them
into one message on stderr and exit code 2. A message says what went wrong
and where (``pku_test.utf8:1042: 3 fields, expected 2``); the hint says how
to fix it.
"""

from __future__ import annotations

import os

__all__ = [
    "CorpusFormatError",
    "CorpusUnavailableError",
    "CwsBenchError",
    "DecodingError",
    "LineCountMismatchError",
    "SegmenterError",
    "SegmenterUnavailableError",
    "TextMismatchError",
    "describe_os_error",
]


class CwsBenchError(Exception):
    """An error the user can cause and fix.

    Args:
        message: what went wrong, naming the file and line where there is one.
        hint: how to fix it, or None.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  hint: {self.hint}"
        return self.message


def _where(path: str | os.PathLike[str], line: int | None) -> str:
    name = os.fspath(path)
    return f"{name}:{line}" if line is not None else name


class CorpusFormatError(CwsBenchError):
    """A file does not have the expected format at a given line.

    >>> str(CorpusFormatError("pku_test.utf8", 1042, "3 fields, expected 2"))
    'pku_test.utf8:1042: 3 fields, expected 2'
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        line: int | None,
        message: str,
        hint: str | None = None,
    ) -> None:
        super().__init__(f"{_where(path, line)}: {message}", hint)
        self.path = os.fspath(path)
        self.line = line


class CorpusUnavailableError(CwsBenchError):
    """A named corpus (or one of its splits) is not on this machine; the hint says how to get it."""


class DecodingError(CorpusFormatError):
    """Bytes that are not valid in the encoding the file was read with."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        line: int,
        offset: int,
        encoding: str,
        hint: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        super().__init__(path, line, f"byte offset {offset}: not valid {encoding}", hint)
        self.offset = offset
        self.encoding = encoding
        # The encoding the file seems to be in, if one fits (for a command's hint).
        self.suggestion = suggestion


class LineCountMismatchError(CwsBenchError):
    """Gold and prediction files have different numbers of lines.

    A line count is what ``wc -l`` counts, plus one for a last line without
    its newline (empty lines count, at the end of a file too).
    """

    def __init__(self, gold: str, gold_lines: int, pred: str, pred_lines: int) -> None:
        super().__init__(
            f"{gold} has {gold_lines} lines but {pred} has {pred_lines}",
            "each prediction line must segment the gold line with the same number; "
            "pass --allow-line-mismatch to score anyway (missing predictions count as "
            "empty; with --method sighan only the lines both files have are scored)",
        )
        self.gold_lines = gold_lines
        self.pred_lines = pred_lines


class TextMismatchError(CwsBenchError):
    """Gold and prediction hold different characters on some lines (``--strict``)."""


class SegmenterError(CwsBenchError):
    """A segmenter cannot be built, failed, or broke its contract on some input.

    >>> str(SegmenterError("jieba", "line 3: returned 2 lines for 1"))
    'segmenter jieba: line 3: returned 2 lines for 1'
    """

    def __init__(self, segmenter: str, message: str, hint: str | None = None) -> None:
        super().__init__(f"segmenter {segmenter}: {message}", hint)
        self.segmenter = segmenter


class SegmenterUnavailableError(SegmenterError):
    """A segmenter's library is not installed here; ``install`` is the command that installs it."""

    def __init__(self, segmenter: str, reason: str, install: str) -> None:
        super().__init__(segmenter, f"not available ({reason})", f"install it with: {install}")
        self.install = install


def describe_os_error(error: OSError) -> str:
    """One line for a file or folder that cannot be read or written: its name and why.

    >>> describe_os_error(PermissionError(13, "Permission denied", "out/results.json"))
    'out/results.json: Permission denied'
    """
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename is None:
        return reason
    return f"{os.fspath(error.filename)}: {reason}"

"""The one exception family of cws-bench.

Library code raises these and never prints or exits; ``cli.py`` turns them
into one message on stderr and exit code 2. A message says what went wrong
and where (``pku_test.utf8:1042: 3 fields, expected 2``); the hint says how
to fix it.

A hint speaks the library's language: the parameters it suggests are
:class:`Fix` objects, shown in API terms (``encoding="gb18030"``) by
``str(error)``. The command line shows the same hint with its flags
(``--encoding gb18030``) through :meth:`CwsBenchError.describe`, so the
library never names a flag and a renamed flag needs no library change.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "CorpusFormatError",
    "CorpusUnavailableError",
    "CwsBenchError",
    "DecodingError",
    "Fix",
    "LineCountMismatchError",
    "SegmenterError",
    "SegmenterUnavailableError",
    "TextMismatchError",
    "UnknownFormatError",
    "describe_os_error",
    "fill_hint",
]


@dataclass(frozen=True)
class Fix:
    """A parameter a hint suggests: ``parameter`` set to ``value`` (or to a ``metavar``).

    ``segmenter`` marks an option of a segmenter (``get_segmenter(name, **options)``,
    a bake-off's segmenter table), not a parameter of the function that raised.

    >>> Fix("encoding", "gb18030").api(), Fix("model", metavar="MODEL").api()
    ('encoding="gb18030"', 'model=MODEL')
    >>> Fix("allow_line_mismatch", True).api(), Fix("dictionary").api()
    ('allow_line_mismatch=True', 'dictionary=...')
    """

    parameter: str
    value: str | bool | int | float | None = None
    metavar: str | None = None
    segmenter: bool = False

    def api(self) -> str:
        """The fix in the Python API's terms: ``parameter=value``."""
        if self.value is not None:
            value = f'"{self.value}"' if isinstance(self.value, str) else repr(self.value)
        else:
            value = self.metavar or "..."
        return f"{self.parameter}={value}"


Terms = Callable[[Fix], str]
"""How a caller names a fix: :meth:`Fix.api`, or the command line's flags."""


def fill_hint(template: str | None, fixes: Sequence[Fix], terms: Terms = Fix.api) -> str | None:
    """A hint's ``{0}``, ``{1}``, ... replaced by its fixes, each named by ``terms``.

    >>> fill_hint("pass {0}", [Fix("encoding", "gb18030")])
    'pass encoding="gb18030"'
    """
    if template is None:
        return None
    text = template
    for index, fix in enumerate(fixes):
        text = text.replace(f"{{{index}}}", terms(fix))
    return text


class CwsBenchError(Exception):
    """An error the user can cause and fix.

    Args:
        message: what went wrong, naming the file and line where there is one.
        hint: how to fix it, or None. With ``fixes``, ``{0}``, ``{1}``, ... in
            the hint stand for the fixes, each named in the reader's terms.
        fixes: the parameters the hint suggests.
    """

    def __init__(self, message: str, hint: str | None = None, *, fixes: Sequence[Fix] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.template = hint
        self.fixes = tuple(fixes)

    @property
    def hint(self) -> str | None:
        """The hint in the Python API's terms."""
        return self.describe_hint(Fix.api)

    @hint.setter
    def hint(self, value: str | None) -> None:
        self.template = value
        self.fixes = ()

    def describe_hint(self, terms: Terms = Fix.api) -> str | None:
        """The hint with each fix named by ``terms`` (e.g. as a command-line flag)."""
        return fill_hint(self.template, self.fixes, terms)

    def describe(self, terms: Terms = Fix.api) -> str:
        """The message and, on a line of its own, the hint named by ``terms``."""
        hint = self.describe_hint(terms)
        if hint:
            return f"{self.message}\n  hint: {hint}"
        return self.message

    def __str__(self) -> str:
        return self.describe()


class UnknownFormatError(CwsBenchError, ValueError):
    """A format name that is not one of ``known``: the one message of every format table.

    A ValueError too, as the renderers raised before, so callers that catch that still do.

    >>> str(UnknownFormatError("xml", ("text", "json"), what="report format"))
    "unknown report format 'xml'\\n  hint: use one of: text, json"
    """

    def __init__(self, fmt: object, known: Iterable[str], *, what: str = "format") -> None:
        self.known = tuple(known)
        super().__init__(f"unknown {what} {fmt!r}", f"use one of: {', '.join(self.known)}")


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
        *,
        fixes: Sequence[Fix] = (),
    ) -> None:
        self.path = os.fspath(path)
        self.line = line
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {message}", hint, fixes=fixes)


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
        *,
        fixes: Sequence[Fix] = (),
    ) -> None:
        message = f"byte offset {offset}: not valid {encoding}"
        super().__init__(path, line, message, hint, fixes=fixes)
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
        from cws_bench.display.units import plural  # when raised: errors load nothing

        super().__init__(
            f"{gold} has {plural(gold_lines, 'line')} but {pred} has {pred_lines}",
            "each prediction line must segment the gold line with the same number; "
            "pass {0} to score anyway (missing predictions count as "
            "empty; with {1} only the lines both files have are scored)",
            fixes=(Fix("allow_line_mismatch", True), Fix("method", "sighan")),
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

    def __init__(
        self,
        segmenter: str,
        message: str,
        hint: str | None = None,
        *,
        fixes: Sequence[Fix] = (),
    ) -> None:
        super().__init__(f"segmenter {segmenter}: {message}", hint, fixes=fixes)
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

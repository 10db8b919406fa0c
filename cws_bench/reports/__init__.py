"""Reports of a bake-off: the same result rendered as data, Markdown, HTML, LaTeX and text.

:data:`REPORTS` is the one table of formats. :func:`write_reports` writes each one's
file (results.json, the source of every number in the others; results.csv,
leaderboard.md, report.html, leaderboard.tex; and in an organiser's bake-off
``scorecards/<participant>.md``, :mod:`cws_bench.reports.scorecards`);
:func:`render_report` renders a result in any of :data:`REPORT_FORMATS`, and
re-rendering a saved run (:func:`load_results`, which merges several runs of the
same corpora and settings by :func:`merge_results`) gives the very bytes the run
wrote. The renderers only format: :mod:`cws_bench.reports.tables` decides once what
the tables hold, so the Markdown, HTML and text always agree.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from cws_bench.errors import CwsBenchError, Fix, UnknownFormatError
from cws_bench.reports.data import render_csv, render_json
from cws_bench.reports.html import render_html
from cws_bench.reports.latex import render_latex
from cws_bench.reports.markdown import render_markdown
from cws_bench.reports.merge import load_results, merge_results
from cws_bench.reports.tables import with_units
from cws_bench.reports.text import render_across_corpora, render_leaderboard
from cws_bench.results.model import BakeoffResult
from cws_bench.text.io import atomic_write

__all__ = [
    "REPORTS",
    "REPORT_FILES",
    "REPORT_FORMATS",
    "Report",
    "load_results",
    "merge_results",
    "prepare_reports",
    "render_across_corpora",
    "render_csv",
    "render_html",
    "render_json",
    "render_latex",
    "render_leaderboard",
    "render_markdown",
    "render_report",
    "write_reports",
]


@dataclass(frozen=True)
class Report:
    """One report format: the file a bake-off writes it to (None: printed, never written),
    the renderer of a :class:`BakeoffResult`, and other names ``--format`` takes for it."""

    file: str | None
    render: Callable[[BakeoffResult], str]
    aliases: tuple[str, ...] = ()


REPORTS: dict[str, Report] = {
    "json": Report("results.json", render_json),
    "csv": Report("results.csv", render_csv),
    # md is the file's suffix; markdown the name every other --format uses
    "markdown": Report("leaderboard.md", render_markdown, ("md",)),
    "html": Report("report.html", render_html),
    "latex": Report("leaderboard.tex", render_latex),
    "text": Report(None, render_leaderboard),
}
"""Report format -> :class:`Report`: the one table of formats; a new format is one row."""

REPORT_FILES = {kind: report.file for kind, report in REPORTS.items() if report.file}
"""Report kind -> file name in the output folder (the formats a bake-off writes)."""


def _formats() -> dict[str, Callable[[BakeoffResult], str]]:
    """Format name (aliases too) -> renderer, read from :data:`REPORTS` as it is now."""
    return {name: r.render for kind, r in REPORTS.items() for name in (kind, *r.aliases)}


REPORT_FORMATS = _formats()
"""Format name of ``cws-bench report --format`` (aliases too) -> renderer."""


def render_report(
    result: BakeoffResult, fmt: str, *, scale: str | None = None, digits: int | None = None
) -> str:
    """A result rendered in one of :data:`REPORT_FORMATS` (``md``, ``html``, ``latex``, ...).

    ``scale`` (``percent``, the default, or ``fraction``) and ``digits`` set how the
    tables print scores (:mod:`cws_bench.display.units`); JSON and CSV hold fractions.

    Raises:
        CwsBenchError: an unknown format (the message lists the known ones).
    """
    formats = _formats()  # a row added to REPORTS since import counts
    renderer = formats.get(fmt)
    if renderer is None:
        raise UnknownFormatError(fmt, formats, what="report format")
    return with_units(renderer)(result, scale=scale, digits=digits)


def prepare_reports() -> threading.Thread:
    """Start warming up what writing the reports needs (matplotlib, its fonts, jinja2) in a
    thread, and return it: a bake-off does it while its workers segment, and joins
    the thread before :func:`write_reports`. A failure here is not reported (the
    reports then meet it themselves)."""

    def warm() -> None:
        with contextlib.suppress(Exception):
            import jinja2  # noqa: F401  (the HTML template's engine)

            from cws_bench.reports.charts import warm_up

            warm_up()

    thread = threading.Thread(target=warm, name="cws-reports-warm-up", daemon=True)
    thread.start()
    return thread


def write_reports(
    result: BakeoffResult, output_dir: str | os.PathLike[str], *, progress: bool = False
) -> dict[str, Path]:
    """Write results.json, results.csv, leaderboard.md, report.html and leaderboard.tex.

    Every report is rendered before any file is written, and each file goes
    through a temporary file and a rename: a failure leaves the folder's old
    reports whole and no temporary file behind.

    ``output_dir`` is created (with its parents) when missing; ``progress`` shows a bar
    on stderr while the reports render (on a terminal only). Returns report kind
    (``json``, ``csv``, ``markdown``, ``html``, ``latex``) -> path written, and
    ``scorecards/<participant>.md`` -> its path for each participant.

    Raises:
        CwsBenchError: the folder cannot be created or written.
    """
    from tqdm.auto import tqdm

    files = {kind: report.file for kind, report in REPORTS.items() if report.file}
    bar = tqdm(
        files.items(),
        desc="reports",
        unit="file",
        total=len(files),
        disable=not progress or not _on_terminal(),
        leave=False,
    )
    contents = {}
    for kind, name in bar:
        bar.set_postfix_str(name, refresh=True)
        contents[kind] = REPORTS[kind].render(result)
    bar.close()
    from cws_bench.reports.scorecards import scorecard_files

    cards = scorecard_files(result)  # an organiser's bake-off: one per participant
    folder = Path(output_dir)
    with _failing(f"{folder}: cannot create the report folder", "pass another folder as {0}"):
        folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for kind, text in contents.items():
        written[kind] = _write(folder / files[kind], text, "report")
    for name, text in cards.items():
        written[name] = _write(folder / name, text, "scorecard")
    return written


def _write(path: Path, text: str, what: str) -> Path:
    """Write one report file atomically (its folder made if missing); a failure names it."""
    hint = "check the folder's permissions and free space, or pass another {0}"
    with _failing(f"{path}: cannot write the {what}", hint):
        path.parent.mkdir(exist_ok=True)
        with atomic_write(path) as f:
            f.write(text)
    return path


@contextlib.contextmanager
def _failing(message: str, hint: str) -> Iterator[None]:
    """An OSError within becomes the error of ``message`` (with why) and ``hint`` (which
    names ``output_dir``)."""
    try:
        yield
    except OSError as e:
        raise CwsBenchError(f"{message} ({e.strerror})", hint, fixes=(Fix("output_dir"),)) from e


def _on_terminal() -> bool:
    import sys

    return bool(getattr(sys.stderr, "isatty", lambda: False)())

"""Tests of cws_bench.reports.write_reports: five files, written whole or not at all."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

import cws_bench.reports
import cws_bench.text.io
from cws_bench.errors import CwsBenchError
from cws_bench.reports import REPORT_FILES, write_reports
from cws_bench.results.model import BakeoffResult


@pytest.fixture(scope="module")
def sample_only(bakeoff) -> BakeoffResult:
    """The session's result cut to the sample corpus: for the tests of how reports are
    written, which need a whole result (every report, charts and all), not a big one."""
    return replace(
        bakeoff,
        pairs=tuple(p for p in bakeoff.pairs if p.corpus == "sample"),
        comparisons=tuple(c for c in bakeoff.comparisons if c.corpus == "sample"),
    )


def test_writes_the_five_reports(bakeoff, reports, tmp_path):
    out = tmp_path / "reports" / "run"  # parents are created
    written = write_reports(bakeoff, out)
    assert written == {kind: out / name for kind, name in REPORT_FILES.items()}
    assert sorted(os.listdir(out)) == sorted(REPORT_FILES.values())
    assert written["json"].read_text(encoding="utf-8") == reports.json
    assert written["csv"].read_text(encoding="utf-8") == reports.csv
    assert written["markdown"].read_text(encoding="utf-8") == reports.markdown
    assert written["html"].read_text(encoding="utf-8") == reports.html
    assert written["latex"].read_text(encoding="utf-8") == reports.latex


def test_a_failed_rendering_writes_nothing(bakeoff, tmp_path, monkeypatch):
    (tmp_path / "report.html").write_text("the previous run's page", encoding="utf-8")

    def broken(result):
        raise RuntimeError("template exploded")

    monkeypatch.setitem(
        cws_bench.reports.REPORTS, "html", cws_bench.reports.Report("report.html", broken)
    )
    with pytest.raises(RuntimeError, match="template exploded"):
        write_reports(bakeoff, tmp_path)
    assert os.listdir(tmp_path) == ["report.html"]
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == "the previous run's page"


def test_a_failed_write_leaves_no_temporary_file(sample_only, tmp_path, monkeypatch):
    (tmp_path / "report.html").write_text("old", encoding="utf-8")
    real_replace = os.replace

    def replace(source, target):
        if str(target).endswith("report.html"):
            raise OSError(28, "No space left on device")
        real_replace(source, target)

    monkeypatch.setattr(cws_bench.text.io.os, "replace", replace)
    with pytest.raises(CwsBenchError, match=r"report\.html: cannot write the report"):
        write_reports(sample_only, tmp_path)
    # The files before it are whole, the page is the old one, no temporary file is left.
    assert sorted(os.listdir(tmp_path)) == [
        "leaderboard.md",
        "report.html",
        "results.csv",
        "results.json",
    ]
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == "old"


def test_a_file_in_the_way_is_a_clear_error(sample_only, tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(CwsBenchError, match="cannot create the report folder"):
        write_reports(sample_only, blocker / "run")


def test_a_bar_counts_the_reports_on_a_terminal_only(sample_only, tmp_path, monkeypatch, capsys):
    write_reports(sample_only, tmp_path / "quiet", progress=True)  # stderr is no terminal here
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(cws_bench.reports, "_on_terminal", lambda: True)
    write_reports(sample_only, tmp_path / "shown", progress=True)
    shown = capsys.readouterr().err
    assert f"reports:   0%|          | 0/{len(REPORT_FILES)}" in shown
    assert all(name in shown for name in REPORT_FILES.values())  # the file rendering now
    write_reports(sample_only, tmp_path / "off", progress=False)
    assert capsys.readouterr().err == ""

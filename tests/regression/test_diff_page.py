"""The diff page in headless chromium: filters by kind and by fixed/broke, pages of lines.

A diff of 250 changed lines of three kinds (hand-made: a merge that breaks agreement
with the gold, a split that fixes it, a moved boundary that fixes it) is opened at
800 and 1400 px; a probe appended to the page clicks the controls as a reader would
and records which lines are shown. Skipped when chromium is not installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cws_bench.regression.diff import diff_segmentations
from cws_bench.regression.render import HTML_PAGE, line_kinds, render_diff_html, render_diff_text

GOLD = ["研究", "人员", "发现"]
# kind -> (A, B): against GOLD, the merge breaks, the split fixes, the moved boundary fixes.
LINES = {
    "merge": (["研究", "人员", "发现"], ["研究人员", "发现"]),
    "split": (["研究人员", "发现"], ["研究", "人员", "发现"]),
    "cross": (["研", "究人员", "发现"], ["研究", "人员", "发现"]),
}
ORDER = ("merge", "split", "cross")
COUNT = 250


@pytest.fixture(scope="module")
def long_diff():
    kinds = [ORDER[i % 3] for i in range(COUNT)]
    a = [LINES[kind][0] for kind in kinds]
    b = [LINES[kind][1] for kind in kinds]
    return kinds, diff_segmentations(a, b, [GOLD] * COUNT)


def test_each_line_carries_its_kinds_and_outcomes(long_diff):
    kinds, diff = long_diff
    assert [line_kinds(line) for line in diff.line_diffs] == [[k] for k in kinds]
    html = render_diff_html(diff)
    rows = re.findall(r'<tr id="line-(\d+)" data-kinds="(\w+)" data-outcomes="(\w+)"', html)
    outcome = {"merge": "broke", "split": "fixed", "cross": "fixed"}
    assert rows == [(str(i + 1), k, outcome[k]) for i, k in enumerate(kinds)]
    # The filters offer the kinds and outcomes present, with how many lines each matches.
    assert 'value="merge" checked> merged <span class="count">(84)</span>' in html
    assert 'value="split" checked> split <span class="count">(83)</span>' in html
    assert (
        'value="broke" checked> <mark class="broke">broke</mark> <span class="count">(84)' in html
    )
    assert 'value="neither"' not in html  # no change left agreement as it was


def test_counts_are_said_in_the_right_number():
    one = diff_segmentations([GOLD], [["研究人员", "发现"]], [GOLD])
    text = render_diff_text(one)
    assert "0 changes fixed agreement, 1 broke it" in text
    html = render_diff_html(one)
    assert "0 changes <mark" in html and "change(s)" not in html and "line(s)" not in html


PROBE = """<script>
(function () {
  const shown = () => Array.from(document.querySelectorAll("table.lines tbody tr"))
    .filter((row) => !row.hidden).map((row) => Number(row.id.slice(5)));
  const form = document.getElementById("filters");
  const status = document.getElementById("pager-status");
  const record = {first: shown(), firstStatus: status.textContent};
  document.getElementById("pager-next").click();
  record.second = shown();
  form.querySelector("input[value=broke]").click();
  record.noBroke = shown();
  record.noBrokeStatus = status.textContent;
  record.patterns = Array.from(document.querySelectorAll("#patterns tbody tr"))
    .filter((row) => !row.hidden).map((row) => row.dataset.kinds);
  form.querySelector("input[value=split]").click();
  record.cross = shown();
  form.elements.size.value = "500";
  form.dispatchEvent(new Event("change"));
  record.all = shown().length;
  location.hash = "#line-241";
  window.dispatchEvent(new HashChangeEvent("hashchange"));
  record.revealed = shown();
  record.width = document.documentElement.scrollWidth;
  document.body.dataset.probe = JSON.stringify(record);
})();
</script>"""


def run_chromium(chromium: str, tmp_path: Path, width: int, *arguments: str):
    profile = tmp_path / f"profile-{width}"
    return subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            "--proxy-server=http://127.0.0.1:9",  # any request leaving the machine fails
            f"--user-data-dir={profile}",
            f"--window-size={width},1600",
            *arguments,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "HOME": str(profile)},
        check=False,
    )


@pytest.mark.parametrize("width", [800, 1400])
def test_filters_and_pages_in_a_browser(long_diff, tmp_path, width):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    kinds, diff = long_diff
    html = render_diff_html(diff)
    page = tmp_path / "diff.html"
    page.write_text(html, encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    done = run_chromium(chromium, tmp_path, width, "--dump-dom", probe.as_uri())
    found = re.search(r'data-probe="([^"]*)"', done.stdout)
    assert found, done.stderr[-2000:]
    record = json.loads(found.group(1).replace("&quot;", '"'))
    lines = range(1, COUNT + 1)
    assert record["first"] == list(lines[:HTML_PAGE])
    assert record["firstStatus"] == "page 1 of 3: lines 1–100 of 250 matching lines"
    assert record["second"] == list(lines[HTML_PAGE : 2 * HTML_PAGE])
    # Without "broke": the merges go, the page starts again at the first match.
    fixed = [n for n in lines if kinds[n - 1] != "merge"]
    assert record["noBroke"] == fixed[:HTML_PAGE]
    assert record["noBrokeStatus"] == "page 1 of 2: lines 1–100 of 166 matching lines"
    assert set(record["patterns"]) == {"split", "cross"}
    assert record["cross"] == [n for n in lines if kinds[n - 1] == "cross"][:HTML_PAGE]
    assert record["all"] == len([n for n in lines if kinds[n - 1] == "cross"])
    # A link to a line the filters hide (241 is a merge) resets them and opens its page.
    assert kinds[240] == "merge"
    assert record["revealed"] == list(lines[2 * HTML_PAGE :])
    assert record["width"] <= width  # nothing wider than the window

    shot = tmp_path / f"diff-{width}.png"
    done = run_chromium(chromium, tmp_path, width, f"--screenshot={shot}", page.as_uri())
    assert shot.is_file(), done.stderr[-2000:]

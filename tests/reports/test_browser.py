"""report.html in a real browser: Debian's chromium, headless (skipped when it is not installed).

The page must draw something substantial with no network at all, and the DOM
the browser builds must hold the leaderboards. Chromium's screenshot is kept
in pytest's tmp_path for a person to look at; nothing asserts on time.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cws_bench.reports import write_reports

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    # Any request leaving the machine fails: the page must need none.
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
]


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("chromium is not installed (Debian: apt-get install chromium); .ci/run installs it")


@pytest.fixture(scope="module")
def page(bakeoff, tmp_path_factory) -> Path:
    return write_reports(bakeoff, tmp_path_factory.mktemp("browser"))["html"]


def run_chromium(chromium: str, profile: Path, *arguments: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "HOME": str(profile)}
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", *arguments],
        capture_output=True,
        text=True,
        timeout=180,
        env=environment,
        check=False,
    )


def test_screenshot_is_a_drawn_page(chromium, page, tmp_path):
    from PIL import Image

    shot = tmp_path / "report.png"
    done = run_chromium(
        chromium,
        tmp_path / "profile",
        f"--screenshot={shot}",
        "--window-size=1280,2400",
        page.as_uri(),
    )
    assert shot.is_file(), done.stderr[-2000:]
    assert shot.stat().st_size > 50_000
    with Image.open(shot) as image:
        assert image.size == (1280, 2400)
        pixels = image.convert("RGB")
        colors = pixels.getcolors(maxcolors=1 << 20) or []
        white = sum(count for count, rgb in colors if rgb == (255, 255, 255))
        # Text, tables and charts: many colours, and far from a blank page.
        assert len(colors) > 200
        assert white < 0.9 * image.size[0] * image.size[1]
        # The top of the page (title, cards, first table) is drawn, not only the bottom.
        top = pixels.crop((0, 0, 1280, 600)).getcolors(maxcolors=1 << 20) or []
        assert len(top) > 50


def test_dom_holds_the_leaderboards(chromium, page, bakeoff, tmp_path):
    done = run_chromium(chromium, tmp_path / "profile", "--dump-dom", page.as_uri())
    dom = done.stdout
    assert "</html>" in dom, done.stderr[-2000:]
    assert len(re.findall(r'<table class="leaderboard"', dom)) == len(bakeoff.corpora())
    for p in bakeoff.pairs:
        assert f'data-segmenter="{p.segmenter}"' in dom
    assert dom.count("<svg") == dom.count("</svg>") >= 4 * len(bakeoff.corpora())
    best = bakeoff.leaderboard("pd1998")[0]
    assert f"{100 * best.scores['f1']:.2f}" in dom  # the report's unit, percent


# Appended to a copy of the page: scroll the first leaderboard's box to the right and record,
# in <body data-layout>, where the segmenter and letter cells are drawn and what is shown.
PROBE = """<script>
(function () {
  const table = document.querySelector("table.leaderboard");
  const wrap = table.parentElement;
  wrap.scrollLeft = 10000;
  const row = table.querySelector("tbody tr[data-segmenter]");
  const box = (el) => el.getBoundingClientRect();
  document.body.dataset.layout = JSON.stringify({
    overflow: wrap.scrollWidth - wrap.clientWidth,
    scrolled: wrap.scrollLeft,
    wrap: box(wrap).left,
    name: box(row.querySelector("td.name")).left,
    letter: box(row.querySelector("td.letter")).left,
    track: row.querySelector("td.track-col").getClientRects().length,
  });
})();
</script>"""


def layout_at(chromium: str, page: Path, width: int, tmp_path: Path) -> dict:
    import json

    probe = tmp_path / f"probe-{width}.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    done = run_chromium(
        chromium,
        tmp_path / f"profile-{width}",
        f"--window-size={width},1200",
        "--dump-dom",
        probe.as_uri(),
    )
    found = re.search(r'data-layout="([^"]*)"', done.stdout)
    assert found, done.stderr[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"'))


def test_the_leaderboard_is_usable_at_800_px(chromium, page, tmp_path):
    narrow = layout_at(chromium, page, 800, tmp_path)
    # Too wide for 800 px: the table scrolls, the segmenter column stays in view and the
    # track column (told by the group rows) is left out.
    assert narrow["overflow"] > 0 and narrow["scrolled"] > 0
    assert abs(narrow["name"] - narrow["wrap"]) <= 1
    assert narrow["letter"] < narrow["wrap"]
    assert narrow["track"] == 0
    wide = layout_at(chromium, page, 1400, tmp_path)
    assert wide["track"] == 1 and wide["overflow"] <= 0
    assert wide["name"] > wide["wrap"]


def test_screenshots_at_800_and_1400_px(chromium, page, tmp_path):
    """Screenshots a person looks at (kept in tmp_path): the page draws at both widths."""
    from PIL import Image

    for width in (800, 1400):
        shot = tmp_path / f"report-{width}.png"
        done = run_chromium(
            chromium,
            tmp_path / f"shot-{width}",
            f"--screenshot={shot}",
            f"--window-size={width},1600",
            page.as_uri(),
        )
        assert shot.is_file(), done.stderr[-2000:]
        with Image.open(shot) as image:
            assert image.size == (width, 1600)
            assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 100

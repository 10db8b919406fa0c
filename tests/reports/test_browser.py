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
    assert f"{best.scores['f1']:.3f}" in dom

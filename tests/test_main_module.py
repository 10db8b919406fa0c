"""``python -m cws_bench``: the command without its console script (cws_bench/__main__.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cws_bench

ROOT = Path(__file__).resolve().parent.parent


def run_module(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-m", "cws_bench", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_version_is_the_package_version(tmp_path):
    result = run_module("--version", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"cws-bench, version {cws_bench.__version__}\n"


def test_a_bakeoff_on_spawned_workers_runs_once(tmp_path):
    """The workers are spawned and import the main module again: the guard keeps them from
    starting the command a second time (run_bakeoff refuses to be called at an import)."""
    result = run_module(
        "bakeoff",
        "--segmenters",
        "fmm,bmm",
        "--corpora",
        "sample",
        "-j",
        "2",
        "--no-cache",
        "--quiet",
        "-o",
        "out",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    # a filtered run writes beside the full run's reports, in a folder named by the filter
    written = tmp_path / "out" / "only-bmm+fmm-on-sample" / "results.json"
    pairs = json.loads(written.read_text(encoding="utf-8"))["pairs"]
    assert sorted((pair["segmenter"], pair["status"]) for pair in pairs) == [
        ("bmm", "ok"),
        ("fmm", "ok"),
    ]

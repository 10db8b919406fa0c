"""What ``cws-bench score`` imports: only what scoring a file needs.

The SIGHAN comparison (docs/BENCHMARKS.md) times whole ``cws-bench score``
processes, where start-up is most of the CPU time; these tests keep the heavy
modules (numpy, pandas, multiprocessing, importlib.metadata, the executors,
the segmenters, the reports) out of it. They check ``sys.modules`` in a fresh
interpreter, never the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cws_bench

# Imported by no step of `cws-bench score GOLD PRED --dict DICT` on plain files.
NOT_NEEDED = (
    "numpy",
    "pandas",
    "scipy",
    "tqdm",
    "multiprocessing",
    "socket",
    "importlib.metadata",
    "pathlib",
    "cws_bench.run.executors",
    "cws_bench.run.shards",
    "cws_bench.run.sharded",
    "cws_bench.segmenters",
    "cws_bench.reports",
    "cws_bench.run.bakeoff",
    "cws_bench.run.config",
    "cws_bench.run.plan",
    "cws_bench.run.execute",
    "cws_bench.run.pair",
    "cws_bench.run.cache",
    "cws_bench.run.comparison",
    "jieba",
)

# Runs the CLI as the console script does and prints the modules it imported
# beyond those the interpreter had loaded before (site's, which vary by install).
SCRIPT = """
import json, sys
before = set(sys.modules)
from cws_bench.cli import main
try:
    main()
except SystemExit as e:
    assert not e.code, e.code
print(json.dumps(sorted(set(sys.modules) - before)), file=sys.stderr)
"""


def imported_by(*args: object) -> set[str]:
    """The modules a ``cws-bench`` run with these arguments imports."""
    root = str(Path(cws_bench.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    gold = tmp_path / "gold.txt"
    pred = tmp_path / "pred.txt"
    words = tmp_path / "words.txt"
    gold.write_text("结婚 的 和 尚未 结婚 的\n都 应该 好好 考虑\n", encoding="utf-8")
    pred.write_text("结婚 的 和尚 未结婚 的\n都 应该 好好考虑\n", encoding="utf-8")
    words.write_text("结婚\n尚未\n的\n和\n都\n", encoding="utf-8")
    return gold, pred, words


@pytest.mark.parametrize(
    "options",
    [
        ["--method", "sighan", "--format", "sighan"],
        ["--method", "interval"],
        ["--format", "json"],
    ],
)
def test_score_imports_only_what_scoring_needs(files, options):
    gold, pred, words = files
    modules = imported_by("score", gold, pred, "--dict", words, *options)
    assert "cws_bench.scoring" in modules  # the run did import the package
    assert sorted(modules & set(NOT_NEEDED)) == []


def test_score_help_imports_only_the_command(files):
    modules = imported_by("score", "--help")
    assert "cws_bench.cli.score" in modules
    assert sorted(modules & set(NOT_NEEDED)) == []

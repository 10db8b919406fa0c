"""The package as users install it: the wheel, with no extras, in a fresh venv, far from here.

The development venv has every extra, so nothing else in the suite would see a
command that needs an extra's library, a data file left out of the wheel, or a
module found only because the checkout is the working folder. This test builds the
wheel from a copy of the project's source files, installs it with ``pip install
WHEEL`` (no extras) into a new venv in a temporary folder, and runs the commands of
a first session from an empty folder: ``--version``, ``segmenters``, ``corpora``,
the default bake-off, ``segment``, ``score``, ``diff``, ``metrics``, and ``python
-m cws_bench``. The installation takes the dependencies from the package index
(pip's cache makes that quick): it skips, saying so, when pip cannot reach the index.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import cws_bench

ROOT = Path(__file__).resolve().parent.parent
# What the wheel is built from (pyproject.toml's package data, setup.py's shipped data).
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE")
SOURCE_FOLDERS = ("cws_bench", "corpora", "dictionaries")
# Build products of the checkout (compiled kernels, caches) are not sources.
IGNORED = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", "*.egg-info")

pytestmark = pytest.mark.slow


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, (
        f"{' '.join(command)} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def index_reachable(python: Path, env: dict[str, str]) -> bool:
    """Whether pip reaches the package index: snownlp (a dependency) looked up, cache off."""
    probe = [str(python), "-m", "pip", "index", "versions", "snownlp", "--no-cache-dir"]
    probe += ["--timeout", "15", "--retries", "1"]
    try:
        found = subprocess.run(probe, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return False
    return found.returncode == 0


def check_metadata(wheel: Path) -> None:
    """The wheel's metadata as an index reads it: valid, with one version and the licence."""
    from packaging.metadata import Metadata

    with zipfile.ZipFile(wheel) as archive:
        info = f"cws_bench-{cws_bench.__version__}.dist-info"
        metadata = Metadata.from_email(archive.read(f"{info}/METADATA"), validate=True)
        licence = archive.read(f"{info}/licenses/LICENSE").decode("utf-8")
        names = archive.namelist()
    assert str(metadata.version) == cws_bench.__version__
    assert str(metadata.license_expression) == "MIT"
    assert metadata.license_files == ["LICENSE"]
    assert licence == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert metadata.description_content_type == "text/markdown"
    assert metadata.description == (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Programming Language :: Python :: 3" in (metadata.classifiers or [])
    # the data the commands read: the sample corpus, its dictionary, the bundled bake-offs
    for name in ("_data/sample/gold.txt", "_data/dictionaries/sample.txt", "configs/default.toml"):
        assert f"cws_bench/{name}" in names


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict[str, str], Path]:
    """A fresh venv with the wheel installed alone: its bin folder, the env, the wheel."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in SOURCES:
        shutil.copy2(ROOT / name, source / name)
    for name in SOURCE_FOLDERS:
        shutil.copytree(ROOT / name, source / name, ignore=IGNORED)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}
        and not key.startswith("CWS_BENCH_")
    }
    env["CWS_BENCH_CACHE_DIR"] = str(base / "cache")  # models and downloads, not the user's
    env["MPLCONFIGDIR"] = str(base / "matplotlib")
    # Built as pip builds it, with this venv's setuptools and Cython (the build
    # requirements of pyproject.toml), so that the build itself needs no index.
    wheels = base / "dist"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    run([*build, "-w", str(wheels), str(source)], cwd=base, env=env)
    [wheel] = wheels.glob("cws_bench-*.whl")
    assert wheel.name.startswith(f"cws_bench-{cws_bench.__version__}-")
    check_metadata(wheel)
    target = base / "venv"
    venv.EnvBuilder(with_pip=True, symlinks=os.name != "nt").create(target)
    bin_dir = target / ("Scripts" if os.name == "nt" else "bin")
    if not index_reachable(bin_dir / "python", env):
        pytest.skip("pip cannot reach the package index: the wheel's dependencies cannot install")
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], cwd=base, env=env)
    return bin_dir, env, wheel


def test_the_wheel_alone_runs_a_first_session(installed, tmp_path):
    bin_dir, env, wheel = installed
    cli = str(bin_dir / "cws-bench")
    work = tmp_path / "empty"
    work.mkdir()
    # The installed package, not the checkout's, and none of the extras.
    where = run(
        [str(bin_dir / "python"), "-c", "import cws_bench, sys; print(cws_bench.__file__)"],
        cwd=work,
        env=env,
    )
    assert Path(where.stdout.strip()).is_relative_to(bin_dir.parent)
    version = f"cws-bench, version {cws_bench.__version__}\n"
    assert run([cli, "--version"], cwd=work, env=env).stdout == version
    assert (
        run([str(bin_dir / "python"), "-m", "cws_bench", "--version"], cwd=work, env=env).stdout
        == version
    )

    listing = run([cli, "segmenters"], cwd=work, env=env).stdout
    rows = {line.split()[0]: line for line in listing.splitlines()[1:] if line.strip()}
    for name in ("fmm", "hmm", "jieba", "snownlp"):  # the core: jieba and snownlp are dependencies
        assert " yes " in rows[name], rows[name]
    for name, extra in (
        ("pkuseg", "pkuseg"),
        ("tokenizer-cl100k", "subword"),
        ("rjieba", "rjieba"),
    ):
        assert " no " in rows[name] and "install: " in rows[name], rows[name]
        assert extra in rows[name]
    corpora = run([cli, "corpora"], cwd=work, env=env).stdout
    assert "pd1998" in corpora and "sample" in corpora

    # The main job: the embedded default bake-off, from what a plain install has.
    run([cli, "bakeoff", "-o", "out", "--quiet"], cwd=work, env=env)
    results = json.loads((work / "out" / "results.json").read_text(encoding="utf-8"))
    done = {(pair["segmenter"], pair["corpus"]): pair["status"] for pair in results["pairs"]}
    for segmenter in ("fmm", "bmm", "bimm", "hmm", "jieba", "snownlp"):
        assert done[segmenter, "pd1998"] == "ok" and done[segmenter, "sample"] == "ok"
    assert not any(segmenter in {"pkuseg", "thulac"} for segmenter, _ in done)  # optional: skipped
    for name in ("leaderboard.md", "report.html", "results.csv", "leaderboard.tex"):
        assert (work / "out" / name).stat().st_size > 0

    # A user's file, segmented and scored against a named corpus.
    run([cli, "corpora", "export", "sample", "--as", "raw", "-o", "raw.txt"], cwd=work, env=env)
    run([cli, "segment", "-s", "jieba", "raw.txt", "-o", "jieba.txt"], cwd=work, env=env)
    run(
        [cli, "segment", "-s", "fmm", "--corpus", "pd1998", "raw.txt", "-o", "fmm.txt"],
        cwd=work,
        env=env,
    )
    score = run([cli, "score", "sample:test", "jieba.txt", "--format", "json"], cwd=work, env=env)
    assert json.loads(score.stdout)["signature"].startswith(f"cws-bench:{cws_bench.__version__}|")
    diff = run([cli, "diff", "jieba.txt", "fmm.txt", "--gold", "sample:test"], cwd=work, env=env)
    assert diff.stdout
    (work / "true.txt").write_text("a\nb\na\n", encoding="utf-8")
    (work / "pred.txt").write_text("a\nb\nb\n", encoding="utf-8")
    run([cli, "metrics", "classification", "true.txt", "pred.txt"], cwd=work, env=env)
    # The long description as the index renders it (twine's check), once the commands ran.
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "twine"], cwd=work, env=env)
    checked = run([str(bin_dir / "twine"), "check", "--strict", str(wheel)], cwd=work, env=env)
    assert "PASSED" in checked.stdout, checked.stdout
    assert sorted(path.name for path in work.iterdir()) == [
        "fmm.txt",
        "jieba.txt",
        "out",
        "pred.txt",
        "raw.txt",
        "true.txt",
    ]

"""docs/BAKEOFF.md, "An organiser's bake-off": the replayed SIGHAN 2005 bake-off, as shown.

The commands run verbatim in a fresh folder (docs/examples/organiser.toml copied
into it, the SIGHAN 2005 data from the shared corpora); the printed leaderboard
and the error listing are the page's blocks, byte for byte.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "BAKEOFF.md"
HEADING = "## An organiser's bake-off"


def section() -> str:
    body = PAGE.read_text(encoding="utf-8").split(HEADING + "\n", 1)[1]
    return body.split("\n## ", 1)[0]


def run(line: str, runner: CliRunner, code: int = 0):  # type: ignore[no-untyped-def]
    words = shlex.split(line)
    assert words[0] == "cws-bench", line
    result = runner.invoke(cli, words[1:])
    assert result.exit_code == code, (line, result.output, result.exception)
    return result


@pytest.mark.slow
def test_the_organisers_bake_off_runs_as_shown(icwb2: Path, tmp_path: Path, monkeypatch):
    (tmp_path / "docs" / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "examples" / "organiser.toml", tmp_path / "docs" / "examples")
    (tmp_path / "scratch").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CWS_BENCH_SIGHAN2005", str(icwb2))
    text = section()
    blocks = re.findall(r"```(toml|sh|text)\n(.*?)```", text, flags=re.S)
    assert [kind for kind, _ in blocks] == ["toml", "sh", "text", "text"]
    toml = (ROOT / "docs" / "examples" / "organiser.toml").read_text(encoding="utf-8")
    assert blocks[0][1] == toml
    runner = CliRunner()
    results = [run(line, runner) for line in blocks[1][1].splitlines() if line.strip()]
    assert results[-1].stdout.rstrip("\n") == blocks[2][1].rstrip("\n")
    report = tmp_path / "reports" / "organiser"
    assert sorted(p.name for p in (report / "scorecards").iterdir()) == [
        "S01.md",
        "S02.md",
        "S03.md",
    ]
    data = json.loads((report / "results.json").read_text(encoding="utf-8"))
    assert len(data["settings"]["submissions"]) == 6
    # a rerun scores nothing again: every file is in the cache under its content
    bakeoff = blocks[1][1].strip().splitlines()[-1]
    run(bakeoff, runner)
    data = json.loads((report / "results.json").read_text(encoding="utf-8"))
    assert all(pair["cached"] for pair in data["pairs"])
    # the broken folder the page describes: every problem at once, nothing written
    scratch = tmp_path / "scratch"
    (scratch / "msr-S01.txt").unlink()
    lines = (scratch / "pku-S02.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (scratch / "pku-S02.txt").write_text("".join(lines[:-5]), encoding="utf-8")
    shutil.copy(scratch / "msr-S03.txt", scratch / "pku-S03.txt")
    shutil.copy(scratch / "msr.txt", scratch / "msr-S03.txt")
    shutil.rmtree(report)
    failed = run(bakeoff, runner, code=2)
    assert failed.stderr.rstrip("\n") == blocks[3][1].rstrip("\n")
    assert not report.exists()

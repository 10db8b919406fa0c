"""What a run's report folder says and keeps: filtered runs, merged runs, cached reruns.

Every test here runs real bake-offs (fmm and bmm on the sample corpus, a second each)
and reads the reports they wrote: no hand-made results.json.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.reports import load_results


def _config(tmp_path: Path, sample_bakeoff, name: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(sample_bakeoff(name), encoding="utf-8")
    return path


def _bakeoff(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["bakeoff", *args, "--quiet"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stderr


def test_a_filtered_run_never_replaces_the_full_runs_reports(tmp_path, sample_bakeoff):
    config = _config(tmp_path, sample_bakeoff, "mine")
    out = tmp_path / "reports"
    code, _ = _bakeoff(str(config), "-o", str(out), "--jobs", "1")
    assert code == 0
    full = (out / "results.json").read_bytes()
    assert {p["segmenter"] for p in json.loads(full)["pairs"]} == {"fmm", "bmm"}
    board = (out / "leaderboard.md").read_bytes()
    code, stderr = _bakeoff(str(config), "-o", str(out), "--jobs", "1", "--segmenters", "fmm")
    assert code == 0
    # the full run's tables are as they were; the filtered run's are beside them, said so
    assert (out / "results.json").read_bytes() == full
    assert (out / "leaderboard.md").read_bytes() == board
    part = out / "only-fmm-on-all"
    assert f"reports in {part}/" in stderr
    pairs = json.loads((part / "results.json").read_text(encoding="utf-8"))["pairs"]
    assert [p["segmenter"] for p in pairs] == ["fmm"]
    assert pairs[0]["cached"]  # the full run's cache served it
    code, stderr = _bakeoff(str(config), "-o", str(out), "--jobs", "1", "--corpora", "sample")
    assert code == 0 and f"reports in {out / 'only-all-on-sample'}/" in stderr
    assert (out / "results.json").read_bytes() == full


def test_two_real_runs_merge_and_keep_their_bookkeeping_per_run(tmp_path, sample_bakeoff):
    # two runs of the same corpus and scoring settings, carried out differently: one
    # worker, then two workers with smaller shards; each its own segmenter
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    text = sample_bakeoff("mine")
    fmm_only, bmm_only = text.split('[[segmenters]]\nname = "bmm"')
    first.write_text(fmm_only, encoding="utf-8")
    second.write_text(
        fmm_only.split("[[segmenters]]")[0] + '[[segmenters]]\nname = "bmm"' + bmm_only,
        encoding="utf-8",
    )
    assert _bakeoff(str(first), "-o", str(tmp_path / "a"), "--jobs", "1")[0] == 0
    code, _ = _bakeoff(
        str(second), "-o", str(tmp_path / "b"), "--jobs", "2", "--shard-chars", "300"
    )
    assert code == 0
    a, b = (json.loads((tmp_path / f / "results.json").read_text()) for f in "ab")
    assert a["settings"]["shards"] != b["settings"]["shards"]  # the bookkeeping differs
    runner = CliRunner()
    merged = runner.invoke(
        cli,
        ["report", str(tmp_path / "a" / "results.json"), str(tmp_path / "b" / "results.json")],
    )
    assert merged.exit_code == 0, merged.stderr
    assert "| fmm" in merged.output and "| bmm" in merged.output
    # the run section: one row per run, what it did
    rows = [line for line in merged.output.splitlines() if line.startswith("| run ")]
    assert len(rows) == 2, merged.output
    assert "1 pair run, 1 shard" in rows[0] and "on 1 worker" in rows[0]
    assert "1 pair run" in rows[1] and "on 2 workers" in rows[1]
    result = load_results([tmp_path / "a", tmp_path / "b"])  # folders stand for their results
    runs = result.settings["runs"]
    assert [run["shards"] for run in runs] == [a["settings"]["shards"], b["settings"]["shards"]]
    assert "shards" not in result.settings and "loads" not in result.settings
    # the folder form on the command line, and a merged result merged again
    assert runner.invoke(cli, ["report", str(tmp_path / "a")]).exit_code == 0
    merged_json = runner.invoke(
        cli, ["report", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "json"]
    )
    assert merged_json.exit_code == 0
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "results.json").write_text(merged_json.output, encoding="utf-8")
    assert len(load_results([tmp_path / "ab"]).settings["runs"]) == 2
    # a scoring setting that differs still refuses
    third = tmp_path / "third.toml"
    third.write_text(
        sample_bakeoff("mine", settings={"seed": 7}).replace(
            'name = "fmm"', 'name = "fmm"\nlabel = "fmm7"'
        ),
        encoding="utf-8",
    )
    assert _bakeoff(str(third), "-o", str(tmp_path / "c"), "--jobs", "1")[0] == 0
    refused = runner.invoke(cli, ["report", str(tmp_path / "a"), str(tmp_path / "c")])
    assert refused.exit_code == 2 and "setting seed" in refused.stderr


def test_a_cached_rerun_says_what_it_did(tmp_path, sample_bakeoff):
    config = _config(tmp_path, sample_bakeoff, "mine")
    out = tmp_path / "out"
    assert _bakeoff(str(config), "-o", str(out), "--jobs", "1")[0] == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert (
        "<dt>execution</dt><dd>2 pairs run, 2 shards of up to 20,000 characters on 1 worker" in html
    )
    assert _bakeoff(str(config), "-o", str(out), "--jobs", "1")[0] == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<dt>execution</dt><dd>2 of 2 pairs from the cache, nothing segmented</dd>" in html
    assert "<dt>jobs</dt>" not in html and "<dt>loads</dt>" not in html
    board = (out / "leaderboard.md").read_text(encoding="utf-8")
    run = board[board.index("## Run") :]
    assert "| execution | 2 of 2 pairs from the cache, nothing segmented |" in run
    # the Run section is a table, never a Python repr
    assert "{'" not in run and "| corpus domains | sample: news" in run

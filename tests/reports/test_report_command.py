"""``cws-bench report`` and its library: saved results re-rendered byte for byte, runs merged."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.reports import (
    REPORT_FILES,
    load_results,
    merge_results,
    render_report,
    write_reports,
)
from cws_bench.reports.data import render_json
from cws_bench.results.model import BakeoffResult

KINDS = {"json": "json", "csv": "csv", "markdown": "md", "html": "html", "latex": "latex"}


@pytest.fixture(scope="module")
def written(bakeoff, tmp_path_factory):
    return write_reports(bakeoff, tmp_path_factory.mktemp("run"))


def test_a_saved_run_re_renders_to_the_bytes_the_run_wrote(written):
    result = load_results([written["json"]])
    assert set(KINDS) == set(REPORT_FILES)
    for kind, fmt in KINDS.items():
        assert render_report(result, fmt).encode() == written[kind].read_bytes(), kind


def test_the_cli_writes_the_same_bytes(written, tmp_path):
    for kind, fmt in KINDS.items():
        out = tmp_path / f"again.{fmt}"
        run = CliRunner().invoke(
            cli, ["report", str(written["json"]), "--format", fmt, "-o", str(out)]
        )
        assert run.exit_code == 0, run.output
        assert out.read_bytes() == written[kind].read_bytes(), kind
    run = CliRunner().invoke(cli, ["report", str(written["json"]), "--format", "latex"])
    assert run.output == written["latex"].read_text(encoding="utf-8")


def _split(result: BakeoffResult, first: set[str]) -> tuple[BakeoffResult, BakeoffResult]:
    """The run as two runs: ``first``'s segmenters and the others, each with its comparisons."""

    def part(keep):
        return dataclasses.replace(
            result,
            name=f"{result.name}-{'a' if keep is first else 'b'}",
            pairs=tuple(p for p in result.pairs if p.segmenter in keep),
            comparisons=tuple(c for c in result.comparisons if c.a in keep and c.b in keep),
        )

    others = {p.segmenter for p in result.pairs} - first
    return part(first), part(others)


def _save(result: BakeoffResult, path):
    path.write_text(render_json(result), encoding="utf-8")
    return path


def test_two_runs_merge_into_one_leaderboard(bakeoff, tmp_path):
    a, b = _split(bakeoff, {"chars", "jieba", "thulac"})
    merged = load_results([_save(a, tmp_path / "a.json"), _save(b, tmp_path / "b.json")])
    assert sorted((p.corpus, p.segmenter) for p in merged.pairs) == sorted(
        (p.corpus, p.segmenter) for p in bakeoff.pairs
    )
    assert merged.corpora() == bakeoff.corpora()
    # The comparisons of each run are kept; no comparison across runs is invented.
    pairs = {(c.corpus, c.a, c.b) for c in merged.comparisons}
    assert pairs == {(c.corpus, c.a, c.b) for c in a.comparisons + b.comparisons}
    assert all(c.adjusted_p_value is not None for c in merged.comparisons if c.significant)
    note = merged.settings["notes"][-1]
    assert "a.json" in note and "b.json" in note and "not compared" in note
    for corpus in bakeoff.corpora():
        ranked = [p.segmenter for p in merged.leaderboard(corpus)]
        assert ranked == [p.segmenter for p in bakeoff.leaderboard(corpus)]
    md = render_report(merged, "md")
    assert "not compared" in md
    headings = re.findall(r"^## (.+)$", md, flags=re.M)
    # one section per corpus, the environment, and the wide table across corpora
    assert [h for h in headings if h in bakeoff.corpora()] == bakeoff.corpora()
    assert "F1 by corpus" in headings


def _resplits(n: int, a: str, b: str, counts: dict[str, int]) -> dict:
    pair = {"a": a, "b": b, "standard": "a", "counts": counts, "n": sum(counts.values())}
    corpus = {"train": 90, "test": 10, "splits": [f"pd1998@resplit{i}" for i in range(n)]}
    corpus |= {"retrained": [a], "failed": [], "pairs": [{**pair, "agree": counts["a"]}]}
    return {"n": n, "seed": 7, "corpora": {"pd1998": corpus}, "skipped": {}}


def test_merged_runs_join_their_resplit_verdicts(bakeoff, tmp_path):
    """Each run's re-split counts are of its own rows: the merge lists both runs' pairs
    under the corpus (rows trained again joined); a run with another number of re-splits
    is left out with a note."""
    a, b = _split(bakeoff, {"chars", "jieba", "thulac"})
    a = dataclasses.replace(
        a, settings={**a.settings, "resplits": _resplits(2, "x", "y", {"a": 2, "none": 0, "b": 0})}
    )
    b = dataclasses.replace(
        b, settings={**b.settings, "resplits": _resplits(2, "z", "w", {"a": 1, "none": 1, "b": 0})}
    )
    merged = load_results([_save(a, tmp_path / "a.json"), _save(b, tmp_path / "b.json")])
    pd1998 = merged.settings["resplits"]["corpora"]["pd1998"]
    assert [(p["a"], p["b"], p["counts"]["a"]) for p in pd1998["pairs"]] == [
        ("x", "y", 2),
        ("z", "w", 1),
    ]
    assert pd1998["retrained"] == ["x", "z"]
    assert "| z | w | z better | 1 | 1 | 0 |" in render_report(merged, "md")
    other = dataclasses.replace(
        b, settings={**b.settings, "resplits": _resplits(3, "z", "w", {"a": 3, "none": 0, "b": 0})}
    )
    merged = load_results([_save(a, tmp_path / "a.json"), _save(other, tmp_path / "c.json")])
    assert [p["a"] for p in merged.settings["resplits"]["corpora"]["pd1998"]["pairs"]] == ["x"]
    assert any("3 re-splits (seed 7) are not shown" in n for n in merged.settings["notes"])


def test_merge_refuses_runs_that_differ_and_says_what_differs(bakeoff, tmp_path):
    a, b = _split(bakeoff, {"chars", "jieba"})
    other_seed = dataclasses.replace(b, settings={**b.settings, "seed": 1, "jobs": 9})
    with pytest.raises(CwsBenchError) as e:
        merge_results([a, other_seed], ["a.json", "b.json"])
    assert f"setting seed: {bakeoff.settings['seed']!r} in a.json, 1 in b.json" in str(e.value)
    assert "jobs" not in str(e.value)  # the number of workers changes no number

    one_corpus = dataclasses.replace(b, pairs=tuple(p for p in b.pairs if p.corpus == "sample"))
    with pytest.raises(
        CwsBenchError, match=r"corpora: a\.json has sample, pd1998; b\.json has sample"
    ):
        merge_results([a, one_corpus], ["a.json", "b.json"])

    with pytest.raises(
        CwsBenchError, match=r"segmenter chars on sample is in both a\.json and b\.json"
    ):
        merge_results([a, a], ["a.json", "b.json"])

    def other_gold(pair):
        signature = pair.signature.replace("gold:", "gold:0") if pair.signature else ""
        return dataclasses.replace(pair, signature=signature)

    changed = dataclasses.replace(b, pairs=tuple(other_gold(p) for p in b.pairs))
    with pytest.raises(CwsBenchError, match=r"corpus pd1998, signature gold: \w+ in a\.json, 0\w+"):
        merge_results([a, changed], ["a.json", "b.json"])


def test_the_cli_refuses_a_mismatch_and_bad_files_in_one_message(bakeoff, tmp_path):
    a, b = _split(bakeoff, {"chars", "jieba"})
    other = dataclasses.replace(b, settings={**b.settings, "resamples": 10})
    run = CliRunner().invoke(
        cli, ["report", str(_save(a, tmp_path / "a.json")), str(_save(other, tmp_path / "b.json"))]
    )
    assert run.exit_code == 2
    assert "cannot merge runs that differ" in run.output and "setting resamples" in run.output
    assert "Traceback" not in run.output

    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x",\n "pairs": [}\n', encoding="utf-8")
    run = CliRunner().invoke(cli, ["report", str(broken)])
    assert run.exit_code == 2 and f"{broken}:2: not JSON" in run.output

    not_results = tmp_path / "other.json"
    not_results.write_text(json.dumps({"hello": 1}), encoding="utf-8")
    run = CliRunner().invoke(cli, ["report", str(not_results)])
    assert run.exit_code == 2 and "not a bake-off's results.json" in run.output


def _nan(pair):
    pair["scores"]["f1"] = float("nan")


def _inf(pair):
    pair["scores"]["f1"] = float("inf")


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda pair: pair["scores"].update(f1="0.9"), "pairs.0.scores.f1"),
        (lambda pair: pair.pop("scores"), "pairs.0: 'scores' is a required property"),
        (lambda pair: pair["scores"].pop("f1"), "pairs.0.scores: 'f1' is a required"),
        (_nan, "pairs.0.scores.f1"),
        (_inf, "pairs.0.scores.f1"),
    ],
    ids=["F1 a string", "a pair without scores", "scores without F1", "F1 NaN", "F1 1e400"],
)
def test_report_refuses_a_malformed_results_file_naming_the_field(written, tmp_path, change, where):
    data = json.loads(written["json"].read_text(encoding="utf-8"))
    index = next(i for i, p in enumerate(data["pairs"]) if p["status"] == "ok")
    data["pairs"].insert(0, data["pairs"].pop(index))
    change(data["pairs"][0])
    text = json.dumps(data).replace("Infinity", "1e400")  # as a person would write it
    bad = tmp_path / "results.json"
    bad.write_text(text, encoding="utf-8")
    run = CliRunner().invoke(cli, ["report", str(bad), "--format", "markdown"])
    assert run.exit_code == 2, run.output
    assert run.exception is None or isinstance(run.exception, SystemExit)
    first = run.output.strip().splitlines()[0]
    assert first.startswith(f"error: {bad}: ") and where in first


def test_a_row_without_speed_renders_again(written, tmp_path):
    """A `file` segmenter's row has no speed (null rates): a valid results.json still renders."""
    data = json.loads(written["json"].read_text(encoding="utf-8"))
    pair = next(p for p in data["pairs"] if p["status"] == "ok")
    pair["timing"].update(chars_per_s=None, words_per_s=None)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    run = CliRunner().invoke(cli, ["report", str(path), "--format", "latex"])
    assert run.exit_code == 0, run.output
    assert "\\begin{table}" in run.output

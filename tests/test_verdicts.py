"""A real bake-off's verdicts: tracks, contamination, corrections, speed, exit codes, progress.

The run (the sample corpus, five segmenters in two tracks) is real: worker
processes, the run cache, the statistics and the reports, as `make run` does.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.metrics.significance import adjust_p_values
from cws_bench.results.model import BakeoffResult
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"

TRACKS = f"""
    name = "tracks"
    seed = 11
    resamples = 300
    timeout = 300

    [[corpora]]
    name = "sample"
    dictionary = "{SAMPLE_DICT}"

    [[segmenters]]
    name = "fmm"
    track = "closed"
    options = {{ lexicon = "{SAMPLE_DICT}" }}

    [[segmenters]]
    name = "bmm"
    track = "closed"
    options = {{ lexicon = "{SAMPLE_DICT}" }}

    [[segmenters]]
    name = "hmm"
    label = "hmm-seen"
    track = "closed"
    options = {{ corpus = "sample", split = "test" }}

    [[segmenters]]
    name = "file"
    label = "jieba-output"
    options = {{ path = "{SAMPLE / "pred.txt"}" }}

    [[segmenters]]
    name = "jieba"
    label = "jieba-nohmm"
    options = {{ hmm = false }}
"""


def write(folder: Path, body: str) -> Path:
    path = folder / "bakeoff.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, BakeoffResult]:
    folder = tmp_path_factory.mktemp("verdicts")
    result = run_bakeoff(load_config(write(folder, TRACKS)), output_dir=folder / "out", jobs=2)
    return folder, result


def test_comparisons_stay_within_a_track(run):
    _, result = run
    track = {p.segmenter: p.track for p in result.pairs}
    assert result.comparisons
    assert all(track[c.a] == track[c.b] for c in result.comparisons)
    # closed: fmm, bmm, hmm-seen (3 tests); open: the file and jieba (1 test)
    assert len(result.comparisons) == 4


def test_tracks_have_a_winner_each(run):
    _, result = run
    verdicts = {v.track: v for v in result.winners("sample")}
    assert list(verdicts) == ["closed", "open"]
    closed = [p for p in result.leaderboard("sample", "closed") if not p.contaminated]
    assert verdicts["closed"].winner is closed[0]
    assert closed[0].f1 == max(p.f1 for p in closed)
    assert verdicts["open"].winner.segmenter in {"jieba-output", "jieba-nohmm"}
    assert [p.track for p in result.leaderboard("sample")] == ["closed"] * 3 + ["open"] * 2


def test_a_segmenter_trained_on_the_test_data_never_wins(run):
    _, result = run
    seen = next(p for p in result.pairs if p.segmenter == "hmm-seen")
    assert seen.contaminated and any("data it has seen" in w for w in seen.warnings)
    # It has the best closed-track F1 (it memorised the test set) ...
    assert seen.f1 > max(p.f1 for p in result.pairs if p.track == "closed" and p is not seen)
    # ... but is listed last in its track, wins nothing and is in no one's letters.
    assert result.leaderboard("sample", "closed")[-1] is seen
    (closed, _) = result.winners("sample")
    assert closed.winner is not seen and closed.excluded == ("hmm-seen",)
    for c in result.comparisons:
        if "hmm-seen" in (c.a, c.b):
            assert c.adjusted_p_value is None and not c.significant


def test_letters_are_holm_corrected_within_each_track(run):
    _, result = run
    assert result.settings["correction"] == "holm"
    clean = [c for c in result.comparisons if "hmm-seen" not in (c.a, c.b)]
    closed = [c for c in clean if c.a != "jieba-output"]
    (open_,) = [c for c in clean if c.a == "jieba-output"]
    # the closed family: fmm against bmm only (hmm-seen is out); a family of one is uncorrected
    assert [c.adjusted_p_value for c in closed] == list(
        adjust_p_values([c.p_value for c in closed], method="holm")
    )
    assert open_.adjusted_p_value == open_.p_value
    for c in clean:
        assert c.significant == (c.adjusted_p_value < 0.05)


def test_the_reports_say_how_letters_were_decided(run):
    folder, _ = run
    markdown = (folder / "out" / "leaderboard.md").read_text("utf-8")
    assert "Closed track: best F" in markdown and "Open track: best F" in markdown
    assert "after Holm–Bonferroni correction" in markdown
    assert "letters are corrected for multiple comparisons" in markdown
    assert "*excluded: trained on this data*" in markdown
    html = (folder / "out" / "report.html").read_text("utf-8")
    assert html.count('class="card"') == 2  # who wins: one card per track
    data = json.loads((folder / "out" / "results.json").read_text("utf-8"))
    winners = {(w["corpus"], w["track"]): w for w in data["winners"]}
    assert winners["sample", "closed"]["excluded"] == ["hmm-seen"]
    assert winners["sample", "closed"]["winner"] != "hmm-seen"


def test_a_file_segmenter_has_no_speed(run):
    folder, result = run
    served = next(p for p in result.pairs if p.segmenter == "jieba-output")
    assert served.timing["chars_per_s"] is None and served.timing["words_per_s"] is None
    row = next(
        line
        for line in (folder / "out" / "leaderboard.md").read_text("utf-8").splitlines()
        if line.startswith("| ") and "jieba-output" in line
    )
    assert row.split("|")[11].strip() == "—"  # the chars/s column
    jieba = next(p for p in result.pairs if p.segmenter == "jieba-nohmm")
    assert jieba.timing["chars_per_s"] > 0


def test_a_correction_can_be_chosen_or_refused(tmp_path):
    config = load_config(write(tmp_path, TRACKS.replace('name = "tracks"', 'correction = "none"')))
    assert config.correction == "none"
    bad = write(tmp_path, TRACKS.replace('name = "tracks"', 'correction = "sidak"'))
    with pytest.raises(CwsBenchError, match="correction must be one of"):
        load_config(bad)


def test_rerun_from_the_cache_keeps_the_verdicts(run):
    folder, first = run
    second = run_bakeoff(load_config(folder / "bakeoff.toml"), output_dir=folder / "out", jobs=2)
    assert all(p.cached for p in second.pairs)
    assert [p.contaminated for p in second.pairs] == [p.contaminated for p in first.pairs]
    assert second.comparisons == first.comparisons


# ---------------------------------------------------------------------------
# The command line: exit codes and progress off a terminal

BROKEN = f"""
    name = "broken"
    resamples = 50
    timeout = 60

    [[corpora]]
    name = "sample"

    [[segmenters]]
    name = "fmm"
    options = {{ lexicon = "{SAMPLE_DICT}" }}

    [[segmenters]]
    name = "command"
    label = "crashes"
    options = {{ command = {json.dumps([sys.executable, "-c", "import sys; sys.exit(3)"])} }}
"""


def test_a_failed_pair_makes_the_run_exit_1(tmp_path):
    path = write(tmp_path, BROKEN)
    out = str(tmp_path / "out")
    result = CliRunner().invoke(cli, ["bakeoff", str(path), "-o", out, "--quiet"])
    assert result.exit_code == 1, result.output
    assert "1 pair not scored" in result.stderr and "--allow-failures" in result.stderr
    assert (tmp_path / "out" / "leaderboard.md").is_file()  # the reports are written first
    allowed = CliRunner().invoke(
        cli, ["bakeoff", str(path), "-o", out, "--quiet", "--allow-failures"]
    )
    assert allowed.exit_code == 0, allowed.output
    assert "crashes" in allowed.stdout


def test_a_pair_whose_training_data_is_absent_is_skipped_not_failed(tmp_path):
    """crf with no SIGHAN training split here: said, reported as skipped, exit 0."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    body = f"""
        name = "absent"
        resamples = 50

        [[corpora]]
        name = "sample"

        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}

        [[segmenters]]
        name = "crf"
        track = "closed"
        options = {{ corpus = "sighan2005-msr", data_dir = "{empty}" }}
    """
    path = write(tmp_path, body)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["bakeoff", str(path), "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "skipped: crf on sample: crf has no training data for sighan2005-msr" in result.stderr
    saved = BakeoffResult.from_dict(json.loads((out / "results.json").read_text("utf-8")))
    statuses = {pair.segmenter: pair.status for pair in saved.pairs}
    assert statuses == {"fmm": "ok", "crf": "skipped"}


def test_progress_off_a_terminal_is_one_line_per_pair(tmp_path):
    path = write(tmp_path, BROKEN)
    result = CliRunner().invoke(
        cli, ["bakeoff", str(path), "-o", str(tmp_path / "out"), "--allow-failures"]
    )
    assert result.exit_code == 0, result.output
    assert "\r" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert sorted(line.split("]")[0] for line in lines) == ["[1/2", "[2/2"]
    assert any(line.endswith(")") and "crashes on sample: failed" in line for line in lines)


def test_a_warning_about_the_corpus_is_printed_once(tmp_path):
    """Every segmenter gets the gold/raw difference of the corpus: one line, not one each."""
    raw = (SAMPLE / "raw.txt").read_text("utf-8").splitlines()
    raw[2] = "X" + raw[2][1:]  # the raw input differs from the gold text on line 3
    (tmp_path / "raw.txt").write_text("\n".join(raw) + "\n", encoding="utf-8")
    body = f"""
        name = "differs"
        resamples = 50

        [[corpora]]
        label = "mine"
        gold = "{SAMPLE / "gold.txt"}"
        raw = "raw.txt"

        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}

        [[segmenters]]
        name = "bmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}
    """
    path = write(tmp_path, body)
    result = CliRunner().invoke(cli, ["bakeoff", str(path), "-o", str(tmp_path / "out"), "--quiet"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: every segmenter (2) on mine: 1 line holds different characters in gold "
        "and prediction; scored through a character alignment"
    ]
    markdown = (tmp_path / "out" / "leaderboard.md").read_text("utf-8")
    assert markdown.count("holds different characters") == 1

"""Tests of cws_bench/records.py: a bake-off cache record is checked before it is used."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cws_bench.bakeoff import CACHE_VERSION, load_config, run_bakeoff
from cws_bench.records import load_record, record_checksum, record_problems, store_record

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"

CONFIG = f"""
name = "records"
resamples = 20

[[corpora]]
name = "sample"

[[segmenters]]
name = "fmm"
options = {{ dictionary = "{SAMPLE_DICT}" }}
"""


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    (folder / "bakeoff.toml").write_text(CONFIG, encoding="utf-8")
    config = load_config(folder / "bakeoff.toml")
    result = run_bakeoff(config, output_dir=folder / "out", jobs=1, write=False)
    (path,) = (folder / "out" / "cache").glob("*.json")
    return config, result, path


def rerun_with(first_run, tmp_path, corrupt):
    """Rerun the bake-off with its one cache record replaced by ``corrupt(record)``."""
    config, result, path = first_run
    out = tmp_path / "out"
    shutil.copytree(path.parent.parent, out)
    cached = out / "cache" / path.name
    record = json.loads(path.read_text(encoding="utf-8"))
    changed = corrupt(record)
    cached.write_text(
        changed if isinstance(changed, str) else json.dumps(changed), encoding="utf-8"
    )
    again = run_bakeoff(config, output_dir=out, jobs=1, write=False)
    return result, again, cached


def edit_scores(**values):
    def corrupt(record):
        record["scores"].update(values)
        return record

    return corrupt


def drop(key):
    def corrupt(record):
        del record[key]
        return record

    return corrupt


def edit_timing(record):
    record["timing"]["chars_per_s"] = 10 * record["timing"]["chars_per_s"]
    return record


def truncate_counts(record):
    record["sentence_counts"] = record["sentence_counts"][:-1]
    record.pop("checksum")
    return record


@pytest.mark.parametrize(
    ("corrupt", "problem"),
    [
        (lambda record: [], "is not of type 'object'"),
        (lambda record: "{not json", "unreadable cache record"),
        (drop("scores"), "'scores' is a required property"),
        (edit_scores(f1="high"), "scores.f1: 'high' is not of type 'number'"),
        (edit_scores(f1=0.908), "scores.f1 is 0.908 but its counts"),
        (edit_timing, "the checksum does not match"),
        (truncate_counts, "sentence_counts sum to"),
    ],
    ids=["list", "not-json", "no-scores", "f1-text", "f1-digit", "edited-timing", "cut-counts"],
)
def test_an_invalid_record_is_recomputed_with_a_warning(first_run, tmp_path, corrupt, problem):
    result, again, cached = rerun_with(first_run, tmp_path, corrupt)
    (pair,) = again.pairs
    assert pair.ok and not pair.cached
    assert pair.scores == result.pairs[0].scores
    (note,) = again.settings["notes"]
    assert note.startswith(f"{cached}: ")
    assert problem in note
    assert "running the pair again" in note
    record, warning = load_record(cached, version=CACHE_VERSION)  # rewritten, valid
    assert warning is None and record["scores"] == pair.scores


def test_a_valid_record_is_used_as_stored(first_run, tmp_path):
    result, again, _ = rerun_with(first_run, tmp_path, lambda record: record)
    assert again.pairs[0].cached
    assert again.settings["notes"] == []
    assert again.pairs[0].scores == result.pairs[0].scores


def test_a_record_of_another_version_is_silently_ignored(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"version": CACHE_VERSION - 1}), encoding="utf-8")
    assert load_record(path, version=CACHE_VERSION) == (None, None)
    assert load_record(tmp_path / "none.json", version=CACHE_VERSION) == (None, None)


def test_the_checksum_survives_the_round_trip(first_run, tmp_path):
    record = json.loads(first_run[2].read_text(encoding="utf-8"))
    record.pop("checksum")
    record["tuple"] = (1, 2)  # written as a list
    store_record(tmp_path / "r.json", record)
    stored = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert stored["checksum"] == record_checksum(record) == record_checksum(stored)
    assert record_problems(stored) == []


def test_impossible_counts_are_refused():
    record = json.loads(json.dumps(_minimal()))
    record["scores"]["correct_words"] = 9
    assert record_problems(record) == ["scores: 9 correct words of 5 predicted and 4 gold"]


def _minimal():
    kinds = ("splits", "merges", "crossings", "missed_oov", "recall_by_length")
    analysis = {kind: [] for kind in kinds}
    return {
        "version": CACHE_VERSION,
        "scores": {
            "precision": 0.6,
            "recall": 0.75,
            "f1": 2 * 3 / 9,
            "gold_words": 4,
            "pred_words": 5,
            "correct_words": 3,
        },
        "sentence_counts": [[3, 5, 4]],
        "analysis": {**analysis, "distinct": {}},
        "timing": {},
        "peak_memory_mib": 1.0,
        "warnings": [],
        "segmenter_info": {},
    }


def test_runs_of_empty_lines_are_packed_on_file(tmp_path):
    record = _minimal()
    record["sentence_counts"] = [[0, 0, 0]] * 1000 + [[3, 5, 4]] + [[0, 0, 0]] * 999
    record["timing"] = {"sentences": 2000}
    path = tmp_path / "r.json"
    store_record(path, record)
    assert json.loads(path.read_text(encoding="utf-8"))["sentence_counts"] == [1000, [3, 5, 4], 999]
    assert path.stat().st_size < 1000
    loaded, warning = load_record(path, version=CACHE_VERSION)
    assert warning is None
    assert loaded == record
    # One empty row fewer: the sums agree, the number of sentences does not.
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["sentence_counts"][-1] = 998
    stored.pop("checksum")
    path.write_text(json.dumps(stored), encoding="utf-8")
    loaded, warning = load_record(path, version=CACHE_VERSION)
    assert loaded is None
    assert "sentence_counts has 1999 rows for 2000 sentences" in warning

"""Tests of cws_bench/regression/baseline.py: recording, signatures, files, speed."""

from __future__ import annotations

import itertools
import json
import shutil

import pytest

from cws_bench.corpora import get_corpus, sentences_checksum
from cws_bench.errors import CwsBenchError
from cws_bench.regression.baseline import Baseline, Bounds
from cws_bench.regression.baseline_file import load_baseline, save_baseline
from cws_bench.regression.recording import (
    as_corpus_spec,
    measure_speed,
    record_baseline,
    rerun_baseline,
)
from cws_bench.run.config import CorpusSpec
from cws_bench.segmenters import get_segmenter
from cws_bench.text.checksums import file_checksum


def test_record_scores_counts_and_signature(experiment):
    baseline = experiment.record()
    (record,) = baseline.records
    assert record.label == "gold"
    assert record.scores["f1"] == 1.0 and record.scores["gold_words"] == 7
    assert record.sentence_counts == ((4, 4, 4), (3, 3, 3))
    assert record.segmentation == ("研究 人员 发现 问题", "今天 上午 下雨")
    gold = [line.split() for line in experiment.gold.read_text(encoding="utf-8").splitlines()]
    assert record.identity.corpus_checksum == sentences_checksum(iter(gold))
    assert record.identity.dictionary_checksum is None  # a file corpus has no OOV dictionary
    # The word list enters the signature by its content, not its path.
    assert record.segmenter.options["lexicon"] == f"file:{file_checksum(experiment.words)}"
    signature = record.identity.signature
    assert f"gold:{record.identity.corpus_checksum}" in signature
    assert "|seg:fmm|segver:0.1.0|opts:" in signature and signature.endswith("resamples:1000")
    assert baseline.segmenter.version == "0.1.0" and baseline.segmenter.registered
    assert baseline.bounds == Bounds({"f1": 0.0})
    assert record.speed.characters == 14 and record.speed.chars_per_s > 0


def test_a_registered_corpus_has_its_dictionary(experiment):
    baseline = record_baseline(
        "fmm", ["sample"], options={"lexicon": "corpus:sample"}, speed_runs=1
    )
    (record,) = baseline.records
    assert record.identity.dictionary_checksum == get_corpus("sample").dictionary().checksum
    assert record.identity.corpus_checksum == get_corpus("sample").checksum("test")
    assert record.scores["oov_recall"] is not None
    # A spec that is not a file stays as it is in the signature.
    assert record.segmenter.options["lexicon"] == "corpus:sample"


def test_save_and_load_round_trip_with_relative_paths(experiment):
    baseline = experiment.record()
    path = experiment.folder / "baselines" / "fmm.json"
    path.parent.mkdir()
    save_baseline(baseline, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "cws-bench baseline" and data["format_version"] == 1
    assert data["segmenter"]["options"] == {"lexicon": "../words.txt"}
    assert data["segmenter"]["paths"] == ["lexicon"]
    assert data["corpora"][0]["corpus"]["gold"] == "../gold.txt"
    assert data["corpora"][0]["sentence_counts"] == [[4, 4, 4], [3, 3, 3]]
    assert "[4, 4, 4]" in path.read_text(encoding="utf-8")  # a row a line
    loaded = load_baseline(path)
    assert loaded == baseline
    assert Baseline.from_dict(baseline.to_dict(experiment.folder), experiment.folder) == baseline


def test_a_moved_baseline_is_the_same_experiment(experiment, tmp_path_factory):
    baseline = experiment.record()
    save_baseline(baseline, experiment.folder / "baseline.json")
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "project"
    shutil.copytree(experiment.folder, elsewhere)
    moved = load_baseline(elsewhere / "baseline.json")
    assert moved.segmenter.options["lexicon"] == str(elsewhere / "words.txt")
    again = rerun_baseline(moved)
    assert again.records[0].identity == baseline.records[0].identity
    assert again.records[0].scores == baseline.records[0].scores


def test_a_changed_word_list_changes_the_signature_and_the_scores(experiment):
    baseline = experiment.record()
    experiment.add_word()
    again = rerun_baseline(baseline)
    old, new = baseline.records[0], again.records[0]
    assert new.scores["f1"] == 10 / 13
    assert new.sentence_counts == ((2, 3, 4), (3, 3, 3))
    assert new.identity.key != old.identity.key
    assert new.identity.signature != old.identity.signature
    assert new.identity.corpus_checksum == old.identity.corpus_checksum
    assert new.segmenter.options["lexicon"] != old.segmenter.options["lexicon"]
    # Replacing an option is a run of a different configuration.
    plain = rerun_baseline(baseline, options={"keep_runs": False})
    assert plain.segmenter.options["keep_runs"] is False


def test_callables_segmenters_and_batches():
    def by_character(text):
        return list(text)

    def batch(lines):
        return [list(line) for line in lines]

    one = record_baseline(by_character, ["sample"], speed_runs=1, min_run_seconds=0)
    many = record_baseline(
        batch, ["sample"], batch=True, name="chars", version="2", speed_runs=1, min_run_seconds=0
    )
    assert one.records[0].scores == many.records[0].scores
    assert one.segmenter.name.endswith("by_character") and not one.segmenter.registered
    assert (
        many.segmenter.version == "2"
        and "|seg:chars|segver:2|" in many.records[0].identity.signature
    )
    fmm = get_segmenter("fmm", lexicon="corpus:sample")
    made = record_baseline(fmm, ["sample"], speed_runs=1, min_run_seconds=0)
    named = record_baseline(
        "fmm", ["sample"], options={"lexicon": "corpus:sample"}, speed_runs=1, min_run_seconds=0
    )
    assert made.records[0].scores == named.records[0].scores
    with pytest.raises(CwsBenchError, match="cannot be rebuilt"):
        rerun_baseline(one)
    assert rerun_baseline(one, by_character).records[0].scores == one.records[0].scores


def test_a_tokenizer_that_loses_characters_is_named():
    with pytest.raises(CwsBenchError, match=r"segmenter drop_last: .*words joined"):
        record_baseline(lambda text: list(text[:-1]), ["sample"], name="drop_last", speed_runs=1)


def test_a_nondeterministic_tokenizer_is_reported():
    calls = itertools.count()

    def moody(text):  # whole lines on the first pass over the 40 lines, characters later
        return [text] if next(calls) < 40 else list(text)

    baseline = record_baseline(moody, ["sample"], speed_runs=2, min_run_seconds=0)
    assert [w for w in baseline.records[0].warnings if "not deterministic" in w] == [
        "not deterministic: 1 of the timed passes gave a different segmentation than the "
        "first (the scores are the first pass')"
    ]
    assert baseline.records[0].scores["pred_words"] == 40


class FakeClock:
    """perf_counter that moves by ``step`` seconds each time it is read twice."""

    def __init__(self, step):
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self):
        self.reads += 1
        if self.reads % 2 == 0:
            self.now += self.step
        return self.now


def test_speed_is_the_median_of_runs_timed_inside_segment():
    lines = ["我们是", "学生", "你好"]  # 7 characters
    calls = []

    def segment(batch):
        calls.append(len(batch))
        return [list(line) for line in batch]

    # Each segment() call takes 0.5 s: 2 calls a pass (batches of 2 and 1), so 1 s a pass.
    speed, output, differing = measure_speed(
        segment, lines, runs=3, batch_size=2, min_run_seconds=0.2, clock=FakeClock(0.5)
    )
    assert speed.runs == (7.0, 7.0, 7.0) and speed.chars_per_s == 7.0
    assert speed.passes == 1 and calls == [2, 1] * 3
    assert output == [["我", "们", "是"], ["学", "生"], ["你", "好"]] and differing == 0
    # A fast corpus is repeated until a run lasts min_run_seconds: 0.25 s a pass -> 4 passes.
    speed, _, _ = measure_speed(
        segment, lines, runs=2, batch_size=2, min_run_seconds=1.0, clock=FakeClock(0.125)
    )
    assert speed.passes == 4 and speed.runs == (28.0, 28.0)


def test_speed_median_and_spread():
    clock_steps = iter([1.0, 2.0, 4.0])  # three one-call runs: 7, 3.5 and 1.75 characters/s

    class StepClock:
        now = 0.0
        reads = 0

        def __call__(self):
            self.reads += 1
            if self.reads % 2 == 0:
                self.now += next(clock_steps)
            return self.now

    speed, _, _ = measure_speed(
        lambda batch: [list(x) for x in batch],
        ["我们是学生你好"],
        runs=3,
        min_run_seconds=0,
        clock=StepClock(),
    )
    assert speed.runs == (7.0, 3.5, 1.75) and speed.chars_per_s == 3.5
    assert speed.spread == pytest.approx((7.0 - 1.75) / 3.5)


def test_corpus_specs(experiment):
    assert as_corpus_spec("pd1998:train") == CorpusSpec(
        "pd1998:train", name="pd1998", split="train"
    )
    spec = as_corpus_spec(str(experiment.gold), dictionary="corpus:sample")
    assert (spec.label, spec.gold, spec.dictionary) == (
        "gold",
        str(experiment.gold),
        "corpus:sample",
    )
    with pytest.raises(CwsBenchError, match="neither a registered corpus nor a file"):
        as_corpus_spec("no-such-corpus")
    with pytest.raises(CwsBenchError, match="corpus given twice"):
        record_baseline("fmm", ["sample", "sample"], options={"lexicon": "corpus:sample"})
    with pytest.raises(CwsBenchError, match="no corpus"):
        record_baseline("fmm", [])


def test_bounds():
    assert Bounds().merged({"oov_recall": 2.0}, 30) == Bounds({"f1": 0.0, "oov_recall": 2.0}, 30)
    assert Bounds({"f1": 1.0}, 10).merged() == Bounds({"f1": 1.0}, 10)
    assert Bounds.from_dict(Bounds({"recall": 0.5}, 5.0).to_dict()) == Bounds({"recall": 0.5}, 5.0)
    with pytest.raises(CwsBenchError, match="no score 'fscore'"):
        Bounds({"fscore": 1.0})
    with pytest.raises(CwsBenchError, match=">= 0"):
        Bounds({"f1": -1.0})
    with pytest.raises(CwsBenchError, match=r"\[0, 100\]"):
        Bounds(speed=150)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such baseline file"),
        ("{\n  'f1': 1\n}", r"baseline\.json:2: column 3: not valid JSON"),
        ('{"format": "something else"}', "not a cws-bench baseline"),
        ('{"format": "cws-bench baseline", "format_version": 99}', "format version 99"),
        ('{"format": "cws-bench baseline", "format_version": 1}', "malformed baseline"),
    ],
)
def test_bad_baseline_files(tmp_path, content, message):
    path = tmp_path / "baseline.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(CwsBenchError, match=message):
        load_baseline(path)

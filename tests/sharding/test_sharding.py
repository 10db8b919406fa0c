"""Shards, executors and sharded runs: the same bytes and numbers as a serial run.

A local Dask cluster (two one-thread workers on 127.0.0.1) and two local
worker processes serve the whole module and are always closed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cws_bench.errors import LineCountMismatchError, SegmenterError
from cws_bench.run.executors import LocalExecutor, ShardFailedError
from cws_bench.run.sharded import score_sharded, segment_sharded
from cws_bench.run.shards import plan_shards, read_shard_lines
from cws_bench.scoring import score_files
from cws_bench.segmenters import get_segmenter, segment_file
from cws_bench.text.io import iter_lines

# The fault tasks are imported by name in the workers (spawned after this).
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))
from faults import FaultyExecutor, loading
from unsharded import PairTask, run_pair

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "corpora" / "sample"
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"


@pytest.fixture(scope="module")
def local() -> Iterator[LocalExecutor]:
    with LocalExecutor(2, retries=1) as executor:
        yield executor


@pytest.fixture(scope="module")
def dask_executor() -> Iterator[object]:
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    from cws_bench.run.executors import DaskExecutor

    executor = DaskExecutor(jobs=2, retries=1)
    try:
        yield executor
    finally:
        executor.close()


def _executor(request: pytest.FixtureRequest, name: str) -> object:
    return request.getfixturevalue("local" if name == "local" else "dask_executor")


# ---------------------------------------------------------------- planning


def _write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def _reassembled(path: Path, plan: object, side: int) -> list[str]:
    lines: list[str] = []
    for shard in plan.shards:
        part = read_shard_lines(path, shard.ranges[side], shard.first_line)
        assert len(part) == shard.lines
        lines += part
    return lines


def test_shards_reassemble_the_lines_for_every_size(tmp_path: Path) -> None:
    # A byte-order mark, CRLF, empty lines (first, inside, last) and no final newline.
    gold = _write(tmp_path / "gold.txt", "\ufeff\r\n我们 是\r\n\r\n学生 。\n\n你 好\n\n今天 下雨")
    raw = _write(tmp_path / "raw.txt", "\ufeff\r\n我们是\r\n\r\n学生。\n\n你好\n\n今天下雨")
    expected = (list(iter_lines(gold)), list(iter_lines(raw)))
    assert len(expected[0]) == len(expected[1]) == 8
    for size in range(1, 20):
        plan = plan_shards([gold, raw], shard_chars=size)
        assert plan.line_counts == (8, 8)
        assert _reassembled(gold, plan, 0) == expected[0]
        assert _reassembled(raw, plan, 1) == expected[1]
        starts = [s.first_line for s in plan.shards]
        assert starts[0] == 0
        assert starts == sorted(set(starts))
        assert plan.shards[-1].first_line + plan.shards[-1].lines == 8


def test_one_sentence_shards_and_boundaries_at_first_and_last_line(tmp_path: Path) -> None:
    gold = _write(tmp_path / "g.txt", "甲 乙\n丙\n丁 戊 己\n")
    raw = _write(tmp_path / "r.txt", "甲乙\n丙\n丁戊己\n")
    plan = plan_shards([gold, raw], shard_chars=1)
    # a shard ends at the first line end after one character: one sentence each
    assert [(s.first_line, s.lines, s.characters) for s in plan.shards] == [
        (0, 1, 3),  # gold characters, the spaces included: "甲 乙"
        (1, 1, 1),
        (2, 1, 5),
    ]
    assert plan.shards[0].ranges == ((0, 8), (0, 7))  # byte ranges differ, lines line up
    assert plan.shards[-1].ranges[1] == (11, len("甲乙\n丙\n丁戊己\n".encode()))


def test_a_corpus_smaller_than_one_shard_and_an_empty_file(tmp_path: Path) -> None:
    raw = _write(tmp_path / "r.txt", "甲乙\n丙\n")
    plan = plan_shards([raw], shard_chars=10**9)
    assert [(s.first_line, s.lines, s.ranges) for s in plan.shards] == [(0, 2, ((0, 11),))]
    empty = _write(tmp_path / "e.txt", b"")
    assert plan_shards([empty]).shards == ()


def test_standard_input_and_utf16_are_refused(tmp_path: Path) -> None:
    from cws_bench.errors import CwsBenchError

    with pytest.raises(CwsBenchError, match="standard input"):
        plan_shards(["-"])
    path = _write(tmp_path / "u.txt", "我们\n".encode("utf-16"))
    with pytest.raises(CwsBenchError, match="utf-16"):
        plan_shards([path], encodings=["utf-16"])


# ---------------------------------------------------------------- identical numbers


@pytest.mark.parametrize("executor_name", ["local", "dask"])
def test_sample_corpus_identical_to_a_serial_run(
    request: pytest.FixtureRequest, executor_name: str, tmp_path: Path
) -> None:
    executor = _executor(request, executor_name)
    raw, gold = SAMPLE / "raw.txt", SAMPLE / "gold.txt"
    serial_out, sharded_out = tmp_path / "serial.txt", tmp_path / "sharded.txt"
    segment_file(get_segmenter("fmm", lexicon=str(SAMPLE_DICT)), raw, serial_out)
    stats = segment_sharded(
        "fmm",
        raw,
        sharded_out,
        executor=executor,
        options={"lexicon": str(SAMPLE_DICT)},
        shard_chars=60,
    )
    assert stats.shards > 5
    assert sharded_out.read_bytes() == serial_out.read_bytes()
    # the segmenter is loaded at most once per worker
    workers = [load.worker for load in stats.loads]
    assert 1 <= len(workers) == len(set(workers)) <= 2
    for method in ("interval", "sighan"):
        for pred in (SAMPLE / "pred.txt", sharded_out):
            expected = score_files(gold, pred, dictionary=SAMPLE_DICT, method=method, per_line=True)
            got = score_sharded(
                gold,
                pred,
                executor=executor,
                dictionary=SAMPLE_DICT,
                method=method,
                per_line=True,
                shard_chars=50,
            )
            assert got == expected
            assert got.to_dict() == expected.to_dict()


def test_mismatched_lines_and_line_counts_as_score_files(
    local: LocalExecutor, tmp_path: Path
) -> None:
    gold = _write(tmp_path / "g.txt", "我们 是\n\n学生\n今天 下雨\n好\n")
    pred = _write(tmp_path / "p.txt", "我们是\n多余\n学 生\n今天 下 雨\n")
    with pytest.raises(LineCountMismatchError):
        score_sharded(gold, pred, executor=local, shard_chars=2)
    for method in ("interval", "sighan"):
        expected = score_files(gold, pred, method=method, allow_line_mismatch=True, per_line=True)
        got = score_sharded(
            gold,
            pred,
            executor=local,
            method=method,
            allow_line_mismatch=True,
            per_line=True,
            shard_chars=2,
        )
        assert got == expected
        assert got.warnings == expected.warnings
    empty = _write(tmp_path / "e.txt", b"")
    assert score_sharded(empty, empty, executor=local) == score_files(empty, empty)


def test_real_sighan_corpora_identical(
    request: pytest.FixtureRequest, icwb2: Path, tmp_path: Path
) -> None:
    dask_executor = request.getfixturevalue("dask_executor")
    for corpus in ("pku",):
        gold = icwb2 / "gold" / f"{corpus}_test_gold.utf8"
        raw = icwb2 / "testing" / f"{corpus}_test.utf8"
        words = icwb2 / "gold" / f"{corpus}_training_words.utf8"
        serial, sharded = tmp_path / f"{corpus}.serial", tmp_path / f"{corpus}.dask"
        segment_file(get_segmenter("fmm", lexicon=str(words)), raw, serial)
        segment_sharded(
            "fmm",
            raw,
            sharded,
            executor=dask_executor,
            options={"lexicon": str(words)},
            shard_chars=40_000,
        )
        assert sharded.read_bytes() == serial.read_bytes()
        expected = score_files(gold, serial, dictionary=words, per_line=True)
        for executor in (request.getfixturevalue("local"), dask_executor):
            got = score_sharded(
                gold,
                sharded,
                executor=executor,
                dictionary=words,
                per_line=True,
                shard_chars=30_000,
            )
            assert got == expected


# ---------------------------------------------------------------- faults


@pytest.mark.parametrize("executor_name", ["local", "dask"])
def test_a_worker_killed_mid_run_changes_nothing(
    request: pytest.FixtureRequest, executor_name: str, tmp_path: Path
) -> None:
    executor = _executor(request, executor_name)
    gold, pred = SAMPLE / "gold.txt", SAMPLE / "pred.txt"
    marker = tmp_path / "killed"
    faulty = FaultyExecutor(executor, "die-once", str(marker), 3)
    got = score_sharded(gold, pred, executor=faulty, dictionary=SAMPLE_DICT, shard_chars=50)
    assert marker.exists()  # the worker running shard 3 was killed, and it ran again
    assert got == score_files(gold, pred, dictionary=SAMPLE_DICT)
    out = tmp_path / "out.txt"
    os.remove(marker)
    segment_sharded(
        "fmm",
        SAMPLE / "raw.txt",
        out,
        executor=faulty,
        options={"lexicon": str(SAMPLE_DICT)},
        shard_chars=60,
    )
    assert marker.exists()
    segment_file(get_segmenter("fmm", lexicon=str(SAMPLE_DICT)), SAMPLE / "raw.txt", tmp_path / "s")
    assert out.read_bytes() == (tmp_path / "s").read_bytes()


@pytest.mark.parametrize("executor_name", ["local", "dask"])
def test_a_shard_that_always_crashes_fails_with_the_reason(
    request: pytest.FixtureRequest, executor_name: str, tmp_path: Path
) -> None:
    executor = _executor(request, executor_name)
    faulty = FaultyExecutor(executor, "die", str(tmp_path / "m"), 2)
    out = tmp_path / "out.txt"
    with pytest.raises(ShardFailedError, match=r"raw.txt: shard 3 \(lines \d+-\d+\).*died"):
        segment_sharded(
            "fmm",
            SAMPLE / "raw.txt",
            out,
            executor=faulty,
            options={"lexicon": str(SAMPLE_DICT)},
            shard_chars=60,
        )
    assert not out.exists()  # nothing half-written
    # the executor still works afterwards
    assert list(executor.map(pow, 2, [3, 4])) == [8, 16]


def test_a_worker_loads_what_another_holds_only_when_it_pays() -> None:
    """An idle worker does not load a segmenter another worker holds for its last few
    shards (the holder finishes them before the load would); it does for many."""
    with LocalExecutor(2) as executor:
        # "slow" loads in 1.5 s and has 4 items of 0.1 s: one worker runs them all, the
        # other runs "quick" and then waits
        context = {"load_s": {"slow": 1.5, "quick": 0.0}, "run_s": 0.1}
        items = ["slow", "quick", "slow", "slow", "slow"]
        ran = list(executor.map(loading, context, items, affinity=lambda item: item))
        assert [key for key, _ in ran] == items
        assert len({pid for key, pid in ran if key == "slow"}) == 1
    with LocalExecutor(2) as executor:
        # 40 items of one key: the second worker loads it too, at once
        context = {"load_s": {"many": 0.3}, "run_s": 0.05}
        ran = list(executor.map(loading, context, ["many"] * 40, affinity=lambda item: item))
        assert len({pid for _, pid in ran}) == 2


def test_a_hung_shard_is_killed_after_the_timeout(tmp_path: Path) -> None:
    with LocalExecutor(2, timeout=1.0, retries=1) as executor:
        faulty = FaultyExecutor(executor, "hang", str(tmp_path / "m"), 1)
        with pytest.raises(ShardFailedError, match=r"failed 2 times: .*timeout of 1 s"):
            list(faulty.map(pow, 2, [1, 2, 3]))
        pids = executor.worker_pids()
        assert list(executor.map(pow, 2, [5])) == [32]  # the idle workers serve on
    assert executor.worker_pids() == []
    for pid in pids:  # all stopped and reaped
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_an_error_of_the_task_is_raised_as_is(local: LocalExecutor, tmp_path: Path) -> None:
    faulty = FaultyExecutor(local, "raise", str(tmp_path / "m"), 1)
    with pytest.raises(ValueError, match="no good: item 1"):
        list(faulty.map(pow, 2, [0, 1, 2]))
    bad = _write(tmp_path / "bad.txt", "甲乙\n丙\n")
    with pytest.raises(SegmenterError, match="no-such-segmenter"):
        segment_sharded("no-such-segmenter", bad, tmp_path / "o.txt", executor=local)


# ---------------------------------------------------------------- command line


def test_cli_segment_and_score_with_executors(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cws_bench.cli import cli

    runner = CliRunner()
    raw, gold = str(SAMPLE / "raw.txt"), str(SAMPLE / "gold.txt")
    serial, local_out = str(tmp_path / "serial.txt"), str(tmp_path / "local.txt")
    args = ["segment", "-s", "fmm", "--dict", str(SAMPLE_DICT), raw]
    assert runner.invoke(cli, [*args, "-o", serial]).exit_code == 0
    result = runner.invoke(
        cli, [*args, "-o", local_out, "--executor", "local", "--jobs", "2", "--shard-chars", "80"]
    )
    assert result.exit_code == 0, result.output
    assert Path(local_out).read_bytes() == Path(serial).read_bytes()
    score = ["score", gold, serial, "--dict", str(SAMPLE_DICT), "--format", "json"]
    expected = runner.invoke(cli, score)
    sharded = runner.invoke(
        cli, [*score, "--executor", "local", "--jobs", "2", "--shard-chars", "50"]
    )
    assert sharded.exit_code == 0, sharded.output
    assert sharded.output == expected.output
    refused = runner.invoke(cli, ["score", "sample", serial, "--executor", "local"])
    assert refused.exit_code == 2
    assert "only a plain gold file" in refused.output


def test_an_interrupted_run_leaves_no_worker_behind() -> None:
    pids: list[int] = []
    executor = LocalExecutor(2)

    def interrupt(index: int, result: int) -> None:
        pids.extend(executor.worker_pids())
        raise KeyboardInterrupt  # what Ctrl-C raises in the driver

    def run() -> None:
        with executor:
            list(executor.map(pow, 2, list(range(20)), done=interrupt))

    with pytest.raises(KeyboardInterrupt):
        run()
    assert len(pids) == 2
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


# ---------------------------------------------------------------- one definition of a character


def test_every_runner_counts_the_same_characters(tmp_path, local):
    """segment, a big file's shards, the bake-off and a baseline (timed and in shards) count a
    speed's characters alike: the input's characters without whitespace (ideographic space too)."""
    from cws_bench.regression import measure_speed, record_baseline
    from cws_bench.run.config import CorpusSpec, SegmenterSpec

    lines = ["我们 是学生", "今天\u3000下雨", "", "OK 了"]
    expected = 5 + 4 + 0 + 3  # by hand: the spaces are not characters
    raw = _write(tmp_path / "raw.txt", "\n".join(lines) + "\n")
    gold = _write(tmp_path / "gold.txt", "我们 是 学生\n今天 下雨\n\nOK 了\n")
    options = {"lexicon": str(SAMPLE_DICT)}
    fmm = get_segmenter("fmm", **options)

    streamed = segment_file(fmm, raw, tmp_path / "out.txt", batch_size=2)
    sharded = segment_sharded(
        "fmm", raw, tmp_path / "sharded.txt", executor=local, options=options, shard_chars=4
    )
    corpus = CorpusSpec("mine", gold=str(gold), raw=str(raw), format="plain")
    record = run_pair(PairTask(corpus, SegmenterSpec("fmm", "fmm"), options, "key", 2, None))
    speed, _, _ = measure_speed(fmm.segment, lines, runs=1, min_run_seconds=0)
    timed = record_baseline("fmm", [corpus], options=options, speed_runs=1, min_run_seconds=0)
    in_shards = record_baseline("fmm", [corpus], options=options, executor=local, shard_chars=4)
    assert [
        streamed.characters,
        sharded.characters,
        record.timing.characters,
        speed.characters,
        timed.records[0].speed.characters,
        in_shards.records[0].speed.characters,
    ] == [expected] * 6

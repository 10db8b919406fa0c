"""The bake-off on executors: serial, local-sharded and Dask runs give the same numbers.

Small batches and shards on the sample corpus make many shards per pair. A
local Dask cluster (two one-thread workers on 127.0.0.1) serves the module and
is always closed.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cws_bench.results.model import BakeoffResult
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config
from cws_bench.run.executors import LocalExecutor

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))
from faults import FaultyExecutor
from unsharded import PairTask, run_pair

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"

JIEBA = '\n[[segmenters]]\nname = "jieba"\n'
PAIRS = '\n[[segmenters]]\nname = "pairs"\nlabel = "mine"\n'


@pytest.fixture(scope="session")
def sample(sample_bakeoff: Callable[..., str]) -> Callable[[str], str]:
    """The shared sample bake-off (tests/conftest.py) as these tests run it: batches of 4
    sentences, so shards of one batch each (shard_chars=1) make 10 per pair; ``extra``
    TOML after fmm and bmm (by default jieba)."""

    def make(extra: str = JIEBA) -> str:
        settings = {"seed": 11, "resamples": 200, "timeout": 120, "batch_size": 4}
        corpus = {"dictionary": str(SAMPLE_DICT)}
        return sample_bakeoff("sharded", settings=settings, corpus=corpus, extra=extra)

    return make


def _config(folder: Path, body: str) -> Any:
    path = folder / "bakeoff.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return load_config(path)


def numbers(result: BakeoffResult) -> dict[str, Any]:
    """Everything of a result that is not a time, a memory figure or a run setting."""
    data = json.loads(json.dumps(result.to_dict()))
    pairs = []
    for pair in data["pairs"]:
        pair = dict(pair)
        for key in ("timing", "peak_memory_mib", "cached"):
            pair.pop(key, None)
        pairs.append(pair)
    return {"pairs": pairs, "comparisons": data["comparisons"]}


@pytest.fixture(scope="module")
def local() -> Iterator[LocalExecutor]:
    with LocalExecutor(2, retries=1) as executor:
        yield executor


@pytest.fixture(scope="module")
def dask_executor() -> Iterator[Any]:
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    from cws_bench.run.executors import DaskExecutor

    executor = DaskExecutor(jobs=2, retries=1)
    try:
        yield executor
    finally:
        executor.close()


@pytest.fixture(scope="module")
def serial(
    tmp_path_factory: pytest.TempPathFactory, sample: Callable[..., str]
) -> tuple[Any, BakeoffResult]:
    """The unsharded run: one shard per pair, one worker."""
    folder = tmp_path_factory.mktemp("serial")
    config = _config(folder, sample())
    result = run_bakeoff(
        config, output_dir=folder / "out", jobs=1, shard_chars=10**9, use_cache=False
    )
    assert result.settings["shards"] == 3
    return config, result


def test_the_unsharded_run_is_the_pairs_own_run(serial: tuple[Any, BakeoffResult]) -> None:
    """The runner's rows equal execute.run_pair's (a whole pair in one process)."""
    config, result = serial
    for spec in config.segmenters:
        corpus = config.corpora[0]
        task = PairTask(corpus, spec, spec.options_for(corpus), "key", config.batch_size, None)
        record = run_pair(task)
        (pair,) = [p for p in result.pairs if p.segmenter == spec.label]
        assert pair.scores == record.scores
        assert pair.analysis == record.analysis
        assert pair.warnings == record.warnings
        assert pair.segmenter_info == record.segmenter_info.to_dict()


@pytest.mark.parametrize("executor_name", ["local", "dask"])
def test_sharded_runs_give_the_serial_numbers(
    request: pytest.FixtureRequest,
    serial: tuple[Any, BakeoffResult],
    executor_name: str,
    tmp_path: Path,
) -> None:
    config, expected = serial
    executor = request.getfixturevalue("local" if executor_name == "local" else "dask_executor")
    result = run_bakeoff(config, output_dir=tmp_path / "out", executor=executor, shard_chars=1)
    # fmm, bmm and jieba segment each line on its own: a shard of one line each (40 a pair)
    assert result.settings["shards"] == 120
    assert numbers(result) == numbers(expected)
    assert len(result.comparisons) == 1  # fmm against bmm (closed track)
    written = json.loads((tmp_path / "out" / "results.json").read_text("utf-8"))
    assert numbers(BakeoffResult.from_dict(written)) == numbers(expected)


def test_the_cli_and_the_config_choose_the_executor(
    serial: tuple[Any, BakeoffResult], tmp_path: Path, sample: Callable[..., str]
) -> None:
    from click.testing import CliRunner

    from cws_bench.cli import cli

    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    body = sample() + '\n[settings]\nexecutor = "dask"\nshard_chars = 1\n'
    path = tmp_path / "bakeoff.toml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["bakeoff", str(path), "-o", str(out), "--quiet", "-j", "2"])
    assert result.exit_code == 0, result.output
    written = BakeoffResult.from_dict(json.loads((out / "results.json").read_text("utf-8")))
    assert written.settings["executor"] == "dask" and written.settings["shards"] == 120
    assert numbers(written) == numbers(serial[1])
    args = ["bakeoff", str(path), "-o", str(out), "--quiet", "--no-cache"]
    result = CliRunner().invoke(cli, [*args, "--executor", "local", "--shard-chars", "30"])
    assert result.exit_code == 0, result.output
    written = BakeoffResult.from_dict(json.loads((out / "results.json").read_text("utf-8")))
    assert written.settings["executor"] == "local" and written.settings["shard_chars"] == 30
    assert numbers(written) == numbers(serial[1])


@pytest.mark.parametrize("executor_name", ["local", "dask"])
def test_a_worker_killed_mid_run_changes_nothing(
    request: pytest.FixtureRequest,
    serial: tuple[Any, BakeoffResult],
    executor_name: str,
    tmp_path: Path,
) -> None:
    config, expected = serial
    executor = request.getfixturevalue("local" if executor_name == "local" else "dask_executor")
    marker = tmp_path / "killed"
    faulty = FaultyExecutor(executor, "die-once", str(marker), 13)
    result = run_bakeoff(config, output_dir=tmp_path / "out", executor=faulty, shard_chars=1)
    assert marker.exists()  # the worker running item 13 was killed; the shard ran again
    assert [p.status for p in result.pairs] == ["ok", "ok", "ok"]
    assert numbers(result) == numbers(expected)


def test_a_shard_that_always_crashes_fails_its_pair_only(
    local: LocalExecutor, tmp_path: Path, sample: Callable[..., str]
) -> None:
    config = _config(tmp_path, sample())
    faulty = FaultyExecutor(local, "die", str(tmp_path / "m"), 4)
    result = run_bakeoff(config, output_dir=tmp_path / "out", executor=faulty, shard_chars=1)
    failed = [p for p in result.pairs if p.status != "ok"]
    assert len(failed) == 1 and failed[0].status == "failed"
    assert "shard 5 (lines 5-5)" in (failed[0].error or "")  # a shard of one line
    assert "failed 2 times" in (failed[0].error or "") and "died" in (failed[0].error or "")
    assert sum(p.status == "ok" for p in result.pairs) == 2
    assert all(failed[0].segmenter not in (c.a, c.b) for c in result.comparisons)


def test_an_interrupted_run_resumes_shard_by_shard(
    local: LocalExecutor, serial: tuple[Any, BakeoffResult], tmp_path: Path
) -> None:
    config, expected = serial
    out = tmp_path / "out"
    # a shard whose worker always dies: its pair fails, its other shards are kept
    faulty = FaultyExecutor(local, "die", str(tmp_path / "m"), 4)
    first = run_bakeoff(config, output_dir=out, executor=faulty, shard_chars=1)
    assert sum(p.status == "ok" for p in first.pairs) == 2
    shards = out / "cache" / "shards"
    assert len(list(shards.glob("*.json"))) == 119  # 3 pairs of 40 one-line shards
    second = run_bakeoff(config, output_dir=out, executor=local, shard_chars=1)
    assert second.settings["shards"] == 1  # only the missing shard ran
    assert sorted(p.cached for p in second.pairs) == [False, True, True]
    assert numbers(second) == numbers(expected)
    # a finished pair's record lost, and two of its shards: those two run again
    records = sorted((out / "cache").glob("*.json"))
    assert len(records) == 3
    records[0].unlink()
    for path in sorted(shards.glob("*.json")):
        path.unlink()
    third = run_bakeoff(config, output_dir=out, executor=local, shard_chars=1)
    assert third.settings["shards"] == 40
    assert numbers(third) == numbers(expected)
    # an edited shard is never used: it runs again with a note
    victim = sorted(shards.glob("*.json"))[0]
    data = json.loads(victim.read_text("utf-8"))
    data["pred"][0] = ["x"] + data["pred"][0]
    victim.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for path in (out / "cache").glob("*.json"):
        path.unlink()
    fourth = run_bakeoff(config, output_dir=out, executor=local, shard_chars=1)
    # the 40 shards of the third run are on file, one of them edited: 120 - 39 run
    assert fourth.settings["shards"] == 81
    assert any("invalid cache record" in note for note in fourth.settings["notes"])
    assert numbers(fourth) == numbers(expected)


def test_workers_keep_their_segmenters_across_corpora(
    tmp_path: Path, sample: Callable[..., str]
) -> None:
    body = sample() + textwrap.dedent(
        f"""
        [[corpora]]
        label = "again"
        gold = "{ROOT / "corpora" / "sample" / "gold.txt"}"
        dictionary = "{SAMPLE_DICT}"
        """
    )
    config = _config(tmp_path, body)
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1, shard_chars=1, write=False)
    assert [p.status for p in result.pairs] == ["ok"] * 6
    loads = result.settings["loads"]
    # one worker: each segmenter loaded once, for both corpora
    assert sorted(load["segmenter"].split()[0] for load in loads) == ["bmm", "fmm", "jieba"]
    by_corpus = {p.corpus: p.scores for p in result.pairs if p.segmenter == "fmm"}
    assert by_corpus["sample"]["f1"] == by_corpus["again"]["f1"]


def test_real_sighan_pku_identical(shared_corpora: Path, tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    words = shared_corpora / "icwb2-data" / "gold" / "pku_training_words.utf8"
    body = f"""
        name = "pku"
        resamples = 100

        [[corpora]]
        label = "pku"
        gold = "{shared_corpora / "icwb2-data" / "gold" / "pku_test_gold.utf8"}"
        raw = "{shared_corpora / "icwb2-data" / "testing" / "pku_test.utf8"}"
        dictionary = "{words}"

        [[segmenters]]
        name = "fmm"
        track = "closed"
        options = {{ lexicon = "{words}" }}

        [[segmenters]]
        name = "bmm"
        track = "closed"
        options = {{ lexicon = "{words}" }}
    """
    config = _config(tmp_path, body)
    runs = {
        name: run_bakeoff(
            config,
            output_dir=tmp_path / name,
            jobs=jobs,
            executor=executor,
            shard_chars=shard_chars,
            write=False,
        )
        for name, jobs, executor, shard_chars in (
            ("serial", 1, "local", 10**9),
            ("local", 2, "local", 20_000),
            ("dask", 2, "dask", 20_000),
        )
    }
    assert runs["serial"].settings["shards"] == 2
    assert runs["local"].settings["shards"] > 4
    assert all(p.status == "ok" for p in runs["serial"].pairs)
    assert numbers(runs["local"]) == numbers(runs["serial"])
    assert numbers(runs["dask"]) == numbers(runs["serial"])


# ---------------------------------------------------------------- your own segmenter

TOY_MODULE = '''
from cws_bench.segmenters import Segmenter


def pairs(line):
    """Words of two characters (a toy segmenter)."""
    text = "".join(line.split())
    return [text[i : i + 2] for i in range(0, len(text), 2)]


class Pairs(Segmenter):
    name = "pairs"
    kind = "statistical"
    description = "words of two characters"
    distribution = "toypairs"

    def _segment(self, lines):
        return [pairs(line) for line in lines]


class WholeBatches(Pairs):
    """Pairs that must get whole batches of 4 lines (as a batch-padding tagger might)."""

    def _segment(self, lines):
        if len(lines) != 4:
            raise ValueError(f"a batch of {len(lines)} lines")
        return super()._segment(lines)
'''


@pytest.fixture
def toy_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A fake installed distribution registering ``pairs`` by entry point, on sys.path
    (spawned workers inherit it)."""
    from cws_bench.segmenters.registry import ENTRY_POINT_GROUP

    site = tmp_path / "site"
    site.mkdir()
    (site / "toypairs.py").write_text(TOY_MODULE, encoding="utf-8")
    info = site / "toypairs-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toypairs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\npairs = toypairs:Pairs\n")
    monkeypatch.syspath_prepend(str(site))
    import toypairs

    yield toypairs
    sys.modules.pop("toypairs", None)


def _row(result: BakeoffResult, label: str) -> dict[str, Any]:
    (pair,) = [p for p in numbers(result)["pairs"] if p["segmenter"] == label]
    return {key: pair[key] for key in ("scores", "intervals", "sighan_intervals", "analysis")}


def test_a_callable_gives_the_row_of_the_same_function_registered(
    toy_distribution: Any, tmp_path: Path, sample: Callable[..., str]
) -> None:
    # workers started after the distribution is on sys.path (spawned workers copy it)
    with LocalExecutor(2) as local:
        _callable_rows(toy_distribution, local, tmp_path, sample)


def _callable_rows(
    toy_distribution: Any, local: LocalExecutor, tmp_path: Path, sample: Callable[..., str]
) -> None:
    config = _config(tmp_path, sample(PAIRS))
    by_name = run_bakeoff(config, output_dir=tmp_path / "a", executor=local, shard_chars=1)
    assert {p.segmenter: p.status for p in by_name.pairs}["mine"] == "ok"
    plain = _config(tmp_path, sample(""))
    for shipped in (
        toy_distribution.pairs,  # a module's function
        lambda line: toy_distribution.pairs(line),  # a lambda, shipped by value
        toy_distribution.Pairs(),  # a Segmenter object
    ):
        result = run_bakeoff(
            plain,
            output_dir=tmp_path / "b",
            executor=local,
            shard_chars=1,
            use_cache=False,
            segmenters={"mine": shipped},
        )
        assert _row(result, "mine") == _row(by_name, "mine")
        assert _row(result, "fmm") == _row(by_name, "fmm")
    # one worker process
    result = run_bakeoff(
        plain, output_dir=tmp_path / "c", jobs=1, segmenters={"mine": toy_distribution.pairs}
    )
    assert _row(result, "mine") == _row(by_name, "mine")


def test_shards_end_between_batches_unless_each_line_is_segmented_alone(
    toy_distribution: Any, tmp_path: Path, sample: Callable[..., str]
) -> None:
    plain = _config(tmp_path, sample(""))
    with LocalExecutor(1) as local:
        result = run_bakeoff(
            plain,
            output_dir=tmp_path / "out",
            executor=local,
            shard_chars=1,
            segmenters={"batches": toy_distribution.WholeBatches()},
        )
    assert {p.segmenter: p.status for p in result.pairs} == {
        "fmm": "ok",
        "bmm": "ok",
        "batches": "ok",
    }
    # fmm and bmm: a shard per line (40 each); WholeBatches: a shard per batch of 4 (10)
    assert result.settings["shards"] == 40 + 40 + 10


def test_what_cannot_be_shipped_is_said(tmp_path: Path, sample: Callable[..., str]) -> None:
    import threading

    from cws_bench.errors import CwsBenchError

    lock = threading.Lock()
    config = _config(tmp_path, sample())
    with pytest.raises(CwsBenchError, match="cannot be sent to the worker processes"):
        run_bakeoff(config, write=False, segmenters={"locked": lambda line, lock=lock: [line]})
    with pytest.raises(CwsBenchError, match="neither a Segmenter nor a callable"):
        run_bakeoff(config, write=False, segmenters={"x": 3})
    with pytest.raises(CwsBenchError, match="used twice"):
        run_bakeoff(config, write=False, segmenters={"jieba": len})


# ---------------------------------------------------------------- regression baselines


def test_a_baseline_on_an_executor_has_the_same_scores(
    local: LocalExecutor, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from cws_bench.cli import cli
    from cws_bench.regression.recording import record_baseline

    options = {"lexicon": str(SAMPLE_DICT)}
    serial = record_baseline("fmm", ["sample"], options=options, batch_size=4, speed_runs=1)
    sharded = record_baseline(
        "fmm", ["sample"], options=options, batch_size=4, executor=local, shard_chars=1
    )
    (a,), (b,) = serial.records, sharded.records
    assert (b.scores, b.sentence_counts, b.segmentation) == (
        a.scores,
        a.sentence_counts,
        a.segmentation,
    )
    assert b.identity == a.identity and b.speed.chars_per_s > 0
    out = tmp_path / "base.json"
    runner = CliRunner()
    sharding = ["--executor", "local", "--jobs", "2", "--shard-chars", "1"]
    argv = [
        "baseline",
        "save",
        "-s",
        "fmm",
        "-O",
        f"lexicon={SAMPLE_DICT}",
        "--corpus",
        "sample",
    ]
    saved = runner.invoke(cli, [*argv, "--batch-size", "4", "-o", str(out), *sharding])
    assert saved.exit_code == 0, saved.output
    checked = runner.invoke(cli, ["check", "--baseline", str(out), *sharding])
    assert checked.exit_code == 0, checked.output


def test_an_empty_corpus_and_a_corpus_smaller_than_one_shard(
    local: LocalExecutor, tmp_path: Path
) -> None:
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    (tmp_path / "one.txt").write_text("我们 是 学生\n", encoding="utf-8")
    body = f"""
        name = "small"
        resamples = 20

        [[corpora]]
        gold = "empty.txt"

        [[corpora]]
        gold = "one.txt"
        dictionary = "{SAMPLE_DICT}"

        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}
    """
    config = _config(tmp_path, body)
    # write=False: report.html's bucket chart fails on an empty corpus (reports/buckets.py)
    result = run_bakeoff(config, output_dir=tmp_path / "out", executor=local, write=False)
    assert result.settings["shards"] == 2
    rows = {p.corpus: p for p in result.pairs}
    assert rows["empty"].status == "ok" and rows["empty"].scores["gold_words"] == 0
    assert rows["one"].status == "ok" and rows["one"].scores["gold_words"] == 3
    task = PairTask(
        config.corpora[1], config.segmenters[0], config.segmenters[0].options, "k", 500, None
    )
    assert rows["one"].scores == run_pair(task).scores


def test_one_sentence_shards_with_empty_lines_at_the_edges(
    local: LocalExecutor, tmp_path: Path
) -> None:
    """Shards of one line each, the first, an inner and the last line empty."""
    sample = (ROOT / "corpora" / "sample" / "gold.txt").read_text("utf-8").splitlines()
    lines = ["", *sample[:5], "", *sample[5:9], ""]
    (tmp_path / "gold.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    body = f"""
        name = "edges"
        resamples = 50
        batch_size = 1

        [[corpora]]
        gold = "gold.txt"
        dictionary = "{SAMPLE_DICT}"

        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}

        [[segmenters]]
        name = "bmm"
        options = {{ lexicon = "{SAMPLE_DICT}" }}
    """
    config = _config(tmp_path, body)
    whole = run_bakeoff(config, output_dir=tmp_path / "a", jobs=1, shard_chars=10**9, write=False)
    sharded = run_bakeoff(
        config, output_dir=tmp_path / "b", executor=local, shard_chars=1, write=False
    )
    # a shard holds at least one character: the first and the inner empty line go with
    # the line after them; the last one, at the end, is a shard of its own
    assert whole.settings["shards"] == 2 and sharded.settings["shards"] == 2 * (len(lines) - 2)
    assert numbers(sharded) == numbers(whole)
    assert len(whole.pairs[0].scores) and whole.comparisons


# ---------------------------------------------------------------- what the driver read


def test_a_worker_learns_its_words_from_the_split_the_driver_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's summaries go to the workers in the context: a dictionary-based segmenter
    learns the word types the run hashed into its identity, without reading them again.

    pd1998 reads its own data whatever the run's data folder: $CWS_BENCH_PD1998 names
    the test's copy."""
    from cws_bench.corpora.base import SplitSummary
    from cws_bench.corpora.peoples_daily import PeoplesDaily1998
    from cws_bench.run.executors import cached
    from cws_bench.run.tasks import PairSetup, ShardContext, ShardItem, segment_shard

    (tmp_path / "199801.txt").write_text(
        "".join(f"19980101-01-001-{n:03d}/m  [中央/n 人民/n]nt  报道/v\n" for n in range(20)),
        encoding="utf-8",
    )
    monkeypatch.setenv("CWS_BENCH_PD1998", str(tmp_path / "199801.txt"))
    options = {"corpus": "pd1998", "split": "train"}
    read = PeoplesDaily1998(tmp_path).summary("train")  # what the file gives
    assert set(read.counts) == {"中央", "人民", "报道"}
    (key,) = _summary_keys(tmp_path)
    told = SplitSummary(read.checksum, read.sentences, {"中央人民": 18, "报道": 18})
    line = ("中央人民报道",)
    cases = (({}, ["中央", "人民", "报道"]), ({key: told}, ["中央人民", "报道"]))
    for summaries, expected in cases:
        setup = PairSetup("fmm", options, 10, "none", "closed", f"fmm {len(summaries)}", None)
        context = ShardContext((setup,), {"": None}, summaries)
        output = segment_shard(context, ShardItem(0, 0, 0, "", 0, line))
        assert output.status == "ok", output.error
        assert output.pred == [expected]
        assert cached(setup.key, lambda: None).trained_on.checksum == read.checksum


def _summary_keys(folder: Path) -> list[tuple[Any, ...]]:
    """The key under which a run keeps pd1998's training split read from ``folder``."""
    from cws_bench.corpora import get_corpus
    from cws_bench.corpora.base import kept, kept_summaries

    with kept_summaries():
        get_corpus("pd1998", data_dir=str(folder)).summary("train")
        return list(kept())


# ---------------------------------------------------------------- a worker that outlives a run


def test_a_worker_that_outlives_a_run_never_serves_a_segmenter_of_an_older_file(
    tmp_path: Path, local: LocalExecutor
) -> None:
    """An executor passed to ``run_bakeoff`` (or a Dask cluster's workers) keeps its
    workers, and they keep the segmenters they built: a dictionary created or edited in
    place between two runs is built again, never served from the worker's earlier build
    (nor its earlier failure)."""
    words = tmp_path / "words.txt"
    config = _config(
        tmp_path,
        f"""
        name = "kept"
        resamples = 50
        [[corpora]]
        name = "sample"
        [[segmenters]]
        name = "fmm"
        options = {{ lexicon = "{words.as_posix()}" }}
        """,
    )

    def row(executor: Any, out: str) -> Any:
        result = run_bakeoff(
            config, output_dir=tmp_path / out, executor=executor, use_cache=False, write=False
        )
        (pair,) = result.pairs
        return pair

    missing = row(local, "missing")
    assert missing.status == "failed" and "words.txt" in (missing.error or "")
    sample_words = SAMPLE_DICT.read_text(encoding="utf-8").splitlines()
    words.write_text("\n".join(sample_words[: len(sample_words) // 4]) + "\n", encoding="utf-8")
    created = row(local, "created")
    assert created.status == "ok", created.error
    words.write_text("\n".join(sample_words) + "\n", encoding="utf-8")  # edited in place
    edited = row(local, "edited")
    with LocalExecutor(1, retries=0) as fresh:  # workers that never saw the older files
        expected = row(fresh, "fresh")
    assert edited.scores == expected.scores != created.scores

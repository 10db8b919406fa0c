"""A sharded segmentation's output through part files (workers on the driver's machine)
or as bytes (workers elsewhere, standard output): the same bytes as ``segment_file``,
and nothing left beside the output, whether the run succeeds or fails."""

from __future__ import annotations

import dataclasses
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cws_bench.run.executors import LocalExecutor, ShardFailedError
from cws_bench.run.sharded import segment_sharded
from cws_bench.run.shards import plan_shards
from cws_bench.run.tasks import (
    FileShards,
    PairSetup,
    ShardContext,
    ShardItem,
    segment_shard,
    segmenter_key,
)
from cws_bench.segmenters import get_segmenter, segment_file

sys.path.insert(0, str(Path(__file__).parent))
from faults import FaultyExecutor

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "corpora" / "sample" / "raw.txt"
DICT = str(ROOT / "dictionaries" / "sample.txt")


@pytest.fixture(scope="module")
def local() -> Iterator[LocalExecutor]:
    with LocalExecutor(2, retries=1) as executor:
        yield executor


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("serial") / "out.txt"
    segment_file(get_segmenter("fmm", lexicon=DICT), RAW, out)
    return out.read_bytes()


def _shard_outputs(tmp_path: Path, host: str) -> list:
    parts = tmp_path / "parts"
    parts.mkdir()
    options = {"lexicon": DICT}
    setup = PairSetup("fmm", options, 500, "none", "open", segmenter_key("fmm", options))
    file = FileShards(str(RAW), parts=str(parts), host=host)
    context = ShardContext((setup,), file=file)
    return [
        segment_shard(
            context, ShardItem(s.index, 0, s.index, "", s.first_line, byte_range=s.ranges[0])
        )
        for s in plan_shards([RAW], shard_chars=60).shards
    ]


def test_a_worker_on_the_drivers_machine_writes_a_part_file(tmp_path: Path, serial: bytes) -> None:
    results = _shard_outputs(tmp_path, socket.gethostname())
    assert len(results) > 5
    for index, result in enumerate(results):
        assert result.data == b""
        assert result.part == str(tmp_path / "parts" / f"{index}.part")
        assert Path(result.part).stat().st_size == result.size > 0
    assert b"".join(Path(r.part).read_bytes() for r in results) == serial
    assert "".join(r.text for r in results) == serial.decode("utf-8")


def test_a_worker_elsewhere_sends_the_bytes(tmp_path: Path, serial: bytes) -> None:
    results = _shard_outputs(tmp_path, "another-machine")
    assert all(r.part is None and len(r.data) == r.size for r in results)
    assert b"".join(r.data for r in results) == serial
    assert list((tmp_path / "parts").iterdir()) == []


def test_parts_appended_in_order_and_removed(
    local: LocalExecutor, tmp_path: Path, serial: bytes
) -> None:
    out = tmp_path / "out.txt"
    options = {"lexicon": DICT}
    stats = segment_sharded("fmm", RAW, out, executor=local, options=options, shard_chars=60)
    assert stats.shards > 5
    assert out.read_bytes() == serial
    expected = segment_file(get_segmenter("fmm", lexicon=DICT), RAW, tmp_path / "s.txt")
    assert (stats.lines, stats.characters, stats.words) == (
        expected.lines,
        expected.characters,
        expected.words,
    )
    (tmp_path / "s.txt").unlink()
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no part file, no folder


def test_a_failed_run_leaves_no_part_behind(local: LocalExecutor, tmp_path: Path) -> None:
    faulty = FaultyExecutor(local, "die", str(tmp_path / "marker"), 3)
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(ShardFailedError, match="shard 4"):
        segment_sharded(
            "fmm",
            RAW,
            folder / "o.txt",
            executor=faulty,
            options={"lexicon": DICT},
            shard_chars=60,
        )
    assert list(folder.iterdir()) == []


def test_standard_output_gets_the_bytes(
    local: LocalExecutor, serial: bytes, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    segment_sharded("fmm", RAW, "-", executor=local, options={"lexicon": DICT}, shard_chars=60)
    assert capsysbinary.readouterr().out == serial


def test_a_part_file_this_machine_cannot_see_is_named(tmp_path: Path) -> None:
    import io

    from cws_bench.errors import CwsBenchError
    from cws_bench.run.sharded import _append_part
    from cws_bench.run.tasks import ShardResult

    lost = ShardResult(None, lines=1, characters=2, words=1, part=str(tmp_path / "0.part"), size=7)
    with pytest.raises(CwsBenchError, match=r"0\.part: a worker wrote .* cannot see it"):
        _append_part(lost, io.BytesIO())


@pytest.mark.parametrize(
    "missing", [None, OSError(95, "Operation not supported"), AttributeError()]
)
def test_parts_and_bytes_appended_in_order_with_or_without_copy_file_range(
    tmp_path: Path, serial: bytes, monkeypatch: pytest.MonkeyPatch, missing: Exception | None
) -> None:
    # copy_file_range, or not on this system (macOS) or file system (EOPNOTSUPP)
    from cws_bench.run.sharded import _append_part

    results = _shard_outputs(tmp_path, socket.gethostname())

    def refuse(*args: object) -> int:
        raise missing

    if missing is not None:
        monkeypatch.setattr("os.copy_file_range", refuse, raising=False)
    # the first shard's bytes came back (a worker elsewhere): buffered, then the parts
    first = Path(results[0].part)
    results[0] = dataclasses.replace(results[0], data=first.read_bytes(), part=None)
    first.unlink()
    out = tmp_path / "out.bin"
    with open(out, "wb") as f:
        for result in results:
            _append_part(result, f)
    assert out.read_bytes() == serial
    assert list((tmp_path / "parts").iterdir()) == []


def test_a_worker_that_cannot_write_the_folder_sends_the_bytes(
    tmp_path: Path, serial: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    monkeypatch.setattr(os, "access", lambda path, mode: False)  # another user's folder
    results = _shard_outputs(tmp_path, socket.gethostname())
    assert all(r.part is None for r in results)
    assert b"".join(r.data for r in results) == serial

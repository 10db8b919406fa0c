"""Shard plans against a line-by-line oracle of their definition, across block boundaries.

The planner streams files in blocks, locates line ends and counts UTF-8
continuation bytes per line with numpy; the oracle here splits the whole
file's bytes on ``\\n`` and counts each line's characters one by one: a shard
ends at the first line end at or after ``shard_chars`` more characters (line
ends excluded; a ``\\r`` or a byte-order mark counts), the last shard at the
lines every file has.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cws_bench.run import shards
from cws_bench.run.shards import plan_shards

LINE = st.text(alphabet="我们a \r\u00e9\U0001f600\ufeff", max_size=9)


def _line_starts(data: bytes) -> list[int]:
    """Byte offset where each line starts, then the file's size."""
    starts = [0]
    for i, byte in enumerate(data):
        if byte == 10:
            starts.append(i + 1)
    if starts[-1] != len(data):  # a last line without its newline
        starts.append(len(data))
    return starts


def _oracle(datas: list[bytes], shard_chars: int, utf8: bool) -> list[tuple]:
    """(first line, lines, characters, byte ranges) of each shard, line by line."""
    starts = [_line_starts(data) for data in datas]
    common = min(len(s) - 1 for s in starts)
    first = datas[0]
    shards_: list[tuple] = []
    previous = total = 0
    threshold = shard_chars
    before = 0
    for line in range(common):
        raw = first[starts[0][line] : starts[0][line + 1]]
        ended = raw.endswith(b"\n")
        body = raw[:-1] if ended else raw
        total += len(body.decode("utf-8")) if utf8 else len(body)
        cut = line + 1 == common or (ended and total >= threshold)
        if ended and total >= threshold:
            threshold = total + shard_chars
        if cut:
            ranges = tuple((s[previous], s[line + 1]) for s in starts)
            shards_.append((previous, line + 1 - previous, total - before, ranges))
            previous, before = line + 1, total
    return shards_


def _plan(paths: list[Path], shard_chars: int, encoding: str) -> list[tuple]:
    plan = plan_shards(paths, shard_chars=shard_chars, encodings=[encoding] * len(paths))
    return [(s.first_line, s.lines, s.characters, s.ranges) for s in plan.shards]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    files=st.lists(st.tuples(st.lists(LINE, max_size=12), st.booleans()), min_size=1, max_size=3),
    shard_chars=st.integers(1, 30),
    block=st.sampled_from([1, 2, 3, 7, 64, 1 << 20]),
    encoding=st.sampled_from(["utf-8", "latin-1"]),
)
def test_plans_match_the_line_by_line_oracle(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: list[tuple[list[str], bool]],
    shard_chars: int,
    block: int,
    encoding: str,
) -> None:
    monkeypatch.setattr(shards, "BLOCK_SIZE", block)
    paths, datas = [], []
    for i, (lines, final_newline) in enumerate(files):
        text = "\n".join(lines) + ("\n" if final_newline and lines else "")
        data = text.encode("utf-8")
        path = tmp_path / f"{i}.txt"
        path.write_bytes(data)
        paths.append(path)
        datas.append(data)
    assert _plan(paths, shard_chars, encoding) == _oracle(datas, shard_chars, encoding == "utf-8")
    plan = plan_shards(paths, shard_chars=shard_chars, encodings=[encoding] * len(paths))
    assert plan.line_counts == tuple(len(_line_starts(d)) - 1 for d in datas)
    assert plan.sizes == tuple(len(d) for d in datas)

"""Tests of cws_bench/segmenters/rjieba.py: the adapter gives what rjieba gives."""

from __future__ import annotations

import pytest

from cws_bench.segmenters import get_segmenter

rjieba = pytest.importorskip(
    "rjieba", reason="rjieba is not installed (pip install 'cws-bench[rjieba]')"
)


@pytest.mark.parametrize("hmm", [True, False])
def test_equals_calling_rjieba_directly(hmm, test_inputs, build):
    lines = test_inputs["pku"] + test_inputs["as"][::10] + ["他说 Hello World 了\t好"]
    expected = [[w for w in rjieba.cut(line, hmm) if w.strip()] for line in lines]
    assert build("rjieba", hmm=hmm).segment(lines) == expected


def test_user_dictionary(tmp_path):
    path = tmp_path / "user.txt"
    path.write_text("云计算服务平台 5 n\n区块链钱包\n", encoding="utf-8")
    segmenter = get_segmenter("rjieba", user_dict=str(path))
    assert segmenter.segment(["云计算服务平台正式上线", "区块链钱包"]) == [
        ["云计算服务平台", "正式", "上线"],
        ["区块链钱包"],
    ]

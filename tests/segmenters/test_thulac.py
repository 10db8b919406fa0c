"""Tests of cws_bench/segmenters/thulac.py: the adapter gives what THULAC gives.

THULAC is an optional extra (pip install 'cws-bench[thulac]'), absent in CI:
these tests skip without it.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from cws_bench.segmenters import get_segmenter

thulac = pytest.importorskip(
    "thulac", reason="THULAC is an optional extra: pip install 'cws-bench[thulac]'"
)


@pytest.fixture(scope="module")
def direct():
    with contextlib.redirect_stdout(io.StringIO()):
        return thulac.thulac(seg_only=True)


def test_equals_calling_thulac_directly(test_inputs, build, direct):
    lines = test_inputs["pku"][::10] + test_inputs["cityu"][::10] + ["他说 Hello World 了"]
    expected = [
        [piece for word, _ in direct.cut(line, text=False) for piece in word.split()]
        for line in lines
    ]
    assert build("thulac").segment(lines) == expected


def test_words_holding_a_space_are_split(build):
    # THULAC returns "El Pas" + "o" for this CityU line
    output = build("thulac").segment(["鮑威爾大唱情歌《El Paso》，唱至尾聲時"])[0]
    assert "El" in output and "El Pas" not in output


def test_loading_prints_nothing(capsys):
    get_segmenter("thulac")
    assert capsys.readouterr().out == ""


def test_user_dictionary(tmp_path):
    path = tmp_path / "user.txt"
    path.write_text("云计算服务平台\n", encoding="utf-8")
    segmenter = get_segmenter("thulac", user_dict=str(path))
    assert segmenter.segment(["云计算服务平台正式上线"])[0][0] == "云计算服务平台"

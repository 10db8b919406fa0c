"""Tests of cws_bench/segmenters/snownlp.py: the adapter gives what snownlp gives."""

from __future__ import annotations

import pytest

snownlp = pytest.importorskip(
    "snownlp", reason="snownlp is not installed (pip install 'cws-bench[snownlp]')"
)


def test_equals_calling_snownlp_directly(test_inputs, build):
    from snownlp import seg

    lines = [*test_inputs["pku"][::40], "他说 Hello World 了\t好，１９９８年"]
    assert build("snownlp").segment(lines) == [seg.seg(line) for line in lines]


def test_declares_its_training_corpus(build):
    segmenter = build("snownlp")
    assert segmenter.trained_on.corpus == "pd1998"
    assert segmenter.trained_on.overlaps("pd1998", "test")

"""Tests of cws_bench/segmenters/snownlp.py: the adapter gives what snownlp gives."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.needs(
    "snownlp", reason="snownlp is not installed (pip install 'cws-bench[snownlp]')"
)


# Characters snownlp's model never saw (every tag's count 0), where its decoder keeps the
# last path unchanged: alone, first, in the middle, last, and several in a row.
UNSEEN = [
    "龘",
    "龘齉天气",
    "今天龘地很好",
    "我们去爨",
    "龘齉爩的人",
    "天",
    "的的的的的的的的的的的的",
]


def test_equals_calling_snownlp_directly(test_inputs, build):
    from snownlp import seg

    lines = [*test_inputs["pku"][::40], "他说 Hello World 了\t好，１９９８年", *UNSEEN]
    assert build("snownlp").segment(lines) == [seg.seg(line) for line in lines]


def test_the_decoder_tags_as_snownlps_own_on_every_test_set(test_inputs, build):
    """Every run of Chinese characters in a sample of the four SIGHAN 2005 test sets
    (simplified and traditional, where the model meets many characters it never saw)."""
    from cws_bench.segmenters.snownlp import tags

    model = build("snownlp").model.segger
    pieces = [
        piece
        for name in ("pku", "msr", "as", "cityu")
        for line in test_inputs[name][::25]
        for piece in re.findall("[\u4e00-\u9fa5]+", line)
    ]
    assert len(pieces) > 2000
    assert [tags(model, piece) for piece in pieces] == [
        [tag for _, tag in model.tag(piece)] for piece in pieces
    ]
    assert [tags(model, piece) for piece in UNSEEN] == [
        [tag for _, tag in model.tag(piece)] for piece in UNSEEN
    ]


def test_declares_its_training_corpus(build):
    segmenter = build("snownlp")
    assert segmenter.trained_on.corpus == "pd1998"
    assert segmenter.trained_on.overlaps("pd1998", "test")


def _run(code: str, tmp_path) -> list:
    """Run ``code`` in a fresh interpreter; it prints a JSON value as its last line."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


LINES = ["今天天气很好，我们去公园玩吧。", "中华人民共和国成立了", "他说 Hello World 了"]

TRAIN_TINY = """
from pathlib import Path
Path("tiny.txt").write_text("今/s 天/s 天/b 气/e\\n我/s 们/s\\n", encoding="utf-8")
import snownlp.seg
"""


def test_shares_the_model_it_imports_and_keeps_it_when_snownlp_changes_its_own(tmp_path):
    """A fresh process shares the model ``import snownlp.seg`` loaded; snownlp's ``train``
    (a new model) and ``load`` (in place) afterwards leave the adapter's copy unchanged."""
    code = f"""
import json
from cws_bench.segmenters import get_segmenter
lines = {LINES!r}
first = get_segmenter("snownlp").segment(lines)
{TRAIN_TINY}
original = snownlp.seg.segger  # the model the import loaded, which the adapter shares
snownlp.seg.train("tiny.txt")  # a new model in snownlp.seg.segger
snownlp.seg.save("tiny.marshal")
original.load("tiny.marshal")  # and the imported one changed in place
snownlp.seg.segger = original
changed = [snownlp.seg.seg(line) for line in lines]
after = get_segmenter("snownlp").segment(lines)
print(json.dumps([first, after, changed]))
"""
    first, after, changed = _run(code, tmp_path)
    assert after == first
    assert changed != first  # the tiny model segments differently: the check can fail


def test_reads_the_shipped_model_when_snownlp_was_imported_and_trained_before(tmp_path, build):
    # What the shipped model gives (the adapter built here is snownlp's own seg, as
    # test_equals_calling_snownlp_directly checks); the tiny model gives something else.
    shipped = build("snownlp").segment(LINES)
    code = f"""
import json
{TRAIN_TINY}
snownlp.seg.train("tiny.txt")
from cws_bench.segmenters import get_segmenter
print(json.dumps(get_segmenter("snownlp").segment({LINES!r})))
"""
    assert _run(code, tmp_path) == shipped
    from snownlp.seg.seg import Seg

    tiny = Seg()
    tiny.train(str(tmp_path / "tiny.txt"))
    assert [list(tiny.seg(line)) for line in LINES] != shipped  # the check can fail

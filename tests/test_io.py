"""Tests of cws_bench/text/io.py: encodings, BOM, line ends, separators, atomic writes."""

from __future__ import annotations

import pytest

from cws_bench.errors import CwsBenchError, DecodingError
from cws_bench.text import io


@pytest.mark.parametrize(
    ("raw", "lines"),
    [
        (b"a b\nc\n", ["a b", "c"]),
        (b"a b\r\nc\r\n", ["a b", "c"]),
        (b"a b\r\nc", ["a b", "c"]),  # no final newline
        (b"\xef\xbb\xbfa\n", ["a"]),  # BOM
        (b"", []),
        (b"\n\n", ["", ""]),
        ("x\u2028y\x85z\n".encode(), ["x\u2028y\x85z"]),  # only \n splits lines
    ],
)
def test_line_ends_bom_and_final_newline(write, raw, lines):
    assert list(io.iter_lines(write("f.txt", raw))) == lines


def test_blocks_cut_anywhere_give_the_same_lines(write):
    text = "结婚\u3000的\r\n和 尚未\r\n\r\n人生 大事"
    path = write("f.txt", "\ufeff" + text)
    expected = ["结婚\u3000的", "和 尚未", "", "人生 大事"]
    for size in (1, 2, 3, 5, 8, 1 << 20):
        got = [line for block in io.iter_line_blocks(path, block_size=size) for line in block]
        assert got == expected, size


def test_read_segmented_splits_words_on_any_unicode_whitespace(write):
    path = write("f.txt", "我们\u3000是 \t学生\u00a0们\u2009。\r\n")
    assert list(io.read_segmented(path)) == [["我们", "是", "学生", "们", "。"]]


@pytest.mark.parametrize("encoding", ["gb18030", "gbk", "cp936", "big5hkscs", "big5"])
def test_legacy_encodings(write, encoding):
    text = "我們 是 學生\n" if "big5" in encoding else "我们 是 学生\n"
    path = write("f.txt", text, encoding)
    assert list(io.read_segmented(path, encoding=encoding)) == [text.split()]


def test_decoding_error_names_file_line_offset_and_suggests_encoding(write):
    path = write("gb.txt", "第一 行\n第二 行\n", "gb18030")
    with pytest.raises(DecodingError) as info:
        list(io.iter_lines(path))
    error = info.value
    assert (error.line, error.offset, error.encoding) == (1, 0, "utf-8")
    assert str(error).startswith(f"{path}:1: byte offset 0: not valid utf-8")
    assert 'pass encoding="gb18030"' in str(error)  # API terms; the CLI says --encoding


def test_decoding_error_offset_is_absolute_across_blocks(write):
    good = "好\n".encode() * 1000  # 4000 bytes
    path = write("f.txt", good + b"\xff\n")
    with pytest.raises(DecodingError) as info:
        list(io.iter_line_blocks(path, block_size=64))
    assert (info.value.line, info.value.offset) == (1001, 4000)


def test_big5_suggested_for_big5_text(write):
    path = write("b5.txt", "中華民國 的 學生 們 正在 讀書\n" * 20, "big5hkscs")
    with pytest.raises(DecodingError, match="big5hkscs"):
        list(io.iter_lines(path))


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(CwsBenchError, match="no such file"):
        list(io.iter_lines(tmp_path / "missing.txt"))
    with pytest.raises(CwsBenchError, match="is a directory"):
        list(io.iter_lines(tmp_path))


def test_unknown_or_unsupported_encoding(write):
    path = write("f.txt", "a\n")
    with pytest.raises(CwsBenchError, match="unknown encoding"):
        list(io.iter_lines(path, encoding="nope"))
    with pytest.raises(CwsBenchError, match="not ASCII-compatible"):
        list(io.iter_lines(path, encoding="utf-16"))


def test_atomic_write_replaces_only_on_success(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")

    def interrupted_write():
        with io.atomic_write(target) as f:
            f.write("half")
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        interrupted_write()
    assert target.read_text(encoding="utf-8") == "old"
    assert list(tmp_path.iterdir()) == [target]
    io.write_segmented(target, [["我们", "是"], ["学生"]], separator="/")
    assert target.read_text(encoding="utf-8") == "我们/是\n学生\n"


def test_atomic_write_into_missing_folder(tmp_path):
    with (
        pytest.raises(CwsBenchError, match="does not exist"),
        io.atomic_write(tmp_path / "no" / "out.txt"),
    ):
        pass


@pytest.mark.parametrize(
    ("name", "encoding", "words"),
    [
        ("pku_test_gold.txt", "gb18030", 104_372),
        ("cityu_test_gold.txt", "big5hkscs", 40_936),
        ("cityu_test_gold.utf8", "utf-8", 40_936),
        ("as_testing_gold.utf8", "utf-8", 122_610),
    ],
)
def test_real_files_with_their_quirks(icwb2, name, encoding, words):
    sentences = list(io.read_segmented(icwb2 / "gold" / name, encoding=encoding))
    assert sum(map(len, sentences)) == words
    assert not any(w.startswith("\ufeff") for s in sentences for w in s)


def test_real_raw_input_without_final_newline(icwb2):
    # as_test.utf8 ends without a newline: 14,432 lines all the same.
    assert sum(1 for _ in io.iter_lines(icwb2 / "testing" / "as_test.utf8")) == 14_432


def test_real_legacy_file_read_as_utf8_suggests_its_encoding(icwb2):
    with pytest.raises(DecodingError, match="gb18030"):
        list(io.iter_lines(icwb2 / "gold" / "pku_test_gold.txt"))
    with pytest.raises(DecodingError, match="big5"):
        list(io.iter_lines(icwb2 / "gold" / "cityu_test_gold.txt"))


def test_atomic_write_gives_the_usual_file_mode(tmp_path):
    import os

    mask = os.umask(0o022)
    try:
        io.write_segmented(tmp_path / "out.txt", [["我们"]])
    finally:
        os.umask(mask)
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o644

"""One sentence checksum for every path that names gold data."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cws_bench.corpora import get_corpus, read_corpus
from cws_bench.corpora.stats import sentence_statistics
from cws_bench.scoring import file_sentence_checksum, score_files, score_sentences
from cws_bench.segmenters.sources import TrainingCorpus
from cws_bench.text.checksums import (
    LineDigest,
    _single_spaced_python,
    file_checksum,
    sentences_checksum,
    short_hash,
)

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_GOLD = ROOT / "corpora" / "sample" / "gold.txt"
# blake2b(digest_size=8) of the sample's gold sentences, each joined by one space plus "\n".
SAMPLE_CHECKSUM = "59cfd3fbfc6076b4"


def test_the_checksum_is_blake2b_of_single_spaced_lines():
    expected = hashlib.blake2b("结婚 的\n\n和 尚未\n".encode(), digest_size=8).hexdigest()
    assert sentences_checksum([["结婚", "的"], [], ["和", "尚未"]]) == expected
    assert short_hash("结婚 的\n\n和 尚未\n") == expected


def test_sample_gold_has_one_identity_on_every_path():
    sentences = list(read_corpus(SAMPLE_GOLD))
    assert sentences_checksum(sentences) == SAMPLE_CHECKSUM
    # Today `score`/score_files signs the SHA-256 of the bytes (511124228bb35942).
    assert score_files(SAMPLE_GOLD, SAMPLE_GOLD).signature.gold == SAMPLE_CHECKSUM
    assert score_files(SAMPLE_GOLD, SAMPLE_GOLD, method="sighan").signature.gold == SAMPLE_CHECKSUM
    assert score_files(SAMPLE_GOLD, SAMPLE_GOLD, normalize="width").signature.gold == (
        SAMPLE_CHECKSUM
    )
    assert score_sentences(sentences, sentences).signature.gold == SAMPLE_CHECKSUM
    assert get_corpus("sample").checksum("test") == SAMPLE_CHECKSUM
    assert file_sentence_checksum(SAMPLE_GOLD) == SAMPLE_CHECKSUM
    assert sentence_statistics(sentences).checksum == SAMPLE_CHECKSUM
    training = TrainingCorpus(str(SAMPLE_GOLD))
    list(training)
    assert training.data.checksum == SAMPLE_CHECKSUM


def test_the_file_layout_and_encoding_do_not_change_the_checksum(write):
    canonical = "结婚 的\n\n和 尚未\n"
    layouts = {
        "crlf.txt": ("\ufeff结婚  的\r\n\r\n\u3000和\t尚未 \r\n", "utf-8"),
        "gb.txt": ("结婚 的\n\n和  尚未", "gb18030"),
    }
    expected = short_hash(canonical)
    for name, (text, encoding) in layouts.items():
        path = write(name, text, encoding)
        for method in ("interval", "sighan"):
            result = score_files(path, path, encoding=encoding, method=method)
            assert result.signature.gold == expected, (name, method)
        # what a sharded score signs (cws_bench/run/sharded.py) without scoring the file
        assert file_sentence_checksum(path, encoding) == expected, name


def test_the_file_byte_hash_is_another_key(write):
    path = write("words.txt", "结婚\n")
    assert file_checksum(path) == short_hash("结婚\n") == "f1a4b62333732ad9"


spaces = st.sampled_from([" ", "  ", "\t", "\u3000", "\xa0", "\u2028", "\x1c", "\r", "\u2003"])
lines = st.lists(
    st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=5), max_size=6),
    max_size=6,
)


@given(lines, spaces, st.integers(1, 40))
def test_line_digest_equals_the_sentences_checksum(raw, space, block):
    text = "\n".join(space.join(words) for words in raw)
    data = text.encode("utf-8")
    digest = LineDigest()
    for start in range(0, len(data), block):
        digest.update(data[start : start + block])
    parts = text.split("\n")
    if parts[-1] == "":  # the text ends with a newline: no line after it
        parts.pop()
    expected = sentences_checksum([line.split() for line in parts])
    assert digest.hexdigest() == expected


@given(lines, spaces)
def test_the_compiled_single_spacing_matches_the_python_twin(raw, space):
    kernel = pytest.importorskip("cws_bench._kernel", reason="the compiled kernel is not built")
    data = "".join(space.join(words) + "\n" for words in raw).encode("utf-8")
    assert kernel.single_spaced(data) == _single_spaced_python(data)


def test_real_gold_files_sign_their_sentences(icwb2: Path):
    for name in ("pku_test_gold.utf8", "as_testing_gold.utf8", "msr_test_gold.utf8"):
        path = icwb2 / "gold" / name
        expected = sentences_checksum(read_corpus(path, format="plain"))
        assert score_files(path, path).signature.gold == expected, name


def test_a_models_checksum_keeps_the_bytes_results_json_prints(tmp_path: Path) -> None:
    """One home for the model checksum of a folder (was segmenters/neural.py) and of a file
    (was segmenters/stanza.py): the bytes an earlier run's identity printed."""
    from cws_bench.segmenters.neural import folder_checksum
    from cws_bench.text.checksums import model_checksum

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.txt").write_bytes(b"B")
    (tmp_path / "c.txt").write_bytes(b"C")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_bytes(b"ref")
    expected = hashlib.blake2b(b"a/b.txt\0B\0c.txt\0C\0", digest_size=16).hexdigest()
    assert model_checksum(tmp_path) == folder_checksum(tmp_path) == expected
    file = hashlib.blake2b(b"C", digest_size=16).hexdigest()
    assert model_checksum(tmp_path / "c.txt") == file


def test_each_purpose_has_one_digest_size_and_hashlib_agrees() -> None:
    from cws_bench.text.checksums import DIGEST_SIZES, hash_hex, hasher

    assert DIGEST_SIZES == {"checksum": 8, "cache": 10, "identity": 16, "signature": 4}
    for purpose, size in DIGEST_SIZES.items():
        expected = hashlib.blake2b("结婚".encode(), digest_size=size).hexdigest()
        assert hash_hex("结婚", purpose) == hash_hex("结婚".encode(), purpose) == expected
        streamed = hasher(purpose)
        streamed.update("结".encode())
        streamed.update("婚".encode())
        assert streamed.hexdigest() == expected


def test_every_blake2b_hash_is_made_in_one_module() -> None:
    """Issue 41, item 4: 17 ad-hoc BLAKE2b keys with their own digest sizes became calls of
    text/checksums.py; only the host tag of temporaries (below the text layer) is its own."""
    package = ROOT / "cws_bench"
    found = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "blake2b" in path.read_text(encoding="utf-8")
    )
    assert found == ["system/temporaries.py", "text/checksums.py"]

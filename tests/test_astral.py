"""Characters beyond the Basic Plane: every place that decides what a Chinese character is.

sacrebleu's Chinese tokenizer was found (its issue 298) to miss the CJK Extension B
ideographs (U+20000 and up) and to count U+2001..U+2A6D as Chinese. Here each place
of cws-bench that tells characters apart is run on Extension B to I ideographs beside
look-alike symbols of U+2000..U+2BFF: normalisation, character counts, OOV and
boundary figures (compiled kernel and Python twin), the official SIGHAN method, the
max-match, HMM and CRF decoders (compiled and Python), the subword tokenizer's
offsets and the error analysis' character classes.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np
import pytest

from cws_bench.analysis.buckets import character_class
from cws_bench.scoring import engine, score_files, score_sentences
from cws_bench.scoring.counts import count_sentence
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.maxmatch import maximum_matching_python
from cws_bench.text.normalize import get_normalizer

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "corpora" / "sample"

# One ideograph of each extension: B, C, D, E, F, G (and H, I: Unicode 15 and 15.1,
# which Python 3.11's unicodedata does not know yet)
B, C, D, E, F, G = (
    "\U00020000",
    "\U0002a700",
    "\U0002b740",
    "\U0002b820",
    "\U0002ceb0",
    "\U00030000",
)
EXT_H, EXT_I = "\U00031350", "\U0002ebf0"
ASTRAL = B + C + D + E + F + G
# look-alikes: EM QUAD (whitespace), a mathematical operator, a star
EM_QUAD, OPERATOR, STAR = "\u2001", "\u2a6d", "\u2b50"

# by hand: gold [BC, DOP, STAR E, FG], prediction [B, CD, OP STAR, E, FG]
GOLD = f"{B}{C} {D}{OPERATOR}{EM_QUAD}{STAR}{E} {F}{G}"
PRED = f"{B} {C}{D} {OPERATOR}{STAR} {E} {F}{G}"
DICTIONARY = [B + C, OPERATOR]


def _bmp_to_astral(gold: list[list[str]]) -> tuple[list[list[str]], dict[int, str]]:
    """The sample's sentences with each BMP ideograph replaced by its own astral one.

    The Chinese numerals keep their BMP form (the CRF has a class of their own for them).
    """
    numerals = "〇零一二三四五六七八九十百千万亿两"
    chars = sorted({c for s in gold for w in s for c in w if "\u3400" <= c <= "\u9fff"})
    chars = [c for c in chars if c not in numerals]
    blocks = [0x20000, 0x2A700, 0x2B740, 0x2B820, 0x2CEB0, 0x30000]
    table = {ord(c): chr(blocks[i % 6] + i // 6) for i, c in enumerate(chars)}
    return [[w.translate(table) for w in s] for s in gold], table


@pytest.fixture(scope="module")
def sample_gold() -> list[list[str]]:
    lines = (SAMPLE / "gold.txt").read_text(encoding="utf-8").splitlines()
    return [line.split() for line in lines if line.strip()]


# -- normalisation ---------------------------------------------------------------------


def test_normalisation_keeps_astral_ideographs_and_look_alikes():
    text = f"{ASTRAL}{EXT_H}{EXT_I}{OPERATOR}{STAR}{EM_QUAD}ＡＢ"
    width = get_normalizer("width")
    assert width(text) == f"{ASTRAL}{EXT_H}{EXT_I}{OPERATOR}{STAR}{EM_QUAD}AB"
    assert width.words([B + C, "１"]) == [B + C, "1"]
    pytest.importorskip("opencc", reason="OpenCC is not installed (the opencc extra)")
    t2s = get_normalizer("width+t2s")
    converted = t2s(text + "頭髮")
    assert len(converted) == len(text) + 2
    assert converted == f"{ASTRAL}{EXT_H}{EXT_I}{OPERATOR}{STAR}{EM_QUAD}AB头发"


# -- character counts, OOV and boundary figures ---------------------------------------


def _hand_counts(counts) -> None:
    # 8 characters (EM QUAD is whitespace, as str.split says); 4 gold words, 5 predicted,
    # FG the one right word; gold ends inside the line at 2, 4, 6, predicted at 1, 3, 5, 6;
    # OOV gold words (dictionary BC and the operator): D+OP, STAR+E, FG, one of them right
    assert (counts.characters, counts.gold, counts.pred, counts.correct) == (8, 4, 5, 1)
    assert (counts.gold_boundaries, counts.pred_boundaries, counts.correct_boundaries) == (3, 4, 1)
    assert (counts.oov_gold, counts.oov_correct) == (3, 1)


def test_counts_of_astral_text_by_hand_on_every_path(tmp_path, monkeypatch):
    gold, pred = tmp_path / "gold.txt", tmp_path / "pred.txt"
    gold.write_text(GOLD + "\n", encoding="utf-8")
    pred.write_text(PRED + "\n", encoding="utf-8")
    _hand_counts(count_sentence(GOLD.split(), PRED.split(), frozenset(DICTIONARY)))
    _hand_counts(score_sentences([GOLD.split()], [PRED.split()], DICTIONARY).counts)
    _hand_counts(score_files(gold, pred, dictionary=DICTIONARY).counts)  # the kernel's bytes
    _hand_counts(score_files(gold, pred, dictionary=DICTIONARY, normalize="width").counts)
    from cws_bench.scoring import api

    monkeypatch.setattr(engine, "kernel", None)  # the pure-Python twin
    monkeypatch.setattr(api, "kernel", None)
    _hand_counts(score_files(gold, pred, dictionary=DICTIONARY).counts)


def test_the_kernel_and_python_agree_on_whitespace_around_the_look_alikes():
    if engine.kernel is None:
        pytest.skip("the compiled kernel is not built")
    for code in [*range(0x2000, 0x2C00), *range(0x3000, 0x3010), 0x20000, 0x2A6D6, 0x30000]:
        assert bool(engine.kernel.is_space(chr(code))) == chr(code).isspace(), hex(code)


def test_the_sighan_method_counts_astral_words():
    gold = GOLD.replace(EM_QUAD, " ")  # the official script splits on ASCII whitespace
    result = score_sentences([gold.split()], [PRED.split()], DICTIONARY, method="sighan")
    assert result.sighan is not None
    assert (result.sighan.truth_words, result.sighan.test_words) == (4, 5)
    # diff's one matched word is FG; of the OOV words D+OP, STAR+E, FG two are missed
    assert result.sighan.matched == 1
    assert (result.sighan.oov, result.sighan.oov_missed) == (3, 2)


# -- the decoders ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fmm", "bmm", "bimm"])
def test_max_match_segments_astral_text_as_the_same_text_in_the_bmp(name, sample_gold):
    astral, table = _bmp_to_astral(sample_gold)
    raw = ["".join(s) for s in sample_gold]
    astral_raw = ["".join(s) for s in astral]
    words = [w for s in sample_gold for w in s]
    astral_words = [w for s in astral for w in s]
    expected = [
        [w.translate(table) for w in s] for s in get_segmenter(name, words=words).segment(raw)
    ]
    assert get_segmenter(name, words=astral_words).segment(astral_raw) == expected
    direction = {"fmm": "forward", "bmm": "backward", "bimm": "bidirectional"}[name]
    python = maximum_matching_python(
        astral_raw, set(astral_words), direction=direction, max_word_length=6
    )
    assert python == expected
    # an astral word beside the look-alikes, in the compiled trie and in Python
    line = f"{OPERATOR}{B}{C}{STAR}{D}"
    segmenter = get_segmenter(name, words=[B + C, STAR + D])
    assert segmenter.segment([line]) == [[OPERATOR, B + C, STAR + D]]


@pytest.mark.parametrize(
    ("name", "settings"),
    [("hmm", {}), ("hmm", {"compiled": False}), ("crf", {"learner": "crfsuite"})],
)
def test_taggers_segment_astral_text_as_the_same_text_in_the_bmp(name, settings, sample_gold):
    if settings.get("learner") == "crfsuite":
        pytest.importorskip("pycrfsuite", reason="python-crfsuite is not installed (crf extra)")
    astral, table = _bmp_to_astral(sample_gold)
    bmp = get_segmenter(name, **settings)
    bmp.train(sample_gold)
    beyond = get_segmenter(name, **settings)
    beyond.train(astral)
    expected = [
        [w.translate(table) for w in s] for s in bmp.segment(["".join(s) for s in sample_gold])
    ]
    assert beyond.segment(["".join(s) for s in astral]) == expected


def test_the_crf_classes_astral_ideographs_as_ideographs_and_look_alikes_as_symbols():
    from cws_bench.segmenters.crf import CLASSES, _classes, features

    codes = np.array([ord(c) for c in f"中{ASTRAL}{EXT_H}{EXT_I}{OPERATOR}{STAR}"], dtype=np.int64)
    classes = [CLASSES[k] for k in _classes(codes)]
    assert classes == ["other"] * 9 + ["punct", "punct"]
    # the character features hold the astral code point whole
    assert features(f"{B}{C}")[0][:4] == ["c-2=<pad>", "c-1=<pad>", f"c0={B}", f"c+1={C}"]


# -- the subword tokenizer's offsets ---------------------------------------------------


def test_a_byte_level_tokenizer_gives_astral_characters_whole(tmp_path, sample_gold):
    tokenizers = pytest.importorskip("tokenizers", reason="tokenizers is not installed")
    from tokenizers import decoders, models, pre_tokenizers, trainers

    astral, _ = _bmp_to_astral(sample_gold)
    lines = ["".join(s) for s in astral]
    tok = tokenizers.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(lines, trainer=trainer)
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    segmenter = get_segmenter("tokenizer", path=str(path))
    test_lines = [*lines[:5], f"{OPERATOR}{B}{C} {STAR}{D}{E}{EM_QUAD}{F}{G}{EXT_H}{EXT_I}"]
    # GPT-2's byte alphabet, as the ByteLevel pre-tokenizer writes bytes into tokens
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    alphabet = dict(zip(printable, printable))
    extra = 0
    for byte in range(256):
        if byte not in alphabet:
            alphabet[byte] = 256 + extra
            extra += 1
    to_byte = {chr(code): byte for byte, code in alphabet.items()}
    for line, got in zip(test_lines, segmenter.segment(test_lines)):
        # the oracle, the documented rule: a character belongs to the token holding its
        # first byte; tokens read by their own bytes (never the library's character spans)
        owner, position = [], 0
        for index, token in enumerate(tok.encode(line, add_special_tokens=False).tokens):
            size = len(bytes(to_byte[c] for c in token))
            owner += [index] * size
            position += size
        assert position == len(line.encode("utf-8"))
        starts, byte = [], 0
        for char in line:
            starts.append(owner[byte])
            byte += len(char.encode("utf-8"))
        pieces, last = [], None
        for char, token in zip(line, starts):
            if token != last:
                pieces.append("")
                last = token
            pieces[-1] += char
        assert got == [w for piece in pieces for w in piece.split()], line
        assert "".join(got) == "".join(line.split())


def test_cl100k_cuts_astral_characters_into_bytes_and_gives_them_back_whole():
    pytest.importorskip("tiktoken", reason="tiktoken is not installed (the subword extra)")
    line = f"{OPERATOR}{B}{C}{STAR}{D}{E}{F}{G}"
    (words,) = get_segmenter("tokenizer-cl100k").segment([line])
    assert "".join(words) == line
    # no word holds part of a character: each is whole code points of the line
    assert all(len(w.encode("utf-8")) == sum(len(c.encode("utf-8")) for c in w) for w in words)
    assert set("".join(words)) == set(line)


# -- the error analysis' character classes --------------------------------------------


def test_character_classes_of_astral_ideographs_and_look_alikes():
    words = (B + C, D + E + F, G, EXT_H, EXT_I, EXT_H + "中")
    assert [character_class(w) for w in words] == ["chinese"] * 6
    assert character_class(OPERATOR) == "punctuation"
    assert character_class(STAR + OPERATOR) == "punctuation"
    assert character_class(OPERATOR + B) == "mixed"
    # U+2E80..U+2FDF: the radicals are symbols, not ideographs
    assert unicodedata.category("\u2f00") == "So" and character_class("\u2f00") == "punctuation"

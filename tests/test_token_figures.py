"""How tokens cut gold words (cws_bench.analysis.tokens): split words in and out of the
dictionary by hand, the Rényi efficiency against its authors' package, and the board's
columns, parity and column-by-column agreement."""

from __future__ import annotations

import math
import random

import pytest

from cws_bench.analysis.tokens import renyi_efficiency, token_figures


def test_split_words_in_and_out_of_the_dictionary_by_hand():
    gold = [["北京市", "气象台", "发布"], ["了", "预报"]]
    tokens = [["北京", "市", "气象台", "发", "布"], ["了预", "报"]]
    figures = token_figures(gold, tokens, dictionary={"北京市", "发布", "了"})
    # Line 1: 北京市 cut after 京 (split, IV), 气象台 whole (OOV), 发布 cut (split, IV).
    # Line 2: 了 is one character (never split), 预报 cut after 预 (split, OOV); the token
    # 了预 straddles the gold boundary after 了.
    assert figures.split_words == 3 and figures.gold_words == 5
    assert (figures.iv_words, figures.iv_split) == (3, 2)
    assert (figures.oov_words, figures.oov_split) == (2, 1)
    assert figures.split_share == pytest.approx(3 / 5)
    assert figures.iv_split_share == pytest.approx(2 / 3)
    assert figures.oov_split_share == pytest.approx(1 / 2)
    assert figures.straddling == 1
    assert figures.types == 7  # 北京 市 气象台 发 布 了预 报
    without = token_figures(gold, tokens)
    assert without.iv_words is None and without.oov_split_share is None
    assert without.split_words == 3


def test_the_gold_against_itself_splits_nothing():
    gold = [["我们", "在", "北京"], ["你好"]]
    figures = token_figures(gold, gold, dictionary={"我们"})
    assert figures.split_words == 0 and figures.straddling == 0
    assert figures.boundary_precision == figures.boundary_recall == 1.0
    assert figures.tokens_per_word == 1.0


def test_renyi_efficiency_equals_the_authors_package():
    """tokenization-scorer (Zouhar et al.'s own package) on the same tokens: the same value
    at α = 2.5, with the vocabulary the tokens seen, on random Zipf-like token streams."""
    scorer = pytest.importorskip(
        "tokenization_scorer", reason="tokenization-scorer is not installed (the test extra)"
    )
    generator = random.Random(7)
    for _ in range(5):
        vocabulary = [f"t{i}" for i in range(generator.randint(3, 300))]
        weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
        lines = [
            generator.choices(vocabulary, weights, k=generator.randint(1, 30)) for _ in range(50)
        ]
        figures = token_figures(lines, lines)
        expected = scorer.score([" ".join(line) for line in lines], metric="renyi", power=2.5)
        assert figures.renyi_efficiency == pytest.approx(expected, rel=1e-9)


def test_renyi_efficiency_by_hand():
    # Uniform over 4 types: H_2.5 = log 4, efficiency 1. One type: undefined.
    assert renyi_efficiency([5, 5, 5, 5]) == pytest.approx(1.0)
    assert renyi_efficiency([9]) is None
    p = [0.5, 0.25, 0.25]
    expected = math.log(sum(x**2.5 for x in p)) / (1 - 2.5) / math.log(3)
    assert renyi_efficiency([2, 1, 1]) == pytest.approx(expected)


def test_the_board_shows_token_columns_parity_and_column_agreement(tmp_path):
    """A board over the parallel GSD/GSDSimp stand-ins: the parity is tokens on one over
    tokens on the other, recomputed from each cell's own counts."""
    from cws_bench.reports.board import BoardCell, _Board
    from cws_bench.results.model import PairResult

    def pair(segmenter: str, corpus: str, tokens: int, f1: float) -> PairResult:
        return PairResult.from_dict(
            {
                "segmenter": segmenter,
                "adapter": segmenter,
                "corpus": corpus,
                "track": "open",
                "status": "ok",
                "scores": {"f1": f1, "boundary_f1": f1},
                "analysis": {"tokens": {"tokens": tokens, "split_share": 1 - f1}},
            }
        )

    cells = []
    for name, tokens, f1 in (("a", (120, 100), 0.9), ("b", (90, 90), 0.8), ("c", (50, 40), 0.7)):
        for corpus, count in zip(("ud-zh-gsd", "ud-zh-gsdsimp"), tokens):
            cells.append(BoardCell(pair(name, corpus, count, f1), None, None, ""))
        cells.append(BoardCell(pair(name, "sxu", 10, f1), None, None, ""))
    board = _Board(
        result=None,  # type: ignore[arg-type]  # not read by these methods
        cells=cells,
        corpora=["ud-zh-gsd", "ud-zh-gsdsimp", "sxu"],
        segmenters=["a", "b", "c"],
        means={},
        absent=[],
        facts={},
    )
    parity = {item["segmenter"]: item["parity"] for item in board.parity()}
    assert parity == pytest.approx({"a": 1.2, "b": 1.0, "c": 1.25})
    columns = {item["column"]: item for item in board.column_agreement()}
    # the same order on every corpus: τ = 1 for F and for the split share (reversed alike)
    assert columns["f1"]["mean_tau"] == pytest.approx(1.0)
    assert columns["split_share"]["pairs"] == 3
    assert columns["split_share"]["lowest_tau"] == pytest.approx(1.0)
    # tokens per word is absent from these cells: no row for it
    assert "tokens_per_word" not in columns


def test_every_pair_signature_names_the_checksum_of_its_prediction(tmp_path):
    """pred: in a pair's signature is the sentence checksum of the words it scored, so two
    rows with the same signature scored the same segmentation; different outputs differ."""
    from cws_bench.corpora import get_corpus
    from cws_bench.run.bakeoff import run_bakeoff
    from cws_bench.run.config import parse_config
    from cws_bench.segmenters import get_segmenter
    from cws_bench.text.checksums import sentences_checksum

    config = parse_config(
        {
            "name": "pred",
            "resamples": 20,
            "corpora": [{"name": "sample"}],
            "segmenters": [
                {"name": "fmm", "track": "closed", "options": {"corpus": "sample"}},
                {"name": "bmm", "track": "closed", "options": {"corpus": "sample"}},
            ],
        }
    )
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1)
    raw = list(get_corpus("sample").raw("test"))
    found = {}
    for pair in result.pairs:
        words = get_segmenter(pair.segmenter, corpus="sample").segment(raw)
        assert f"|pred:{sentences_checksum(words)}|" in pair.signature
        found[pair.segmenter] = pair.signature.split("|pred:")[1].split("|")[0]
    assert found["fmm"] != found["bmm"]

"""Tests of cws_bench/segmenters/hmm.py: counting, smoothing, Viterbi against brute force,
the compiled decoder against the Python one, the model file, and accuracy on PKU."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.errors import CorpusFormatError, CwsBenchError, SegmenterError
from cws_bench.scoring import score_sentences
from cws_bench.segmenters import _decode, get_segmenter
from cws_bench.segmenters.hmm import (
    ALLOWED,
    FORMAT,
    TAGS,
    HMMModel,
    HMMSegmenter,
    fold_width,
    tags_of,
    viterbi_python,
)
from cws_bench.text.io import iter_lines, read_segmented

B, M, E, S = range(4)
IMPOSSIBLE = {("B", "B"), ("B", "S"), ("M", "B"), ("M", "S"), ("E", "M"), ("E", "E"),
              ("S", "M"), ("S", "E")}  # fmt: skip

TOY = [["人民", "的"], ["的"], ["我们", "是", "人民"]]


def test_tags():
    assert [TAGS[t] for t in tags_of("中华人民共和国")] == list("BMMMMME")
    assert [TAGS[t] for t in tags_of("中国")] == ["B", "E"]
    assert [TAGS[t] for t in tags_of("的")] == ["S"]


def test_the_impossible_transitions():
    impossible = {(TAGS[a], TAGS[b]) for a in range(4) for b in range(4) if not ALLOWED[a][b]}
    assert impossible == IMPOSSIBLE


def test_counts_by_hand():
    model = HMMModel.train(TOY)
    # sentence starts: 人(B), 的(S), 我(B)
    assert model.start == [2, 0, 0, 1]
    # 人民 的: B E S ; 我们 是 人民: B E S B E
    expected = [[0] * 4 for _ in range(4)]
    expected[B][E] = 3
    expected[E][S] = 2
    expected[S][B] = 1
    assert model.transitions == expected
    assert model.emissions == {
        "人": [2, 0, 0, 0],
        "民": [0, 0, 2, 0],
        "的": [0, 0, 0, 2],
        "我": [1, 0, 0, 0],
        "们": [0, 0, 1, 0],
        "是": [0, 0, 0, 1],
    }


def _train_character_by_character(sentences, fold=True):
    """The counts as first written: one character at a time along each sentence (the
    oracle of the word-type count that HMMModel.train now does)."""
    start, transitions, emissions = [0] * 4, [[0] * 4 for _ in range(4)], {}
    for sentence in sentences:
        previous = -1
        for token in sentence:
            for word in token.split():
                for character, tag in zip(word, tags_of(word)):
                    character = fold_width(character) if fold else character
                    emissions.setdefault(character, [0, 0, 0, 0])[tag] += 1
                    if previous < 0:
                        start[tag] += 1
                    else:
                        transitions[previous][tag] += 1
                    previous = tag
    return start, transitions, emissions


WORDS = st.text(alphabet="人民的我们是１Ａa 　", min_size=0, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=6), min_size=1, max_size=8), st.booleans())
def test_counting_word_types_equals_counting_characters(sentences, fold):
    start, transitions, emissions = _train_character_by_character(sentences, fold)
    if not emissions:
        with pytest.raises(CwsBenchError, match="no words"):
            HMMModel.train(sentences, fold=fold)
        return
    model = HMMModel.train(sentences, fold=fold)
    assert (model.start, model.transitions, model.emissions) == (start, transitions, emissions)
    assert list(model.emissions) == list(emissions)  # the same order: the same model file


def test_smoothed_probabilities_by_hand():
    model = HMMModel.train(TOY, alpha=0.5)
    start = model.log_start()
    # B: (2 + .5) / (3 + 1); S: (1 + .5) / 4; M and E impossible
    assert start[B] == pytest.approx(math.log(2.5 / 4))
    assert start[S] == pytest.approx(math.log(1.5 / 4))
    assert start[M] == start[E] == -math.inf
    transitions = model.log_transitions()
    # row B allows M and E: E seen 3 times, M never: (3 + .5) / (3 + 1), (0 + .5) / 4
    assert transitions[B][E] == pytest.approx(math.log(3.5 / 4))
    assert transitions[B][M] == pytest.approx(math.log(0.5 / 4))
    # row M was never seen: both allowed tags get .5 / 1
    assert transitions[M][M] == pytest.approx(math.log(0.5))
    for previous, tag in IMPOSSIBLE:
        assert transitions[TAGS.index(previous)][TAGS.index(tag)] == -math.inf
    characters, emissions = model.log_emissions()
    assert characters == sorted(model.emissions)
    vocabulary = 6
    # tag B was seen 3 times (人 twice, 我 once)
    denominator = 3 + 0.5 * (vocabulary + 1)
    assert emissions[characters.index("人")][B] == pytest.approx(math.log(2.5 / denominator))
    assert emissions[characters.index("的")][B] == pytest.approx(math.log(0.5 / denominator))
    assert emissions[-1][B] == pytest.approx(math.log(0.5 / denominator))  # unseen characters
    # each tag's emissions, unseen slot included, sum to 1
    for tag in range(4):
        total = sum(math.exp(row[tag]) for row in emissions[:-1]) + math.exp(emissions[-1][tag])
        assert total == pytest.approx(1.0)
    assert model.log_end() == [-math.inf, -math.inf, 0.0, 0.0]


def test_width_folding():
    assert (fold_width("１"), fold_width("ｚ"), fold_width("．"), fold_width("。")) == (
        "1",
        "z",
        ".",
        "。",
    )
    model = HMMModel.train([["１９９８年", "的"]])
    assert "1" in model.emissions and "１" not in model.emissions
    unfolded = HMMModel.train([["１９９８年", "的"]], fold=False)
    assert "１" in unfolded.emissions


# ---------------------------------------------------------------------------
# Viterbi


def path_score(path, chunk, rows, emissions, start, transitions, end):
    unknown = len(emissions) - 1
    score = start[path[0]] + end[path[-1]]
    for i, tag in enumerate(path):
        score += emissions[rows.get(fold_width(chunk[i]), unknown)][tag]
        if i:
            score += transitions[path[i - 1]][tag]
    return score


def random_model(rng: random.Random, characters: str):
    """Random log probabilities with the HMM's impossible moves forbidden."""
    rows = {c: i for i, c in enumerate(characters)}
    emissions = [[math.log(rng.random()) for _ in range(4)] for _ in range(len(characters) + 1)]
    start = [math.log(rng.random()) if t in (B, S) else -math.inf for t in range(4)]
    transitions = [
        [math.log(rng.random()) if ALLOWED[a][b] else -math.inf for b in range(4)] for a in range(4)
    ]
    end = [-math.inf, -math.inf, 0.0, 0.0]
    return rows, emissions, start, transitions, end


@pytest.mark.parametrize("seed", range(30))
def test_viterbi_finds_the_best_valid_path(seed):
    rng = random.Random(seed)
    arrays = random_model(rng, "甲乙丙丁")
    chunk = "".join(rng.choice("甲乙丙丁戊") for _ in range(rng.randint(1, 6)))
    path = viterbi_python(chunk, *arrays)
    best = max(
        path_score(candidate, chunk, *arrays)
        for candidate in itertools.product(range(4), repeat=len(chunk))
    )
    assert path_score(path, chunk, *arrays) == pytest.approx(best)
    assert best > -math.inf
    assert path[0] in (B, S) and path[-1] in (E, S)
    assert all(ALLOWED[a][b] for a, b in itertools.pairwise(path))


@pytest.fixture(scope="module")
def toy_hmm() -> HMMSegmenter:
    return get_segmenter("hmm", corpus="sample", split="test")


@pytest.mark.skipif(_decode is None, reason="the compiled decoder is not built")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="今天上午北京市区１２3 \u3000，。Ａa", max_size=25), max_size=6))
def test_compiled_viterbi_equals_python(toy_hmm, lines):
    lines = [line for line in lines if line.strip()]
    compiled = _decode.viterbi(lines, toy_hmm._table, *toy_hmm._arrays)
    assert compiled == toy_hmm.segment_python(lines)


def test_single_characters_and_whitespace(toy_hmm):
    assert toy_hmm.segment(["的", " 的 的 ", ""]) == [["的"], ["的", "的"], []]


# ---------------------------------------------------------------------------
# training, saving, loading


def test_train_save_load_round_trip(tmp_path, toy_hmm, icwb2):
    path = tmp_path / "sample.hmm.json"
    toy_hmm.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["version"] == 1 and data["tags"] == list(TAGS)
    assert data["trained_on"]["corpus"] == "sample"
    loaded = get_segmenter("hmm", model=str(path))
    assert loaded.trained_on == toy_hmm.trained_on
    assert loaded.model.to_dict() == toy_hmm.model.to_dict()
    lines = list(iter_lines(icwb2 / "testing" / "pku_test.utf8"))[:300]
    assert loaded.segment(lines) == toy_hmm.segment(lines)
    # saving again gives the same bytes
    again = tmp_path / "again.json"
    loaded.save(again)
    assert again.read_bytes() == path.read_bytes()


def test_alpha_at_load_time_changes_the_smoothing(tmp_path, toy_hmm):
    path = tmp_path / "m.json"
    toy_hmm.save(path)
    changed = get_segmenter("hmm", model=str(path), alpha=2.0)
    assert changed.model.alpha == 2.0
    assert changed.options["alpha"] == 2.0


def test_train_from_files_in_several_formats(tmp_path):
    plain = tmp_path / "gold.txt"
    plain.write_text("人民 的 我们\n的 人民\n", encoding="utf-8")
    daily = tmp_path / "pd.txt"
    daily.write_text("人民/n  的/u  我们/r\n的/u  人民/n\n", encoding="utf-8")
    first = get_segmenter("hmm", corpus=str(plain))
    second = get_segmenter("hmm", corpus=str(daily))
    assert first.model.to_dict()["emissions"] == second.model.to_dict()["emissions"]
    assert first.trained_on.sentences == 2 and first.trained_on.description == "gold.txt"
    # a split applies to registered corpora only
    with pytest.raises(CwsBenchError, match="only applies to a registered corpus"):
        get_segmenter("hmm", corpus=str(plain), split="train")


def test_untrained_and_conflicting_options():
    hmm = get_segmenter("hmm")
    with pytest.raises(SegmenterError, match="is not trained"):
        hmm.segment(["我们"])
    with pytest.raises(SegmenterError, match="not both"):
        get_segmenter("hmm", model="m.json", corpus="sample")
    with pytest.raises(SegmenterError, match="alpha must be a number more than 0"):
        get_segmenter("hmm", alpha=0)
    with pytest.raises(CwsBenchError, match="no words to train"):
        HMMModel.train([[], [""]])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ('{"format": "other"}', "not a cws-bench HMM model"),
        ('{"format": "cws-bench-hmm", "version": 99}', "version 99"),
        (
            '{"format": "cws-bench-hmm", "version": 1, "start": [1, 0, 0, 1], '
            '"transitions": [[1, 1, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1]], '
            '"emissions": {"的": [0, 0, 0, 1]}}',
            "B->B is impossible",
        ),
        (
            '{"format": "cws-bench-hmm", "version": 1, "start": [1, 0, 0, 1], '
            '"transitions": [[0, 1, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1]], '
            '"emissions": {"的": [0, 0, 0, -1]}}',
            "expected 4 non-negative integer counts",
        ),
        (
            '{"format": "cws-bench-hmm", "version": 1, "start": [0, 1, 0, 1], '
            '"transitions": [[0, 1, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1]], '
            '"emissions": {"的": [0, 0, 0, 1]}}',
            "cannot start with M",
        ),
        (
            '{"format": "cws-bench-hmm", "version": 1, "start": [1, 0, 0, 1], '
            '"transitions": [[0, 1, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1]], '
            '"emissions": {"的的": [0, 0, 0, 1]}}',
            "is not one character",
        ),
    ],
)
def test_malformed_model_files_are_named(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=message) as caught:
        get_segmenter("hmm", model=str(path))
    assert str(path) in str(caught.value)
    assert "cws-bench train hmm" in str(caught.value)


def test_missing_model_file(tmp_path):
    with pytest.raises(CwsBenchError, match="no such model file"):
        HMMModel.load(tmp_path / "none.json")


# ---------------------------------------------------------------------------
# People's Daily 1998 -> PKU


@pytest.mark.slow
def test_trained_on_peoples_daily_it_reaches_f1_080_on_pku(icwb2, build):
    hmm = build("hmm", corpus="pd1998")
    assert hmm.trained_on.corpus == "pd1998" and hmm.trained_on.split == "train"
    assert hmm.trained_on.overlaps("pd1998", "train")
    assert not hmm.trained_on.overlaps("pd1998", "test")
    from cws_bench.corpora import get_corpus

    assert hmm.trained_on.checksum == get_corpus("pd1998").checksum("train")
    raw = list(iter_lines(icwb2 / "testing" / "pku_test.utf8"))
    gold = list(read_segmented(icwb2 / "gold" / "pku_test_gold.utf8"))
    pred = hmm.segment(raw)
    result = score_sentences(gold, pred)
    assert result.f1 >= 0.80
    assert round(result.f1, 4) == 0.8118  # pinned: a change here changes published figures
    # the pure-Python decoder gives the same segmentation
    assert hmm.segment_python(raw[:200]) == pred[:200]
    # full-width and ASCII digits segment alike (width folding)
    full, ascii_ = hmm.segment(["１９９８年ＧＤＰ增长", "1998年GDP增长"])
    assert list(map(len, full)) == list(map(len, ascii_))

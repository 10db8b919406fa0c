"""Tests of cws_bench/scoring/: hand-checked values, properties, real corpora."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench import scoring
from cws_bench.errors import (
    CorpusFormatError,
    CwsBenchError,
    DecodingError,
    LineCountMismatchError,
    TextMismatchError,
)
from cws_bench.scoring import (
    SegCounts,
    count_sentence,
    gold_corpus,
    score_counts,
    score_files,
    score_sentences,
)
from cws_bench.text.dictionary import Dictionary

GOLD = [
    "结婚",
    "的",
    "和",
    "尚未",
    "结婚",
    "的",
    "都",
    "应该",
    "好好",
    "考虑",
    "一下",
    "人生",
    "大事",
]
PRED = ["结婚", "的", "和尚", "未结婚", "的", "都", "应该", "好好考虑", "一下", "人生大事"]
WORDS = {"结婚", "尚未", "的", "和", "青年", "都", "应该", "好好考虑", "自己", "人生", "大事"}


def test_worked_example_of_the_literature():
    result = score_sentences([GOLD], [PRED], dictionary=WORDS)
    percent = {
        k: round(100 * getattr(result, k), 2)
        for k in ("precision", "recall", "f1", "oov_recall", "iv_recall")
    }
    assert percent == {
        "precision": 60.0,
        "recall": 46.15,
        "f1": 52.17,
        "oov_recall": 33.33,
        "iv_recall": 50.0,
    }
    assert (result.gold_words, result.pred_words, result.correct_words) == (13, 10, 6)
    # OOV: 尚未 is in the dictionary; 好好, 考虑, 一下 are not (3 OOV, 1 found: 一下).
    assert (result.counts.oov_gold, result.counts.oov_correct) == (3, 1)


def test_worked_example_error_kinds():
    c = count_sentence(GOLD, PRED)
    # 和 尚未 结婚 / 和尚 未结婚: a crossing region;
    # 好好 考虑 -> 好好考虑 and 人生 大事 -> 人生大事: merges.
    assert (c.merge_gold, c.merge_pred) == (4, 2)
    assert (c.cross_gold, c.cross_pred, c.cross_regions) == (3, 2, 1)
    assert (c.split_gold, c.split_pred) == (0, 0)
    assert c.gold == c.correct + c.split_gold + c.merge_gold + c.cross_gold
    assert c.pred == c.correct + c.split_pred + c.merge_pred + c.cross_pred


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        # identical
        (["我们", "是", "学生"], ["我们", "是", "学生"], dict(correct=3, gold=3, pred=3)),
        # single-character words everywhere
        (list("我们是"), list("我们是"), dict(correct=3, gold=3, pred=3)),
        # all wrong: every gold word split
        (["我们", "学生"], ["我", "们", "学", "生"], dict(correct=0, split_gold=2, split_pred=4)),
        # all wrong: all merged into one word
        (["我们", "是", "学生"], ["我们是学生"], dict(correct=0, merge_gold=3, merge_pred=1)),
        # crossing: 和尚 未 vs 和 尚未
        (
            ["和", "尚未"],
            ["和尚", "未"],
            dict(correct=0, cross_gold=2, cross_pred=2, cross_regions=1),
        ),
    ],
)
def test_hand_checked_counts(gold, pred, expected):
    counts = count_sentence(gold, pred)
    for name, value in expected.items():
        assert getattr(counts, name) == value, name


def test_boundaries_are_binary_decisions_between_characters():
    # 我们|是|学生 against 我|们|是学生: gold boundaries {2, 3}, predicted {1, 2}.
    c = count_sentence(["我们", "是", "学生"], ["我", "们", "是学生"])
    assert (c.gold_boundaries, c.pred_boundaries, c.correct_boundaries) == (2, 2, 1)
    s = score_counts(c, has_dictionary=False)
    assert (s.boundary_precision, s.boundary_recall, s.boundary_f1) == (0.5, 0.5, 0.5)


def test_f1_is_computed_from_counts_not_from_rounded_p_and_r():
    s = score_counts(SegCounts(gold=4, pred=5, correct=3), has_dictionary=False)
    assert s.f1 == 6 / 9 == 0.6666666666666666


def test_no_dictionary_means_oov_figures_are_absent_not_zero():
    result = score_sentences([GOLD], [PRED])
    assert result.oov_rate is None
    assert result.oov_recall is None
    assert result.iv_recall is None
    assert result.to_dict()["oov_recall"] is None


def test_division_by_zero_gives_zero():
    s = score_counts(SegCounts(), has_dictionary=True)
    assert (s.precision, s.recall, s.f1) == (0.0,) * 3
    # OOV figures with nothing to count are undefined, not zero.
    assert (s.oov_rate, s.oov_recall, s.iv_recall) == (None,) * 3


def test_empty_gold_line_is_skipped_with_a_warning_when_prediction_has_words():
    result = score_sentences([[], ["我们"], []], [["多", "余"], ["我们"], []])
    assert result.counts.skipped_lines == 2
    assert result.counts.sentences == 1
    assert (result.gold_words, result.pred_words, result.correct_words) == (1, 1, 1)
    assert any("empty gold line" in w and "line 1" in w for w in result.warnings)


def test_fbeta():
    result = score_sentences([GOLD], [PRED], beta=2.0)
    precision, recall = 0.6, 6 / 13
    assert result.fbeta == pytest.approx(5 * precision * recall / (4 * precision + recall))
    assert result.to_dict()["beta"] == 2.0


def test_to_dict_keys_and_types():
    data = score_sentences([GOLD], [PRED], dictionary=WORDS).to_dict()
    for key in (
        "precision",
        "recall",
        "f1",
        "gold_words",
        "pred_words",
        "correct_words",
        "oov_rate",
        "oov_recall",
        "iv_recall",
        "boundary_f1",
        "mismatched_lines",
    ):
        assert key in data
    assert json.loads(json.dumps(data)) == data
    assert all(0.0 <= data[k] <= 1.0 for k in ("precision", "recall", "f1", "boundary_f1"))


def test_pandas_row():
    result = score_sentences([GOLD], [PRED], dictionary=WORDS)
    row = result.to_series()
    assert row["f1"] == result.f1
    frame = result.to_frame()
    assert frame.shape[0] == 1
    assert frame.loc[0, "correct_words"] == 6


# ---------------------------------------------------------------------------
# Lines whose characters differ


def test_prediction_missing_a_character_is_aligned():
    # MSR test, line 443: the raw input has an opening quote the gold line lacks.
    c = count_sentence(["远望号", "”", "航天"], ["“", "远望号", "”", "航天"])
    assert c.mismatched_lines == 1
    assert (c.gold, c.pred, c.correct) == (3, 4, 3)


def test_substituted_character_keeps_word_boundaries():
    # AS test, line 6612: a half-width c against a full-width ｃ.
    c = count_sentence(["ｔｏｘｉc", "ｃｈｅｍ"], ["ｔｏｘｉｃ", "ｃｈｅｍ"])
    assert c.mismatched_lines == 1
    assert c.correct == 2


def test_strict_mode_rejects_differing_text():
    with pytest.raises(TextMismatchError, match="1 line"):
        score_sentences([["我们"], ["是"]], [["我们"], ["事"]], strict=True)


def test_mismatch_examples_are_reported_with_line_numbers():
    result = score_sentences([["我们"], ["是"]], [["我们"], ["事"]])
    assert result.counts.mismatched_lines == 1
    assert [(m.line, m.gold, m.pred) for m in result.mismatches] == [(2, "是", "事")]


# ---------------------------------------------------------------------------
# Files


def test_files_with_bom_crlf_u3000_and_no_final_newline(write):
    gold = write("gold.txt", "\ufeff结婚\u3000的\r\n和\u3000尚未\r\n")
    pred = write("pred.txt", "结婚 的\n和尚 未")
    result = score_files(gold, pred)
    assert (result.gold_words, result.pred_words, result.correct_words) == (4, 4, 2)
    assert result.counts.mismatched_lines == 0


def test_line_count_mismatch_is_an_error_naming_both_counts(write):
    gold = write("gold.txt", "我们\n是\n学生\n")
    pred = write("pred.txt", "我们\n是\n")
    with pytest.raises(LineCountMismatchError, match=r"3 lines.*has 2"):
        score_files(gold, pred)
    result = score_files(gold, pred, allow_line_mismatch=True)
    assert (result.gold_words, result.correct_words) == (3, 2)
    assert any("3 lines" in w for w in result.warnings)


def test_trailing_blank_lines_do_not_count_as_a_mismatch(write):
    gold = write("gold.txt", "我们\n是\n")
    pred = write("pred.txt", "我们\n是\n\n\n")
    assert score_files(gold, pred).f1 == 1.0


def test_gb18030_and_big5(write):
    text = "我們 是 學生\n"
    for encoding in ("gb18030", "big5hkscs"):
        gold = write(f"gold.{encoding}", text, encoding)
        pred = write("pred.txt", "我們 是學生\n")
        result = score_files(gold, pred, encoding=encoding, pred_encoding="utf-8")
        assert (result.gold_words, result.pred_words, result.correct_words) == (3, 2, 1)


@pytest.mark.parametrize("method", ["interval"])
def test_files_and_sentences_agree(write, method):
    gold = write("gold.txt", "\n".join(" ".join(s) for s in [GOLD, GOLD]) + "\n")
    pred = write("pred.txt", "\n".join(" ".join(s) for s in [PRED, GOLD]) + "\n")
    from_files = score_files(gold, pred, dictionary=WORDS, method=method)
    from_sentences = score_sentences([GOLD, GOLD], [PRED, GOLD], WORDS, method=method)
    assert from_files.counts == from_sentences.counts


def test_per_line_details(write, tmp_path):
    gold = write("gold.txt", "我们 是\n\n学生\n")
    pred = write("pred.txt", "我们 是\n\n学 生\n")
    result = score_files(gold, pred, per_line=True)
    assert [(line, c.correct) for line, c in result.lines] == [(1, 2), (2, 0), (3, 0)]
    assert sum((c for _, c in result.lines), SegCounts()) == result.counts
    target = tmp_path / "details.csv"
    scoring.write_details(result, target)
    rows = target.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("line,gold_words,pred_words,correct_words,precision")
    assert rows[1].startswith("1,2,2,2,1.000000,1.000000,1.000000")


# ---------------------------------------------------------------------------
# Properties against a brute-force oracle

SEPARATORS = st.sampled_from([" ", "  ", "\u3000", "\t", " \u3000 "])
CHARS = st.sampled_from(list("我们是学生的和尚未结婚ab1 "))


@st.composite
def segmentations(draw, text=None):
    """A text and a segmentation of it (a list of non-empty words)."""
    if text is None:
        text = draw(
            st.text(
                alphabet=st.sampled_from(list("我们是学生的和尚未ab1")), min_size=1, max_size=20
            )
        )
    cuts = (
        draw(st.sets(st.integers(1, len(text) - 1), max_size=len(text))) if len(text) > 1 else set()
    )
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def segmentation_pairs(draw):
    gold = draw(segmentations())
    pred = draw(segmentations("".join(gold)))
    return gold, pred


def brute_force_counts(gold, pred, words=None):
    """Textbook counting: sets of intervals, as a test-only oracle."""

    def spans(ws):
        out, start = [], 0
        for w in ws:
            out.append((start, start + len(w)))
            start += len(w)
        return out

    g, p = spans(gold), spans(pred)
    correct = set(g) & set(p)
    oov = [span for span, w in zip(g, gold) if words is not None and w not in words]
    return dict(
        gold=len(g),
        pred=len(p),
        correct=len(correct),
        oov_gold=len(oov),
        oov_correct=sum(span in correct for span in oov),
        correct_boundaries=len({e for _, e in g[:-1]} & {e for _, e in p[:-1]}),
    )


@given(segmentation_pairs())
def test_counts_match_oracle(pair):
    gold, pred = pair
    counts = count_sentence(gold, pred, {"我们", "学生", "和尚"})
    expected = brute_force_counts(gold, pred, {"我们", "学生", "和尚"})
    assert {k: getattr(counts, k) for k in expected} == expected
    assert counts.gold == counts.correct + counts.split_gold + counts.merge_gold + counts.cross_gold
    assert counts.pred == counts.correct + counts.split_pred + counts.merge_pred + counts.cross_pred


@given(segmentations())
def test_identical_input_scores_one(gold):
    result = score_sentences([gold], [gold])
    assert result.precision == result.recall == result.f1 == 1.0


@settings(max_examples=50)
@given(st.lists(segmentation_pairs(), min_size=1, max_size=6), SEPARATORS, st.data())
def test_counts_are_additive_and_separator_invariant(tmp_path_factory, pairs, sep, data):
    golds = [g for g, _ in pairs]
    preds = [p for _, p in pairs]
    whole = score_sentences(golds, preds).counts
    parts = sum((count_sentence(g, p) for g, p in pairs), SegCounts())
    assert whole == parts
    split = data.draw(st.integers(0, len(pairs)))
    assert (
        score_sentences(golds[:split], preds[:split]).counts
        + score_sentences(golds[split:], preds[split:]).counts
    ) == whole
    folder = tmp_path_factory.mktemp("sep")
    (folder / "g").write_text("\n".join(sep.join(g) for g in golds) + "\n", encoding="utf-8")
    (folder / "p").write_text("\n".join(sep.join(p) for p in preds), encoding="utf-8")
    assert score_files(folder / "g", folder / "p").counts == whole


# ---------------------------------------------------------------------------
# Real corpora


@pytest.mark.parametrize(
    ("gold", "words"),
    [
        ("pku_test_gold.utf8", 104_372),
        ("msr_test_gold.utf8", 106_873),
        ("cityu_test_gold.utf8", 40_936),
        ("as_testing_gold.utf8", 122_610),
    ],
)
def test_real_gold_against_itself(icwb2, gold, words):
    result = score_files(icwb2 / "gold" / gold, icwb2 / "gold" / gold)
    assert result.gold_words == words
    assert result.f1 == result.boundary_f1 == 1.0


def test_real_legacy_encodings_give_the_same_counts(icwb2):
    utf8 = score_files(icwb2 / "gold/pku_test_gold.utf8", icwb2 / "gold/pku_test_gold.utf8")
    cp936 = score_files(
        icwb2 / "gold/pku_test_gold.txt",
        icwb2 / "gold/pku_test_gold.utf8",
        encoding="gb18030",
        pred_encoding="utf-8",
    )
    assert cp936.counts == utf8.counts
    big5 = score_files(
        icwb2 / "gold/cityu_test_gold.txt",
        icwb2 / "gold/cityu_test_gold.utf8",
        encoding="big5hkscs",
        pred_encoding="utf-8",
    )
    assert big5.gold_words == 40_936
    assert big5.f1 == 1.0


@pytest.mark.parametrize(
    ("corpus", "gold", "differing"),
    [
        ("msr", "msr_test_gold.utf8", 16),
        ("as", "as_testing_gold.utf8", 1),
        ("pku", "pku_test_gold.utf8", 0),
    ],
)
def test_real_raw_input_as_prediction_finds_the_differing_lines(icwb2, corpus, gold, differing):
    # The raw test input holds each sentence unsegmented: every gold line is
    # "merged", and the lines whose characters differ are the known quirks.
    raw = icwb2 / "testing" / f"{corpus}_test.utf8"
    result = score_files(icwb2 / "gold" / gold, raw, per_line=True)
    assert result.counts.mismatched_lines == differing
    kernel_free = score_sentences(
        [line.split() for line in (icwb2 / "gold" / gold).read_text("utf-8-sig").splitlines()],
        [line.split() for line in raw.read_text("utf-8-sig").splitlines()],
    )
    assert kernel_free.counts == result.counts


def test_real_line_counts_of_differing_text(icwb2):
    result = score_files(icwb2 / "gold/msr_test_gold.utf8", icwb2 / "testing/msr_test.utf8")
    assert [m.line for m in result.mismatches] == sorted(m.line for m in result.mismatches)
    assert Counter(m.line for m in result.mismatches)[443] == 1
    assert len(result.mismatches) == scoring.MAX_EXAMPLES


def test_dictionary_from_words_and_file_agree(write):
    path = write("words.txt", "\n".join(sorted(WORDS)) + "\n")
    a = score_sentences([GOLD], [PRED], dictionary=path)
    b = score_sentences([GOLD], [PRED], dictionary=Dictionary.from_words(WORDS))
    assert a.to_dict() == b.to_dict()


# ---------------------------------------------------------------------------
# Normalisation


def test_normalisation_applies_to_gold_prediction_and_dictionary(write):
    gold = write("gold.txt", "ＩＢＭ 公司 在 臺灣\n")
    pred = write("pred.txt", "IBM 公司 在台湾\n")
    plain = score_files(gold, pred, dictionary=["IBM", "台湾"])
    assert plain.counts.mismatched_lines == 1
    normalized = score_files(gold, pred, dictionary=["ＩＢＭ", "臺灣"], normalize="width+t2s")
    assert normalized.counts.mismatched_lines == 0
    assert (normalized.gold_words, normalized.correct_words) == (4, 2)
    # the dictionary was normalised too: ＩＢＭ and 臺灣 became IBM and 台湾 (IV)
    assert (normalized.counts.oov_gold, normalized.counts.oov_correct) == (2, 1)
    assert "norm:width+t2s" in normalized.signature.format()
    same = score_sentences(
        [["ＩＢＭ", "公司", "在", "臺灣"]],
        [["IBM", "公司", "在台湾"]],
        ["ＩＢＭ", "臺灣"],
        normalize="width+t2s",
    )
    assert same.counts == normalized.counts


def test_sighan_method_keeps_the_byte_order_mark_like_the_script(write):
    # The bakeoff script reads bytes, so a BOM stays glued to the first gold word
    # (cityu_test_gold.utf8 has one); interval counting drops it.
    gold = write("gold.txt", "\ufeff结婚 的\n和 尚未\n")
    pred = write("pred.txt", "结婚 的\n和 尚未\n")
    sighan = score_files(gold, pred, method="sighan")
    assert (sighan.sighan.matched, sighan.sighan.substitutions) == (3, 1)
    assert score_files(gold, pred).correct_words == 4


# ---------------------------------------------------------------------------
# Fidelity details


def test_oov_recall_is_undefined_not_zero_when_no_gold_word_is_oov(write):
    # Every gold word is in the dictionary: OOV recall has nothing to count.
    # The SIGHAN script prints "--" there; so do text (None) and JSON (null).
    result = score_sentences([["我们", "是"]], [["我们", "是"]], dictionary={"我们", "是"})
    assert (result.oov_rate, result.oov_recall, result.iv_recall) == (0.0, None, 1.0)
    assert json.loads(json.dumps(result.to_dict()))["oov_recall"] is None
    # ... and IV recall when no gold word is in the dictionary.
    result = score_sentences([["我们", "是"]], [["我们", "是"]], dictionary={"学生"})
    assert (result.oov_rate, result.oov_recall, result.iv_recall) == (1.0, 1.0, None)
    gold = write("gold.txt", "我们 是\n")
    sighan = score_files(gold, gold, dictionary={"我们", "是"}, method="sighan")
    assert (sighan.oov_rate, sighan.oov_recall, sighan.iv_recall) == (0.0, None, 1.0)


def test_dictionary_file_is_read_in_the_gold_encoding(write):
    gold = write("gold.gb", "我们 的 新\n", "gb18030")
    words = write("words.gb", "的\n新\n", "gb18030")
    result = score_files(gold, gold, dictionary=words, encoding="gb18030")
    assert result.oov_rate == pytest.approx(1 / 3)
    # "的" in UTF-8 is not valid GB18030
    utf8_words = write("words.txt", "的\n新\n")
    result = score_files(
        gold, gold, dictionary=utf8_words, encoding="gb18030", dictionary_encoding="utf-8"
    )
    assert result.oov_rate == pytest.approx(1 / 3)
    with pytest.raises(DecodingError, match=r"words\.txt") as caught:
        score_files(gold, gold, dictionary=utf8_words, encoding="gb18030")
    assert "words.txt looks like utf-8" in caught.value.hint
    assert caught.value.suggestion == "utf-8"


def test_line_counts_are_counted_one_way_whatever_file_is_longer(write):
    # The PKU gold's shape: a last empty line. Counted both times (as wc -l does),
    # whether the prediction is shorter or longer.
    gold = write("gold.txt", "我们\n是\n学生\n\n")
    shorter = write("short.txt", "我们\n")
    longer = write("long.txt", "我们\n是\n学生\n\n多\n")
    with pytest.raises(LineCountMismatchError, match=r"gold.txt has 4 lines but .*short.txt has 1"):
        score_files(gold, shorter)
    with pytest.raises(LineCountMismatchError, match=r"gold.txt has 4 lines but .*long.txt has 5"):
        score_files(gold, longer)
    # A last line without its newline counts too; empty lines at the end are not compared.
    assert score_files(gold, write("p.txt", "我们\n是\n学生")).f1 == 1.0


def test_line_mismatch_under_sighan_scores_only_the_lines_both_have(write):
    # The SIGHAN script reads the files while both have a line
    # ("while (defined($truth = <TRUTH>) && defined($test = <TEST>))"); interval
    # counting scores the missing predictions as empty lines.
    gold = write("gold.txt", "我们 是\n学生 们\n好\n")
    pred = write("pred.txt", "我们 是\n")
    sighan = score_files(gold, pred, method="sighan", allow_line_mismatch=True)
    assert (sighan.gold_words, sighan.pred_words, sighan.correct_words) == (2, 2, 2)
    assert sighan.sighan.deletions == 0
    assert sighan.f1 == 1.0
    assert any(
        "only the 1 line both have is scored" in w and "3 gold words" in w for w in sighan.warnings
    )
    interval = score_files(gold, pred, allow_line_mismatch=True)
    assert (interval.gold_words, interval.pred_words, interval.correct_words) == (5, 2, 2)
    assert any("scored as empty" in w for w in interval.warnings)
    # A longer prediction: its extra lines are ignored by both.
    for method in ("interval", "sighan"):
        result = score_files(pred, gold, method=method, allow_line_mismatch=True)
        assert (result.gold_words, result.pred_words) == (2, 2)


NON_PLAIN_GOLDS = [
    (
        "# sent_id = 1\n# text = 我们是\n1\t我们\t我们\tPRON\t_\t_\t2\tnsubj\t_\tSpaceAfter=No\n"
        "2\t是\t是\tVERB\t_\t_\t0\troot\t_\t_\n\n",
        "gold.txt",
        "CoNLL-U",
        "conllu",
    ),
    (
        "# text = 我们是\n1\t我们\t_\t_\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
        "2\t是\t_\t_\t_\t_\t1\tdep\t_\t_\n\n",
        "gold.conllu",
        "CoNLL-U",
        "conllu",
    ),
    ("我们/r 是/v\n", "gold.txt", "People's Daily", "peoples-daily"),
    ("我/B 们/E 是/S\n", "gold.txt", "BMES", "bmes"),
]


@pytest.mark.parametrize(("content", "name", "title", "fmt"), NON_PLAIN_GOLDS)
def test_a_gold_in_another_format_is_read_in_it_not_line_by_line(write, content, name, title, fmt):
    # Read line by line, a CoNLL-U gold gave "different line counts" and, with
    # --allow-line-mismatch, F1 2.40% for a perfect prediction.
    gold = write(name, content)
    pred = write("pred.txt", "我们 是\n")
    for gold_format in ("auto", fmt):
        result = score_files(gold, pred, gold_format=gold_format)
        assert (result.gold_words, result.correct_words, result.f1) == (2, 2, 1.0)
        # The signature's gold checksum is that of the sentences, as score_sentences'.
        assert result.signature.gold == score_sentences([["我们", "是"]], [[]]).signature.gold
    # Forced to plain, it is refused with how to read it, never scored as nonsense.
    with pytest.raises(CorpusFormatError, match=f"looks like {title}") as caught:
        score_files(gold, pred, gold_format="plain", allow_line_mismatch=True)
    assert f'gold_format="{fmt}"' in caught.value.hint  # the API's terms; the CLI names its flag
    assert "cws-bench corpora export" in caught.value.hint
    # A prediction in such a format is refused too.
    with pytest.raises(CorpusFormatError, match="prediction file looks like"):
        score_files(pred, gold, allow_line_mismatch=True)


def test_a_registered_corpus_as_gold(write):
    from cws_bench.corpora import get_corpus

    corpus = get_corpus("sample")
    sentences = list(corpus.sentences("test"))
    pred = write("pred.txt", "".join(" ".join(words) + "\n" for words in sentences))
    for gold in ("sample", "sample:test"):
        result = score_files(gold, pred, dictionary=corpus.dictionary())
        expected = score_sentences(sentences, sentences, corpus.dictionary())
        assert result.counts == expected.counts
        assert result.signature == expected.signature
        assert result.signature.gold == corpus.checksum("test")
    # A file of that name wins over the corpus.
    local = write("sample", "我们 是\n")
    assert gold_corpus(str(local)) is None
    with pytest.raises(CwsBenchError, match="no such file, nor a registered corpus"):
        score_files("no-such-corpus:test", pred)
    with pytest.raises(CwsBenchError, match="applies to files"):
        score_files("sample", pred, gold_format="conllu")

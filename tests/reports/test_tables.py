"""Tests of cws_bench/reports/tables.py: ranking, letters and significance marks."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from cws_bench.reports.tables import (
    build_boards,
    detail_columns,
    format_interval,
    format_p_value,
    format_score,
    format_speed,
    letters,
    significantly_better,
)
from cws_bench.results.model import BakeoffResult, Comparison, Interval, PairResult


def pair(segmenter: str, f1: float, corpus: str = "c", status: str = "ok", **changes) -> PairResult:
    scores = {"f1": f1, "precision": f1, "recall": f1} if status == "ok" else {}
    return PairResult(corpus, segmenter, segmenter, "open", status, scores=scores, **changes)


def comparison(a: str, b: str, difference: float, significant: bool = True) -> Comparison:
    interval = Interval(difference - 0.01, difference + 0.01)
    return Comparison(
        "c", a, b, "f1", difference, interval, 0.01 if significant else 0.5, significant
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0, "0.00"), (1.0, "100.00"), (0.99995, "100.00"), (0.12345, "12.35"), (None, "—")],
)
def test_scores_are_percentages_with_two_decimals(value, text):
    assert format_score(value) == text


def test_other_formats():
    assert format_interval(Interval(0.1, 0.25)) == "[10.00, 25.00]"
    assert format_interval(None) == "—"
    assert format_speed(999.5) == "1,000"
    assert format_p_value(0.001) == "0.001"
    assert format_p_value(0.000999) == "< 0.001"


def test_letters_are_unique():
    names = letters(120)
    assert len(set(names)) == 120
    assert names[:3] == ["a", "b", "c"] and names[26] == "A"


def test_significance_is_read_in_both_directions():
    stored = [comparison("x", "y", -0.02), comparison("x", "z", 0.03, significant=False)]
    assert significantly_better(stored, "c", "y", "x")
    assert not significantly_better(stored, "c", "x", "y")
    assert not significantly_better(stored, "c", "x", "z")  # not significant
    assert not significantly_better(stored, "other", "y", "x")  # another corpus
    assert not significantly_better(stored, "c", "y", "x", metric="precision")


def test_board_ranks_marks_and_ties():
    result = BakeoffResult(
        "t",
        {},
        (
            pair("low", 0.5),
            pair("broken", 0.0, status="failed"),
            pair("high", 0.9),
            pair("mid", 0.8),
        ),
        comparisons=(
            comparison("low", "high", -0.4),
            comparison("high", "mid", 0.1, significant=False),
            comparison("mid", "low", 0.3),
        ),
    )
    (board,) = build_boards(result)
    assert [row.pair.segmenter for row in board.rows] == ["high", "mid", "low"]
    assert [row.letter for row in board.rows] == ["a", "b", "c"]
    assert [row.beats for row in board.rows] == [("c",), ("c",), ()]
    (winner,) = board.winners
    assert winner.row is board.rows[0] and board.is_winner(board.rows[0])
    assert [row.pair.segmenter for row in winner.ties] == ["mid"]
    assert [p.segmenter for p in board.failed] == ["broken"]
    assert board.tested
    # The comparisons come in rank order of a, then b.
    assert [(c.a, c.b) for c in board.comparisons] == [
        ("high", "mid"),
        ("mid", "low"),
        ("low", "high"),
    ]


def test_board_without_tests_or_scores():
    result = BakeoffResult("t", {}, (pair("x", 0.0, status="timeout"),))
    (board,) = build_boards(result)
    assert board.rows == ()
    assert [(w.track, w.row, w.ties) for w in board.winners] == [("open", None, ())]
    assert not board.tested and board.corpus_size() == {}


def test_real_marks_follow_every_comparison(bakeoff):
    """On the real result: a row beats exactly the segmenters a significant test says it beats."""
    for board in build_boards(bakeoff):
        letter = {row.pair.segmenter: row.letter for row in board.rows}
        for first, second in itertools.permutations(board.rows, 2):
            expected = any(
                c.significant
                and (
                    (c.a, c.b, c.difference > 0)
                    == (first.pair.segmenter, second.pair.segmenter, True)
                    or (c.a, c.b, c.difference < 0)
                    == (second.pair.segmenter, first.pair.segmenter, True)
                )
                for c in bakeoff.comparisons
                if c.corpus == board.corpus
            )
            assert (letter[second.pair.segmenter] in first.beats) == expected
        # Never does a lower row beat a higher one by a significant margin on F1.
        for i, row in enumerate(board.rows):
            assert all(letter > row.letter for letter in row.beats), (board.corpus, i)


def test_notes_number_the_warnings(bakeoff):
    boards = {b.corpus: b for b in build_boards(bakeoff)}
    notes = boards["pd1998"].notes
    # Rank order: the closed track (chars, then the contaminated hmm-seen), then the open one.
    assert [who for who, _ in notes] == ["hmm-seen", "jieba, jieba-merged"]
    rows = {row.pair.segmenter: row.notes for row in boards["pd1998"].rows}
    assert rows["hmm-seen"] == (1,) and rows["chars"] == ()
    assert rows["jieba"] == (2,) and rows["jieba-merged"] == (2,)


def test_warnings_of_failed_pairs_become_notes():
    failed = replace(pair("x", 0.0, status="failed"), warnings=("out of memory twice",))
    (board,) = build_boards(BakeoffResult("t", {}, (pair("y", 0.7), failed)))
    assert board.notes == (("x", "out of memory twice"),)


def test_detail_columns_leave_out_what_nobody_has():
    timed = replace(pair("x", 0.9), timing={"load_s": 1.5, "segment_s": 2.0})
    (board,) = build_boards(BakeoffResult("t", {}, (timed, pair("y", 0.8))))
    columns = detail_columns(board, ["load_s", "train_s", "recall_ci"], "90%")
    assert [c.header for c in columns] == ["load s"]
    assert [columns[0].cell(row.pair) for row in board.rows] == ["1.50", "—"]
    with_intervals = replace(timed, intervals={"recall": Interval(0.5, 0.75)})
    (board,) = build_boards(BakeoffResult("t", {}, (with_intervals,)))
    assert [c.header for c in detail_columns(board, ["recall_ci"], "90%")] == ["R 90% CI"]


def closed(segmenter: str, f1: float, **changes) -> PairResult:
    return replace(pair(segmenter, f1), track="closed", **changes)


def test_tracks_are_ranked_apart_each_with_its_winner():
    """Closed-track BiMM must not 'win' over open-track pkuseg in one ranking."""
    result = BakeoffResult(
        "t",
        {},
        (pair("pkuseg", 0.90), closed("bimm", 0.95), closed("hmm", 0.80), pair("jieba", 0.85)),
        comparisons=(comparison("bimm", "hmm", 0.15), comparison("pkuseg", "jieba", 0.05)),
    )
    (board,) = build_boards(result)
    assert [(row.pair.segmenter, row.letter) for row in board.rows] == [
        ("bimm", "a"),
        ("hmm", "b"),
        ("pkuseg", "c"),
        ("jieba", "d"),
    ]
    assert [(w.track, w.row.pair.segmenter) for w in board.winners] == [
        ("closed", "bimm"),
        ("open", "pkuseg"),
    ]
    assert [row.beats for row in board.rows] == [("b",), (), ("d",), ()]
    assert [p.segmenter for p in result.leaderboard("c", "open")] == ["pkuseg", "jieba"]


def test_a_contaminated_row_never_wins_and_marks_no_one():
    """snownlp scored on its own training data: shown, marked, out of the verdict and letters."""
    result = BakeoffResult(
        "t",
        {},
        (
            pair("snownlp", 0.96, warnings=("trained on pd1998: data it has seen",)),
            pair("pkuseg", 0.95),
            pair("jieba", 0.80),
        ),
        comparisons=(
            comparison("snownlp", "pkuseg", 0.01),
            comparison("snownlp", "jieba", 0.16),
            comparison("pkuseg", "jieba", 0.15),
        ),
    )
    result = replace(
        result,
        pairs=(replace(result.pairs[0], contaminated=True), *result.pairs[1:]),
    )
    from cws_bench.results.model import judge_comparisons

    result = replace(result, comparisons=judge_comparisons(result.pairs, result.comparisons))
    (board,) = build_boards(result)
    names = [row.pair.segmenter for row in board.rows]
    assert names == ["pkuseg", "jieba", "snownlp"]  # shown, last in its track
    (winner,) = board.winners
    assert winner.row.pair.segmenter == "pkuseg"
    assert [row.pair.segmenter for row in winner.excluded] == ["snownlp"]
    excluded = board.rows[2]
    assert excluded.excluded and excluded.beats == () and excluded.notes == (1,)
    assert board.rows[0].beats == ("b",)  # pkuseg beats jieba, and snownlp beats no one
    assert [v.winner.segmenter for v in result.winners("c")] == ["pkuseg"]


def test_a_warning_every_segmenter_got_is_one_note_about_the_corpus():
    shared = "16 lines hold different characters in gold and prediction"
    result = BakeoffResult(
        "t",
        {},
        (
            pair("a", 0.9, warnings=(shared,)),
            pair("b", 0.8, warnings=(shared, "own")),
            pair("c", 0.7, warnings=(shared,)),
        ),
    )
    (board,) = build_boards(result)
    assert board.notes == (("every segmenter (3)", shared), ("b", "own"))
    assert [row.notes for row in board.rows] == [(), (2,), ()]

"""Tests of cws_bench/scoring/sighan.py: hand-checked diffs, GNU diff as an oracle, real corpora.

The oracle runs the real GNU ``diff -y`` on one-word-per-line files exactly as
the SIGHAN ``score`` script does, and reads its output with the script's own
regular expressions (on bytes, as Perl does), in the C locale.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.scoring import score_files, score_sentences
from cws_bench.scoring import sighan as sighan_module
from cws_bench.scoring.sighan import (
    BufferCounts,
    Hunk,
    SighanCounts,
    count_sighan_line,
    count_sighan_lines,
    count_words,
    diff_words,
    format_sighan_summary,
    split_sighan_line,
)
from cws_bench.text.dictionary import load_dictionary
from cws_bench.text.io import iter_lines

# ---------------------------------------------------------------------------
# Hand-checked examples

COUNTED = ("substitutions", "insertions", "deletions", "matched")


@pytest.mark.parametrize(
    ("truth", "test", "expected"),
    [
        # identical
        ("我们 是 学生", "我们 是 学生", (0, 0, 0, 3)),
        # one substitution: 是 | 不是
        ("我们 是 学生", "我们 不是 学生", (1, 0, 0, 2)),
        # one insertion and one deletion
        ("我们 学生", "我们 是 学生", (0, 1, 0, 2)),
        ("我们 是 学生", "我们 学生", (0, 0, 1, 2)),
        # a merge: two gold words against one predicted word is one
        # substitution and one deletion
        ("结婚 的 和 尚未 结婚", "结婚 的 和尚未 结婚", (1, 0, 1, 3)),
        # nothing predicted: every gold word deleted
        ("我们 是", "", (0, 0, 2, 0)),
        # all wrong, more predicted words than gold ones
        ("我们 学生", "我 们 学 生", (2, 2, 0, 0)),
        # repeated words: diff sets the common suffix 说 aside first, so 他 | 说
        # is a substitution (a textbook LCS matching the first 说 would give
        # one deletion and one insertion instead)
        ("他 说", "说 说", (1, 0, 0, 1)),
        # the README's example: 哈哈 is left unchanged, 哈 deleted before it
        # and inserted after it
        ("哈 哈哈", "哈哈 哈", (0, 1, 1, 1)),
    ],
)
def test_hand_checked_counts(truth, test, expected):
    counts = count_sighan_line(truth, test, None)
    assert tuple(getattr(counts, name) for name in COUNTED) == expected
    assert counts.truth_words == len(truth.split())
    assert counts.test_words == len(test.split())


def test_hunks_of_the_readme_example():
    assert diff_words(["哈", "哈哈"], ["哈哈", "哈"]) == (Hunk(0, 1, 0, 0), Hunk(2, 2, 1, 2))
    assert diff_words(["a", "b"], ["a", "b"]) == ()
    assert diff_words([], ["a"]) == (Hunk(0, 0, 0, 1),)


def test_readme_example_interval_zero_sighan_one():
    gold, pred = [["哈", "哈哈"]], [["哈哈", "哈"]]
    assert score_sentences(gold, pred).correct_words == 0
    sighan = score_sentences(gold, pred, method="sighan")
    assert sighan.correct_words == 1
    assert (sighan.recall, sighan.precision) == (0.5, 0.5)
    assert (sighan.sighan.insertions, sighan.sighan.deletions) == (1, 1)


def test_which_word_diff_leaves_unchanged_decides_oov_recall():
    # Either 哈 or 哈哈 could be the common word; GNU diff keeps 哈哈, so the
    # missed gold word is 哈, which is in the dictionary.
    counts = count_sighan_line("哈 哈哈", "哈哈 哈", {"哈"})
    assert (counts.oov, counts.oov_missed, counts.iv_missed) == (1, 0, 1)
    scores = counts.scores(has_dictionary=True)
    assert (scores.oov_rate, scores.oov_recall, scores.iv_recall) == (0.5, 1.0, 0.0)


def test_worked_example_of_the_literature():
    gold = "结婚 的 和 尚未 结婚 的 都 应该 好好 考虑 一下 人生 大事"
    pred = "结婚 的 和尚 未结婚 的 都 应该 好好考虑 一下 人生大事"
    words = {"结婚", "尚未", "的", "和", "青年", "都", "应该", "好好考虑", "自己", "人生", "大事"}
    counts = count_sighan_line(gold, pred, words)
    # Hunks: 和 尚未 结婚 | 和尚 未结婚 (2 S, 1 D), 好好 考虑 | 好好考虑 (1 S, 1 D),
    # 人生 大事 | 人生大事 (1 S, 1 D); the same 6 words as by interval counting.
    assert (counts.substitutions, counts.insertions, counts.deletions) == (4, 0, 3)
    assert (counts.truth_words, counts.test_words, counts.matched) == (13, 10, 6)
    # OOV: 好好, 考虑, 一下; 一下 is found.
    assert (counts.oov, counts.oov_missed, counts.iv_missed) == (3, 2, 5)


def test_a_byte_order_mark_stays_in_the_first_word_as_in_the_script():
    # The script reads bytes: a BOM is part of the first word, which then
    # differs from the same word without it.
    counts = count_sighan_line("\ufeff我们 是", "我们 是", {"我们", "是"})
    assert (counts.substitutions, counts.matched, counts.oov, counts.oov_missed) == (1, 1, 1, 1)


def test_empty_gold_line_counts_nothing():
    assert count_sighan_line("  \r", "我们 是", None) == SighanCounts()
    assert count_words([], ["我们"]) == SighanCounts()


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("结婚  的\u3000和 尚未\t结婚\r", ["结婚", "的", "和", "尚未", "结婚"]),
        ("\u3000\u3000开头", ["开头"]),
        # the script deletes every carriage return, inside words too
        ("结\r婚 的", ["结婚", "的"]),
        # Perl's \s is ASCII: other Unicode spaces stay inside a word
        ("a\u00a0b c\u2003d", ["a\u00a0b", "c\u2003d"]),
        ("", []),
    ],
)
def test_split_like_the_script(line, words):
    assert split_sighan_line(line) == words


def test_ideographic_space_separates_words_in_every_encoding(write):
    # U+3000 is E3 80 80 in UTF-8, A1 40 in Big5 and A1 A1 in GB18030; the
    # script replaces only the first two, cws-bench decodes first.
    text = "我們\u3000是 學生\r\n"
    assert "\u3000".encode("big5hkscs") == b"\xa1\x40"
    pred = write("pred.txt", "我們 是學生\n")
    for encoding in ("utf-8", "big5hkscs", "gb18030"):
        gold = write(f"gold.{encoding}", text, encoding)
        result = score_files(gold, pred, encoding=encoding, pred_encoding="utf-8", method="sighan")
        assert (result.sighan.truth_words, result.sighan.matched) == (3, 1), encoding
        assert (result.sighan.substitutions, result.sighan.deletions) == (1, 1), encoding


# ---------------------------------------------------------------------------
# Counts, scores and the summary block


def test_counts_add_up():
    a = SighanCounts(1, 2, 3, 4, 5, 6, 7, 8, 9)
    b = SighanCounts(10, 20, 30, 40, 50, 60, 70, 80, 90)
    assert a + b == SighanCounts(11, 22, 33, 44, 55, 66, 77, 88, 99)
    assert sum([a, b], SighanCounts()) == a + b
    assert (a + b).changes == 44 + 55 + 66


def test_scores_from_counts():
    counts = SighanCounts(truth_words=4, test_words=5, matched=3, oov=2, oov_missed=1)
    scores = counts.scores(has_dictionary=True, beta=2.0)
    assert (scores.recall, scores.precision, scores.f1) == (0.75, 0.6, 6 / 9)
    assert scores.fbeta == pytest.approx(5 * 3 / (4 * 4 + 5))
    assert (scores.oov_rate, scores.oov_recall, scores.iv_recall) == (0.5, 0.5, 1.0)
    plain = counts.scores(has_dictionary=False)
    assert (plain.oov_rate, plain.oov_recall, plain.iv_recall) == (None, None, None)
    assert SighanCounts().scores(has_dictionary=True).f1 == 0.0


@settings(max_examples=50)
@given(st.lists(st.tuples(st.text("甲乙丙 ", max_size=12), st.text("甲乙丙 ", max_size=12))))
def test_score_sentences_sums_the_lines(pairs):
    gold = [g.split() for g, _ in pairs]
    pred = [p.split() for _, p in pairs]
    result = score_sentences(gold, pred, {"甲"}, method="sighan")
    expected = sum((count_words(g, p, {"甲"}) for g, p in zip(gold, pred)), SighanCounts())
    assert result.sighan == expected


SUMMARY = """\
=== SUMMARY:
=== TOTAL INSERTIONS:	0
=== TOTAL DELETIONS:	3
=== TOTAL SUBSTITUTIONS:	4
=== TOTAL NCHANGE:	7
=== TOTAL TRUE WORD COUNT:	13
=== TOTAL TEST WORD COUNT:	10
=== TOTAL TRUE WORDS RECALL:	0.462
=== TOTAL TEST WORDS PRECISION:	0.600
=== F MEASURE:	0.522
=== OOV Rate:	0.231
=== OOV Recall Rate:	0.333
=== IV Recall Rate:	0.500
###	pred.txt	0	3	4	7	13	10	0.462	0.600	0.522	0.231	0.333	0.500"""

WORKED = SighanCounts(13, 10, 6, 0, 3, 4, 3, 2, 5)


def test_summary_block():
    assert format_sighan_summary(WORKED, "/data/run 1/pred.txt", has_dictionary=True) == SUMMARY


def test_summary_name_is_cut_only_for_absolute_paths():
    # The script's s=^/.*/== only matches a path that starts with "/".
    last = format_sighan_summary(WORKED, "out/pred.txt", has_dictionary=True).splitlines()[-1]
    assert last.split("\t")[1] == "out/pred.txt"


def test_summary_without_dictionary_or_words():
    lines = format_sighan_summary(WORKED, "p", has_dictionary=False).splitlines()
    assert lines[-4:-1] == [
        "=== OOV Rate:\t--",
        "=== OOV Recall Rate:\t--",
        "=== IV Recall Rate:\t--",
    ]
    assert lines[-1].endswith("\t0.522\t--\t--\t--")
    # no OOV word: the OOV rate is 0, OOV recall undefined (as the script prints)
    no_oov = SighanCounts(truth_words=2, test_words=2, matched=2)
    assert (
        format_sighan_summary(no_oov, "p", has_dictionary=True)
        .splitlines()[-1]
        .endswith("\t1.000\t1.000\t1.000\t0.000\t--\t1.000")
    )
    # nothing found at all: F is 0 (the script would divide by zero)
    missed = SighanCounts(truth_words=2, test_words=1, matched=0, substitutions=1, deletions=1)
    assert "=== F MEASURE:\t0.000" in format_sighan_summary(missed, "p", has_dictionary=False)
    empty = format_sighan_summary(SighanCounts(), "p", has_dictionary=True)
    assert "=== TOTAL TRUE WORDS RECALL:\t--" in empty
    assert "=== F MEASURE:\t--" in empty


def test_f_measure_is_computed_from_unrounded_precision_and_recall():
    # P = 2/3, R = 1/2: F = 0.5714..., not 2·0.667·0.5/(0.667+0.5) = 0.5716...
    counts = SighanCounts(truth_words=4, test_words=3, matched=2)
    assert "=== F MEASURE:\t0.571" in format_sighan_summary(counts, "p", has_dictionary=False)


# ---------------------------------------------------------------------------
# GNU diff as the oracle

DIFF = "/usr/bin/diff"
SPACE = rb"[ \t\n\x0b\f\r]"  # Perl's \s on bytes
WORD = rb"[^ \t\n\x0b\f\r]"


@pytest.fixture(scope="module")
def gnu_diff() -> str:
    """The real GNU diff, or skip."""
    if not os.access(DIFF, os.X_OK):
        pytest.skip(f"{DIFF} not found: the GNU diff oracle needs GNU diffutils")
    version = subprocess.run([DIFF, "--version"], capture_output=True, text=True).stdout
    if "GNU diffutils" not in version:
        pytest.skip(f"{DIFF} is not GNU diff: {version.splitlines()[:1]}")
    if shutil.which("bash") is None:
        pytest.skip("bash not found: the oracle runs diff from a bash loop")
    return DIFF


def read_diff_output(output: bytes, truth_words: int, test_words: int, words) -> dict[str, int]:
    """Count one line's ``diff -y`` output with the SIGHAN script's regular expressions."""
    counts = dict.fromkeys(("insertions", "deletions", "substitutions"), 0)
    missed = wrong = oov = oov_missed = iv_missed = 0
    for line in output.splitlines(keepends=True):
        if re.search(SPACE + rb"\|" + SPACE, line):
            counts["substitutions"] += 1
        elif re.search(SPACE + rb">" + SPACE, line):
            counts["insertions"] += 1
        elif re.search(SPACE + rb"<" + SPACE, line):
            counts["deletions"] += 1
        first = re.match(rb"^(" + WORD + rb"+)" + SPACE, line)
        if first:
            known = words is not None and first.group(1).decode("utf-8") in words
            oov += not known
            if re.match(rb"^" + WORD + rb"+" + SPACE + rb".*" + SPACE + rb"[|><]" + SPACE, line):
                missed += 1
                oov_missed += not known
                iv_missed += known
        if re.search(SPACE + rb"[|><]" + SPACE + rb".*" + WORD + rb"$", line):
            wrong += 1
    counts["recall_hits"] = truth_words - missed
    counts["precision_hits"] = test_words - wrong
    if words is not None:
        counts.update(oov=oov, oov_missed=oov_missed, iv_missed=iv_missed)
    return counts


def gnu_diff_counts(
    diff: str,
    folder: Path,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    words=None,
    options: str = "",
) -> dict[str, int]:
    """Totals of the script's counting over word-list pairs, by the real ``diff -y``.

    Each pair is written as two one-word-per-line files; one bash loop runs
    diff on all of them (in the C locale) and the outputs are read back.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for index, (truth, test) in enumerate(pairs):
        (folder / f"t{index}").write_bytes(b"".join(w.encode() + b"\n" for w in truth))
        (folder / f"p{index}").write_bytes(b"".join(w.encode() + b"\n" for w in test))
    script = (
        f'for ((i = 0; i < {len(pairs)}; i++)); do "$0" -y {options} t$i p$i > o$i; '
        "[ $? -le 1 ] || exit 2; done"
    )
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["bash", "-c", script, diff], cwd=folder, env=env, check=True)
    totals: dict[str, int] = {}
    for index, (truth, test) in enumerate(pairs):
        output = (folder / f"o{index}").read_bytes()
        for key, value in read_diff_output(output, len(truth), len(test), words).items():
            totals[key] = totals.get(key, 0) + value
    return totals


def our_counts(pairs, words=None) -> dict[str, int]:
    """Our totals, in the oracle's keys."""
    total = sum((count_words(t, p, words) for t, p in pairs), SighanCounts())
    out = {
        "insertions": total.insertions,
        "deletions": total.deletions,
        "substitutions": total.substitutions,
        "recall_hits": total.matched,
        "precision_hits": total.matched,
    }
    if words is not None:
        out.update(oov=total.oov, oov_missed=total.oov_missed, iv_missed=total.iv_missed)
    return out


# Small alphabets, so that words repeat and diff has choices to make; words
# contain no whitespace and none is one of diff's markers | < > (see below).
WORDS = st.sampled_from(["甲", "乙", "丙", "甲乙", "乙丙", "的", "x", "ab"])
LINES = st.lists(WORDS, min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(LINES, st.lists(WORDS, max_size=40))
def test_counts_match_gnu_diff(gnu_diff, tmp_path_factory, truth, test):
    folder = tmp_path_factory.mktemp("diff")
    words = {"甲", "乙丙", "x"}
    assert our_counts([(truth, test)], words) == gnu_diff_counts(
        gnu_diff, folder, [(truth, test)], words
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from("ab"), min_size=60, max_size=300),
    st.lists(st.sampled_from("abcdefghijklmnop"), min_size=60, max_size=300),
)
def test_long_lines_with_frequent_and_unmatched_words_match_gnu_diff(
    gnu_diff, tmp_path_factory, frequent, rare
):
    # Words with many matches and words with none exercise diff's discard
    # pass (provisional discards inside runs of unmatched lines).
    rng = random.Random(len(frequent) * 1000 + len(rare))
    truth = frequent + rare
    rng.shuffle(truth)
    test = [w.upper() if rng.random() < 0.3 else w for w in truth if rng.random() < 0.8]
    pairs = [(truth, test), (test, truth)]
    folder = tmp_path_factory.mktemp("diff")
    assert our_counts(pairs, {"a"}) == gnu_diff_counts(gnu_diff, folder, pairs, {"a"})


def test_marker_words_are_counted_as_diff_aligned_them(gnu_diff, tmp_path):
    # A word that is exactly "|" is read by the script as diff's marker: left
    # unchanged, it still counts as a substitution and as missed. cws-bench
    # counts what diff computed (documented in cws_bench/scoring/sighan.py).
    pair = (["我", "|", "你"], ["我", "|", "你"])
    script = gnu_diff_counts(gnu_diff, tmp_path, [pair])
    assert (script["substitutions"], script["recall_hits"], script["precision_hits"]) == (1, 2, 3)
    ours = count_words(*pair)
    assert (ours.substitutions, ours.matched) == (0, 3)


# ---------------------------------------------------------------------------
# Real corpora: realistic predictions, GNU diff on a sample of their lines

CORPORA = [
    ("pku", "pku_test_gold.utf8"),
    ("msr", "msr_test_gold.utf8"),
    ("cityu", "cityu_test_gold.utf8"),
    ("as", "as_testing_gold.utf8"),
]
ORACLE_LINES = 600  # lines per corpus and prediction run through GNU diff


def forward_maximum_matching(text: str, words: frozenset[str], prefixes: set[str]) -> list[str]:
    """Greedy longest dictionary match from the left; one character when none matches."""
    out, start = [], 0
    while start < len(text):
        best = end = start + 1
        while end <= len(text) and text[start:end] in prefixes:
            if text[start:end] in words:
                best = end
            end += 1
        out.append(text[start:best])
        start = best
    return out


def fmm_segment_file(raw: Path, dictionary: Path) -> list[str]:
    words = load_dictionary(dictionary).words
    prefixes = {word[:k] for word in words for k in range(1, len(word) + 1)}
    return [" ".join(forward_maximum_matching(line, words, prefixes)) for line in iter_lines(raw)]


def perturb(words: list[str], rng: random.Random) -> list[str]:
    """Merge, split, drop and repeat words at random: a noisy segmenter."""
    out: list[str] = []
    index = 0
    while index < len(words):
        word, roll = words[index], rng.random()
        if roll < 0.08 and index + 1 < len(words):
            out.append(word + words[index + 1])
            index += 1
        elif roll < 0.16 and len(word) > 1:
            cut = rng.randint(1, len(word) - 1)
            out += [word[:cut], word[cut:]]
        elif roll < 0.18:
            pass
        elif roll < 0.20:
            out += [word, word]
        else:
            out.append(word)
        index += 1
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("corpus", "gold_name"), CORPORA)
def test_real_corpora_match_gnu_diff(icwb2, gnu_diff, tmp_path, corpus, gold_name):
    gold_path = icwb2 / "gold" / gold_name
    dictionary = icwb2 / "gold" / f"{corpus}_training_words.utf8"
    words = load_dictionary(dictionary).words
    gold_lines = list(iter_lines(gold_path))
    if gold_path.read_bytes().startswith(b"\xef\xbb\xbf"):
        # The script reads bytes: CityU's byte-order mark stays on its first word.
        gold_lines[0] = "\ufeff" + gold_lines[0]
    fmm = fmm_segment_file(icwb2 / "testing" / f"{corpus}_test.utf8", dictionary)
    rng = random.Random(f"sighan-{corpus}")
    noisy = [" ".join(perturb(split_sighan_line(line), rng)) for line in gold_lines]
    for name, pred_lines in (("fmm", fmm), ("noisy", noisy)):
        assert len(pred_lines) == len(gold_lines)
        pairs = [
            (split_sighan_line(g), split_sighan_line(p)) for g, p in zip(gold_lines, pred_lines)
        ]
        pairs = [(t, p) for t, p in pairs if t]
        # All lines through cws-bench (and through score_files, the CLI's path) ...
        pred_path = tmp_path / f"{name}.txt"
        pred_path.write_text("\n".join(pred_lines) + "\n", encoding="utf-8")
        result = score_files(gold_path, pred_path, dictionary=words, method="sighan")
        assert result.sighan == sum((count_words(t, p, words) for t, p in pairs), SighanCounts())
        # ... and a deterministic sample of the lines diff changes through GNU diff.
        changed = [pair for pair in pairs if pair[0] != pair[1]]
        sample = random.Random(f"sample-{corpus}-{name}").sample(
            changed, min(ORACLE_LINES, len(changed))
        )
        expected = gnu_diff_counts(gnu_diff, tmp_path / name, sample, words)
        assert our_counts(sample, words) == expected, (corpus, name)


@pytest.mark.parametrize(
    ("gold_utf8", "gold_legacy", "encoding", "differing"),
    [
        ("pku_test_gold.utf8", "pku_test_gold.txt", "gb18030", []),
        # line 476 holds U+2027 in the UTF-8 release, U+2022 decoded from Big5
        ("cityu_test_gold.utf8", "cityu_test_gold.txt", "big5hkscs", [476]),
    ],
)
def test_real_legacy_encodings_split_like_utf8(
    icwb2, tmp_path, gold_utf8, gold_legacy, encoding, differing
):
    # The GB and Big5 releases split into the words of the UTF-8 ones.
    utf8_lines = list(iter_lines(icwb2 / "gold" / gold_utf8))
    legacy_lines = list(iter_lines(icwb2 / "gold" / gold_legacy, encoding=encoding))
    assert len(utf8_lines) == len(legacy_lines)
    differ = [
        number
        for number, (a, b) in enumerate(zip(utf8_lines, legacy_lines), start=1)
        if split_sighan_line(a) != split_sighan_line(b)
    ]
    assert differ == differing
    rng = random.Random(gold_utf8)
    pred_lines = [" ".join(perturb(split_sighan_line(line), rng)) for line in utf8_lines]
    pred = tmp_path / "pred.txt"
    pred.write_text("\n".join(pred_lines) + "\n", encoding="utf-8")
    legacy = score_files(
        icwb2 / "gold" / gold_legacy,
        pred,
        encoding=encoding,
        pred_encoding="utf-8",
        method="sighan",
    )
    utf8 = score_files(icwb2 / "gold" / gold_utf8, pred, method="sighan")
    assert legacy.sighan.truth_words == utf8.sighan.truth_words
    assert legacy.sighan == sum(
        (count_sighan_line(g, p) for g, p in zip(legacy_lines, pred_lines)), SighanCounts()
    )
    if not differing:
        assert legacy.sighan == utf8.sighan


# ---------------------------------------------------------------------------
# The command line


def run_cli(*args: str):
    from cws_bench.cli import cli

    return CliRunner().invoke(cli, ["score", *map(str, args)], catch_exceptions=False)


def test_cli_prints_the_summary_block(write):
    gold = write("gold.txt", "结婚 的 和 尚未 结婚 的 都 应该 好好 考虑 一下 人生 大事\n")
    pred = write("pred.txt", "结婚 的 和尚 未结婚 的 都 应该 好好考虑 一下 人生大事\n")
    words = write("words.txt", "结婚\n尚未\n的\n和\n青年\n都\n应该\n好好考虑\n自己\n人生\n大事\n")
    result = run_cli(gold, pred, "--format", "sighan", "--dict", words)
    assert result.exit_code == 0, result.output
    assert result.stdout == SUMMARY + "\n"


def test_cli_json_has_the_edit_counts(write):
    gold = write("gold.txt", "哈 哈哈\n我们 是 学生\n")
    pred = write("pred.txt", "哈哈 哈\n我们 不是 学生\n")
    result = run_cli(gold, pred, "--method", "sighan", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["insertions"], data["deletions"], data["substitutions"]) == (1, 1, 1)
    assert (data["gold_words"], data["pred_words"], data["correct_words"]) == (5, 5, 3)
    assert data["method"] == "sighan"


@pytest.mark.slow
def test_official_pku_baseline(icwb2, tmp_path):
    # The bakeoff's baseline, forward maximum matching with the training word
    # list, scores R 0.907, P 0.843, F 0.874, OOV rate 0.058, OOV recall 0.069,
    # IV recall 0.958 by the official script. The counts on the ### line were
    # produced by the official script (with GNU diff 3.8) on this same file.
    dictionary = icwb2 / "gold" / "pku_training_words.utf8"
    pred = tmp_path / "pku_fmm.txt"
    pred.write_text(
        "\n".join(fmm_segment_file(icwb2 / "testing" / "pku_test.utf8", dictionary)) + "\n",
        encoding="utf-8",
    )
    result = run_cli(icwb2 / "gold" / "pku_test_gold.utf8", pred, "--format", "sighan",
                     "--dict", dictionary)  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[7:13] == [
        "=== TOTAL TRUE WORDS RECALL:\t0.907",
        "=== TOTAL TEST WORDS PRECISION:\t0.843",
        "=== F MEASURE:\t0.874",
        "=== OOV Rate:\t0.058",
        "=== OOV Recall Rate:\t0.069",
        "=== IV Recall Rate:\t0.958",
    ]
    assert lines[13] == (
        "###\tpku_fmm.txt\t9274\t1365\t8375\t19014\t104372\t112281"
        "\t0.907\t0.843\t0.874\t0.058\t0.069\t0.958"
    )


# ---------------------------------------------------------------------------
# More cases where the script misreads its data, and where it crashes


def test_a_61_column_gold_word_on_a_changed_line_is_recalled_by_the_script(gnu_diff, tmp_path):
    # diff -y prints a 61-column word filling its left half, then " |": one
    # space, where the script's test for a missed word needs two. The script
    # counts the word as recalled; cws-bench counts it as missed, as diff
    # computed (documented in cws_bench/scoring/sighan.py).
    long_word = "a" * 61
    pair = ([long_word, "b"], ["x", "b"])
    script = gnu_diff_counts(gnu_diff, tmp_path / "long", [pair])
    assert (script["substitutions"], script["recall_hits"], script["precision_hits"]) == (1, 2, 1)
    ours = count_words(*pair)
    assert (ours.substitutions, ours.matched) == (1, 1)
    # One column less and the script agrees with diff.
    shorter = ([long_word[:60], "b"], ["x", "b"])
    assert gnu_diff_counts(gnu_diff, tmp_path / "short", [shorter]) == our_counts([shorter])


def test_the_big5_space_bytes_inside_utf8_stay_part_of_the_word():
    # 乡 is E4 B9 A1 in UTF-8: followed by "@" (40) it holds the byte pair A1 40
    # (U+3000 in Big5) that the script replaces by a space in every encoding.
    assert "乡@".encode() == b"\xe4\xb9\xa1\x40"
    assert split_sighan_line("乡@ 是") == ["乡@", "是"]
    counts = count_sighan_line("乡@ 是", "乡@ 是")
    assert (counts.truth_words, counts.matched, counts.changes) == (2, 2, 0)


def test_cases_where_the_script_divides_by_zero_are_scored(write):
    # An empty prediction line where the gold has words: the script's per-line
    # precision divides by its zero test words. cws-bench counts deletions.
    gold = write("gold.txt", "我们 是\n学生\n")
    pred = write("pred.txt", "我们 是\n\n")
    result = run_cli(gold, pred, "--format", "sighan")
    assert result.exit_code == 0, result.output
    assert "=== TOTAL DELETIONS:\t1" in result.stdout.splitlines()
    assert "=== TOTAL TRUE WORDS RECALL:\t0.667" in result.stdout.splitlines()
    # No correct word at all: the script's F divides by P + R = 0.
    result = run_cli(gold, write("wrong.txt", "我 们是\n学 生\n"), "--format", "sighan")
    assert result.exit_code == 0, result.output
    assert "=== F MEASURE:\t0.000" in result.stdout.splitlines()


@pytest.mark.slow
def test_pku_prediction_cut_short_is_scored_on_the_lines_both_have(icwb2, tmp_path):
    # The script reads gold and prediction while both have a line: a PKU
    # prediction cut after line 1,845 leaves 5,522 gold words unscored, where
    # interval counting counts them as deleted.
    gold = icwb2 / "gold" / "pku_test_gold.utf8"
    pred = tmp_path / "cut.txt"
    with open(gold, encoding="utf-8-sig", newline="") as f:
        pred.write_text("".join(f.readlines()[:1845]), encoding="utf-8", newline="")
    sighan = score_files(gold, pred, method="sighan", allow_line_mismatch=True)
    interval = score_files(gold, pred, allow_line_mismatch=True)
    assert sighan.gold_words == 104_372 - 5_522
    assert sighan.f1 == 1.0
    assert interval.gold_words == 104_372
    assert interval.correct_words == sighan.correct_words
    assert any("1,945 lines but" in w and "1845" in w for w in sighan.warnings)


@pytest.mark.slow
def test_fmm_differs_from_mwseg_only_across_spaces_on_cityu(icwb2, tmp_path):
    # mwseg.pl, the bakeoff's baseline segmenter, deletes the spaces of its
    # input and matches across them (CityU test line 388 is English text);
    # cws-bench's fmm keeps whitespace as a word boundary. The official
    # script's counts for mwseg.pl are 3,706/302/3,463 (I/D/S), F 0.872.
    from cws_bench.segmenters import get_segmenter

    words = icwb2 / "gold" / "cityu_training_words.utf8"
    fmm = get_segmenter("fmm", lexicon=str(words), keep_runs=False)
    raw = list(iter_lines(icwb2 / "testing" / "cityu_test.utf8"))
    assert " " in raw[387]

    def score(lines):
        pred = tmp_path / "pred.txt"
        pred.write_text("".join(" ".join(w) + "\n" for w in fmm.segment(lines)), "utf-8")
        result = score_files(
            icwb2 / "gold" / "cityu_test_gold.utf8", pred, method="sighan", dictionary=words
        )
        counts = result.sighan
        return counts.insertions, counts.deletions, counts.substitutions, round(result.f1, 3)

    assert score(raw) == (3707, 302, 3461, 0.872)
    # Deleting the spaces first, as mwseg.pl does, gives its counts.
    assert score(["".join(line.split(" ")) for line in raw]) == (3706, 302, 3463, 0.872)


# ---------------------------------------------------------------------------
# The compiled twin (cws_bench/_sighan.pyx) counts exactly as the Python code

_compiled = pytest.importorskip("cws_bench._sighan", reason="the compiled diff is not built")


def python_counts(gold_lines, pred_lines, words=None) -> SighanCounts:
    """The pure-Python sum of count_sighan_line (no compiled code on this path)."""
    total = SighanCounts()
    for gold_line, pred_line in zip(gold_lines, pred_lines):
        total += count_sighan_line(gold_line, pred_line, words)
    return total


def test_the_compiled_diff_is_built_in_this_checkout():
    # CI must run the fast path, as test_kernel checks for the interval kernel.
    assert sighan_module._sighan is _compiled
    assert len(SighanCounts.field_names()) == _compiled.FIELD_COUNT


# Separators of every kind the script knows, spaces it does not, CRs inside
# words, byte-order marks, marker words and repeated words.
WORD_PIECES = ["甲", "乙", "甲乙", "的", "|", "<", "𠀋", "a"]
SEPARATORS = [" ", "\u3000", "\t", "\r", "\f", "\x0b"]
PIECES = [*WORD_PIECES, *SEPARATORS, "\xa0", "\u2003", "\ufeff"]
LINE_PARTS = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(LINE_PARTS)
def test_compiled_split_is_the_scripts_split(line):
    assert _compiled.split_line(line) == split_sighan_line(line)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(LINE_PARTS, LINE_PARTS), max_size=20),
    st.one_of(st.none(), st.sets(st.sampled_from(["甲", "乙", "甲乙", "的", "|", "a"]))),
)
def test_compiled_counts_equal_the_python_counts(pairs, words):
    gold_lines = [g for g, _ in pairs]
    pred_lines = [p for _, p in pairs]
    expected = python_counts(gold_lines, pred_lines, words)
    assert SighanCounts(*_compiled.count_lines(gold_lines, pred_lines, words)) == expected
    assert count_sighan_lines(gold_lines, pred_lines, words) == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(LINE_PARTS, LINE_PARTS), max_size=20),
    st.one_of(st.none(), st.sets(st.sampled_from(["甲", "乙", "甲乙", "的", "|", "a"]))),
    st.sampled_from(["", "\n"]),
    st.integers(min_value=1, max_value=3),
)
def test_counts_from_utf8_buffers_equal_the_python_counts(pairs, words, end, calls):
    # BufferCounts (what score_files uses) counts lines given as UTF-8 byte
    # ranges, in several calls, with a word table kept across them.
    gold_lines = [g for g, _ in pairs]
    pred_lines = [p for _, p in pairs]
    expected = python_counts(gold_lines, pred_lines, words)
    counter = BufferCounts.create(words)
    cut = len(pairs) // calls or len(pairs)
    for start in range(0, max(len(pairs), 1), cut or 1):
        gold = ("\n".join(gold_lines[start : start + cut]) + end).encode("utf-8")
        pred = ("\n".join(pred_lines[start : start + cut]) + end).encode("utf-8")
        # Ranges inside larger buffers: bytes before and after are not read.
        counter.add(b"x y\n" + gold + b"z", 4, 4 + len(gold), b"w\n" + pred, 2, 2 + len(pred))
    assert counter.counts() == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 6), max_size=120),
    st.lists(st.integers(0, 9), max_size=120),
)
def test_compiled_hunks_equal_the_python_hunks(gold, pred):
    # Integers as words: diff only compares them, so any hashable is a word.
    assert [tuple(h) for h in diff_words(gold, pred)] == _compiled.diff_hunks(gold, pred)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from("ab"), min_size=60, max_size=400),
    st.lists(st.sampled_from("abcdefghijklmnop"), min_size=60, max_size=400),
    st.randoms(use_true_random=False),
)
def test_compiled_hunks_through_the_discard_pass(frequent, rare, rng):
    # Frequent and unmatched words: provisional discards inside runs of real ones.
    truth = frequent + rare
    rng.shuffle(truth)
    test = [w.upper() if rng.random() < 0.3 else w for w in truth if rng.random() < 0.8]
    for a, b in ((truth, test), (test, truth)):
        assert [tuple(h) for h in diff_words(a, b)] == _compiled.diff_hunks(a, b)


def test_compiled_counts_where_diff_gives_up_minimality(gnu_diff, tmp_path):
    # Two long lines more than 8,192 edits apart: GNU diff's TOO_EXPENSIVE
    # cut-off (4,096 steps from each end) picks a split that is not minimal,
    # so `diff --minimal` counts otherwise. (The Python twin takes minutes here.)
    rng = random.Random(16)
    truth = [str(rng.randrange(40)) for _ in range(6000)]
    test = [str(rng.randrange(40)) for _ in range(6000)]
    words = {str(n) for n in range(0, 40, 3)}
    expected = gnu_diff_counts(gnu_diff, tmp_path / "default", [(truth, test)], words)
    minimal = gnu_diff_counts(gnu_diff, tmp_path / "minimal", [(truth, test)], words, "-d")
    assert expected != minimal, "the example no longer reaches the TOO_EXPENSIVE cut-off"
    total = SighanCounts(*_compiled.count_lines([" ".join(truth)], [" ".join(test)], words))
    assert {
        "insertions": total.insertions,
        "deletions": total.deletions,
        "substitutions": total.substitutions,
        "recall_hits": total.matched,
        "precision_hits": total.matched,
        "oov": total.oov,
        "oov_missed": total.oov_missed,
        "iv_missed": total.iv_missed,
    } == expected


def test_score_files_gives_the_same_result_without_the_compiled_diff(write, monkeypatch):
    gold = write("gold.txt", "\ufeff哈 哈哈\r\n我们 是 学生\n\n结婚 的 和 尚未 结婚\n")
    pred = write("pred.txt", "哈哈 哈\n我们 是学生\n的\n结婚 的 和尚未 结婚\n")
    compiled = score_files(gold, pred, method="sighan", dictionary=["我们", "的"])
    monkeypatch.setattr(sighan_module, "_sighan", None)
    python = score_files(gold, pred, method="sighan", dictionary=["我们", "的"])
    assert compiled.sighan == python.sighan
    assert compiled.to_dict() == python.to_dict()
    assert (compiled.sighan.truth_words, compiled.sighan.matched) == (10, 5)


@pytest.mark.parametrize("block_size", [7, 64, 1 << 16])
def test_score_files_counts_every_line_once_across_the_readers_blocks(
    write, monkeypatch, block_size
):
    # score_files reads the files as raw bytes in blocks and hands each batch of
    # lines the kernel counted, decoded, to the SIGHAN counting: lines longer
    # than a block, CRLF, a byte-order mark and a last line without its newline
    # must give the counts of the whole lines, each counted once.
    from cws_bench.scoring import engine

    rng = random.Random(block_size)
    vocabulary = ["我们", "是", "学生", "结婚", "的", "和", "尚未"]
    gold_lines = [" ".join(perturb(vocabulary * rng.randrange(4), rng)) for _ in range(60)]
    pred_lines = [" ".join(perturb(line.split(), rng)) for line in gold_lines]
    gold = write("gold.txt", "\ufeff" + "\r\n".join(gold_lines))
    pred = write("pred.txt", "\n".join(pred_lines) + "\n")
    words = ["我们", "的", "学生"]
    expected = count_sighan_lines(["\ufeff" + gold_lines[0], *gold_lines[1:]], pred_lines, words)
    monkeypatch.setattr(engine, "BLOCK_SIZE", block_size)
    result = score_files(gold, pred, method="sighan", dictionary=words)
    assert result.sighan == expected
    assert result.sighan.truth_words == sum(len(line.split()) for line in gold_lines)


def test_counts_from_utf8_buffers_of_long_lines():
    # Lines of thousands of words and classes: the counter's arrays grow as words come.
    rng = random.Random(13)
    vocabulary = [f"词{n}" for n in range(3000)]
    gold_lines = [" ".join(rng.choices(vocabulary, k=k)) for k in (5000, 70, 0, 2500)]
    pred_lines = [" ".join(perturb(line.split(), rng)) for line in gold_lines]
    words = set(vocabulary[::3])
    expected = python_counts(gold_lines, pred_lines, words)
    counter = BufferCounts.create(words)
    gold = "\n".join(gold_lines).encode("utf-8")
    pred = "\r\n".join(pred_lines).encode("utf-8")
    counter.add(gold, 0, len(gold), pred, 0, len(pred))
    assert counter.counts() == expected
    # A table emptied between pairs (past max_words) gives the same counts.
    for max_words in (1, 7, 2000):
        small = _compiled.BufferCounter(words, max_words=max_words)
        small.add(gold, 0, len(gold), pred, 0, len(pred))
        assert SighanCounts(*small.totals) == expected

"""Tests of cws_bench/regression/diff.py: what changed between two segmentations."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cws_bench.analysis.patterns import EXAMPLE_WORDS
from cws_bench.errors import CwsBenchError, TextMismatchError
from cws_bench.metrics.significance import fscore_statistic, paired_bootstrap_test
from cws_bench.regression.diff import diff_files, diff_segmentations
from cws_bench.regression.render import (
    example_parts,
    line_pieces,
    render_diff_html,
    render_diff_json,
    render_diff_text,
)
from cws_bench.scoring import count_sentence
from cws_bench.scoring.spans import to_spans

# Hand-checked: line 1 has a split that fixes (+2 gold words) and a moved boundary that
# breaks (-3); line 2 a merge that breaks (-2). A has 9 correct words of 10, B 6 of 9.
A = ["今天上午 ， 乒乓球 拍卖 完 了 。", "研究 人员 发现"]
B = ["今天 上午 ， 乒乓球拍 卖完 了 。", "研究人员 发现"]
GOLD = ["今天 上午 ， 乒乓球 拍卖 完 了 。", "研究 人员 发现"]


def sentences(lines):
    return [line.split() for line in lines]


@pytest.fixture
def diff():
    return diff_segmentations(sentences(A), sentences(B), sentences(GOLD), seed=7, resamples=200)


def test_hand_checked_changes(diff):
    assert diff.lines == 2 and diff.changed_lines == 2
    assert (diff.a_words, diff.b_words) == (10, 9)
    assert (diff.changed_a_words, diff.changed_b_words) == (6, 5)
    assert diff.kinds == {
        "split": {"changes": 1, "a_words": 1, "b_words": 2},
        "merge": {"changes": 1, "a_words": 2, "b_words": 1},
        "cross": {"changes": 1, "a_words": 3, "b_words": 2},
    }
    changes = [c for line in diff.line_diffs for c in line.changes]
    assert [(c.line, c.kind, c.a, c.b, c.start, c.end, c.delta, c.outcome) for c in changes] == [
        (1, "split", ("今天上午",), ("今天", "上午"), 0, 4, 2, "fixed"),
        (1, "cross", ("乒乓球", "拍卖", "完"), ("乒乓球拍", "卖完"), 5, 11, -3, "broke"),
        (2, "merge", ("研究", "人员"), ("研究人员",), 0, 4, -2, "broke"),
    ]
    assert [(c.a_index, c.b_index) for c in changes] == [(0, 0), (2, 3), (0, 0)]


def test_hand_checked_scores_and_test(diff):
    gold = diff.gold
    assert gold.outcomes == {"fixed": 1, "broke": 2, "neither": 0}
    assert (gold.a_scores["correct_words"], gold.b_scores["correct_words"]) == (9, 6)
    assert gold.correct_change == -3
    assert gold.a_scores["precision"] == 0.9 and gold.b_scores["precision"] == 6 / 9
    assert gold.difference("recall") == pytest.approx(6 / 11 - 9 / 11)
    # The test pairs the per-sentence (correct, predicted, gold) rows, A against B.
    direct = paired_bootstrap_test(
        [(6, 7, 8), (3, 3, 3)], [(5, 7, 8), (1, 2, 3)], fscore_statistic(), n_resamples=200, seed=7
    )
    assert gold.tests["f1"] == direct
    assert gold.tests["f1"].difference == pytest.approx(2 * 9 / 21 - 2 * 6 / 20)


def test_the_tests_estimates_are_a_and_b_in_that_order(diff):
    """estimate_a is A's score and estimate_b B's (they were once swapped)."""
    gold = diff.gold
    for metric, test in gold.tests.items():
        assert test.estimate_a == pytest.approx(gold.a_scores[metric]), metric
        assert test.estimate_b == pytest.approx(gold.b_scores[metric]), metric
        assert test.difference == pytest.approx(-gold.difference(metric)), metric


def test_patterns_are_ranked_with_their_first_line():
    a = sentences(["研究 人员 发现", "研究 人员 说", "他 说 的 确实 在理"])
    b = sentences(["研究人员 发现", "研究人员 说", "他 说 的确 实在 理"])
    diff = diff_segmentations(a, b)
    assert [(p.kind, p.a, p.b, p.count, p.line) for p in diff.patterns] == [
        ("merge", ("研究", "人员"), ("研究人员",), 2, 1),
        ("cross", ("的", "确实", "在理"), ("的确", "实在", "理"), 1, 3),
    ]
    assert diff.patterns[1].sentence == "他 说 的 确实 在理"
    assert diff.gold is None and diff.patterns[0].fixed == 0
    assert diff_segmentations(a, b, top=1).patterns == diff.patterns[:1]
    assert diff_segmentations(a, b, top=1).distinct_patterns == 2


def test_swapping_a_and_b_swaps_splits_and_merges(diff):
    back = diff_segmentations(sentences(B), sentences(A), sentences(GOLD), seed=7, resamples=200)
    assert back.kinds["split"]["changes"] == diff.kinds["merge"]["changes"]
    assert back.kinds["merge"]["changes"] == diff.kinds["split"]["changes"]
    assert back.gold.outcomes == {"fixed": 2, "broke": 1, "neither": 0}
    assert back.gold.correct_change == 3


def test_identical_segmentations_have_no_change():
    diff = diff_segmentations(sentences(A), sentences(A), sentences(GOLD))
    assert diff.changed_lines == 0 and diff.changes == 0 and diff.patterns == ()
    assert diff.gold.correct_change == 0
    assert "0 changed" in render_diff_text(diff)


def test_neither_when_both_are_wrong():
    # gold 和 尚未; A 和尚 未; B 和尚未: neither has a gold word in the block.
    diff = diff_segmentations([["和尚", "未"]], [["和尚未"]], [["和", "尚未"]])
    (change,) = diff.line_diffs[0].changes
    assert (change.kind, change.delta, change.outcome) == ("merge", 0, "neither")


def test_lines_whose_text_differs_are_aligned_like_the_scorer():
    a = sentences(["“ 远望号 ” 到 了", "我们 是"])
    b = sentences(["远望 号 ” 到了", "我们 是"])
    diff = diff_segmentations(a, b)
    assert diff.text_differences == 1 and diff.changed_lines == 1
    line = diff.line_diffs[0]
    assert line.text_differs and line.changes == ()
    # A's “ has no counterpart, 远望号 is split, ” is kept, 到 了 merged.
    assert line.a_changed == (True, True, False, True, True)
    assert line.b_changed == (True, True, False, True)
    assert diff.changes == 0
    assert "different characters" in diff.warnings[0]
    assert diff.text_examples[0].line == 1
    assert line_pieces(line, "b") == [
        ("远望", "differs"),
        ("号", "differs"),
        ("”", None),
        ("到了", "differs"),
    ]
    with pytest.raises(TextMismatchError, match="1 line"):
        diff_segmentations(a, b, strict=True)


def test_gold_whose_text_differs_is_aligned():
    # The gold lacks the opening quote: its words are placed on A's characters by alignment.
    diff = diff_segmentations([["“", "研究", "人员"]], [["“", "研究人员"]], [["研究", "人员"]])
    (change,) = diff.line_diffs[0].changes
    assert (change.delta, change.outcome) == (-2, "broke")


def test_dictionary_counts_out_of_vocabulary_words():
    diff = diff_segmentations(sentences(A), sentences(B), dictionary={"今天", "上午", "研究"})
    # A: all 7 words of line 1, and 人员 发现; B: 乒乓球拍 卖完 ， 了 。 and 研究人员 发现.
    assert diff.oov_words == {"a": 9, "b": 7}


def test_different_numbers_of_lines_are_an_error():
    with pytest.raises(CwsBenchError, match="A has 2 lines but B has 1"):
        diff_segmentations(sentences(A), sentences(B[:1]))
    with pytest.raises(CwsBenchError, match="gold has 1 line but"):
        diff_segmentations(sentences(A), sentences(B), sentences(GOLD[:1]))


def test_files(write):
    a = write("a.txt", "\n".join(A) + "\n")
    b = write("b.txt", "\ufeff" + "\r\n".join(B) + "\r\n")  # a BOM and CRLF change nothing
    gold = write("gold.txt", "\n".join(GOLD))
    diff = diff_files(a, b, gold, seed=7, resamples=200)
    assert (diff.a_name, diff.b_name, diff.gold_name) == (str(a), str(b), str(gold))
    assert diff.gold.correct_change == -3
    bad = write("bad.txt", b"\xff\xfe\n")
    with pytest.raises(CwsBenchError, match=r"bad\.txt:1"):
        diff_files(a, bad)


def test_text_rendering(diff):
    text = render_diff_text(diff)
    lines = text.splitlines()
    assert lines[0].endswith("2 lines, 2 changed (100.0%)")
    assert "changes: 3 (1 split, 1 merged, 1 boundary moved)" in text
    assert "1 change fixed agreement, 2 broke it, 0 neither; correct words 9 → 6 (-3)" in text
    f1 = next(line for line in lines if line.strip().startswith("F1"))
    assert f1.split()[1:4] == ["85.71", "60.00", "-25.71"]
    assert "1×  boundary moved 乒乓球 拍卖 完 → 乒乓球拍 卖完  (broke 1)" in text
    assert "200 resamples, seed 7" in text


def test_json_rendering(diff):
    data = json.loads(render_diff_json(diff))
    assert data["changes"] == 3
    assert data["against_gold"]["correct_words"] == {"a": 9, "b": 6, "change": -3}
    assert data["against_gold"]["scores"]["precision"]["a"] == 0.9
    assert data["line_diffs"][0]["changes"][1]["outcome"] == "broke"
    assert data["settings"]["seed"] == 7


def test_html_rendering_escapes_and_marks_changes():
    a = [["<b>", "研究", "人员"]]
    b = [["<b>", "研究人员"]]
    page = render_diff_html(diff_segmentations(a, b, [["<b>", "研究", "人员"]]))
    assert "<b>" not in page.replace("<body>", "") and "&lt;b&gt;" in page
    assert '<mark class="broke">研究人员</mark>' in page
    assert '<mark class="broke">研究 人员</mark>' in page
    assert "http://" not in page and "https://" not in page  # self-contained
    shorter = render_diff_html(diff_segmentations(sentences(A), sentences(B)), max_lines=1)
    assert "The page holds the first 1 of 2 changed lines (the JSON output has all)" in shorter


# ---------------------------------------------------------------------------
# Properties against brute force


@st.composite
def three_segmentations(draw):
    text = draw(st.text(alphabet=st.sampled_from("我们是学生的和尚未"), min_size=1, max_size=14))

    def cut() -> list[str]:
        if len(text) == 1:
            return [text]
        cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1))))
        return [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]

    return cut(), cut(), cut()


@settings(max_examples=300, deadline=None)
@given(st.lists(three_segmentations(), min_size=1, max_size=4))
def test_changes_account_for_every_difference(lines):
    a = [line[0] for line in lines]
    b = [line[1] for line in lines]
    gold = [line[2] for line in lines]
    diff = diff_segmentations(a, b, gold, resamples=10)
    changes = [c for line in diff.line_diffs for c in line.changes]
    # Words that are not words of the other side, by interval (brute force).
    assert diff.changed_a_words == sum(
        len(set(to_spans(x)) - set(to_spans(y))) for x, y in zip(a, b)
    )
    assert diff.changed_b_words == sum(
        len(set(to_spans(y)) - set(to_spans(x))) for x, y in zip(a, b)
    )
    assert diff.changed_lines == sum(x != y for x, y in zip(a, b))
    for change in changes:
        assert "".join(change.a) == "".join(change.b)
        assert len(change.a) > 1 or len(change.b) > 1
    # Every change's gain in gold words adds up to the scorer's difference.
    gained = sum(c.delta for c in changes)
    scorer = sum(
        count_sentence(g, y).correct - count_sentence(g, x).correct for g, x, y in zip(gold, a, b)
    )
    assert gained == scorer == diff.gold.correct_change
    assert sum(diff.gold.outcomes.values()) == len(changes) == diff.changes


def test_html_page_in_a_browser(tmp_path):
    """Headless chromium builds the page with no network (skipped when it is not installed)."""
    import os
    import shutil
    import subprocess

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    page = tmp_path / "diff.html"
    diff = diff_segmentations(sentences(A), sentences(B), sentences(GOLD))
    page.write_text(render_diff_html(diff), encoding="utf-8")
    profile = tmp_path / "profile"
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--proxy-server=http://127.0.0.1:9",  # any request leaving the machine fails
            f"--user-data-dir={profile}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "HOME": str(profile)},
        check=False,
    )
    dom = done.stdout
    assert "</html>" in dom, done.stderr[-2000:]
    assert dom.count('<tr id="line-') == 2
    # two changes, both sides; two legends; the filter
    assert dom.count('<mark class="broke">') == 2 * 2 + 2 + 1
    assert '<mark class="fixed">今天 上午</mark>' in dom


def test_examples_mark_the_occurrence_that_changed():
    a = [["研究", "人员", "说", "一", "二", "三", "研究", "人员", "四"]]
    b = [["研究", "人员", "说", "一", "二", "三", "研究人员", "四"]]
    (pattern,) = diff_segmentations(a, b).patterns
    assert (pattern.line, pattern.index) == (1, 6)
    assert example_parts(pattern, window=2) == [
        ("… 二 三 ", False),
        ("研究 人员", True),
        (" 四", False),
    ]
    assert "line 1: 研究 人员 说 一 二 三 [研究 人员] 四" in render_diff_text(
        diff_segmentations(a, b)
    )


# ---------------------------------------------------------------------------
# Memory: one long line with many distinct changes

MEMORY_SCRIPT = """
import resource, sys
from cws_bench.regression.diff import diff_segmentations

n = int(sys.argv[1])
# n distinct two-character words of A, each split in two by B: n distinct patterns.
a = [chr(0x4E00 + 2 * i) + chr(0x4E01 + 2 * i) for i in range(n)]
b = [c for word in a for c in word]
size = len(" ".join(a).encode()) + len(" ".join(b).encode())
diff_segmentations([["甲乙"]], [["甲", "乙"]], [["甲乙"]])  # warm up (lazy imports)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = diff_segmentations([a], [b])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert result.distinct_patterns == n
print(size, (after - before) * 1024)
"""


def test_one_long_line_with_many_changes_takes_memory_linear_in_its_size():
    # Each pattern used to keep a copy of its whole line: 5,000 changes in one
    # 10,000-character line took 167 MB, 2,200 times the input.
    proc = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, "5000"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    size, peak = map(int, proc.stdout.split())
    assert peak < 200 * size


def test_the_example_of_a_change_is_clipped_around_it():
    a = [f"词{i:03d}" for i in range(100)]
    b = [*a[:50], a[50][:2], a[50][2:], *a[51:]]
    (pattern,) = diff_segmentations([a], [b]).patterns
    words = pattern.sentence.split(" ")
    assert words[0] == words[-1] == "…"
    assert words[pattern.index] == a[50]
    assert len(words) == 2 + 2 * EXAMPLE_WORDS + 1


FILES_MEMORY_SCRIPT = """
import os, random, resource, sys
from cws_bench.regression.diff import diff_files, diff_segmentations

# n lines of 25 random words; with a pool, the lines repeat its lines (so do the patterns
# of change), else each line is drawn anew
folder, n, pool = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(3)
chars = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]


def draw():
    return ["".join(random.choices(chars, k=random.choice((1, 2, 2, 3)))) for _ in range(25)]


drawn = [draw() for _ in range(pool)]
paths = [os.path.join(folder, f"{name}{n}.txt") for name in ("a", "b", "gold")]
with open(paths[0], "w") as fa, open(paths[1], "w") as fb, open(paths[2], "w") as fg:
    for i in range(n):
        words = drawn[i % pool] if pool else draw()
        fg.write(" ".join(words) + "\\n")
        fa.write(" ".join(words) + "\\n")
        if i % 10 == 0:  # one line in ten: two words merged
            words = words[:5] + [words[5] + words[6]] + words[7:]
        fb.write(" ".join(words) + "\\n")
size = sum(os.path.getsize(path) for path in paths)
diff_segmentations([["甲乙"]] * 2, [["甲", "乙"]] * 2, [["甲乙"]] * 2, resamples=10)  # warm up
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = diff_files(*paths, resamples=10)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert result.changed_lines == n // 10
print(size, (after - before) * 1024)
"""


def test_a_diff_of_large_files_takes_a_few_times_their_size(tmp_path):
    # Lines were kept as lists of word objects: about 16 times the files (a 105 MB
    # pair took 1.7 GB); as one string each, about 5 times.
    proc = subprocess.run(
        [sys.executable, "-c", FILES_MEMORY_SCRIPT, str(tmp_path), "10000", "0"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    size, peak = map(int, proc.stdout.split())
    assert peak < 9 * size


def test_the_peak_memory_of_a_diff_does_not_grow_with_the_lines(tmp_path):
    # Every line of A, B and the gold was held at once: the peak grew by about five
    # times the files (30,000 more lines, 16 MB: 77 MB more). Now only a few numbers
    # per sentence (the paired test's rows) and per changed line stay: 9 MB more.
    grown = []
    for lines in (10_000, 40_000):
        proc = subprocess.run(
            [sys.executable, "-c", FILES_MEMORY_SCRIPT, str(tmp_path), str(lines), "500"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        grown.append(tuple(map(int, proc.stdout.split())))
    (small_size, small_peak), (large_size, large_peak) = grown
    assert large_peak - small_peak < large_size - small_size


def test_normalize_compares_a_b_gold_and_dictionary_after_normalising(tmp_path):
    """Full-width ＩＢＭ in B and the gold: a text difference, none after --normalize width."""
    from cws_bench.regression.diff import diff_segmentations

    a = [["IBM", "公司"], ["南京", "大桥"]]
    b = [["ＩＢＭ", "公司"], ["南京大桥"]]
    gold = [["ＩＢＭ", "公司"], ["南京", "大桥"]]
    plain = diff_segmentations(a, b, gold, dictionary=["ＩＢＭ", "南京"])
    assert plain.text_differences == 1
    assert "normalize" not in plain.settings
    both = diff_segmentations(a, b, gold, dictionary=["ＩＢＭ", "南京"], normalize="width")
    assert both.text_differences == 0
    assert both.changed_lines == 1  # only 南京|大桥 -> 南京大桥 is left
    assert both.settings["normalize"] == "width"
    assert both.settings["dictionary"].endswith("|width")
    # A is all right against the gold once normalised; B merged one gold pair.
    assert both.gold.a_scores["f1"] == 1.0
    assert both.gold.b_scores["correct_words"] == 2
    assert both.oov_words == {"a": 2, "b": 2}  # 公司, 大桥 | 公司, 南京大桥


def test_cli_diff_normalize(tmp_path):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    (tmp_path / "a.txt").write_text("IBM 公司\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("ＩＢＭ 公司\n", encoding="utf-8")
    args = ["diff", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    before = CliRunner().invoke(cli, args)
    after = CliRunner().invoke(cli, [*args, "--normalize", "width"])
    assert before.exit_code == after.exit_code == 0
    assert "1 changed" in before.stdout
    assert after.stdout.splitlines()[:4] == [
        f"{tmp_path / 'a.txt'} → {tmp_path / 'b.txt'}: 1 line, 0 changed (0.0%)",
        "  words: 2 → 2; 0 of A's words are not words of B, 0 of B's are new",
        "  changes: 0 (0 split, 0 merged, 0 boundary moved)",
        "  compared after normalising: width",
    ]

"""One huge line, millions of empty lines: what a bake-off holds of them stays small.

Each test measures a moderate input (a line of 100,000 words, 100,000 empty
lines) by what it allocates (tracemalloc) or by what the code does (how many
examples it makes), never by time; benchmarks/bench_hugeline.py measures the
whole commands on inputs a hundred times larger.
"""

from __future__ import annotations

import pickle
import random
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cws_bench.analysis import patterns
from cws_bench.analysis.alignment import align
from cws_bench.analysis.patterns import analyse_errors
from cws_bench.run.config import CorpusSpec
from cws_bench.run.plan import gold_and_raw
from cws_bench.scoring import score_sentences
from cws_bench.text.checksums import SentenceDigest

CHARS = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]


def _words(count: int, seed: int = 5) -> list[str]:
    """Random words of 1 to 3 CJK characters, most of them distinct (as in the benchmark)."""
    rng = random.Random(seed)
    return ["".join(rng.choices(CHARS, k=rng.choice((1, 2, 2, 3)))) for _ in range(count)]


def _allocated(make: Callable[[], Any]) -> tuple[Any, float, float]:
    """What ``make()`` returns, the MiB it still holds after and its peak MiB."""
    tracemalloc.start()
    try:
        value = make()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return value, held / 2**20, peak / 2**20


def test_examples_are_made_only_for_the_patterns_kept(monkeypatch):
    # 2,000 distinct splits on one line: an example sentence for each (a window of 33
    # words) cost more than the patterns themselves; only the 5 kept need one.
    gold = _words(4_000, seed=1)
    pred = [list(word) for word in gold]
    made = []
    clip = patterns.clip_words
    monkeypatch.setattr(patterns, "clip_words", lambda *a, **k: made.append(1) or clip(*a, **k))
    analysis = analyse_errors([gold], [[c for w in pred for c in w]], top=5)
    assert analysis.distinct["split"] > 2_000
    assert len(analysis.splits) == 5
    assert len(made) == 5


def test_a_long_gold_line_is_held_as_its_text(tmp_path: Path):
    # 100,000 words of 2 characters on average: as a list of strings some 8 MiB, as
    # the line itself (two bytes a character, spaces included) about 0.6 MiB.
    words = _words(100_000)
    path = tmp_path / "gold.txt"
    path.write_text(" ".join(words) + "\n", encoding="utf-8")
    spec = CorpusSpec(label="long", gold=str(path))
    (gold, raw), held, _ = _allocated(lambda: gold_and_raw(spec, None))
    assert [list(sentence) for sentence in gold] == [words]
    assert raw == ["".join(words)]
    assert held < 2.5, f"the gold and raw text of one 100,000-word line hold {held:.1f} MiB"


def test_a_long_segmented_line_pickles_to_about_its_text():
    # what a worker sends back for a line segmented into 200,000 single characters
    from cws_bench.run.tasks import share_words  # what segment_shard returns its lines through

    line = "".join(_words(100_000))
    pred = share_words([list(line)])
    size = len(pickle.dumps(pred, protocol=pickle.HIGHEST_PROTOCOL))
    assert [list(words) for words in pred] == [list(line)]
    assert size < 1.5 * len(line.encode("utf-8")), f"{size:,} bytes for {len(line):,} characters"


def test_the_pair_analysis_of_a_long_line_holds_no_string_per_word():
    gold_words = _words(100_000)
    pred_words = [c for w in gold_words for c in w]  # every word split: all distinct errors
    aligned, held, _ = _allocated(lambda: align([gold_words], [pred_words]))
    # 5.2 MiB: the text and a few bytes a word in arrays; with a list of the words on
    # each side and arrays of 8 bytes a word it was 9.4 MiB
    assert held < 7, f"the alignment of a 100,000-word line holds {held:.1f} MiB"
    assert list(aligned.gold_words) == gold_words
    assert list(aligned.pred_words) == pred_words


def test_a_digest_of_a_long_line_does_not_split_it():
    line = " ".join(_words(200_000))
    digest = SentenceDigest()
    _, _, peak = _allocated(lambda: digest.add_line(line))
    reference = SentenceDigest()
    reference.add(line.split())
    assert digest.hexdigest() == reference.hexdigest()
    # the line's UTF-8 bytes (1.5 MiB); its 200,000 words as strings were over 15 MiB
    assert peak < 4, f"digesting a 200,000-word line peaked at {peak:.1f} MiB"


def test_empty_lines_scored_per_line_share_their_counts():
    gold = [[] for _ in range(100_000)]
    gold[0] = ["结婚", "的"]
    pred = [[] for _ in range(100_000)]
    pred[0] = ["结", "婚", "的"]
    result = score_sentences(gold, pred, per_line=True)
    assert result.to_dict()["recall"] == 0.5
    assert len(result.lines) == 100_000
    # one counts object for the 99,999 lines that count nothing, not one each
    assert len({id(counts) for _, counts in result.lines}) == 2


def test_empty_gold_lines_cost_a_pointer_each(tmp_path: Path):
    # 100,000 lines, one in a thousand with words: an empty list a line was 5.6 MiB
    path = tmp_path / "gold.txt"
    lines = ["结婚 的" if i % 1000 == 0 else "" for i in range(100_000)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = CorpusSpec(label="empty", gold=str(path))
    (gold, raw), held, _ = _allocated(lambda: gold_and_raw(spec, None))
    assert [list(words) for words in gold] == [line.split() for line in lines]
    assert raw == [line.replace(" ", "") for line in lines]
    assert held < 3, f"the gold and raw text of 100,000 mostly empty lines hold {held:.1f} MiB"

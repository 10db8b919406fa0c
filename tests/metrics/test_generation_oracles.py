"""The generation metrics against their oracles, each on >= 1,000 random cases.

- ROUGE-W, ROUGE-S and ROUGE-SU: rouge-metric's Python reimplementation of
  ROUGE-1.5.5 (``PyRouge``), and a batch through ROUGE-1.5.5's perl script
  that rouge-metric ships (``PerlRouge``; it prints five decimals, truncated);
- ROUGE-W also against py-rouge (its scoring functions, which need no nltk data);
- pooled ROUGE-N, ROUGE-S, ROUGE-SU: rouge-metric's ``multi_ref_mode="average"``
  (matches and counts summed over the references);
- rougeLsum: rouge-score;
- weighted token precision, recall and F1: scikit-learn with ``sample_weight``.

Inputs are random English words and character-tokenised Chinese, with
stemming and stop words off (tokens are given, never re-tokenised).
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess

import pytest

from cws_bench.metrics.generation import (
    rouge_lsum,
    rouge_n,
    rouge_s,
    rouge_su,
    rouge_w,
    weighted_token_f1,
    weighted_token_precision,
    weighted_token_recall,
)

CASES = 1000
PERL_CASES = 25  # a perl run each
TOLERANCE = 1e-12
ENGLISH = ["the", "cat", "sat", "on", "a", "mat", "and", "dog", "ate", "fish"]
CHINESE = list("猫吃鱼狗叫了在我们的")


def random_tokens(rng: random.Random, low: int = 0, high: int = 12) -> list[str]:
    vocabulary = rng.choice([ENGLISH, CHINESE])
    size = rng.randint(2, len(vocabulary))  # small vocabularies: many repeats and matches
    return [rng.choice(vocabulary[:size]) for _ in range(rng.randint(low, high))]


def pair(rng: random.Random, low: int = 0) -> tuple[list[str], list[str]]:
    vocabulary = rng.choice([ENGLISH, CHINESE])[: rng.randint(2, 10)]
    draw = lambda: [rng.choice(vocabulary) for _ in range(rng.randint(low, 12))]  # noqa: E731
    return draw(), draw()


def close(ours, theirs: dict) -> bool:
    return (
        ours.precision == pytest.approx(theirs["p"], abs=TOLERANCE)
        and ours.recall == pytest.approx(theirs["r"], abs=TOLERANCE)
        and ours.fscore == pytest.approx(theirs["f"], abs=TOLERANCE)
    )


def test_rouge_w_s_su_match_rouge_metric():
    rouge_metric = pytest.importorskip("rouge_metric", reason="rouge-metric is the oracle")
    scorer = rouge_metric.PyRouge(
        rouge_n=(), rouge_l=False, rouge_w=True, rouge_s=True, rouge_su=True, skip_gap=4
    )
    rng = random.Random(2104)
    for _ in range(CASES):
        prediction, reference = pair(rng)
        expected = scorer.evaluate_tokenized([[prediction]], [[[reference]]])
        case = (prediction, reference)
        assert close(rouge_w(prediction, [reference]), expected["rouge-w-1.2"]), case
        assert close(rouge_s(prediction, [reference]), expected["rouge-s4"]), case
        assert close(rouge_su(prediction, [reference]), expected["rouge-su4"]), case


def test_other_weights_and_gaps_match_rouge_metric():
    rouge_metric = pytest.importorskip("rouge_metric", reason="rouge-metric is the oracle")
    rng = random.Random(7)
    for _ in range(200):
        weight, gap = rng.choice([1.0, 1.5, 2.0]), rng.choice([0, 1, 2, None])
        scorer = rouge_metric.PyRouge(
            rouge_n=(),
            rouge_l=False,
            rouge_w=True,
            rouge_w_weight=weight,
            rouge_s=True,
            skip_gap=-1 if gap is None else gap,
        )
        prediction, reference = pair(rng)
        expected = scorer.evaluate_tokenized([[prediction]], [[[reference]]])
        w_key = next(key for key in expected if key.startswith("rouge-w"))
        s_key = next(key for key in expected if key.startswith("rouge-s"))
        assert close(rouge_w(prediction, [reference], weight=weight), expected[w_key])
        assert close(rouge_s(prediction, [reference], max_gap=gap), expected[s_key])


def test_pooled_references_match_rouge_metric_average_mode():
    rouge_metric = pytest.importorskip("rouge_metric", reason="rouge-metric is the oracle")
    scorer = rouge_metric.PyRouge(
        rouge_n=(1, 2),
        rouge_l=False,
        rouge_s=True,
        rouge_su=True,
        skip_gap=4,
        multi_ref_mode="average",
    )
    rng = random.Random(4)
    for _ in range(CASES):
        prediction = random_tokens(rng, low=1)
        references = [random_tokens(rng, low=1) for _ in range(rng.randint(1, 4))]
        expected = scorer.evaluate_tokenized([[prediction]], [[[ref] for ref in references]])
        for ours, key in (
            (rouge_n(prediction, references, n=1, multi_reference="pooled"), "rouge-1"),
            (rouge_n(prediction, references, n=2, multi_reference="pooled"), "rouge-2"),
            (rouge_s(prediction, references, multi_reference="pooled"), "rouge-s4"),
            (rouge_su(prediction, references, multi_reference="pooled"), "rouge-su4"),
        ):
            assert close(ours, expected[key]), (key, prediction, references)


def test_pooled_rouge_n_worked_example():
    """猫吃鱼 against {猫吃鱼, 狗叫}, character unigrams."""
    prediction, references = list("猫吃鱼"), [list("猫吃鱼"), list("狗叫")]
    assert rouge_n(prediction, references, multi_reference="pooled").recall == 3 / 5 == 0.6
    assert rouge_n(prediction, references).recall == 1.0
    with pytest.raises(ValueError, match="multi_reference"):
        rouge_n(prediction, references, multi_reference="average")


def perl_rouge_problem() -> str | None:
    """Why ROUGE-1.5.5.pl cannot run here, or None when it can.

    The script needs perl and the XML::DOM/XML::Parser and DB_File modules (Debian's
    ``libxml-dom-perl``, which .ci/run installs); ``perl -c`` loads every module it uses.
    """
    if shutil.which("perl") is None:
        return "ROUGE-1.5.5 is a perl script and perl is not installed"
    try:
        from rouge_metric import perl_cmd
    except ImportError:
        return "rouge-metric (which ships ROUGE-1.5.5) is not installed"
    check = subprocess.run(
        ["perl", "-c", perl_cmd.ROUGE_EXEC], capture_output=True, text=True, timeout=60
    )
    if check.returncode != 0:
        missing = re.search(r"Can't locate (\S+)", check.stderr)
        module = missing.group(1) if missing else check.stderr.strip()[:200]
        return (
            f"ROUGE-1.5.5.pl cannot run here ({module} missing): "
            "install Debian's libxml-dom-perl (perl's XML::DOM and XML::Parser)"
        )
    return None


def test_perl_rouge_probe_names_the_missing_module(tmp_path, monkeypatch):
    # a script that needs a module nobody has: the probe says which and how to get it
    perl_cmd = pytest.importorskip("rouge_metric.perl_cmd", reason="rouge-metric is the oracle")
    if shutil.which("perl") is None:
        pytest.skip("perl is not installed")
    script = tmp_path / "needs.pl"
    script.write_text("use No::Such::Module;\n")
    monkeypatch.setattr(perl_cmd, "ROUGE_EXEC", str(script))
    problem = perl_rouge_problem()
    assert problem is not None
    assert "No/Such/Module.pm" in problem
    assert "libxml-dom-perl" in problem


def test_rouge_w_s_su_match_the_perl_rouge_1_5_5(tmp_path):
    problem = perl_rouge_problem()
    if problem is not None:
        pytest.skip(problem)
    rouge_metric = pytest.importorskip("rouge_metric", reason="rouge-metric ships ROUGE-1.5.5")
    rng = random.Random(1955)
    perl = rouge_metric.PerlRouge(
        rouge_n_max=1, rouge_l=False, rouge_w=True, rouge_w_weight=1.2, rouge_s=True,
        rouge_su=True, skip_gap=4, resampling=1, temp_dir=str(tmp_path),
    )  # fmt: skip
    # the perl script reads ASCII: Chinese characters become placeholders, one for one
    ascii_name = {c: f"c{i}" for i, c in enumerate(CHINESE)}
    text = lambda tokens: " ".join(ascii_name.get(t, t) for t in tokens)  # noqa: E731
    for _ in range(PERL_CASES):  # one run each: the script's averages are bootstrap means
        prediction, reference = pair(rng, low=1)
        expected = perl.evaluate([text(prediction)], [[text(reference)]])
        for function, key in (
            (rouge_w, "rouge-w-1.2"),
            (rouge_s, "rouge-s4"),
            (rouge_su, "rouge-su4"),
        ):
            score = function(prediction, [reference])
            for field, short in (("precision", "p"), ("recall", "r"), ("fscore", "f")):
                assert getattr(score, field) == pytest.approx(expected[key][short], abs=1e-5), (
                    key,
                    field,
                    prediction,
                    reference,
                )


def test_rouge_w_matches_py_rouge():
    rouge = pytest.importorskip("rouge", reason="py-rouge is an oracle")
    rng = random.Random(12)
    for _ in range(CASES):
        prediction, reference = pair(rng, low=1)
        counts = rouge.Rouge._compute_ngrams_lcs(
            [" ".join(prediction)], [" ".join(reference)], weight_factor=1.2
        )
        expected = rouge.Rouge._compute_p_r_f_score(*counts, alpha=0.5, weight_factor=1.2)
        assert close(rouge_w(prediction, [reference]), expected), (prediction, reference)


def test_rouge_lsum_matches_rouge_score():
    rouge_scorer = pytest.importorskip(
        "rouge_score.rouge_scorer", reason="rouge-score is the oracle"
    )

    class Tokens:
        def tokenize(self, text):
            return text.split(" ") if text else []

    scorer = rouge_scorer.RougeScorer(["rougeLsum"], tokenizer=Tokens())
    rng = random.Random(99)

    def summary() -> list[list[str]]:
        return [random_tokens(rng, low=1, high=6) for _ in range(rng.randint(1, 4))]

    for _ in range(CASES):
        prediction = summary()
        references = [summary() for _ in range(rng.randint(1, 3))]
        text = lambda sentences: "\n".join(" ".join(s) for s in sentences)  # noqa: E731
        expected = scorer.score_multi([text(r) for r in references], text(prediction))
        ours = rouge_lsum(prediction, references)
        theirs = expected["rougeLsum"]
        assert ours.precision == pytest.approx(theirs.precision, abs=TOLERANCE)
        assert ours.recall == pytest.approx(theirs.recall, abs=TOLERANCE)
        assert ours.fscore == pytest.approx(theirs.fmeasure, abs=TOLERANCE)


def test_weighted_token_scores_match_scikit_learn():
    """Each case is one label of one scikit-learn call, token occurrences its weighted samples.

    Clipped: a matched occurrence is a true positive, an unmatched predicted
    one a false positive, an unmatched reference one a false negative.
    Unclipped: precision over the prediction's occurrences (right when the
    token is in the reference), recall over the reference's.
    """
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle")
    from collections import Counter

    rng = random.Random(21)
    cases = []
    clipped = ([], [], [])  # y_true, y_pred, sample_weight
    by_prediction = ([], [], [])
    by_reference = ([], [], [])
    for case in range(CASES):
        prediction, reference = pair(rng, low=1)
        weights = {t: rng.choice([0.0, 0.5, 1.0, 2.5]) for t in set(prediction + reference)}
        if not any(weights[t] for t in prediction) or not any(weights[t] for t in reference):
            continue
        cases.append((case, prediction, reference, weights))
        p, r = Counter(prediction), Counter(reference)
        for token in p | r:
            both = min(p[token], r[token])
            for truth, guess, count in (
                (case, case, both),
                (-1, case, p[token] - both),
                (case, -1, r[token] - both),
            ):
                clipped[0].extend([truth] * count)
                clipped[1].extend([guess] * count)
                clipped[2].extend([weights[token]] * count)
        for token in prediction:
            by_prediction[0].append(case if token in r else -1)
            by_prediction[1].append(case)
            by_prediction[2].append(weights[token])
        for token in reference:
            by_reference[0].append(case)
            by_reference[1].append(case if token in p else -1)
            by_reference[2].append(weights[token])
    labels = [case for case, *_ in cases]
    assert len(labels) >= CASES * 0.9

    def per_label(data):
        y_true, y_pred, sample_weight = data
        return metrics.precision_recall_fscore_support(
            y_true, y_pred, labels=labels, sample_weight=sample_weight, zero_division=0.0
        )

    precision, recall, f1, _ = per_label(clipped)
    membership_p = per_label(by_prediction)[0]
    membership_r = per_label(by_reference)[1]
    for i, (_, prediction, reference, weights) in enumerate(cases):
        refs = [reference]
        assert weighted_token_precision(prediction, refs, weights=weights) == pytest.approx(
            precision[i], abs=TOLERANCE
        )
        assert weighted_token_recall(prediction, refs, weights=weights) == pytest.approx(
            recall[i], abs=TOLERANCE
        )
        assert weighted_token_f1(prediction, refs, weights=weights) == pytest.approx(
            f1[i], abs=TOLERANCE
        )
        unclipped = {"weights": weights, "clipped": False}
        mp, mr = membership_p[i], membership_r[i]
        assert weighted_token_precision(prediction, refs, **unclipped) == pytest.approx(
            mp, abs=TOLERANCE
        )
        assert weighted_token_recall(prediction, refs, **unclipped) == pytest.approx(
            mr, abs=TOLERANCE
        )
        harmonic = 2 * mp * mr / (mp + mr) if mp + mr else 0.0
        assert weighted_token_f1(prediction, refs, **unclipped) == pytest.approx(
            harmonic, abs=TOLERANCE
        )


def test_weighted_token_scores_worked_values():
    weights = {"的": 0.1, "猫": 2.0}
    assert weighted_token_recall(["猫"], [["的", "猫"]], weights=weights) == 2.0 / 2.1
    # clipped: 2 of the prediction's weight 4 matches; unclipped: both 猫 are in the reference
    assert weighted_token_precision(["猫", "猫"], [["猫"]], weights=weights) == 0.5
    assert weighted_token_precision(["猫", "猫"], [["猫"]], weights=weights, clipped=False) == 1.0
    # F1 = 2·2 / (2.1 + 3.0): 鱼 weighs the default 1
    assert weighted_token_f1(["的", "猫"], [["猫", "鱼"]], weights=weights) == 4 / 5.1
    assert weighted_token_f1([], [[]], weights=weights) == 1.0
    with pytest.raises(ValueError, match=">= 0"):
        weighted_token_recall(["猫"], [["猫"]], weights={"猫": -1.0})

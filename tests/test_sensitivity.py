"""Metric sensitivity (``cws-bench metrics sensitivity``, issue 45): each value equals
sacrebleu's or rouge-score's run on the tokens the tokenizer made, CIDEr-D equals
pycocoevalcap's, and a worked example where two systems' BLEU order flips between two
segmenters."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.metrics.generation import cider_d, generation_scores_from_tokens
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.as_tokenizers import get_tokenizer
from cws_bench.segmenters.sensitivity import metric_sensitivity

# The worked example: the reference's 研究生命 is cut 研究生/命 by greedy forward maximum
# matching (研究生 "graduate student" is in the word list), and 今天天气 is cut 今天/天气.
WORDS = ["研究", "生命", "起源", "研究生", "命令", "天气", "不错", "今天", "天天"]
REFERENCES = [["研究生命起源"], ["今天天气不错"]]
SYSTEM_A = ["究生命起源", "天天气不错"]  # drops a character: every other one is in order
SYSTEM_B = ["研究生命很起源", "今天天不错"]  # inserts one, drops another


@pytest.fixture
def fmm(tmp_path: Path):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    return get_segmenter("fmm", lexicon=str(words))


def sacre_bleu(hyps: list[list[str]], refs: list[list[list[str]]]) -> float:
    import sacrebleu

    streams = [[" ".join(item[k]) for item in refs] for k in range(len(refs[0]))]
    found = sacrebleu.corpus_bleu([" ".join(h) for h in hyps], streams, tokenize="none")
    return found.score / 100


def rouge_score_l(hyps: list[list[str]], refs: list[list[list[str]]]) -> float:
    from rouge_score import rouge_scorer

    class Given:  # the tokens as they are (rouge-score's own tokenizer drops Chinese)
        def tokenize(self, text: str) -> list[str]:
            return text.split(" ") if text else []

    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=Given())
    values = [
        scorer.score_multi([" ".join(r) for r in rs], " ".join(h))["rougeL"].fmeasure
        for h, rs in zip(hyps, refs)
    ]
    return sum(values) / len(values)


def tokens_of(tokenizer, systems, references):
    tok = get_tokenizer(tokenizer)
    return (
        {name: tok(lines) for name, lines in systems.items()},
        [tok(refs) for refs in references],
    )


def test_values_equal_sacrebleu_and_rouge_score_on_the_same_tokens(fmm):
    references = [
        ["研究生命起源", "研究生命的起源"],
        ["今天天气不错", "今天的天气不错"],
        ["猫吃了鱼", "一只猫吃鱼"],
    ]
    systems = {
        "a": ["研究生命起源的", "今天天气很不错", "猫吃鱼"],
        "b": ["研究生命令起源", "今天天天气不错", "猫吃了一条鱼"],
    }
    found = metric_sensitivity(systems, references, tokenizers=["char", fmm])
    assert found.tokenizers == ("char", fmm.name + "-" + fmm.version)
    for tokenizer, name in (("char", "char"), (fmm, found.tokenizers[1])):
        hyps, refs = tokens_of(tokenizer, systems, references)
        for system in systems:
            assert found.value("bleu", system, name) == pytest.approx(
                sacre_bleu(hyps[system], refs), abs=1e-12
            )
            assert found.value("rougeL", system, name) == pytest.approx(
                rouge_score_l(hyps[system], refs), abs=1e-12
            )
    # token F1 by hand, char tokens of system a's first item against its best reference:
    # 研究生命起源的 (7) vs 研究生命起源 (6): 6 in common, P 6/7, R 1, F 12/13; against
    # 研究生命的起源 (7): 7 in common, F 1. Item 2: 今天天气很不错 vs 今天天气不错: P 6/7,
    # R 1 -> 12/13, vs 今天的天气不错: 6 common, P 6/7, R 6/7 -> 6/7; best 12/13. Item 3:
    # 猫吃鱼 vs 猫吃了鱼: P 1, R 3/4 -> 6/7; vs 一只猫吃鱼: P 1, R 3/5 -> 3/4; best 6/7.
    assert found.value("f1", "a", "char") == pytest.approx((1 + 12 / 13 + 6 / 7) / 3)


def test_bleu_order_flips_between_two_segmenters(fmm):
    """Characters put A far ahead (its characters are the reference's, one missing); fmm
    puts B ahead: A's 究生命起源 becomes 究/生命/起源, sharing only 起源 with the
    reference's 研究生/命/起源, so no bigram of A's first item matches, while B keeps
    研究生/命 and 起源."""
    systems = {"A": SYSTEM_A, "B": SYSTEM_B}
    found = metric_sensitivity(systems, REFERENCES, tokenizers=["char", fmm])
    char, words = found.tokenizers
    assert fmm.segment(["研究生命起源", SYSTEM_A[0], SYSTEM_B[0]]) == [
        ["研究生", "命", "起源"],
        ["究", "生命", "起源"],
        ["研究生", "命", "很", "起源"],
    ]
    bleu = {m["metric"]: m for m in found.metrics()}["bleu"]
    (pair,) = bleu["pairs"]
    assert pair["gaps"][char] > 0 > pair["gaps"][words]
    assert pair["ahead"] == {char: "A", words: "B"}
    assert pair["flips"] is True
    for system, lines in systems.items():
        for tokenizer, name in (("char", char), (fmm, words)):
            hyps, refs = tokens_of(tokenizer, {system: lines}, REFERENCES)
            assert found.value("bleu", system, name) == pytest.approx(
                sacre_bleu(hyps[system], refs), abs=1e-12
            )
    a = {s["system"]: s for s in bleu["systems"]}["A"]
    assert a["min_tokenizer"] == words and a["max_tokenizer"] == char
    assert a["range"] == pytest.approx(a["max"] - a["min"])
    # ROUGE-L puts B ahead under both: its order holds
    rouge = {m["metric"]: m for m in found.metrics()}["rougeL"]
    assert rouge["pairs"][0]["flips"] is False


# CIDEr-D against pycocoevalcap 1.2 (CiderScorer(n=4, sigma=6.0), the strings joined by
# spaces), run once; pinned, since its wheel (100 MB of Java jars) is no dependency.
CIDER_PREDS = [["猫", "吃", "鱼"], ["狗", "在", "叫", "了"], ["我们", "的", "猫", "吃", "了", "鱼"]]
CIDER_REFS = [
    [["猫", "吃", "了", "鱼"], ["一", "只", "猫", "吃", "鱼"]],
    [["狗", "叫", "了"], ["狗", "在", "叫"]],
    [["我们", "的", "猫", "吃", "鱼"], ["猫", "吃", "了", "鱼"]],
]
PYCOCOEVALCAP = [2.931071587132323, 4.620809629897461, 5.755895051871893]


def test_cider_d_equals_pycocoevalcap_pinned():
    assert cider_d(CIDER_PREDS, CIDER_REFS) == pytest.approx(PYCOCOEVALCAP, abs=1e-12)
    scores = generation_scores_from_tokens(CIDER_PREDS, CIDER_REFS, metrics=["cider"])
    assert scores.cider == pytest.approx(4.435925422967226, abs=1e-12)


def test_cider_d_equals_pycocoevalcap_on_random_cases():
    scorer_module = pytest.importorskip("pycocoevalcap.cider.cider_scorer")
    rng = random.Random(45)
    vocabulary = list("猫吃鱼狗叫了在")
    for _ in range(300):
        n = rng.randint(1, 5)
        preds = [[rng.choice(vocabulary) for _ in range(rng.randint(0, 9))] for _ in range(n)]
        refs = [
            [[rng.choice(vocabulary) for _ in range(rng.randint(1, 9))] for _ in range(2)]
            for _ in range(n)
        ]
        scorer = scorer_module.CiderScorer(n=4, sigma=6.0)
        for p, r in zip(preds, refs):
            scorer += (" ".join(p), [" ".join(x) for x in r])
        _, theirs = scorer.compute_score()
        assert cider_d(preds, refs) == pytest.approx(list(theirs), abs=1e-12)


def test_cider_d_of_one_item_is_zero():
    """With one item every n-gram is in every item's references: IDF log(1/1) = 0."""
    assert cider_d([["猫", "吃", "鱼"]], [[["猫", "吃", "鱼"]]]) == [0.0]


def test_cli_reports_the_flip_and_json(tmp_path, fmm):
    words = tmp_path / "words.txt"  # the fixture's list
    ref = tmp_path / "ref.txt"
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    ref.write_text("\n".join(r[0] for r in REFERENCES) + "\n", encoding="utf-8")
    a.write_text("\n".join(SYSTEM_A) + "\n", encoding="utf-8")
    b.write_text("\n".join(SYSTEM_B) + "\n", encoding="utf-8")
    args = ["metrics", "sensitivity", "-r", ref, "-p", a, "-p", b, "-s", "char,fmm"]
    args += ["-O", f"fmm.lexicon={words}"]
    result = CliRunner().invoke(cli, [str(x) for x in args])
    assert result.exit_code == 0, result.output
    assert "a.txt - b.txt: -27.78 to +37.12; the order FLIPS" in result.output
    result = CliRunner().invoke(cli, [str(x) for x in [*args, "--format", "json"]])
    data = json.loads(result.output)
    assert data["systems"] == ["a.txt", "b.txt"]
    bleu = data["metrics"][0]
    assert bleu["metric"] == "bleu" and bleu["pairs"][0]["flips"] is True
    assert Counter(m["metric"] for m in data["metrics"]) == Counter(
        ["bleu", "rougeL", "cider", "f1"]
    )


def test_cli_bad_input_is_one_clear_error(tmp_path):
    ref = tmp_path / "ref.txt"
    a = tmp_path / "a.txt"
    ref.write_text("猫吃鱼\n狗叫\n", encoding="utf-8")
    a.write_text("猫吃鱼\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["metrics", "sensitivity", "-r", str(ref), "-p", str(a), "-s", "char"]
    )
    assert result.exit_code == 2
    assert "a.txt" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(
        cli,
        ["metrics", "sensitivity", "-r", str(ref), "-p", str(ref), "-O", "fmm.lexicon=x"],
    )
    assert result.exit_code == 2 and "--segmenters does not list" in result.output


def test_the_docs_example_prints_what_the_page_shows(tmp_path):
    """docs/AUDIT.md's worked example, run as written, prints the page's BLEU block."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "AUDIT.md").read_text("utf-8")
    section = page.split("## How much of my BLEU gap is the segmenter's?")[1]
    commands = section.split("```sh\n")[2].split("```")[0].splitlines()
    shown = section.split("prints, for BLEU")[1].split("```\n")[1].split("```")[0]
    for command in commands[:-1]:  # printf '...' > FILE
        text, target = command.removeprefix("printf '").split("' > ")
        (tmp_path / target).write_text(text.replace("\\n", "\n"), encoding="utf-8")
    args = commands[-1].split()[1:]
    assert args[:2] == ["metrics", "sensitivity"]
    args = [str(tmp_path / a) if (tmp_path / a).is_file() else a for a in args]
    args = [a.replace("=words.txt", f"={tmp_path / 'words.txt'}") for a in args]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(shown)


def test_generation_command_prints_cider(tmp_path):
    """``metrics generation -m cider``: the pinned example's corpus CIDEr-D, in percent."""
    ref1, ref2, pred = tmp_path / "r1.txt", tmp_path / "r2.txt", tmp_path / "p.txt"
    ref1.write_text("\n".join(" ".join(r[0]) for r in CIDER_REFS) + "\n", encoding="utf-8")
    ref2.write_text("\n".join(" ".join(r[1]) for r in CIDER_REFS) + "\n", encoding="utf-8")
    pred.write_text("\n".join(" ".join(p) for p in CIDER_PREDS) + "\n", encoding="utf-8")
    args = ["metrics", "generation", "-r", ref1, "-r", ref2, "-p", pred, "-t", "space"]
    result = CliRunner().invoke(cli, [str(a) for a in [*args, "-m", "cider"]])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1:] == ["  tokenizer  CIDEr-D", "  space       443.59"]

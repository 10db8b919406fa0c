"""Tests of cws_bench/scoring/conll18.py: the CoNLL 2018 UD shared task's word score.

Expected values are worked by hand from the published algorithm of
conll18_ud_eval.py (spans over the whole file, Zs characters removed from
FORMs, LCS alignment of lower-cased FORMs inside multi-word regions,
F1 = 2·correct / (gold + system)).
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CorpusFormatError, TextMismatchError
from cws_bench.scoring.conll18 import evaluate_files, load_conllu


def conllu(*sentences: list[tuple[str, str]], comments: bool = True) -> str:
    """CoNLL-U text from sentences of (ID, FORM) rows."""
    out = []
    for number, rows in enumerate(sentences, start=1):
        if comments:
            out.append(f"# sent_id = {number}")
        for word_id, form in rows:
            head = "_" if "-" in word_id or "." in word_id else "0"
            out.append(f"{word_id}\t{form}\t_\tX\t_\t_\t{head}\tdep\t_\t_")
        out.append("")
    return "\n".join(out) + "\n"


def rows(*forms: str) -> list[tuple[str, str]]:
    return [(str(i), form) for i, form in enumerate(forms, start=1)]


def test_spans_over_the_whole_file(write):
    # gold: two sentences AB C | D; system: one line, words AB CD across the break
    gold = write("g.conllu", conllu(rows("AB", "C"), rows("D")))
    system = write("s.txt", "AB CD\n")
    result = evaluate_files(gold, system)
    assert (result.words.gold, result.words.system, result.words.correct) == (3, 2, 1)
    assert result.words.f1 == pytest.approx(0.4)
    assert result.words.precision == 0.5
    assert result.sentences.correct == 0
    assert (result.sentences.gold, result.sentences.system) == (2, 1)


def test_unicode_spaces_are_removed(write):
    # FORMs holding U+0020, U+00A0 and U+3000 (all category Zs) match the same text without them
    gold = write("g.conllu", conllu(rows("10 000", "元\u00a0整", "好")))
    system = write("s.conllu", conllu(rows("10000", "元整", "\u3000好")))
    result = evaluate_files(gold, system)
    assert result.words.correct == 3
    assert result.tokens.f1 == 1.0


def test_a_form_of_spaces_only_is_an_error(write):
    gold = write("g.conllu", conllu(rows("好", "\u3000")))
    with pytest.raises(CorpusFormatError, match=r"g\.conllu:3: there is an empty FORM"):
        load_conllu(gold)


def test_texts_that_differ_are_an_error(write):
    gold = write("g.conllu", conllu(rows("我们", "是"), rows("学生")))
    system = write("s.txt", "我们 是\n学者\n")
    with pytest.raises(TextMismatchError) as info:
        evaluate_files(gold, system)
    message = str(info.value)
    assert "gold file '生'" in message
    assert "system file '者'" in message
    assert "g.conllu:6" in message and "s.txt:2" in message


def test_multiword_token_against_words(write):
    # gold: du = de + le (a multi-word token), chat; system: du, chat as plain words
    gold = write("g.conllu", conllu([("1-2", "du"), ("1", "de"), ("2", "le"), ("3", "chat")]))
    system = write("s.conllu", conllu(rows("du", "chat")))
    result = evaluate_files(gold, system)
    # the region [de le] vs [du] has no common form: only chat is aligned
    assert (result.words.gold, result.words.system, result.words.correct) == (3, 2, 1)
    assert result.words.f1 == pytest.approx(0.4)
    # tokens are du and chat on both sides
    assert result.tokens.correct == 2


def test_multiword_tokens_align_by_lower_cased_forms(write):
    gold = write("g.conllu", conllu([("1-2", "Du"), ("1", "De"), ("2", "le"), ("3", "chat")]))
    system = write("s.conllu", conllu([("1-2", "Du"), ("1", "de"), ("2", "LE"), ("3", "chat")]))
    assert evaluate_files(gold, system).words.correct == 3
    other = write("o.conllu", conllu([("1-2", "Du"), ("1", "le"), ("2", "de"), ("3", "chat")]))
    # LCS of (de, le) and (le, de) is 1
    assert evaluate_files(gold, other).words.correct == 2


def test_multiword_region_extends_across_overlapping_tokens(write):
    # gold: [ab] = a + b (multi-word), c; system: a, [bc] = b + c (multi-word)
    gold = write("g.conllu", conllu([("1-2", "ab"), ("1", "a"), ("2", "b"), ("3", "c")]))
    system = write("s.conllu", conllu([("1", "a"), ("2-3", "bc"), ("2", "b"), ("3", "c")]))
    result = evaluate_files(gold, system)
    # one region holds all three words on each side; LCS of (a b c) and (a b c) is 3
    assert result.words.correct == 3
    assert result.tokens.correct == 0


def test_comments_and_empty_nodes_are_skipped(write):
    text = (
        "# newdoc\n# text = 他去了\n1\t他\t_\t_\t_\t_\t2\t_\t_\t_\n"
        "1.1\t去\t_\t_\t_\t_\t_\t_\t0:root\t_\n2\t去了\t_\t_\t_\t_\t0\t_\t_\t_\n\n"
    )
    gold = write("g.conllu", text)
    system = write("s.txt", "他 去 了\n")
    result = evaluate_files(gold, system)
    assert (result.words.gold, result.words.system, result.words.correct) == (2, 3, 1)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("1\t我\t_\t_\t_\t_\t0\t_\t_\n\n", 1, "9 tab-separated columns, expected 10"),
        (conllu([("1", "我"), ("3", "们")]), 3, "incorrect word id '3' for word '们', expected 2"),
        (conllu([("x", "我")]), 2, "cannot parse word id 'x'"),
        (conllu([("1-x", "我们")]), 2, "cannot parse multi-word token id '1-x'"),
        (
            conllu(rows("我")).rstrip("\n") + "\n",
            2,
            "the CoNLL-U file does not end with an empty line",
        ),
    ],
)
def test_malformed_files_name_file_and_line(write, text, line, message):
    path = write("bad.conllu", text)
    with pytest.raises(CorpusFormatError) as info:
        load_conllu(path)
    assert f"bad.conllu:{line}: {message}" in str(info.value)


def test_cli(write):
    gold = write("g.conllu", conllu(rows("AB", "C"), rows("D")))
    system = write("s.txt", "AB CD\n")
    runner = CliRunner()
    result = runner.invoke(cli, ["score", str(gold), str(system), "--method", "conll18"])
    assert result.exit_code == 0, result.output
    assert "Words      |     50.00 |     33.33 |     40.00 |" in result.stdout
    assert "Sentences  |      0.00 |      0.00 |      0.00 |" in result.stdout
    as_json = runner.invoke(
        cli, ["score", str(gold), str(system), "--method", "conll18", "--format", "json"]
    )
    assert json.loads(as_json.stdout)["words"]["correct"] == 1
    refused = runner.invoke(
        cli, ["score", str(gold), str(system), "--method", "conll18", "--dict", "jieba"]
    )
    assert refused.exit_code == 2
    assert "takes no dictionary and no normalisation" in refused.stderr
    assert "use --method interval" in refused.stderr  # the hint in the command's flags
    mismatch = runner.invoke(
        cli, ["score", str(gold), str(write("x.txt", "AB\n")), "--method", "conll18"]
    )
    assert mismatch.exit_code == 2
    assert "differ" in mismatch.stderr and "Traceback" not in mismatch.output


def _perturb(sentences: list[list[str]], seed: int) -> list[list[str]]:
    """Split some words and merge some neighbours, deterministically."""
    rng = random.Random(seed)
    out = []
    for words in sentences:
        new: list[str] = []
        for word in words:
            roll = rng.random()
            if roll < 0.1 and len(word) > 1:
                cut = rng.randrange(1, len(word))
                new += [word[:cut], word[cut:]]
            elif roll < 0.2 and new:
                new[-1] += word
            else:
                new.append(word)
        out.append(new)
    return out


@pytest.mark.parametrize("treebank", ["gsdsimp", "gsd"])
def test_on_ud_chinese_gsd_equals_interval_scores(shared_corpora, tmp_path, treebank):
    """Without multi-word tokens and with the same line breaks, the script's Words
    score is the interval score of the whole file (GSD has no multi-word tokens)."""
    from cws_bench.corpora import get_corpus
    from cws_bench.scoring import score_sentences

    corpus = get_corpus(f"ud-zh-{treebank}", data_dir=shared_corpora)
    gold_path = corpus.path("test")
    gold = list(corpus.sentences("test"))
    system = _perturb(gold, seed=18)
    system_path = tmp_path / "system.txt"
    system_path.write_text("".join(" ".join(words) + "\n" for words in system), "utf-8")
    result = evaluate_files(gold_path, system_path)
    reference = score_sentences(gold, system)
    assert result.words.gold == reference.counts.gold == sum(map(len, gold))
    assert result.words.system == reference.counts.pred
    assert result.words.correct == reference.counts.correct
    assert result.words.f1 == pytest.approx(reference.scores.f1)
    assert result.sentences.f1 == 1.0
    identical = evaluate_files(gold_path, gold_path)
    assert identical.words.f1 == identical.tokens.f1 == 1.0
    assert identical.words.gold == 12_012 if treebank == "gsdsimp" else 12_010
    # all the file on one line: the Words score does not change, Sentences does
    flat_path = tmp_path / "flat.txt"
    flat_path.write_text(" ".join(w for words in system for w in words) + "\n", "utf-8")
    flat = evaluate_files(gold_path, flat_path)
    assert flat.words == result.words
    assert flat.sentences.correct == 0

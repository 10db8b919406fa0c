"""``cws-bench diff`` reads the gold as ``score`` does, and its --dict in the files' encoding.

On the main branch before this change a CoNLL-U gold was read line by line ("has 9
lines but ... has 2") and --dict was read as UTF-8 whatever --encoding said.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.regression.diff import diff_files

A = "今天上午 ， 乒乓球 拍卖 完 了 。\n研究 人员 发现\n"
B = "今天 上午 ， 乒乓球拍 卖完 了 。\n研究人员 发现\n"
GOLD_WORDS = [["今天", "上午", "，", "乒乓球", "拍卖", "完", "了", "。"], ["研究", "人员", "发现"]]


def conllu(sentences: list[list[str]]) -> str:
    blocks = []
    for number, words in enumerate(sentences, start=1):
        rows = [f"# sent_id = {number}", f"# text = {''.join(words)}"]
        rows += [
            f"{i}\t{w}\t{w}\tX\t_\t_\t{0 if i == 1 else 1}\t{'root' if i == 1 else 'dep'}\t_\t"
            "SpaceAfter=No"
            for i, w in enumerate(words, start=1)
        ]
        blocks.append("\n".join(rows) + "\n")
    return "\n".join(blocks) + "\n"


GOLDS = {
    "plain": ("gold.txt", "\n".join(" ".join(s) for s in GOLD_WORDS) + "\n"),
    "conllu": ("gold.conllu", conllu(GOLD_WORDS)),
    "peoples-daily": ("pd.txt", "\n".join(" ".join(f"{w}/x" for w in s) for s in GOLD_WORDS)),
    "bmes": (
        "bmes.txt",
        "\n".join(
            " ".join(
                f"{ch}/{'S' if len(w) == 1 else 'B' if i == 0 else 'E' if i == len(w) - 1 else 'M'}"
                for w in s
                for i, ch in enumerate(w)
            )
            for s in GOLD_WORDS
        )
        + "\n",
    ),
}


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.txt").write_text(A, encoding="utf-8")
    (tmp_path / "b.txt").write_text(B, encoding="utf-8")
    for name, content in GOLDS.values():
        (tmp_path / name).write_text(content, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", ["conllu", "peoples-daily", "bmes"])
def test_a_gold_in_any_format_gives_the_plain_gold_s_diff(files, fmt):
    plain = json.loads(
        run(
            "diff",
            files / "a.txt",
            files / "b.txt",
            "--gold",
            files / "gold.txt",
            "--format",
            "json",
        ).stdout
    )
    for gold_format in ("auto", fmt):
        done = run(
            "diff",
            files / "a.txt",
            files / "b.txt",
            "--gold",
            files / GOLDS[fmt][0],
            "--gold-format",
            gold_format,
            "--format",
            "json",
        )
        assert done.exit_code == 0, done.output
        data = json.loads(done.stdout)
        # Hand-checked: 1 change fixes, 2 break; 9 of A's words are gold words, 6 of B's.
        assert data["against_gold"]["outcomes"] == {"fixed": 1, "broke": 2, "neither": 0}
        assert data["against_gold"]["correct_words"] == {"a": 9, "b": 6, "change": -3}
        assert data["against_gold"] == plain["against_gold"]


def test_a_conllu_gold_forced_to_plain_is_refused_with_how_to_read_it(files):
    done = run(
        "diff",
        files / "a.txt",
        files / "b.txt",
        "--gold",
        files / "gold.conllu",
        "--gold-format",
        "plain",
    )
    assert done.exit_code == 2 and "Traceback" not in done.output
    assert "looks like CoNLL-U" in done.output and "--gold-format conllu" in done.output
    with pytest.raises(CwsBenchError, match="looks like CoNLL-U"):
        diff_files(files / "a.txt", files / "b.txt", files / "gold.conllu", gold_format="plain")


def test_a_corpus_name_is_a_gold(tmp_path):
    from cws_bench.corpora import get_corpus

    gold = [list(s) for s in get_corpus("sample").sentences("test")]
    (tmp_path / "a.txt").write_text("\n".join(" ".join(s) for s in gold) + "\n", "utf-8")
    (tmp_path / "b.txt").write_text("\n".join(" ".join("".join(s)) for s in gold) + "\n", "utf-8")
    done = run(
        "diff", tmp_path / "a.txt", tmp_path / "b.txt", "--gold", "sample:test", "--format", "json"
    )
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["against_gold"]["a"]["f1"] == 1.0 and data["gold"] == "sample:test"
    # The corpus' standard word list is the dictionary unless --dict names another.
    words = get_corpus("sample").dictionary()
    oov = sum(w not in words for s in gold for w in s)
    assert data["oov_words"]["a"] == oov > 0
    assert data["settings"]["dictionary"] == words.name
    missing = run("diff", tmp_path / "a.txt", tmp_path / "b.txt", "--gold", "no-such-gold")
    assert missing.exit_code == 2 and "no such file, nor a registered corpus" in missing.output


def test_the_dictionary_is_read_in_the_files_encoding(tmp_path):
    for name, text in (("a.txt", A), ("b.txt", B), ("gold.txt", GOLDS["plain"][1])):
        (tmp_path / name).write_bytes(text.encode("gb18030"))
    (tmp_path / "words.txt").write_bytes("乒乓球\n拍卖\n研究\n".encode("gb18030"))
    done = run(
        "diff",
        tmp_path / "a.txt",
        tmp_path / "b.txt",
        "--gold",
        tmp_path / "gold.txt",
        "--dict",
        tmp_path / "words.txt",
        "--encoding",
        "gb18030",
        "--format",
        "json",
    )
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    # Not in {乒乓球, 拍卖, 研究}: A has 今天上午 ， 完 了 。 人员 发现 (7 words), B has 今天
    # 上午 ， 乒乓球拍 卖完 了 。 研究人员 发现 (9).
    assert data["oov_words"] == {"a": 7, "b": 9}
    # A UTF-8 word list beside gb18030 files: --dict-encoding says so.
    (tmp_path / "utf8.txt").write_text("乒乓球\n拍卖\n研究\n", encoding="utf-8")
    again = run(
        "diff",
        tmp_path / "a.txt",
        tmp_path / "b.txt",
        "--dict",
        tmp_path / "utf8.txt",
        "--dict-encoding",
        "utf-8",
        "--encoding",
        "gb18030",
        "--format",
        "json",
    )
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["oov_words"] == {"a": 7, "b": 9}

"""`diff` on tokenizers: lines whose token ids changed, also where every boundary stayed.

The tokenizers are BPE models built here by hand, so every id is known:
v1 has the characters 北 京 市 气 象 台 (ids 0-5) and the merges 北京 (6) and
气象 (7); v2 is v1 with the ids of 北京 and 气象 swapped (a renumbered
vocabulary: the same cuts, other ids); v3 is v1 without the merge 气象.
On the lines 北京市气象台 / (blank) / 市台 / 气象:
- v1 gives [6 2 7 5] / [] / [2 5] / [7]: 7 tokens;
- v2 gives [7 2 6 5] / [] / [2 5] / [6]: lines 1 and 4 changed, every cut kept;
- v3 gives [6 2 3 4 5] / [] / [2 5] / [3 4]: lines 1 and 4 changed, 气象 cut in two;
  9 tokens.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.regression.baseline_file import save_baseline
from cws_bench.regression.diff import diff_tokenizers
from cws_bench.regression.recording import record_baseline
from cws_bench.regression.render import render_diff_html, render_diff_text
from cws_bench.regression.tokens import load_token_ids
from cws_bench.segmenters.llm_tokenizers import SubwordSegmenter

pytest.importorskip("tokenizers", reason="tokenizers is not installed (the subword extra)")

LINES = ["北京市气象台", "", "市台", "气象"]


def _bpe(path, vocab, merges):
    from tokenizers import Tokenizer, models

    Tokenizer(models.BPE(vocab=vocab, merges=merges)).save(str(path))
    return path


@pytest.fixture
def tokenizers(tmp_path):
    chars = {ch: i for i, ch in enumerate("北京市气象台")}
    merges = [("北", "京"), ("气", "象")]
    v1 = _bpe(tmp_path / "v1.json", {**chars, "北京": 6, "气象": 7}, merges)
    v2 = _bpe(tmp_path / "v2.json", {**chars, "北京": 7, "气象": 6}, merges)
    v3 = _bpe(tmp_path / "v3.json", {**chars, "北京": 6}, merges[:1])
    raw = tmp_path / "raw.txt"
    raw.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return raw, v1, v2, v3


def test_the_hand_built_tokenizers_give_the_ids_worked_out_above(tokenizers):
    _, v1, v2, v3 = tokenizers
    ids = [SubwordSegmenter(path=v).token_ids(LINES) for v in (v1, v2, v3)]
    assert ids == [
        [[6, 2, 7, 5], [], [2, 5], [7]],
        [[7, 2, 6, 5], [], [2, 5], [6]],
        [[6, 2, 3, 4, 5], [], [2, 5], [3, 4]],
    ]


def test_ids_that_change_under_unchanged_boundaries_are_reported(tokenizers):
    raw, v1, v2, _ = tokenizers
    run = CliRunner().invoke(
        cli,
        [
            "diff",
            "tokenizer",
            "tokenizer",
            "--text",
            str(raw),
            "-A",
            f"path={v1}",
            "-B",
            f"path={v2}",
        ],
    )
    assert run.exit_code == 0, run.output
    assert "4 lines, 0 changed" in run.output  # no boundary moved
    assert (
        "token ids: 2 of 4 lines changed (50.0%): 2 with every boundary kept, "
        "0 with boundaries moved; tokens 7 → 7"
    ) in run.output
    assert (
        "line 1 (boundaries kept): 北京 市 气象 台\n      A [6, 2, 7, 5]\n      B [7, 2, 6, 5]"
        in (run.output)
    )
    data = json.loads(
        CliRunner()
        .invoke(
            cli,
            [
                "diff",
                "tokenizer",
                "tokenizer",
                "--text",
                str(raw),
                "--format",
                "json",
                "-A",
                f"path={v1}",
                "-B",
                f"path={v2}",
            ],
        )
        .output
    )
    tokens = data["token_ids"]
    assert (tokens["lines"], tokens["changed"], tokens["same_boundaries"]) == (4, 2, 2)
    assert [(e["line"], e["a_ids"], e["b_ids"]) for e in tokens["examples"]] == [
        (1, [6, 2, 7, 5], [7, 2, 6, 5]),
        (4, [7], [6]),
    ]


def test_ids_that_change_with_the_boundaries_are_counted_apart(tokenizers):
    raw, v1, _, v3 = tokenizers
    diff = diff_tokenizers(
        raw, SubwordSegmenter(path=v1), SubwordSegmenter(path=v3), dictionary=None
    )
    assert diff.changed_lines == 2 and diff.kinds["split"]["changes"] == 2
    tokens = diff.token_ids
    assert tokens is not None
    assert (tokens.changed, tokens.same_boundaries, tokens.moved_boundaries) == (2, 0, 2)
    assert (tokens.a_tokens, tokens.b_tokens) == (7, 9)
    assert [(e.line, e.b_words, e.b_ids) for e in tokens.examples] == [
        (1, ("北京", "市", "气", "象", "台"), (6, 2, 3, 4, 5)),
        (4, ("气", "象"), (3, 4)),
    ]
    text = render_diff_text(diff)
    assert "0 with every boundary kept, 2 with boundaries moved; tokens 7 → 9" in text
    page = render_diff_html(diff)
    assert 'id="token-ids"' in page and "[6, 2, 3, 4, 5]" in page


def test_token_id_files_written_by_segment_are_diffed(tokenizers, tmp_path):
    raw, v1, v2, _ = tokenizers
    runner = CliRunner()
    for name, model in (("a", v1), ("b", v2)):
        run = runner.invoke(
            cli,
            [
                "segment",
                "-s",
                "tokenizer",
                "-O",
                f"path={model}",
                str(raw),
                "-o",
                str(tmp_path / f"{name}.txt"),
                "--token-ids",
                str(tmp_path / f"{name}.ids"),
            ],
        )
        assert run.exit_code == 0, run.output
    assert load_token_ids(tmp_path / "a.ids").lines == ((6, 2, 7, 5), (), (2, 5), (7,))
    files = [str(tmp_path / name) for name in ("a.txt", "b.txt", "a.ids", "b.ids")]
    run = runner.invoke(
        cli, ["diff", *files[:2], "--token-ids", *files[2:], "--format", "html", "-o", "-"]
    )
    assert run.exit_code == 0, run.output
    assert 'id="token-ids"' in run.output and "[7, 2, 6, 5]" in run.output
    # Without the ids the same two files show no change at all.
    plain = runner.invoke(cli, ["diff", *files[:2]])
    assert "4 lines, 0 changed" in plain.output and "token ids" not in plain.output


def test_segment_refuses_token_ids_of_a_word_segmenter(tmp_path):
    raw = tmp_path / "raw.txt"
    raw.write_text("北京市\n", encoding="utf-8")
    run = CliRunner().invoke(
        cli, ["segment", "-s", "fmm", str(raw), "--token-ids", str(tmp_path / "x.ids")]
    )
    assert run.exit_code == 2 and "fmm gives no token ids" in run.output
    assert not (tmp_path / "x.ids").exists()


def test_two_tokenizer_baselines_are_diffed_by_their_ids(tokenizers, tmp_path):
    _, v1, v2, _ = tokenizers
    gold = tmp_path / "gold.txt"
    gold.write_text("北京 市 气象台\n市 台\n气象\n", encoding="utf-8")
    paths = []
    for name, model in (("v1", v1), ("v2", v2)):
        baseline = record_baseline(
            "tokenizer",
            [str(gold)],
            options={"path": str(model)},
            speed_runs=1,
            min_run_seconds=0.0,
        )
        paths.append(tmp_path / f"{name}-baseline.json")
        save_baseline(baseline, paths[-1])
    run = CliRunner().invoke(cli, ["diff", *map(str, paths)])
    assert run.exit_code == 0, run.output
    assert "3 lines, 0 changed" in run.output
    assert "token ids: 2 of 3 lines changed (66.7%): 2 with every boundary kept" in run.output
    assert "line 3 (boundaries kept): 气象\n      A [7]\n      B [6]" in run.output

    # A baseline of several corpora needs --corpus.
    both = record_baseline(
        "tokenizer",
        [str(gold), "sample"],
        options={"path": str(v1)},
        speed_runs=1,
        min_run_seconds=0.0,
    )
    save_baseline(both, tmp_path / "both.json")
    run = CliRunner().invoke(cli, ["diff", str(tmp_path / "both.json"), str(paths[1])])
    assert run.exit_code == 2 and "--corpus" in run.output and "Traceback" not in run.output

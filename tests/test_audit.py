"""``cws-bench audit``: agreement, consistency, robustness and the sample to annotate,
each checked against an independent computation (``score``, hand-worked examples)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench import score_files
from cws_bench.analysis.agreement import consensus
from cws_bench.analysis.consistency import CandidateCounter, Consistency
from cws_bench.analysis.robustness import flipped, perturb
from cws_bench.cli import cli
from cws_bench.scoring import SegCounts, count_sentence
from cws_bench.scoring.scores import score_counts

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"
SEGMENTERS = ("fmm", "bmm", "bimm")


def invoke(*args: object, code: int = 0) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, (result.output, result.exception)
    return result.output


def words_of(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text("utf-8").splitlines()]


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The sample corpus' raw test text audited with fmm, bmm and bimm (same word list)."""
    folder = tmp_path_factory.mktemp("audit")
    options = [f"-O{name}.lexicon={SAMPLE_DICT}" for name in SEGMENTERS]
    invoke(
        "audit",
        "sample:test",
        "-s",
        ",".join(SEGMENTERS),
        *options,
        "-o",
        folder,
        "--resamples",
        200,
        "--quiet",
    )
    return folder, json.loads((folder / "audit.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def segmented(audited: tuple[Path, dict], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Each segmenter's output of the same text, written by ``cws-bench segment``."""
    folder, _ = audited
    out = tmp_path_factory.mktemp("segment")
    paths = {}
    for name in SEGMENTERS:
        paths[name] = out / f"{name}.txt"
        invoke(
            "segment",
            "-s",
            name,
            "--lexicon",
            SAMPLE_DICT,
            folder / "inputs" / "sample-test.txt",
            "-o",
            paths[name],
        )
    return paths


def test_pairwise_agreement_is_score_of_one_output_against_another(audited, segmented):
    _, result = audited
    pairs = result["agreement"]["pairs"]
    assert [(p["a"], p["b"]) for p in pairs] == [("fmm", "bmm"), ("fmm", "bimm"), ("bmm", "bimm")]
    for pair in pairs:
        scored = score_files(segmented[pair["a"]], segmented[pair["b"]]).scores
        assert pair["boundary_f1"] == scored.boundary_f1
        assert pair["word_f1"] == scored.f1
        low, high = pair["boundary_f1_interval"]["low"], pair["boundary_f1_interval"]["high"]
        assert low <= pair["boundary_f1"] <= high
    # The segmenters do disagree on this text (else the test could not fail).
    assert min(p["boundary_f1"] for p in pairs) < 1.0


def test_consensus_and_all_agree_recomputed(audited, segmented):
    _, result = audited
    outputs = {name: words_of(path) for name, path in segmented.items()}
    lines = list(zip(*(outputs[name] for name in SEGMENTERS)))
    agree = sum(all(w == ws[0] for w in ws) for ws in lines if ws[0])
    assert result["agreement"]["all_agree"]["sentences"] == agree
    assert result["agreement"]["all_agree"]["share"] == agree / sum(1 for ws in lines if ws[0])
    for k, row in enumerate(result["agreement"]["consensus"]):
        total = sum((count_sentence(consensus(ws), ws[k]) for ws in lines), SegCounts())
        scores = score_counts(total, has_dictionary=False)
        assert row["segmenter"] == SEGMENTERS[k]
        assert row["boundary_f1"] == pytest.approx(scores.boundary_f1, abs=1e-12)
        assert row["word_f1"] == pytest.approx(scores.f1, abs=1e-12)


def test_consensus_vote_and_tie_rule():
    three = [["研究", "生命"], ["研究生", "命"], ["研究", "生", "命"]]
    assert consensus(three) == ["研究", "生", "命"]  # 2 of 3 at 2, 2 of 3 at 3
    assert consensus([["研究生", "命"], ["研究", "生命"]]) == ["研究生", "命"]  # tie: the first
    assert consensus([["研究", "生命"], ["研究生", "命"]]) == ["研究", "生命"]


def test_consistency_hand_example():
    a = [["中国", "人民"], ["在", "中国"], ["中", "国", "队"]]
    b = [["中国人", "民"], ["在", "中", "国"], ["中国", "队"]]
    counter = CandidateCounter(cap=100)
    for words in a + b:
        counter.add(words)
    assert counter.strings() == {"中国", "人民", "中国人"}
    tracker = Consistency(["a", "b"], counter.strings())
    for line, (wa, wb) in enumerate(zip(a, b), start=1):
        tracker.add(line, "".join(wa), [wa, wb])
    # a: 中国 whole on lines 1 and 2, cut on line 3; 人民 occurs once; 中国人 straddles.
    (found,) = tracker.inconsistent("a")
    assert (found.string, found.cuts, found.minority) == ("中国", {"中国": 2, "中 国": 1}, 1)
    assert found.examples["中 国"] == (3, "[中 国]队")
    # b: 中国 is not a unit on line 1 (b cuts 中国人|民), cut on line 2, whole on line 3.
    (found,) = tracker.inconsistent("b")
    assert found.cuts == {"中 国": 1, "中国": 1}
    bands = {row["band"]: row for row in tracker.bands("a")}
    assert (bands["2-4"]["strings"], bands["2-4"]["inconsistent"], bands["all"]["rate"]) == (
        1,
        1,
        1.0,
    )
    assert bands["2-4"]["minority_occurrences"] == 1 and bands["5-19"]["strings"] == 0


def test_candidate_counter_stays_bounded():
    counter = CandidateCounter(cap=2)
    for i in range(50):
        counter.add([f"词{i}", "中国"])
    assert len(counter.counts) <= 4 and counter.pruned
    assert "中国" in counter.strings() and len(counter.strings()) == 2


def test_flip_rates_worked_example(tmp_path):
    # fmm and bmm with the words 研究, 研究生, 生命, 起源; the flips worked by hand:
    #   他研究生命    fmm 他|研究生|命 -> "他研 究生命": 他|研 究|生命: flips (3 ≠ 4)
    #                 bmm 他|研究|生命 -> 他|研 究|生命: same untouched cuts {1, 3}
    #   研究生命起源  fmm 研究生|命|起源 -> "研究生 命起源": same {4}
    #                 bmm 研究|生命|起源 -> 研究生 命|起源: flips ({4} ≠ {2, 4})
    #   生命起源, 生命研究: the space falls on their only cut: no flip for either.
    # In brackets, 「 and 」 are words of their own: no flip anywhere.
    words = tmp_path / "words.txt"
    words.write_text("研究\n研究生\n生命\n起源\n", "utf-8")
    text = tmp_path / "text.txt"
    text.write_text("他研究生命\n研究生命起源\n生命起源\n生命研究\n", "utf-8")
    folder = tmp_path / "out"
    invoke(
        "audit",
        text,
        "-s",
        "fmm,bmm",
        f"-Ofmm.lexicon={words}",
        f"-Obmm.lexicon={words}",
        "-o",
        folder,
        "--resamples",
        100,
        "--quiet",
    )
    result = json.loads((folder / "audit.json").read_text("utf-8"))
    rates = {(r["perturbation"], r["segmenter"]): r for r in result["robustness"]["rates"]}
    assert (rates["space", "fmm"]["flipped"], rates["space", "fmm"]["sentences"]) == (1, 4)
    assert (rates["space", "bmm"]["flipped"], rates["space", "bmm"]["sentences"]) == (1, 4)
    assert rates["space", "fmm"]["rate"] == 0.25
    assert rates["space", "fmm"]["low"] <= 0.25 <= rates["space", "fmm"]["high"]
    assert rates["punct", "fmm"]["flipped"] == rates["punct", "bmm"]["flipped"] == 0
    assert ("width", "fmm") not in rates  # no ASCII: the perturbation does not apply
    assert any(note.startswith("width: applies to none") for note in result["robustness"]["notes"])
    # Second run: every output comes from the folder's cache, the numbers are the same.
    invoke(
        "audit",
        text,
        "-s",
        "fmm,bmm",
        f"-Ofmm.lexicon={words}",
        f"-Obmm.lexicon={words}",
        "-o",
        folder,
        "--resamples",
        100,
        "--quiet",
    )
    again = json.loads((folder / "audit.json").read_text("utf-8"))
    assert again["timing"]["cached_outputs"] == 2 + 2 * 2  # texts, then space and punct
    assert again["robustness"]["rates"] == result["robustness"]["rates"]


def test_sharded_audit_gives_the_same_numbers(tmp_path):
    """--executor local segments in shards on workers; every figure is the same."""
    words = tmp_path / "words.txt"
    words.write_text("研究\n研究生\n生命\n起源\n", "utf-8")
    text = tmp_path / "text.txt"
    text.write_text("他研究生命\n研究生命起源\n生命起源\n生命研究\n" * 3, "utf-8")
    results = []
    for name, extra in (("serial", []), ("sharded", ["--executor", "local", "-j", 1])):
        folder = tmp_path / name
        invoke(
            "audit",
            text,
            "-s",
            "fmm,bmm",
            f"-Ofmm.lexicon={words}",
            f"-Obmm.lexicon={words}",
            "-o",
            folder,
            "--resamples",
            50,
            "--quiet",
            *extra,
        )
        result = json.loads((folder / "audit.json").read_text("utf-8"))
        results.append({k: result[k] for k in ("agreement", "consistency", "robustness")})
    assert results[0] == results[1]


def test_width_perturbation_touches_the_changed_characters():
    p = perturb("width", "用Python写代码")
    assert p is not None and p.line == "用Ｐｙｔｈｏｎ写代码"
    original = ["用", "Python", "写", "代码"]
    assert not flipped(original, ["用", "Ｐ", "ｙ", "ｔ", "ｈ", "ｏ", "ｎ", "写", "代码"], p)
    assert flipped(original, ["用", "Ｐｙｔｈｏｎ", "写代", "码"], p)
    assert perturb("width", "全是中文") is None
    back = perturb("width", "ＡＢ中")
    assert back is not None and back.line == "AB中"


def test_annotation_sample_round_trip(audited, tmp_path):
    folder, result = audited
    annotate = folder / "annotate"
    gold = words_of(annotate / "gold.txt")
    rows = list(
        csv.DictReader((annotate / "alternatives.tsv").open(encoding="utf-8"), delimiter="\t")
    )
    assert len(gold) == len(rows) == result["annotation"]["sentences"] > 0
    assert [r["consensus"] for r in rows] == [" ".join(g) for g in gold]
    for name in SEGMENTERS:
        pred = words_of(annotate / f"{name}.txt")
        assert [r[name] for r in rows] == [" ".join(p) for p in pred]
        # score reads the sample back as gold: the same counts as the consensus agreement
        expected = sum(map(count_sentence, gold, pred), SegCounts())
        assert score_files(annotate / "gold.txt", annotate / f"{name}.txt").counts == expected
    # A team corrects the first sentence to bmm's cut; score follows the correction.
    corrected = tmp_path / "corrected.txt"
    lines = (annotate / "gold.txt").read_text("utf-8").splitlines()
    lines[0] = rows[0]["bmm"]
    corrected.write_text("\n".join(lines) + "\n", "utf-8")
    fixed = [line.split() for line in lines]
    expected = sum(map(count_sentence, fixed, words_of(annotate / "bmm.txt")), SegCounts())
    assert score_files(corrected, annotate / "bmm.txt").counts == expected
    output = invoke("score", corrected, annotate / "fmm.txt", "--confidence", "--resamples", 50)
    assert "F1" in output or "f1" in output.lower()


def test_reports_written(audited):
    folder, result = audited
    matrix = list(csv.DictReader((folder / "agreement.csv").open(encoding="utf-8")))
    assert len(matrix) == 2 * 3 + 3
    first = result["agreement"]["pairs"][0]
    assert float(matrix[0]["boundary_f1"]) == first["boundary_f1"]
    markdown = (folder / "audit.md").read_text("utf-8")
    assert "## Agreement" in markdown and f"{100 * first['boundary_f1']:.2f}" in markdown
    html = (folder / "audit.html").read_text("utf-8")
    assert "<svg" in html and "boundary F" in html and "<table>" in html
    signature = result["signature"]
    assert [s["label"] for s in signature["segmenters"]] == list(SEGMENTERS)
    assert len(signature["texts"][0]["checksum"]) == 16


def test_bad_input_is_one_clear_error(tmp_path):
    result = CliRunner().invoke(cli, ["audit", "no-such-thing", "-s", "fmm,bmm", "-o", tmp_path])
    assert result.exit_code == 2
    assert "no-such-thing: neither a file nor a corpus" in result.output
    result = CliRunner().invoke(
        cli, ["audit", "sample:test", "-s", "fmm,bmm", "-O", "jieba.x=1", "-o", tmp_path]
    )
    assert result.exit_code == 2 and "jieba" in result.output
    result = CliRunner().invoke(cli, ["audit", "sample:test", "-s", "fmm", "-o", tmp_path])
    assert result.exit_code == 2 and "at least two segmenters" in result.output


def test_agreement_on_a_shared_corpus(shared_corpora, tmp_path):
    """Real text: SIGHAN 2005 PKU's raw test input, fmm against bmm with jieba's words."""
    raw = shared_corpora / "icwb2-data" / "testing" / "pku_test.utf8"
    text = tmp_path / "pku.txt"
    text.write_text("".join(raw.read_text("utf-8-sig").splitlines(keepends=True)[:300]), "utf-8")
    folder = tmp_path / "out"
    invoke(
        "audit",
        text,
        "-s",
        "fmm,bmm",
        "-Ofmm.lexicon=jieba",
        "-Obmm.lexicon=jieba",
        "-o",
        folder,
        "--resamples",
        100,
        "--perturb",
        "",
        "--quiet",
    )
    result = json.loads((folder / "audit.json").read_text("utf-8"))
    (pair,) = result["agreement"]["pairs"]
    fmm, bmm = (folder / "segmented" / name / "1.txt" for name in ("fmm", "bmm"))
    assert pair["boundary_f1"] == score_files(fmm, bmm).scores.boundary_f1
    assert 0.9 < pair["boundary_f1"] < 1.0


@pytest.mark.slow
@pytest.mark.needs("pkuseg", reason="docs/AUDIT.md's example audits with pkuseg")
@pytest.mark.needs("jieba", reason="docs/AUDIT.md's example audits with jieba")
def test_the_docs_example_prints_what_the_page_shows(shared_corpora, tmp_path):
    """docs/AUDIT.md's command on the shared zx corpus prints the page's block, digit for digit."""
    import re
    import shlex

    page = (ROOT / "docs" / "AUDIT.md").read_text("utf-8")
    command = re.search(r"```sh\n(cws-bench audit zx:test [^\n]*)\n```", page)
    printed = re.search(r"It prints[^\n]*\n\n```\n(.*?)```", page, flags=re.S)
    assert command is not None and printed is not None
    words = shlex.split(command.group(1))[1:]
    words[words.index("--data-dir") + 1] = str(shared_corpora)
    words[words.index("-o") + 1] = str(tmp_path / "audit-zx")
    assert invoke(*words, "--quiet") == printed.group(1)


def test_segmenters_from_a_bakeoff_config(sample_bakeoff, tmp_path):
    config = tmp_path / "bakeoff.toml"
    config.write_text(sample_bakeoff("audit-config"), "utf-8")
    folder = tmp_path / "out"
    invoke(
        "audit",
        "sample:test",
        "--config",
        config,
        "-o",
        folder,
        "--resamples",
        50,
        "--perturb",
        "",
        "--quiet",
    )
    result = json.loads((folder / "audit.json").read_text("utf-8"))
    assert [s["label"] for s in result["signature"]["segmenters"]] == ["fmm", "bmm"]
    (pair,) = result["agreement"]["pairs"]
    fmm, bmm = (folder / "segmented" / name / "1.txt" for name in ("fmm", "bmm"))
    assert pair["word_f1"] == score_files(fmm, bmm).scores.f1


def test_an_unknown_segmenter_fails_before_any_work(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "audit",
            "sample:test",
            "-s",
            "fmm,nosuch",
            f"-Ofmm.lexicon={SAMPLE_DICT}",
            "-o",
            tmp_path / "out",
        ],
    )
    assert result.exit_code == 2 and "nosuch" in result.output
    assert not (tmp_path / "out" / "segmented").exists()


def test_rows_past_the_cap_become_blocks_with_the_same_scores(audited, tmp_path):
    from cws_bench.run.audit import AuditSegmenter, AuditSettings, audit, resolve_texts

    folder, result = audited
    texts = resolve_texts([str(folder / "inputs" / "sample-test.txt")], tmp_path)
    segmenters = [AuditSegmenter(n, n, {"lexicon": str(SAMPLE_DICT)}) for n in SEGMENTERS]
    small = audit(
        texts,
        segmenters,
        tmp_path,
        settings=AuditSettings(resamples=200, row_cap=8, perturbations=()),
    )
    assert small["agreement"]["block"] == 8  # 40 sentences in at most 8 rows: blocks of 8
    for a, b in zip(small["agreement"]["pairs"], result["agreement"]["pairs"]):
        assert a["boundary_f1"] == b["boundary_f1"]
        interval = a["boundary_f1_interval"]
        assert interval["low"] <= a["boundary_f1"] <= interval["high"]
    assert small["agreement"]["all_agree"]["share"] == result["agreement"]["all_agree"]["share"]


@pytest.mark.needs("opencc", reason="the script perturbation converts with OpenCC")
def test_script_perturbation_compares_the_whole_sentence():
    from cws_bench.text.normalize import get_normalizer

    p = perturb("script", "汉语研究", get_normalizer("s2t"))
    assert p is not None and p.line == "漢語研究" and not p.touched
    assert flipped(["汉语", "研究"], ["漢", "語", "研究"], p)
    assert not flipped(["汉语", "研究"], ["漢語", "研究"], p)
    assert perturb("script", "研究", get_normalizer("s2t")) is None  # nothing to convert


def test_globs_and_several_files_add_up(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("研究\n研究生\n生命\n起源\n", "utf-8")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.txt").write_text("他研究生命\n\n研究生命起源\n", "utf-8")
    (logs / "b.txt").write_text("生命起源\n生命研究\n", "utf-8")
    folder = tmp_path / "out"
    invoke(
        "audit",
        logs / "*.txt",
        "-s",
        "fmm,bmm",
        f"-Ofmm.lexicon={words}",
        f"-Obmm.lexicon={words}",
        "-o",
        folder,
        "--resamples",
        50,
        "--perturb",
        "",
        "--quiet",
    )
    result = json.loads((folder / "audit.json").read_text("utf-8"))
    texts = result["signature"]["texts"]
    assert [(t["label"], t["lines"], t["sentences"]) for t in texts] == [
        ("a.txt", 3, 2),
        ("b.txt", 2, 2),
    ]
    # fmm and bmm differ on 他研究生命 and 研究生命起源 only (the worked example above)
    assert result["sentences"] == 4 and result["agreement"]["all_agree"]["sentences"] == 2
    missing = CliRunner().invoke(cli, ["audit", str(logs / "*.md"), "-s", "fmm,bmm", "-o", folder])
    assert missing.exit_code == 2 and "no file matches" in missing.output

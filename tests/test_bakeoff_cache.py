"""The run cache is keyed by content: an edited file is never served a stale score."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from cws_bench.run import identity as identity_module
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import CorpusSpec, load_config
from cws_bench.run.identity import Memo, library_versions, option_identity, options_identity
from cws_bench.run.plan import cache_key, corpus_dictionary, gold_and_raw, identity_of

GOLD = "研究 人员 发现 问题\n今天 上午 下雨\n结婚 的 和 尚未 结婚 的\n"
RAW = "研究人员发现问题\n今天上午下雨\n结婚的和尚未结婚的\n"
WORDS = "研究\n人员\n发现\n问题\n今天\n上午\n下雨\n结婚\n的\n和\n尚未\n"
# A script that splits each line into characters: editing it changes every score.
SPLIT_CHARS = "import sys\nfor line in sys.stdin:\n    print(' '.join(line.strip()))\n"
SPLIT_TWO = (
    "import sys\nfor line in sys.stdin:\n"
    "    s = line.strip()\n"
    "    print(' '.join(s[i : i + 2] for i in range(0, len(s), 2)))\n"
)


def _config(folder: Path, segmenters: str, *, raw: bool = False) -> Path:
    corpus = 'label = "mine"\ngold = "gold.txt"\ndictionary = "words.txt"\n'
    if raw:
        corpus += 'raw = "raw.txt"\n'
    body = f'name = "cache"\nresamples = 20\ntimeout = 120\n\n[[corpora]]\n{corpus}\n'
    path = folder / "bakeoff.toml"
    path.write_text(body + textwrap.dedent(segmenters), encoding="utf-8")
    return path


def _scores(result) -> dict[str, tuple[str, float | None, bool]]:
    return {p.segmenter: (p.status, p.scores.get("f1"), p.cached) for p in result.pairs}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "gold.txt").write_text(GOLD, encoding="utf-8")
    (tmp_path / "raw.txt").write_text(RAW, encoding="utf-8")
    (tmp_path / "words.txt").write_text(WORDS, encoding="utf-8")
    (tmp_path / "fmm.txt").write_text(WORDS, encoding="utf-8")
    (tmp_path / "empty.txt").write_text(WORDS, encoding="utf-8")
    (tmp_path / "pred.txt").write_text(GOLD, encoding="utf-8")
    (tmp_path / "seg.py").write_text(SPLIT_CHARS, encoding="utf-8")
    return tmp_path


def test_edited_option_files_are_run_again(folder: Path):
    command = json.dumps([sys.executable, str(folder / "seg.py")])
    config = load_config(
        _config(
            folder,
            f"""
            [[segmenters]]
            name = "file"
            options = {{ path = "{folder / "pred.txt"}" }}

            [[segmenters]]
            name = "fmm"
            options = {{ lexicon = "{folder / "fmm.txt"}" }}

            [[segmenters]]
            name = "fmm"
            label = "fmm-emptied"
            options = {{ lexicon = "{folder / "empty.txt"}" }}

            [[segmenters]]
            name = "command"
            options = {{ command = {command} }}
            """,
        )
    )
    first = _scores(run_bakeoff(config, output_dir=folder / "out", jobs=2, write=False))
    assert first["file"] == ("ok", 1.0, False) and first["fmm-emptied"][:2] == ("ok", 1.0)

    # Overwrite the file segmenter's output, edit fmm's dictionary, empty the other's,
    # and edit the script the command runs.
    (folder / "pred.txt").write_text(
        "研究人员 发现 问题\n今天 上午 下雨\n结婚 的 和 尚未 结婚 的\n", encoding="utf-8"
    )
    (folder / "fmm.txt").write_text(WORDS + "研究人员\n和尚\n", encoding="utf-8")
    (folder / "empty.txt").write_text("", encoding="utf-8")
    (folder / "seg.py").write_text(SPLIT_TWO, encoding="utf-8")

    again = _scores(run_bakeoff(config, output_dir=folder / "out", jobs=2, write=False))
    fresh = _scores(
        run_bakeoff(config, output_dir=folder / "fresh", jobs=2, use_cache=False, write=False)
    )
    # Today every pair comes back from the cache with its old F1.
    assert {label: cached for label, (_, _, cached) in again.items()} == dict.fromkeys(again, False)
    assert {k: v[:2] for k, v in again.items()} == {k: v[:2] for k, v in fresh.items()}
    assert again["file"][1] != first["file"][1]
    assert again["fmm"][1] != first["fmm"][1]
    assert again["command"][1] != first["command"][1]
    # An empty dictionary fails without the cache; it must fail with it too.
    assert again["fmm-emptied"][0] == fresh["fmm-emptied"][0] == "failed"


def test_an_edited_raw_file_of_a_custom_corpus_is_run_again(folder: Path):
    config = load_config(
        _config(
            folder,
            f"""
            [[segmenters]]
            name = "fmm"
            options = {{ lexicon = "{folder / "words.txt"}" }}
            """,
            raw=True,
        )
    )
    first = run_bakeoff(config, output_dir=folder / "out", jobs=1, write=False)
    assert first.pairs[0].warnings == ()
    (folder / "raw.txt").write_text(RAW.replace("下雨", "下雪"), encoding="utf-8")
    again = run_bakeoff(config, output_dir=folder / "out", jobs=1, write=False)
    pair = again.pairs[0]
    assert not pair.cached
    assert pair.scores["f1"] < first.pairs[0].scores["f1"]
    assert any("different characters" in warning for warning in pair.warnings)


def test_moving_files_keeps_the_key_and_editing_them_changes_it(folder: Path, tmp_path_factory):
    corpus = CorpusSpec(label="mine", gold=str(folder / "gold.txt"), raw=str(folder / "raw.txt"))
    identity = identity_of(*gold_and_raw(corpus, None), corpus_dictionary(corpus, None))

    def key(base: Path, **options: str) -> str:
        moved = CorpusSpec(label="mine", gold=str(base / "gold.txt"), raw=str(base / "raw.txt"))
        return cache_key(moved, "jieba", options, identity, "0.42.1", libraries={})

    elsewhere = tmp_path_factory.mktemp("elsewhere")
    for name in ("gold.txt", "raw.txt", "words.txt"):
        (elsewhere / name).write_bytes((folder / name).read_bytes())
    for option in ("user_dict", "model", "path"):
        before = key(folder, **{option: str(folder / "words.txt")})
        assert key(elsewhere, **{option: str(elsewhere / "words.txt")}) == before
        (elsewhere / "words.txt").write_text(WORDS + "新词\n", encoding="utf-8")
        assert key(elsewhere, **{option: str(elsewhere / "words.txt")}) != before, option
        (elsewhere / "words.txt").write_bytes((folder / "words.txt").read_bytes())


def _edit_in_place(path: Path, text: str) -> None:
    """Write ``text`` (the same size in bytes) keeping the file's inode and times."""
    stat = path.stat()
    assert len(text.encode("utf-8")) == stat.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_two_runs_in_one_process_see_a_file_changed_between_them(folder: Path):
    config = load_config(
        _config(
            folder,
            f"""
            [[segmenters]]
            name = "fmm"
            options = {{ lexicon = "{folder / "fmm.txt"}" }}
            """,
        )
    )
    first = _scores(run_bakeoff(config, output_dir=folder / "out", jobs=1, write=False))
    # Same size, time and inode: only the content tells (和尚 for 尚未: 结婚 的 和尚 未 ...).
    _edit_in_place(folder / "fmm.txt", WORDS.replace("尚未", "和尚"))
    again = _scores(run_bakeoff(config, output_dir=folder / "out", jobs=1, write=False))
    assert first["fmm"] == ("ok", 1.0, False)
    assert again["fmm"][2] is False and again["fmm"][1] < 1.0


def test_a_memo_reads_each_file_once_and_a_new_one_reads_it_again(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    read: list[str] = []
    checksum = identity_module.file_checksum

    def counted(path):
        read.append(os.path.basename(path))
        return checksum(path)

    monkeypatch.setattr(identity_module, "file_checksum", counted)
    options = {"lexicon": str(folder / "fmm.txt"), "user_dict": str(folder / "fmm.txt")}
    memo = Memo()
    first = options_identity(options, memo)
    assert options_identity(options, memo) == first
    assert read == ["fmm.txt"]  # one run: one read
    _edit_in_place(folder / "fmm.txt", WORDS.replace("尚未", "和尚"))
    assert options_identity(options, memo) == first  # the run's view holds still
    assert options_identity(options, Memo()) != first  # the next run reads it again
    # Without a memo nothing is kept between calls: no module state to forget.
    _edit_in_place(folder / "fmm.txt", WORDS)
    assert option_identity("lexicon", str(folder / "fmm.txt")) == first["lexicon"]
    _edit_in_place(folder / "fmm.txt", WORDS.replace("尚未", "和尚"))
    assert option_identity("lexicon", str(folder / "fmm.txt")) != first["lexicon"]
    assert not hasattr(identity_module, "forget")


def test_a_model_folder_is_identified_by_its_files(tmp_path: Path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "weights.bin").write_bytes(b"\x00\x01")
    before = option_identity("model", str(model))
    (model / "weights.bin").write_bytes(b"\x00\x02")
    assert option_identity("model", str(model)) != before


def test_the_key_holds_training_data_and_library_versions(folder: Path):
    corpus = CorpusSpec(label="mine", gold=str(folder / "gold.txt"))
    identity = identity_of(*gold_and_raw(corpus, None), corpus_dictionary(corpus, None))
    trained = cache_key(corpus, "hmm", {"corpus": "pd1998", "split": "test"}, identity, None)
    other = cache_key(corpus, "hmm", {"corpus": "pd1998", "split": "train"}, identity, None)
    assert trained != other  # the two splits' sentences differ
    same = cache_key(corpus, "jieba", {}, identity, "0.42.1", libraries={"jieba": "0.42.1"})
    newer = cache_key(corpus, "jieba", {}, identity, "0.42.1", libraries={"jieba": "0.42.2"})
    assert same != newer


def test_library_versions_follow_the_adapters_imports():
    pytest.importorskip("pkuseg")
    versions = library_versions("pkuseg")
    assert "pkuseg" in versions and "numpy" in versions
    assert library_versions("fmm") == {}


def test_the_report_says_which_pairs_came_from_the_cache():
    from dataclasses import replace

    from cws_bench.reports.markdown import render_markdown
    from cws_bench.results.model import BakeoffResult, PairResult

    pairs = (
        PairResult(corpus="pku", segmenter="jieba", adapter="jieba", track="open", status="ok"),
        PairResult(corpus="pku", segmenter="fmm", adapter="fmm", track="closed", status="ok"),
    )
    result = BakeoffResult(name="demo", config={}, pairs=pairs, comparisons=())
    assert "from the run cache" not in render_markdown(result)
    cached = replace(result, pairs=(replace(pairs[0], cached=True), pairs[1]))
    text = render_markdown(cached)
    assert "| from the run cache | jieba on pku |" in text
    assert "| execution | 1 of 2 pairs run, 1 from the cache |" in text
    assert "fmm on pku" not in text
    assert cached.to_dict()["pairs"][0]["cached"] is True


def test_a_registered_corpus_name_is_never_a_folder(tmp_path: Path, monkeypatch):
    (tmp_path / "sample").mkdir()
    (tmp_path / "train.txt").write_text(GOLD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert option_identity("corpus", "sample") == "sample"
    assert option_identity("corpus", "train.txt").startswith("file:")

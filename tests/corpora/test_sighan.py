"""Tests of cws_bench/corpora/sighan.py and download.py: folder, zip, download, checksums."""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora import get_corpus
from cws_bench.corpora.download import ChecksumMismatchError, download_file, extract_members
from cws_bench.corpora.sighan import PINNED_SHA256, Sighan2005
from cws_bench.errors import CorpusUnavailableError, CwsBenchError

COUNTS = {"pku": 104_372, "msr": 106_873, "cityu": 40_936, "as": 122_610}
LINES = {"pku": 1_945, "msr": 3_985, "cityu": 1_493, "as": 14_432}
WORD_LIST = {"pku": 55_303, "msr": 88_119, "cityu": 69_085, "as": 141_338}
# OOV rates of the bakeoff tables (Emerson 2005, table 1), to three decimals
OOV_RATES = {"pku": 0.058, "msr": 0.026, "cityu": 0.074, "as": 0.043}
# lines whose raw test input does not hold the gold characters (the release's quirk)
DIFFERING_RAW_LINES = {"pku": 0, "msr": 16, "cityu": 0, "as": 1}
TRAINING = "人们 常 说 生活 是 一 部 教科书\n而 血 与 火 的 战争 更 是 不可多得 的 教科书\n"


def build_zip(icwb2: Path, target: Path, *, training: bool = True, edit: str | None = None) -> Path:
    """A zip in the release's layout (top folder icwb2-data/) from the shared files."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(icwb2.rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                relative = path.relative_to(icwb2).as_posix()
                if relative == edit:
                    data = data.replace("的".encode(), "地".encode(), 1)
                archive.writestr(f"icwb2-data/{relative}", data)
        if training:
            archive.writestr("icwb2-data/training/pku_training.utf8", TRAINING.encode("utf-8"))
    return target


# -- the real files ---------------------------------------------------------------


@pytest.mark.parametrize("code", list(COUNTS))
def test_real_counts(icwb2, tmp_path, code):
    corpus = get_corpus(f"sighan2005-{code}", data_dir=icwb2, cache=tmp_path)
    gold = list(corpus.sentences("test"))
    raw = list(corpus.raw("test"))
    assert sum(map(len, gold)) == COUNTS[code]
    assert len(gold) == len(raw) == LINES[code]
    differing = sum(
        "".join(words) != "".join(line.split()) for words, line in zip(gold, raw) if words
    )
    assert differing == DIFFERING_RAW_LINES[code]
    dictionary = corpus.dictionary()
    assert len(dictionary) == WORD_LIST[code]
    oov = sum(word not in dictionary for words in gold for word in words)
    assert round(oov / COUNTS[code], 3) == OOV_RATES[code]
    assert set(corpus.verification().values()) == {"verified"}
    assert corpus.available_splits == ("test",)
    assert corpus.script == ("Simplified" if code in ("pku", "msr") else "Traditional")


def test_parent_folder_and_environment_variable(shared_corpora, monkeypatch, tmp_path):
    by_parent = get_corpus("sighan2005-pku", data_dir=shared_corpora, cache=tmp_path)
    assert by_parent.availability().location == str(shared_corpora / "icwb2-data")
    monkeypatch.setenv("CWS_BENCH_SIGHAN2005", str(shared_corpora / "icwb2-data"))
    by_variable = get_corpus("sighan2005-pku", cache=tmp_path)
    assert by_variable.checksum("test") == by_parent.checksum("test")
    assert by_variable.gold_path() == shared_corpora / "icwb2-data/gold/pku_test_gold.utf8"


def test_legacy_files_only(icwb2, tmp_path):
    for relative in ("gold/pku_test_gold.txt", "testing/pku_test.txt"):
        (tmp_path / "data" / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(icwb2 / relative, tmp_path / "data" / relative)
    legacy = Sighan2005("pku", tmp_path / "data", cache=tmp_path)
    official = Sighan2005("pku", icwb2, cache=tmp_path)
    assert list(legacy.sentences("test")) == list(official.sentences("test"))
    assert list(legacy.raw("test")) == list(official.raw("test"))
    assert set(legacy.verification().values()) == {"verified"}
    with pytest.raises(CorpusUnavailableError, match=r"pku_training_words\.utf8"):
        legacy.dictionary()


def test_edited_file_is_refused(icwb2, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(icwb2, data)
    gold = data / "gold" / "msr_test_gold.utf8"
    gold.write_bytes(gold.read_bytes().replace("的".encode(), "地".encode(), 1))
    corpus = Sighan2005("msr", data, cache=tmp_path)
    with pytest.raises(ChecksumMismatchError) as info:
        list(corpus.sentences("test"))
    message = str(info.value)
    assert str(gold) in message
    assert PINNED_SHA256["gold/msr_test_gold.utf8"] in message
    assert hashlib.sha256(gold.read_bytes()).hexdigest() in message
    unchecked = Sighan2005("msr", data, cache=tmp_path, verify=False)
    assert sum(map(len, unchecked.sentences("test"))) == COUNTS["msr"]
    assert set(unchecked.verification().values()) == {"unverified"}


def test_nothing_here(tmp_path, monkeypatch):
    monkeypatch.delenv("CWS_BENCH_SIGHAN2005", raising=False)
    corpus = get_corpus("sighan2005-as", cache=tmp_path)
    availability = corpus.availability()
    assert not availability.available
    assert "cws-bench corpora download sighan2005-as" in availability.how_to_get()
    with pytest.raises(CorpusUnavailableError) as info:
        list(corpus.sentences("test"))
    assert "data_dir=FOLDER" in str(info.value)  # the API's name; a command names its flag
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not get_corpus("sighan2005-as", data_dir=empty, cache=tmp_path).availability().available


# -- the released zip -------------------------------------------------------------


def test_zip_data_dir(icwb2, tmp_path):
    archive = build_zip(icwb2, tmp_path / "icwb2-data.zip")
    cache = tmp_path / "cache"
    corpus = Sighan2005("pku", archive, cache=cache)
    assert corpus.availability().splits == ("test", "train")
    folder = Sighan2005("pku", icwb2, cache=cache)
    assert list(corpus.sentences("test")) == list(folder.sentences("test"))
    assert list(corpus.raw("test")) == list(folder.raw("test"))
    assert corpus.dictionary().words == folder.dictionary().words
    assert list(corpus.sentences("train")) == [line.split() for line in TRAINING.splitlines()]
    assert next(corpus.raw("train")) == "人们常说生活是一部教科书"
    states = {Path(path).name: state for path, state in corpus.verification().items()}
    assert states["pku_test_gold.utf8"] == "verified"
    assert states["pku_training.utf8"] == "unverified"
    # extracted once, under the cache; the folder holding the zip works too
    assert corpus.gold_path().is_relative_to(cache)
    assert Sighan2005("pku", tmp_path, cache=cache).gold_path() == corpus.gold_path()
    # the other corpora of the same zip (no training file for them)
    msr = Sighan2005("msr", archive, cache=cache)
    assert msr.available_splits == ("test",)
    assert sum(map(len, msr.sentences("test"))) == COUNTS["msr"]


def test_altered_zip_is_refused_and_nothing_extracted(icwb2, tmp_path):
    archive = build_zip(icwb2, tmp_path / "icwb2-data.zip", edit="gold/pku_test_gold.utf8")
    cache = tmp_path / "cache"
    with pytest.raises(ChecksumMismatchError) as info:
        list(Sighan2005("pku", archive, cache=cache).sentences("test"))
    assert "icwb2-data/gold/pku_test_gold.utf8" in str(info.value)
    assert PINNED_SHA256["gold/pku_test_gold.utf8"] in str(info.value)
    extracted = cache / "sighan2005" / "extracted"
    assert not any(p.is_file() for p in extracted.rglob("*"))


def test_not_a_zip(tmp_path):
    archive = tmp_path / "icwb2-data.zip"
    archive.write_text("<html>moved</html>")
    with pytest.raises(CwsBenchError, match="not a readable zip"):
        Sighan2005("pku", archive, cache=tmp_path).availability()


def test_extract_members_is_all_or_nothing(tmp_path):
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("x/good.txt", b"good")
        z.writestr("x/bad.txt", b"bad")
    pinned = {"good.txt": hashlib.sha256(b"good").hexdigest(), "bad.txt": "0" * 64}
    with pytest.raises(ChecksumMismatchError, match=r"x/bad\.txt"):
        extract_members(
            archive,
            {"x/good.txt": "good.txt", "x/bad.txt": "bad.txt"},
            tmp_path / "out",
            pinned=pinned,
        )
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["a.zip"]
    status = extract_members(archive, {"x/good.txt": "g/good.txt"}, tmp_path / "out", pinned={})
    assert status == {"g/good.txt": "unverified"}
    assert (tmp_path / "out" / "g" / "good.txt").read_bytes() == b"good"


# -- downloading ----------------------------------------------------------------------


def test_download_from_local_server(icwb2, tmp_path, served):
    root, base = served
    build_zip(icwb2, root / "icwb2-data.zip")
    cache = tmp_path / "cache"
    url = f"{base}/icwb2-data.zip"
    corpus = Sighan2005("cityu", cache=cache, url=url)
    assert not corpus.availability().available
    archive = corpus.download()
    assert archive == cache / "sighan2005" / "icwb2-data.zip"
    assert archive.read_bytes() == (root / "icwb2-data.zip").read_bytes()
    assert sum(map(len, corpus.sentences("test"))) == COUNTS["cityu"]
    # later runs find the cached copy without the network
    (root / "icwb2-data.zip").unlink()
    again = Sighan2005("pku", cache=cache, url=url)
    assert again.available_splits == ("test", "train")
    assert sum(map(len, again.sentences("test"))) == COUNTS["pku"]


def test_download_on_first_use(icwb2, tmp_path, served, monkeypatch):
    root, base = served
    build_zip(icwb2, root / "icwb2-data.zip", training=False)
    monkeypatch.setenv("CWS_BENCH_SIGHAN2005_URL", f"{base}/icwb2-data.zip")
    monkeypatch.delenv("CWS_BENCH_SIGHAN2005", raising=False)
    corpus = get_corpus("sighan2005-msr", cache=tmp_path, download=True)
    assert len(corpus.dictionary()) == WORD_LIST["msr"]


def test_download_command_with_progress(icwb2, tmp_path, served, monkeypatch):
    root, base = served
    build_zip(icwb2, root / "icwb2-data.zip", training=False)
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CWS_BENCH_SIGHAN2005", raising=False)
    runner = CliRunner()
    result = runner.invoke(
        cli, ["corpora", "download", "sighan2005-as", "--url", f"{base}/icwb2-data.zip"]
    )
    assert result.exit_code == 0, result.output
    assert "splits here: test" in result.stdout
    info = runner.invoke(cli, ["corpora", "info", "sighan2005-as", "--format", "json"])
    assert info.exit_code == 0, info.output
    assert '"words": 122610' in info.stdout


def test_download_errors_leave_nothing(tmp_path, served):
    root, base = served
    (root / "page.html").write_text("<html>not a zip</html>")
    cache = tmp_path / "cache"
    with pytest.raises(CwsBenchError, match=r"cannot download .*/missing.zip"):
        Sighan2005("pku", cache=cache, url=f"{base}/missing.zip").download()
    with pytest.raises(CwsBenchError, match="not a readable zip"):
        Sighan2005("pku", cache=cache, url=f"{base}/page.html").download()
    leftovers = [p for p in cache.rglob("*") if p.is_file()]
    assert leftovers == []


def test_download_file_checks_hash(tmp_path, served):
    root, base = served
    (root / "data.bin").write_bytes(b"corpus bytes")
    good = hashlib.sha256(b"corpus bytes").hexdigest()
    target = tmp_path / "out" / "data.bin"
    with pytest.raises(ChecksumMismatchError) as info:
        download_file(f"{base}/data.bin", target, sha256="f" * 64)
    assert good in str(info.value)
    assert "f" * 64 in str(info.value)
    assert "data.bin" in str(info.value)
    assert list((tmp_path / "out").iterdir()) == []  # no half-written or temporary file
    assert download_file(f"{base}/data.bin", target, sha256=good, progress=True) == good
    assert target.read_bytes() == b"corpus bytes"


def test_unreachable_server(tmp_path):
    with pytest.raises(CwsBenchError, match="cannot download"):
        download_file("http://127.0.0.1:9/none.zip", tmp_path / "none.zip", timeout=5)
    assert not (tmp_path / "none.zip").exists()

"""Tests of the corpora of other domains: sxu, zx, wtb, udc, UD CFL/HK/PUD, ctb6.

Sentence and word counts are from an independent count with awk over the
files in ../shared/corpora (blank-line-separated blocks and their non-blank
lines for CoNLL; lines and whitespace-separated fields for the others):

    awk 'BEGIN{RS=""} END{print NR}' wtb/test.conll      # sentences
    grep -c -v '^\\s*$' wtb/test.conll                   # words
    awk '{n+=NF} END{print n}' sxu/test.txt              # words
"""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.corpora import get_corpus, read_corpus, read_tagged, sniff_format
from cws_bench.corpora.download import ChecksumMismatchError, download_file
from cws_bench.corpora.mccws import PINNED_SHA256 as MCCWS_SHA256
from cws_bench.corpora.ud import PINNED_SHA256 as UD_SHA256
from cws_bench.errors import CorpusFormatError, CorpusUnavailableError, CwsBenchError

# (sentences, words) per split, counted with awk (see the module docstring)
COUNTS = {
    "sxu": {"train": (17_115, 528_238), "test": (3_654, 113_527)},
    "zx": {"train": (2_373, 67_648), "dev": (788, 20_393), "test": (1_394, 34_355)},
    "wtb": {"train": (813, 14_774), "dev": (95, 1_843), "test": (92, 1_860)},
    "udc": {"train": (3_997, 98_608), "dev": (500, 12_663), "test": (500, 12_012)},
    "ud-zh-cfl": {"test": (451, 7_256)},
}
MCCWS = ("sxu", "zx", "wtb", "udc")


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch, tmp_path):
    for variable in ("CWS_BENCH_MCCWS", "CWS_BENCH_MCCWS_URL", "CWS_BENCH_UD_CHINESE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("CWS_BENCH_UD_URL", raising=False)
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "empty-cache"))


# -- the real files ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "split"), [(name, split) for name, splits in COUNTS.items() for split in splits]
)
def test_real_counts(shared_corpora, name, split):
    corpus = get_corpus(name, data_dir=shared_corpora)
    sentences = list(corpus.sentences(split))
    assert (len(sentences), sum(map(len, sentences))) == COUNTS[name][split]
    raw = list(corpus.raw(split))
    assert len(raw) == len(sentences)
    assert all("".join(line.split()) == "".join(words) for line, words in zip(raw, sentences))
    if name in MCCWS:
        assert set(corpus.verification().values()) == {"verified"}


def test_first_sentences(shared_corpora):
    first = {
        name: next(get_corpus(name, data_dir=shared_corpora).sentences("test")) for name in MCCWS
    }
    assert first["sxu"][:4] == ["专访", "老瓦", "：", "可能"]
    assert first["wtb"][:4] == ["学习", "英语", "不", "是"]
    assert first["udc"][:3] == ["然而", ",", "这样"]
    zx = get_corpus("zx", data_dir=shared_corpora)
    assert next(zx.sentences("train")) == ["第六", "章", "戾气"]
    assert next(zx.tagged("train")) == [("第六", "OD"), ("章", "M"), ("戾气", "NN")]
    assert next(get_corpus("wtb", data_dir=shared_corpora).tagged("dev"))[0] == ("不论", "CS")


@pytest.mark.parametrize("level", ["shared", "mccws", "corpus"])
def test_folder_lookup(shared_corpora, level, monkeypatch):
    folder = {
        "shared": shared_corpora,
        "mccws": shared_corpora / "mccws",
        "corpus": shared_corpora / "mccws" / "wtb",
    }[level]
    corpus = get_corpus("wtb", data_dir=folder)
    assert corpus.available_splits == ("train", "dev", "test")
    assert corpus.availability().location == str(shared_corpora / "mccws" / "wtb")
    monkeypatch.setenv("CWS_BENCH_MCCWS", str(folder))
    assert get_corpus("wtb").available_splits == ("train", "dev", "test")


def test_wtb_readme_travels_with_the_data(shared_corpora):
    readme = get_corpus("wtb", data_dir=shared_corpora).readme()
    assert readme is not None
    assert "you must retain this readme file in the re-distribution" in readme


def test_dictionary_is_the_training_split(shared_corpora):
    corpus = get_corpus("zx", data_dir=shared_corpora)
    dictionary = corpus.dictionary()
    assert dictionary.name == "zx:train"
    assert dictionary.words == {w for s in corpus.sentences("train") for w in s}


def test_test_only_corpus_has_no_dictionary(shared_corpora):
    corpus = get_corpus("ud-zh-cfl", data_dir=shared_corpora)
    assert corpus.splits == ("test",)
    with pytest.raises(CorpusUnavailableError, match="no train split"):
        corpus.dictionary()


def test_edited_file_is_refused(shared_corpora, tmp_path):
    folder = tmp_path / "sxu"
    shutil.copytree(shared_corpora / "mccws" / "sxu", folder)
    text = (folder / "test.txt").read_text("utf-8")
    (folder / "test.txt").write_text(text.replace("老瓦", "老王", 1), "utf-8")
    corpus = get_corpus("sxu", data_dir=folder)
    with pytest.raises(ChecksumMismatchError, match=r"test\.txt") as info:
        list(corpus.sentences("test"))
    assert MCCWS_SHA256["sxu/test.txt"] in str(info.value)
    edited = get_corpus("sxu", data_dir=folder, verify=False)
    assert next(edited.sentences("test"))[1] == "老王"


def test_ud_folder_of_another_release_is_read_and_reported(shared_corpora, tmp_path):
    folder = tmp_path / "UD_Chinese-CFL"
    folder.mkdir()
    text = (shared_corpora / "ud-chinese" / "cfl" / "zh_cfl-ud-test.conllu").read_text("utf-8")
    (folder / "zh_cfl-ud-test.conllu").write_text(text.replace("\n\n", "\n\n", 1) + "\n", "utf-8")
    corpus = get_corpus("ud-zh-cfl", data_dir=tmp_path)
    assert len(list(corpus.sentences("test"))) == 451
    assert list(corpus.verification().values()) == ["differs"]
    real = get_corpus("ud-zh-cfl", data_dir=shared_corpora)
    list(real.sentences("test"))
    assert list(real.verification().values()) == ["verified"]


def test_every_new_corpus_has_a_full_card():
    for name in (*MCCWS, "ud-zh-cfl", "ud-zh-hk", "ud-zh-pud", "ctb6"):
        card = get_corpus(name).metadata()
        for key in ("domain", "standard", "licence", "citation", "source", "title"):
            assert card[key], f"{name} has no {key}"
    assert get_corpus("ud-zh-hk").script == "Traditional"
    assert get_corpus("ud-zh-pud").splits == ("test",)


def test_ctb6_is_user_supplied(tmp_path, monkeypatch):
    monkeypatch.delenv("CWS_BENCH_CTB6", raising=False)
    corpus = get_corpus("ctb6")
    assert not corpus.downloadable
    availability = corpus.availability()
    assert not availability.available
    assert "LDC2007T36" in availability.how_to_get()
    with pytest.raises(CorpusUnavailableError, match="cannot be downloaded") as info:
        corpus.download()
    assert "ctb6.train.seg" in str(info.value.hint)
    folder = tmp_path / "ctb"
    folder.mkdir()
    (folder / "ctb6.test.seg").write_text("上海 浦东 开发\n与 法制 建设 同步\n", "utf-8")
    (folder / "ctb6.train.seg").write_text("上海 开发\n", "utf-8")
    corpus = get_corpus("ctb6", data_dir=tmp_path)
    assert corpus.available_splits == ("train", "test")
    assert list(corpus.sentences("test")) == [
        ["上海", "浦东", "开发"],
        ["与", "法制", "建设", "同步"],
    ]
    assert corpus.dictionary().words == {"上海", "开发"}


def test_cli_listing_and_info(shared_corpora):
    runner = CliRunner()
    listing = runner.invoke(cli, ["corpora", "--data-dir", str(shared_corpora)])
    assert listing.exit_code == 0, listing.output
    for name in (*MCCWS, "ud-zh-cfl", "ud-zh-hk", "ud-zh-pud", "ctb6"):
        assert f"\n{name} " in "\n" + listing.stdout
    assert "Chinese Weibo Treebank (WTB) (microblogs)" in listing.stdout
    info = runner.invoke(cli, ["corpora", "info", "wtb", "--data-dir", str(shared_corpora)])
    assert info.exit_code == 0, info.output
    assert "words                1,860" in info.stdout
    for label in ("domain    microblogs", "licence", "citation  Wang, W. Y.", "standard"):
        assert label in info.stdout
    as_json = runner.invoke(
        cli, ["corpora", "info", "zx", "--data-dir", str(shared_corpora), "--format", "json"]
    )
    assert json.loads(as_json.stdout)["card"]["domain"] == "fiction"


# -- readers: exact formats, malformed lines ------------------------------------------


def test_word_pos_reader(write):
    path = write("a.wordpos", "野狗_NR 道人_NN\n\n__PU 1_2_CD\n")
    assert sniff_format(path) == "word-pos"
    assert list(read_corpus(path)) == [["野狗", "道人"], [], ["_", "1_2"]]
    assert list(read_tagged(path))[2] == [("_", "PU"), ("1_2", "CD")]


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("野狗_NR 道人_NN\n野狗 道人_NN\n", 2, "token '野狗' is not word_TAG"),
        ("野狗_NR _NN\n", 1, "token '_NN' is not word_TAG"),
        ("野狗_NR\n道人_\n", 2, "token '道人_' is not word_TAG"),
    ],
)
def test_word_pos_malformed(write, content, line, message):
    path = write("bad.wordpos", content)
    with pytest.raises(CorpusFormatError) as info:
        list(read_corpus(path))
    assert f"bad.wordpos:{line}: {message}" in str(info.value)


ROW = "{}\t{}\t_\tNN\tNN\t_\t0\t_\t_\t_"


def test_conllx_reader(write):
    text = "\n".join([ROW.format(1, "转发"), ROW.format(2, "微博"), "", "", ROW.format(1, "好")])
    path = write("t.conll", text + "\n")
    assert sniff_format(path) == "conllx"
    assert list(read_corpus(path)) == [["转发", "微博"], ["好"]]
    assert list(read_tagged(path)) == [[("转发", "NN"), ("微博", "NN")], [("好", "NN")]]


@pytest.mark.parametrize(
    ("lines", "line", "message"),
    [
        ([ROW.format(1, "a"), "2\tb\t_\tNN"], 2, "4 tab-separated fields, expected 10"),
        ([ROW.format(1, "a"), ROW.format(3, "b")], 2, "word id '3', expected 2"),
        ([ROW.format(1, "a"), "", ROW.format(2, "b")], 3, "word id '2', expected 1"),
        (["# text = ab", ROW.format(1, "a")], 1, "1 tab-separated fields, expected 10"),
        ([ROW.format("1-2", "ab")], 1, "word id '1-2', expected 1"),
        ([ROW.format(1, "")], 1, "word 1: FORM '' is empty"),
        ([ROW.format(1, "a b")], 1, "word 1: FORM 'a b'"),
    ],
)
def test_conllx_malformed(write, lines, line, message):
    path = write("bad.conll", "\n".join(lines) + "\n")
    with pytest.raises(CorpusFormatError) as info:
        list(read_corpus(path))
    assert f"bad.conll:{line}: {message}" in str(info.value)


def test_conllx_hints(write):
    with pytest.raises(CorpusFormatError) as info:
        list(read_corpus(write("c.conll", "# sent_id = 1\n" + ROW.format(1, "a") + "\n")))
    assert "is this CoNLL-U?" in info.value.hint
    with pytest.raises(CorpusFormatError) as info:
        list(read_corpus(write("m.conll", ROW.format("1-2", "ab") + "\n")))
    assert "read it as 'conllu'" in info.value.hint


def test_cli_names_file_and_line(write):
    path = write("bad.conll", ROW.format(1, "a") + "\n" + ROW.format(5, "b") + "\n")
    result = CliRunner().invoke(cli, ["corpora", "info", str(path)])
    assert result.exit_code == 2
    assert "bad.conll:2: word id '5', expected 2" in result.stderr
    assert "Traceback" not in result.output


UD_TRICKY = """# newdoc id = hk
# sent_id = 1
# text = 佢哋 話 "OK"。
1\t佢哋\t佢哋\tPRON\t_\t_\t2\tnsubj\t_\t_
2\t話\t話\tVERB\t_\t_\t0\troot\t_\t_
2.1\t講\t講\tVERB\t_\t_\t_\t_\t2:conj\t_
3-4\t"OK"\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No
3\t"\t"\tPUNCT\t_\t_\t4\tpunct\t_\t_
4\tOK"\tOK\tINTJ\t_\t_\t2\tobj\t_\t_
5\t。\t。\tPUNCT\t_\t_\t2\tpunct\t_\tSpaceAfter=No

"""


def test_ud_reader_handles_what_ud_files_contain(write):
    # comments before the text, an empty node, a multi-word token, SpaceAfter=No,
    # spaces between tokens, Traditional/Cantonese characters
    path = write("zh_hk-ud-test.conllu", UD_TRICKY)
    (sentence,) = read_corpus(path)
    assert sentence == ["佢哋", "話", '"OK"', "。"]


# -- downloads from a local server with the real files' bytes ---------------------------


def _mirror_mccws(shared: Path, root: Path, code: str) -> None:
    folder = root / "data" / "other" / code
    folder.mkdir(parents=True)
    for relative in MCCWS_SHA256:
        if relative.startswith(f"{code}/"):
            shutil.copy(shared / "mccws" / relative, root / "data" / "other" / relative)


@pytest.mark.parametrize("code", MCCWS)
def test_download_mccws(shared_corpora, tmp_path, served, code):
    root, base = served
    _mirror_mccws(shared_corpora, root, code)
    cache = tmp_path / "cache"
    corpus = get_corpus(code, cache=cache, url=f"{base}/data/other/", progress=True)
    assert corpus.downloadable
    assert not corpus.availability().available
    folder = corpus.download()
    assert folder == cache / "mccws" / code
    for relative, sha in MCCWS_SHA256.items():
        if relative.startswith(f"{code}/"):
            name = relative.split("/", 1)[1]
            assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == sha
    split = "test"
    sentences = list(corpus.sentences(split))
    assert (len(sentences), sum(map(len, sentences))) == COUNTS[code][split]
    if code == "wtb":
        assert corpus.readme() is not None
    # later runs find the cached copy without the server
    shutil.rmtree(root / "data")
    again = get_corpus(code, cache=cache)
    assert again.available_splits == tuple(COUNTS[code])


def test_download_command(shared_corpora, tmp_path, served, monkeypatch):
    root, base = served
    _mirror_mccws(shared_corpora, root, "wtb")
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "cache"))
    runner = CliRunner()
    result = runner.invoke(cli, ["corpora", "download", "wtb", "--url", f"{base}/data/other/"])
    assert result.exit_code == 0, result.output
    assert "splits here: train, dev, test" in result.stdout
    assert (tmp_path / "cache" / "mccws" / "wtb" / "README.txt").is_file()
    refused = runner.invoke(cli, ["corpora", "download", "ctb6"])
    assert refused.exit_code == 2
    assert "cannot be downloaded" in refused.stderr and "LDC2007T36" in refused.stderr


def test_download_on_first_use_through_the_environment(
    shared_corpora, tmp_path, served, monkeypatch
):
    root, base = served
    _mirror_mccws(shared_corpora, root, "zx")
    monkeypatch.setenv("CWS_BENCH_MCCWS_URL", f"{base}/data/other")
    corpus = get_corpus("zx", cache=tmp_path / "c", download=True)
    assert sum(map(len, corpus.sentences("dev"))) == 20_393


def test_download_wrong_hash_keeps_nothing(shared_corpora, tmp_path, served):
    root, base = served
    _mirror_mccws(shared_corpora, root, "wtb")
    served_file = root / "data" / "other" / "wtb" / "test.conll"
    served_file.write_bytes(served_file.read_bytes().replace("英语".encode(), "汉语".encode(), 1))
    cache = tmp_path / "cache"
    corpus = get_corpus("wtb", cache=cache, url=f"{base}/data/other/")
    with pytest.raises(ChecksumMismatchError, match=r"test\.conll") as info:
        corpus.download()
    assert MCCWS_SHA256["wtb/test.conll"] in str(info.value)
    folder = cache / "mccws" / "wtb"
    # files before it (train, dev) are whole and verified; test.conll is not there, nor a temp file
    assert sorted(p.name for p in folder.iterdir()) == ["dev.conll", "train.conll"]
    assert get_corpus("wtb", cache=cache).available_splits == ("train", "dev")


@pytest.fixture
def cut_short(tmp_path):
    """A server on 127.0.0.1 that promises N bytes, sends half of them and hangs up."""
    payload = {"body": b""}
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(10)

    def serve() -> None:
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        with connection:
            connection.recv(65536)
            body = payload["body"]
            head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            connection.sendall(head + body[: len(body) // 2])

    thread = threading.Thread(target=serve, daemon=True)
    try:
        yield payload, f"http://127.0.0.1:{listener.getsockname()[1]}", thread
    finally:
        listener.close()
        thread.join(timeout=10)


@pytest.mark.parametrize("pinned", [True, False])
def test_interrupted_transfer_keeps_nothing(shared_corpora, tmp_path, cut_short, pinned):
    payload, base, thread = cut_short
    real = shared_corpora / "ud-chinese" / "cfl" / "zh_cfl-ud-test.conllu"
    payload["body"] = real.read_bytes()
    thread.start()
    target = tmp_path / "out" / "zh_cfl-ud-test.conllu"
    sha = UD_SHA256["zh_cfl-ud-test.conllu"] if pinned else None
    with pytest.raises(CwsBenchError, match="broke off after") as info:
        download_file(f"{base}/zh_cfl-ud-test.conllu", target, sha256=sha)
    assert f"of {len(payload['body']):,} bytes" in str(info.value)
    assert list((tmp_path / "out").iterdir()) == []


def test_download_ud_treebank_through_the_cli(shared_corpora, tmp_path, served, monkeypatch):
    root, base = served
    folder = root / "UD_Chinese-CFL"
    folder.mkdir()
    shutil.copy(shared_corpora / "ud-chinese" / "cfl" / "zh_cfl-ud-test.conllu", folder)
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CWS_BENCH_UD_URL", base)
    runner = CliRunner()
    result = runner.invoke(cli, ["corpora", "download", "ud-zh-cfl"])
    assert result.exit_code == 0, result.output
    assert "splits here: test" in result.stdout
    info = runner.invoke(cli, ["corpora", "info", "ud-zh-cfl", "--format", "json"])
    assert '"words": 7256' in info.stdout
    # a treebank the server does not have: one message, exit 2
    other = runner.invoke(cli, ["corpora", "download", "ud-zh-hk"])
    assert other.exit_code == 2
    assert "cannot download" in other.stderr


def test_ud_hk_and_pud_hashes_are_the_issues(tmp_path):
    assert UD_SHA256["zh_hk-ud-test.conllu"] == (
        "a71ff348dd1e45c2cd525ed537a78d6c4b6c5edc15a19641bedc0a8465de820e"
    )
    assert UD_SHA256["zh_pud-ud-test.conllu"] == (
        "e12582af2e2bbc2e27155ca7dc12b6fc4a037dbc716e1f805d67e34ffb2596b3"
    )
    for name in ("ud-zh-hk", "ud-zh-pud", "ud-zh-cfl", *MCCWS):
        assert get_corpus(name).downloadable, name
    for name in ("ud-zh-gsd", "ctb6"):
        assert not get_corpus(name).downloadable, name

"""Tests of hanlp.py and stanza.py, end to end on tiny models trained in the session.

conftest.py trains a HanLP ``TransformerTaggingTokenizer`` on a one-layer BERT
and a stanza tokenizer (20 steps) on twenty hand-segmented sentences; the
adapters run them as they run the downloaded models. Also tested: the messages
when the library or the model is missing, and the mapping from each library's
own output types (HanLP's lists and ``Document``, stanza's ``Document``) to words.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cws_bench.errors import SegmenterError, SegmenterUnavailableError
from cws_bench.segmenters import get_segmenter, list_segmenters
from cws_bench.segmenters.hanlp import HanlpSegmenter
from cws_bench.segmenters.hanlp import words_of as hanlp_words
from cws_bench.segmenters.stanza import StanzaSegmenter
from cws_bench.segmenters.stanza import words_of as stanza_words

sys.path.insert(0, str(Path(__file__).parent))
from bounds import bounded


def test_hanlp_mapping_of_its_output_types():
    pytest.importorskip("hanlp", reason="hanlp is not installed (pip install 'cws-bench[hanlp]')")
    from hanlp_common.document import Document

    # A tokenizer: one list of words per line.
    assert hanlp_words([["商品", "和", "服务"], ["他说 ", "了"]], 2) == [
        ["商品", "和", "服务"],
        ["他说", "了"],
    ]
    # A multi-task model: a Document, tok/fine first, else tok/coarse, or the task asked for.
    document = Document({"tok/fine": [["商品", "和", "服务"]], "tok/coarse": [["商品和服务"]]})
    assert hanlp_words(document, 1) == [["商品", "和", "服务"]]
    assert hanlp_words(document, 1, task="tok/coarse") == [["商品和服务"]]
    with pytest.raises(TypeError, match=r"no tokenization named 'tok/msr'"):
        hanlp_words(document, 1, task="tok/msr")
    with pytest.raises(TypeError, match="for a batch of 2 lines"):
        hanlp_words([["商品"]], 2)


def test_hanlp_missing_models(tmp_path):
    pytest.importorskip("hanlp", reason="hanlp is not installed (pip install 'cws-bench[hanlp]')")
    with pytest.raises(SegmenterError, match="no such folder"):
        get_segmenter("hanlp", model=str(tmp_path / "absent"))
    with pytest.raises(SegmenterError, match=r"(?s)cannot load model.*config\.json"):
        get_segmenter("hanlp", model=str(tmp_path))
    # An identifier missing from HanLP's cache: an error naming the cache, no download.
    (tmp_path / "home").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        import hanlp.utils.io_util as io_util

        patch.setattr(io_util, "hanlp_home", lambda: str(tmp_path / "home"))
        home = str(tmp_path / "home")
        original = io_util.path_from_url
        patch.setattr(io_util, "path_from_url", lambda url: original(url, save_dir=home))
        with pytest.raises(SegmenterError, match=r"(?s)not in HanLP's cache.*download = true"):
            get_segmenter("hanlp", model="COARSE_ELECTRA_SMALL_ZH")


def test_stanza_mapping_of_its_document():
    stanza = pytest.importorskip(
        "stanza", reason="stanza is not installed (pip install 'cws-bench[stanza]')"
    )
    # stanza's Document built from its documented token dicts: two sentences.
    document = stanza.Document(
        [
            [{"id": 1, "text": "我们"}, {"id": 2, "text": "是"}, {"id": 3, "text": "。"}],
            [{"id": 1, "text": "他"}, {"id": 2, "text": "说 了"}],
        ]
    )
    assert stanza_words(document) == ["我们", "是", "。", "他", "说", "了"]


def test_stanza_missing_models(tmp_path):
    pytest.importorskip(
        "stanza", reason="stanza is not installed (pip install 'cws-bench[stanza]')"
    )
    with pytest.raises(SegmenterError, match=r"(?s)no stanza models in .*stanza\.download"):
        get_segmenter("stanza", dir=str(tmp_path))
    # A resources.json that lists no Chinese tokenizer: stanza's own error, in one line.
    (tmp_path / "resources.json").write_text(json.dumps({"en": {}}), encoding="utf-8")
    with pytest.raises(SegmenterError, match="cannot load the zh-hant tokenizer"):
        get_segmenter("stanza-hant", dir=str(tmp_path))
    with pytest.raises(SegmenterError, match="lang must be one of zh, zh-hans, zh-hant, not 'ja'"):
        get_segmenter("stanza", lang="ja", dir=str(tmp_path))


@pytest.mark.parametrize(
    ("name", "cls", "module"),
    [("hanlp", HanlpSegmenter, "hanlp"), ("stanza", StanzaSegmenter, "stanza")],
)
def test_not_installed_message(monkeypatch, name, cls, module):
    monkeypatch.setattr(cls, "requires", (f"{module}_is_not_installed", "torch"))
    with pytest.raises(SegmenterUnavailableError) as caught:
        get_segmenter(name)
    assert caught.value.install == f"pip install 'cws-bench[{name}]'"
    info = next(info for info in list_segmenters() if info.name == name)
    assert not info.available and info.device is None
    assert info.install == f"pip install 'cws-bench[{name}]'"


LINES = [
    "我们是中国人。",
    "他说 Hello World 了",
    "北京大学的学生在研究生命起源。他说了",
    "😀我们是学生，ＡＢＣ１２３",
]
LONG = "北京大学的学生在研究生命起源。我们研究中国的大学，他说了。" * 4  # 112 characters


def test_hanlp_runs_a_model_built_here(hanlp_model):
    import hanlp

    plain = [line for line in LINES if " " not in line]
    direct = hanlp.load(str(hanlp_model), devices=-1)(plain)
    for batch_size in (1, 3, 32):
        segmenter = get_segmenter(
            "hanlp", model=str(hanlp_model), device="cpu", batch_size=batch_size
        )
        assert segmenter.segment([*plain, ""]) == [*direct, []]
        # HanLP joins words across a space (HelloWorld); words never span whitespace.
        spaced = segmenter.segment(["他说 Hello World 了"])[0]
        assert "".join(spaced) == "他说HelloWorld了" and "Hello" in spaced and "World" in spaced
    model = segmenter.metadata()["model"]
    assert model["model"] == str(hanlp_model.resolve()) and len(model["checksum"]) == 32


def test_hanlp_windows_long_lines(hanlp_model):
    import hanlp

    # HanLP alone drops what lies past its limit ...
    assert len("".join(hanlp.load(str(hanlp_model), devices=-1)([LONG])[0])) < len(LONG)
    # ... the adapter cuts the line into windows of max_seq_len less [CLS] and [SEP].
    segmenter = get_segmenter("hanlp", model=str(hanlp_model), device="cpu")
    assert (segmenter.max_length, segmenter.overlap) == (30, 7)
    words = segmenter.segment([LONG, "我们是中国人。", LONG + " Hello"])
    assert "".join(words[0]) == LONG and "".join(words[2]) == LONG + "Hello"
    assert words[1] == segmenter.segment(["我们是中国人。"])[0]
    # The characters before the second window (at 23) are tagged by the first window alone.
    alone = segmenter.segment([LONG[:30]])[0]
    count, total = 0, 0
    for word in alone:
        total += len(word)
        if total > 21:
            break
        count += 1
    assert count > 0 and words[0][:count] == alone[:count]


def test_hanlp_download_bounded_without_network(silent_server, tmp_path, monkeypatch):
    pytest.importorskip("hanlp", reason="hanlp is not installed (pip install 'cws-bench[hanlp]')")
    import hanlp.utils.io_util as io_util

    monkeypatch.setenv("CWS_BENCH_HUB_TIMEOUT", "1")
    original = io_util.path_from_url
    home = str(tmp_path / "home")
    monkeypatch.setattr(io_util, "path_from_url", lambda url: original(url, save_dir=home))
    url = f"{silent_server.url}/tok.zip"
    with pytest.raises(SegmenterError) as caught:
        bounded(lambda: get_segmenter("hanlp", model=url, download=True, device="cpu"))
    message = str(caught.value)
    assert "did not answer within 1 s" in message and "model = '/path/to/folder'" in message
    assert silent_server.connections  # it asked, and stopped waiting


def test_every_wait_of_a_hanlp_download_is_bounded(stalling_server, tmp_path, monkeypatch):
    # The host answers the first request (HEAD: the file is there) and then stalls on the
    # download itself: that wait is bounded too, and the load fails in one line.
    pytest.importorskip("hanlp", reason="hanlp is not installed (pip install 'cws-bench[hanlp]')")
    import socket

    import hanlp.utils.io_util as io_util
    import requests.adapters

    monkeypatch.setenv("CWS_BENCH_HUB_TIMEOUT", "1")
    original = io_util.path_from_url
    home = str(tmp_path / "home")
    monkeypatch.setattr(io_util, "path_from_url", lambda url, *a, **k: original(url, save_dir=home))
    monkeypatch.setattr(io_util, "check_outdated", lambda *a, **k: (None, None))  # no PyPI
    send, default = requests.adapters.HTTPAdapter.send, socket.getdefaulttimeout()
    url = f"{stalling_server.url}/tok.zip"
    with pytest.raises(SegmenterError) as caught:
        bounded(lambda: get_segmenter("hanlp", model=url, download=True, device="cpu"), 60)
    message = str(caught.value)
    assert "the network did not answer within 1 s" in message, message
    assert "model = '/path/to/folder'" in message
    assert stalling_server.stalled == [("GET", "/tok.zip")]  # asked once: no retries
    # and the process' network settings are as they were
    assert requests.adapters.HTTPAdapter.send is send and socket.getdefaulttimeout() == default


def test_stanza_runs_a_model_built_here(stanza_model):
    import stanza

    folder, model_path = stanza_model
    pipeline = stanza.Pipeline(
        "zh-hans",
        processors="tokenize",
        dir=str(folder),
        download_method=None,
        tokenize_model_path=str(model_path),
        device="cpu",
        logging_level="WARN",
    )
    lines = [*LINES, LONG]
    one_by_one = [stanza_words(pipeline(line)) for line in lines]
    for batch_size in (1, 2, 64):
        segmenter = get_segmenter(
            "stanza",
            dir=str(folder),
            model_path=str(model_path),
            device="cpu",
            batch_size=batch_size,
        )
        assert segmenter.segment([*lines, ""]) == [*one_by_one, []]


def test_stanza_identity_names_the_model_file(stanza_model, tmp_path):
    import shutil

    folder, model_path = stanza_model
    segmenter = get_segmenter("stanza", dir=str(folder), model_path=str(model_path), device="cpu")
    model = segmenter.metadata()["model"]
    assert model["model_path"] == str(model_path.resolve()) and len(model["checksum"]) == 32
    assert "(default)" not in segmenter.trained_on.description
    assert "tokenizer.pt" in segmenter.trained_on.description
    # Another file with other bytes: another checksum.
    other = tmp_path / "tokenizer.pt"
    shutil.copyfile(model_path, other)
    with other.open("ab") as stream:
        stream.write(b"\0")
    changed = get_segmenter("stanza", dir=str(folder), model_path=str(other), device="cpu")
    assert changed.metadata()["model"]["checksum"] != model["checksum"]

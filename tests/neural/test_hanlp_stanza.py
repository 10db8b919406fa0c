"""Tests of hanlp.py and stanza.py: what can be checked without their downloaded models.

Neither library can build a model here: HanLP's tokenizers and stanza's are
trained networks fetched from their own servers. Tested: the messages when the
library or the model is missing, and the mapping from each library's own
output types (HanLP's lists and ``Document``, stanza's ``Document``) to words.
"""

from __future__ import annotations

import json

import pytest

from cws_bench.errors import SegmenterError, SegmenterUnavailableError
from cws_bench.segmenters import get_segmenter, list_segmenters
from cws_bench.segmenters.hanlp import HanlpSegmenter
from cws_bench.segmenters.hanlp import words_of as hanlp_words
from cws_bench.segmenters.stanza import StanzaSegmenter
from cws_bench.segmenters.stanza import words_of as stanza_words


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
    with pytest.raises(SegmenterError, match="unknown language"):
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

"""Tests of cws_bench/segmenters/spacy.py: the adapter gives what spaCy gives when called."""

from __future__ import annotations

import os

import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.pkuseg import shared_models

pytestmark = pytest.mark.needs(
    "spacy", reason="spaCy is not installed (pip install 'cws-bench[spacy]')"
)


@pytest.fixture(scope="module")
def spacy():
    """spaCy, imported when a test needs it."""
    import spacy

    return spacy


LINES = [
    "他说 Hello World 了，我们是中国人",
    "结婚的和尚未结婚的",
    "",
    "２０２４年，北京大学生前来应聘。",
    "研究生命起源\t和  😀 emoji",
]


def test_char_segmenter_equals_spacy(spacy):
    nlp = spacy.blank("zh")
    expected = [[t.text for t in nlp(line) if not t.text.isspace()] for line in LINES]
    assert get_segmenter("spacy").segment(LINES) == expected
    assert expected[1] == list("结婚的和尚未结婚的")


def test_jieba_segmenter_equals_spacy(spacy):
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "jieba"}}})
    expected = [[t.text for t in nlp(line) if not t.text.isspace()] for line in LINES]
    assert get_segmenter("spacy-jieba").segment(LINES) == expected
    assert expected[1] == ["结婚", "的", "和", "尚未", "结婚", "的"]


def test_pkuseg_segmenter_equals_spacy_with_pkusegs_model(spacy):
    pytest.importorskip(
        "spacy_pkuseg",
        reason="spacy-pkuseg is not installed (pip install --no-binary spacy-pkuseg "
        "--no-build-isolation spacy-pkuseg)",
    )
    pkuseg = pytest.importorskip("pkuseg", reason="pkuseg is not installed (make)")
    model = os.path.join(os.path.dirname(pkuseg.__file__), "models", "default")
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "pkuseg"}}})
    # spaCy reads the model with spacy-pkuseg's own loaders, through the adapters' cache
    # of read models (pkuseg.shared_models): this first read is spacy-pkuseg's, and the
    # adapter below shares it instead of reading the same files a second time (3 s).
    with shared_models(pytest.importorskip("spacy_pkuseg")):
        nlp.tokenizer.initialize(pkuseg_model=model)
    expected = [[t.text for t in nlp(line) if not t.text.isspace()] for line in LINES]
    assert get_segmenter("spacy-pkuseg", pkuseg_model=model).segment(LINES) == expected
    # spaCy's pkuseg with pkuseg's own model segments as pkuseg does (the pkuseg adapter,
    # which tests/segmenters/test_pkuseg.py holds equal to pkuseg, shares the model a
    # test before it read in this process).
    assert expected[1] == get_segmenter("pkuseg").segment([LINES[1]])[0]
    with pytest.raises(
        SegmenterError, match=r"(?s)no pkuseg model in .*no-such-model.*pkuseg_model"
    ):
        get_segmenter("spacy-pkuseg", pkuseg_model="no-such-model")


def test_trained_pipeline_from_a_folder(tmp_path, spacy):
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "jieba"}}})
    nlp.to_disk(tmp_path / "pipeline")
    segmenter = get_segmenter("spacy", model=str(tmp_path / "pipeline"))
    expected = [[t.text for t in nlp(line) if not t.text.isspace()] for line in LINES]
    assert segmenter.segment(LINES) == expected
    assert segmenter.options["model"] == str(tmp_path / "pipeline")
    spacy.blank("en").to_disk(tmp_path / "english")
    with pytest.raises(SegmenterError, match="not Chinese"):
        get_segmenter("spacy", model=str(tmp_path / "english"))
    with pytest.raises(SegmenterError, match="no such folder"):
        get_segmenter("spacy", model=str(tmp_path / "absent"))
    pattern = r"(?s)cannot load pipeline 'zh_core_web_xx'.*download"
    with pytest.raises(SegmenterError, match=pattern):
        get_segmenter("spacy", model="zh_core_web_xx")
    with pytest.raises(SegmenterError, match="segmenter must be one of char, jieba, pkuseg"):
        get_segmenter("spacy", segmenter="thulac")


def test_spacy_pkuseg_without_its_model_is_found_before_loading(tmp_path, monkeypatch):
    """spacy-pkuseg's "default" model is a folder of that name in the working folder (none
    here), and its named models come from $PKUSEG_HOME or a download: the model check says
    so, loading nothing, so the listing and the bake-off's check show it absent."""
    pytest.importorskip("spacy_pkuseg", reason="spacy-pkuseg is not installed")
    from cws_bench.segmenters.registry import list_segmenters
    from cws_bench.segmenters.spacy import SpacySegmenter

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PKUSEG_HOME", str(tmp_path / "home"))
    message, hint = SpacySegmenter.model_problem({"segmenter": "pkuseg"})
    assert message == (
        "spacy-pkuseg reads its 'default' model, the folder default of the working folder: "
        f"no pkuseg model in {tmp_path / 'default'}"
    )
    assert "pkuseg_model = " in hint
    (row,) = [info for info in list_segmenters(devices=False) if info.name == "spacy-pkuseg"]
    assert row.model_missing and "no pkuseg model in" in row.model_missing
    message, _ = SpacySegmenter.model_problem({"segmenter": "pkuseg", "pkuseg_model": "mixed"})
    assert (
        message
        == f"spacy-pkuseg's model 'mixed' is not in {tmp_path / 'home'} (it would be downloaded)"
    )
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "mixed.zip").touch()
    assert SpacySegmenter.model_problem({"segmenter": "pkuseg", "pkuseg_model": "mixed"}) is None
    model = tmp_path / "model"
    model.mkdir()
    (model / "features.pkl").touch()
    assert SpacySegmenter.model_problem({"segmenter": "pkuseg", "pkuseg_model": str(model)}) is None
    assert SpacySegmenter.model_problem({"segmenter": "jieba"}) is None
    with pytest.raises(SegmenterError, match="no pkuseg model in"):
        get_segmenter("spacy-pkuseg")


def test_a_load_error_without_a_message_still_names_the_pipeline(spacy, tmp_path, monkeypatch):
    """spaCy's OSError may carry no text: the message names the pipeline and the error."""

    def fail(name, *args, **kwargs):
        raise OSError()

    monkeypatch.setattr(spacy, "load", fail)
    with pytest.raises(SegmenterError, match=r"cannot load pipeline '[^']*': OSError\n"):
        get_segmenter("spacy", model=str(tmp_path))

"""Tests of cws_bench/segmenters/pkuseg.py: the adapter gives what pkuseg gives."""

from __future__ import annotations

import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter

pkuseg = pytest.importorskip(
    "pkuseg",
    reason="pkuseg is not installed "
    "(pip install numpy Cython && pip install --no-build-isolation pkuseg)",
)


@pytest.fixture(scope="module")
def direct():
    """pkuseg itself, with the features and weights the adapters read in this process
    (pkuseg's own loaders read them once: 3.5 s less than reading them again)."""
    from cws_bench.segmenters.pkuseg import shared_models

    with shared_models(pkuseg):
        return pkuseg.pkuseg()


def test_equals_calling_pkuseg_directly(test_inputs, build, direct):
    lines = test_inputs["pku"][::25] + test_inputs["msr"][::100] + ["他说 Hello World 了\t好"]
    assert build("pkuseg").segment(lines) == [direct.cut(line) for line in lines]


def test_user_dictionary(tmp_path, build):
    line = "云计算服务平台正式上线"
    path = tmp_path / "user.txt"
    path.write_text("云计算服务平台\n", encoding="utf-8")
    with_words = get_segmenter("pkuseg", user_dict=str(path))
    assert with_words.segment([line])[0][0] == "云计算服务平台"
    assert build("pkuseg").segment([line])[0][0] != "云计算服务平台"
    from cws_bench.segmenters.pkuseg import shared_models

    with shared_models(pkuseg):  # pkuseg itself, on the model read once in the process
        direct = pkuseg.pkuseg(user_dict=["云计算服务平台"])
    assert with_words.segment([line])[0] == direct.cut(line)
    # the features and weights are read once in the process; the user's words stay its own
    plain = get_segmenter("pkuseg")
    assert plain.tokenizer.feature_extractor is with_words.tokenizer.feature_extractor
    assert plain.tokenizer.model is with_words.tokenizer.model
    assert plain.segment([line])[0][0] != "云计算服务平台"
    with pytest.raises(SegmenterError, match="no such file"):
        get_segmenter("pkuseg", user_dict=str(tmp_path / "none.txt"))


def test_the_default_model_is_marked_trained_on_the_peoples_daily(build):
    """pkuseg's default model learned from PKU's People's Daily: its pd1998 rows are scores
    on its own training data (marked, never ranked); SIGHAN 2005 PKU's test set is not."""
    trained_on = build("pkuseg").trained_on
    assert trained_on is not None and trained_on.corpus == "pd1998"
    assert trained_on.overlaps("pd1998", "test")
    assert not trained_on.overlaps("sighan2005-pku", "test")

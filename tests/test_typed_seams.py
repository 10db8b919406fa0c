"""The seams between modules are typed with the real types (issue 41, item 6).

Each function here took ``Any`` or a type variable where one type is meant; a test reads
the annotations the way a type checker does (``typing.get_type_hints``), so a signature
that goes back to ``Any`` fails here as well as in mypy.
"""

from __future__ import annotations

import hashlib
import inspect
import typing

from cws_bench.corpora import words
from cws_bench.run import config, pair, validate
from cws_bench.run.problems import ConfigurationError, Problem
from cws_bench.scoring import engine, inputs
from cws_bench.segmenters import diagnostics
from cws_bench.text import io
from cws_bench.text.dictionary import Dictionary, WordsLike


def test_validation_takes_and_returns_the_configuration_type():
    for function in (validate.validate_config, validate.select):
        hints = typing.get_type_hints(function)
        assert hints["config"] is config.BakeoffConfig, function.__name__
        assert hints["return"] is config.BakeoffConfig, function.__name__
    assert typing.get_type_hints(validate.setting_problems)["config"] is config.BakeoffConfig
    # the names config.py raises with are validate's (one home, below both)
    assert validate.ConfigurationError is ConfigurationError and validate.Problem is Problem


def test_one_alias_names_a_word_source():
    assert typing.get_type_hints(words.resolve_words)["source"] == WordsLike
    assert typing.get_type_hints(words.as_dictionary)["value"] == WordsLike | None
    assert set(typing.get_args(WordsLike)) >= {Dictionary, str}
    standard = inspect.signature(inputs.scoring_dictionary).parameters["dictionary"]
    assert standard.annotation == "WordsLike | DictionaryDefault | None"


def test_hashers_are_typed_by_what_they_do():
    assert typing.get_type_hints(io.BackgroundHasher.__init__)["hasher"] is io.Digest
    assert typing.get_type_hints(engine.ByteSource.__init__)["hasher"] == io.Hasher | None
    assert typing.get_type_hints(engine.hashed_blocks)["digest"] is io.Hasher
    # hashlib's objects are both, structurally
    digest: io.Digest = hashlib.blake2b()
    background = io.BackgroundHasher(digest)
    background.update(b"abc")
    assert background.hexdigest() == hashlib.blake2b(b"abc").hexdigest()


def test_a_pair_record_holds_a_typed_diagnostics_summary():
    annotation = inspect.get_annotations(pair.PairRecord)["diagnostics"]
    assert annotation == "DiagnosticsSummary | None"
    summary = diagnostics.summarize([{"cost": 0.5}, {"cost": 0.25}], ["甲乙", "丙"])
    assert summary == {
        "cost": {"total": 0.75, "requests": 2, "per_million_characters": 0.75 / 3 * 1e6}
    }
    assert set(diagnostics.DiagnosticsSummary.__annotations__) == {"fidelity", "requests", "cost"}

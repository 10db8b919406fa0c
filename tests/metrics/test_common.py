"""Checks every public metric function of every metric module follows the API contract.

As scikit-learn's ``test_common.py``: no metric can skip them. Data goes in
positionally, options are keyword-only and take their names from one shared
vocabulary, every public function has a doctest, and results that have
several parts can be turned into a dict.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

from cws_bench import metrics
from cws_bench.display.formats import Renderable

# The option names in use; a new option either reuses one of these or is added here on purpose.
OPTIONS = {
    # scikit-learn's names
    "average",
    "beta",
    "drop_intermediate",
    "labels",
    "multi_class",
    "normalize",
    "pos_label",
    "target_names",
    "zero_division",
    # generation
    "clipped",
    "default_weight",
    "effective_order",
    "max_gap",
    "max_order",
    "metrics",
    "multi_reference",
    "n",
    "sigma",  # CIDEr-D's length penalty (pycocoevalcap's name)
    "smooth_method",
    "smooth_value",
    "tokenizer",
    "tokenizers",
    "weight",
    "weights",
    # ranking
    "gain",
    "k",
    "relevance_level",
    # impurity
    "base",
    "features",
    # throughput
    "skip_bad",
    # significance
    "actual_positives",
    "alpha",
    "alternative",
    "confidence",
    "differences",  # max-T: the observed differences beside their joint nulls
    "exact",  # approximate randomization: every one of the 2^n swaps
    "method",
    "n_resamples",
    "nulls",  # max-T: each test's null distribution, drawn jointly
    "power",
    "predicted_positives",
    "seed",
    "true_positives",
}

MODULES = [importlib.import_module(f"cws_bench.metrics.{name}") for name in metrics.MODULES]


def public_functions():
    for module in MODULES:
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isfunction(value) and value.__module__ == module.__name__:
                yield pytest.param(value, id=f"{module.__name__.rsplit('.', 1)[1]}.{name}")


def public_classes():
    for module in MODULES:
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) and value.__module__ == module.__name__:
                yield pytest.param(value, id=f"{module.__name__.rsplit('.', 1)[1]}.{name}")


def test_every_metric_module_is_listed():
    from pathlib import Path

    folder = Path(metrics.__file__).parent
    found = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    assert found == set(metrics.MODULES) | set(metrics.HELPERS)


@pytest.mark.parametrize("function", list(public_functions()))
def test_options_are_keyword_only_with_shared_names(function):
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        if parameter.default is not inspect.Parameter.empty:
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, (
                f"option {parameter.name} of {function.__name__} must be keyword-only"
            )
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            assert parameter.name in OPTIONS, (
                f"{function.__name__}: option {parameter.name!r} is not in the shared vocabulary"
            )


@pytest.mark.parametrize("function", list(public_functions()))
def test_every_public_function_has_a_doctest_or_a_docstring(function):
    doc = inspect.getdoc(function) or ""
    assert doc, f"{function.__name__} has no docstring"
    internal = {"generation_scores_from_tokens"}
    if function.__name__ not in internal:
        assert ">>>" in doc, f"{function.__name__} has no doctest example"


def result_classes():
    """Every public class but exceptions and warnings: the results, which must have to_dict."""
    for param in public_classes():
        if not issubclass(param.values[0], Exception):
            yield param


@pytest.mark.parametrize("cls", list(result_classes()))
def test_result_objects_have_to_dict(cls):
    to_dict = getattr(cls, "to_dict", None)
    assert callable(to_dict), f"{cls.__name__} has no to_dict()"
    assert to_dict is not Renderable.to_dict, f"{cls.__name__} writes no to_dict() of its own"


def test_metrics_know_nothing_of_segmentation():
    """No metric module imports the segmenters (see cws_bench.segmenters.as_tokenizers)."""
    import ast
    from pathlib import Path

    folder = Path(metrics.__file__).parent
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = (
                    [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else [alias.name for alias in node.names]
                )
                for name in names:
                    assert not name.startswith("cws_bench.segmenters"), (path.name, name)
                    assert name != "cws_bench.segmenters.as_tokenizers", (path.name, name)


def test_zero_division_means_the_same_everywhere():
    from cws_bench.metrics import classification, generation, impurity, ranking

    for call in (
        lambda zd: classification.precision_score([0], [0], zero_division=zd, pos_label=1),
        lambda zd: generation.ngram_precision([], [["a"]], zero_division=zd),
        lambda zd: ranking.average_precision({}, ["d1"], zero_division=zd),
        lambda zd: impurity.gain_ratio(["a", "a"], ["x", "y"], zero_division=zd),
    ):
        assert call(1.0) == 1.0
        assert call(0.0) == 0.0
        with pytest.raises(ValueError, match="zero_division"):
            call(0.5)
        with pytest.warns(classification.UndefinedMetricWarning):
            assert call("warn") == 0.0

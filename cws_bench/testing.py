"""A pytest plugin: regression-test your tokenizer against a stored baseline.

Installed with cws-bench and loaded by pytest through the ``pytest11``
entry point, the plugin adds one fixture, ``cws_regression``, and one
command-line option, ``--cws-update-baseline``. It is inert unless a test
uses the fixture: importing it imports pytest and nothing of cws-bench, and
it changes nothing at import.

.. code-block:: python

    import jieba

    def tokenize(text: str) -> list[str]:
        return jieba.lcut(text)

    def test_tokenizer_does_not_regress(cws_regression):
        cws_regression(tokenize, corpus="sample", max_f1_drop=0.5)

The fixture scores the tokenizer on the corpus (a registered name such as
``sample`` or ``pd1998:test``, or a segmented gold file) exactly as
``cws-bench check`` does, and compares it with the baseline file, by default
``cws_baselines/<test name>.json`` next to the test module. When a bound is
broken the test fails with a summary: each broken bound with its old, new
and allowed values, what changed in the experiment, and the most frequent
changes of the segmentation against the baseline's. ``pytest
--cws-update-baseline`` records or rewrites the baselines instead (and the
tests pass); a test without a baseline fails and says so.

A tokenizer is a callable ``str -> list[str]``, a batch callable
``list[str] -> list[list[str]]`` (``batch=True``), a
:class:`cws_bench.segmenters.Segmenter`, or a registered segmenter name
(with ``options``). Its output must give back each input line (the
lossless-join check of :func:`cws_bench.segmenters.check_segmentation`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from cws_bench.regression.baseline import Baseline, Bounds
    from cws_bench.regression.check import CheckResult

__all__ = ["RegressionFixture", "cws_regression"]

UPDATE_OPTION = "--cws-update-baseline"
BASELINE_FOLDER = "cws_baselines"

_REWRITTEN = pytest.StashKey[list[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cws-bench", "cws-bench tokenizer regression tests")
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="record or rewrite the baselines of the cws_regression fixture instead of "
        "checking against them",
    )


def _file_name(test_name: str) -> str:
    """A file name for a test (parametrised ids included).

    >>> _file_name("test_tokenizer[jieba-sample]")
    'test_tokenizer-jieba-sample.json'
    """
    name = re.sub(r"[^\w.-]+", "-", test_name, flags=re.ASCII).strip("-")
    return f"{name or 'baseline'}.json"


def _stored(path: Path, shown: str, corpus: str, dictionary: str | None) -> Baseline:
    """The baseline at ``path`` (``shown`` in messages), recorded on ``corpus``; fails the
    test when there is none or it was recorded on another corpus."""
    from cws_bench.regression.baseline_file import load_baseline
    from cws_bench.regression.recording import as_corpus_spec

    if not path.is_file():
        pytest.fail(
            f"no cws-bench baseline at {shown}: run pytest {UPDATE_OPTION} to record one",
            pytrace=False,
        )
    stored = load_baseline(path)
    wanted = as_corpus_spec(corpus, dictionary=dictionary).label
    recorded_on = [record.label for record in stored.records]
    if recorded_on != [wanted]:
        pytest.fail(
            f"the baseline {shown} was recorded on {', '.join(recorded_on)}, the test "
            f"asks for {wanted}: run pytest {UPDATE_OPTION} to record it again",
            pytrace=False,
        )
    return stored


class RegressionFixture:
    """What ``cws_regression`` is: call it with a tokenizer to check (or record) its baseline."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.request = request
        self.update = bool(request.config.getoption(UPDATE_OPTION))

    def baseline_path(self, baseline: str | os.PathLike[str] | None) -> Path:
        """The baseline file: ``baseline`` relative to the test module's folder, or the default."""
        folder = Path(self.request.path).parent
        if baseline is None:
            return folder / BASELINE_FOLDER / _file_name(self.request.node.name)
        path = Path(baseline)
        return path if path.is_absolute() else folder / path

    def __call__(
        self,
        tokenizer: str | Callable[..., Any],
        corpus: str = "sample",
        *,
        baseline: str | os.PathLike[str] | None = None,
        batch: bool = False,
        name: str | None = None,
        version: str | None = None,
        options: Mapping[str, Any] | None = None,
        dictionary: str | None = None,
        max_f1_drop: float | None = None,
        max_oov_recall_drop: float | None = None,
        max_speed_drop: float | None = None,
        max_drop: Mapping[str, float] | None = None,
        max_token_lines: int | None = None,
        fail_on_change: bool = False,
        speed_runs: int = 1,
        data_dir: str | os.PathLike[str] | None = None,
    ) -> CheckResult | None:
        """Score ``tokenizer`` on ``corpus`` and compare with the baseline; fail on a regression.

        Args:
            tokenizer: ``str -> list[str]``, a batch callable (``batch=True``),
                a Segmenter, or a registered segmenter name.
            corpus: a registered corpus (``NAME`` or ``NAME:SPLIT``) or a
                segmented gold file (relative to the test module's folder).
            baseline: the baseline file (relative to the test module's
                folder); default ``cws_baselines/<test name>.json``.
            batch: the callable takes a list of lines.
            name: the tokenizer's name in reports (default: its ``__qualname__``).
            version: its version, part of the signature: a check says when it changed.
            options: options of a registered segmenter.
            dictionary: the OOV dictionary (default: the corpus' standard one).
            max_f1_drop: the largest allowed F1 drop in percentage points
                (default: the baseline's bound, else 0).
            max_oov_recall_drop: the largest allowed OOV recall drop in points.
            max_speed_drop: the largest allowed speed drop in percent (None:
                speed not checked; speed is noisy, see cws_bench.regression.recording).
            max_drop: bounds on other scores (``{"recall": 1.0}``).
            max_token_lines: a tokenizer (one with token ids, such as the
                ``tokenizer`` segmenter): how many lines' token ids may change
                (default: the baseline's bound, else 0).
            fail_on_change: also fail when the experiment changed (corpus,
                dictionary, version, options).
            speed_runs: timed runs (speed is their median).
            data_dir: where corpora that need one keep their data.

        Returns:
            The CheckResult, or None when the baseline was (re)written.
        """
        from cws_bench.errors import CwsBenchError
        from cws_bench.regression.baseline import Bounds
        from cws_bench.regression.baseline_file import save_baseline
        from cws_bench.regression.recording import record_baseline

        folder = Path(self.request.path).parent
        path = self.baseline_path(baseline)
        target = corpus
        if not os.path.isabs(corpus) and (folder / corpus).is_file():
            target = os.fspath(folder / corpus)

        def bounds(base: Bounds | None = None) -> Bounds:
            return Bounds.from_limits(
                max_f1_drop=max_f1_drop,
                max_oov_recall_drop=max_oov_recall_drop,
                max_speed_drop=max_speed_drop,
                max_drop=max_drop,
                base=base,
                max_token_lines=max_token_lines,
            )

        shown = os.path.relpath(path, self.request.config.rootpath)
        run: dict[str, Any] = {
            "options": options,
            "version": version,
            "batch": batch,
            "data_dir": data_dir,
            "speed_runs": speed_runs,
        }
        if self.update:
            recorded = record_baseline(
                tokenizer, [target], name=name, dictionary=dictionary, bounds=bounds(), **run
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            save_baseline(recorded, path)
            self.request.config.stash.setdefault(_REWRITTEN, []).append(shown)
            return None
        from cws_bench.regression.check import check_baseline
        from cws_bench.regression.recording import rerun_baseline
        from cws_bench.regression.render import render_check_text

        try:
            stored = _stored(path, shown, target, dictionary)
            current = rerun_baseline(stored, tokenizer, **run)
            result = check_baseline(
                stored, current, bounds(stored.bounds), fail_on_change=fail_on_change
            )
            if not result.passed:
                pytest.fail(
                    render_check_text(result, baseline=shown, accept=f"pytest {UPDATE_OPTION}"),
                    pytrace=False,
                )
        except CwsBenchError as e:
            # A malformed baseline or a bound that cannot be checked: one message, no traceback.
            pytest.fail(f"cws-bench: {e}", pytrace=False)
        return result


@pytest.fixture
def cws_regression(request: pytest.FixtureRequest) -> RegressionFixture:
    """Check a tokenizer against its stored baseline: ``cws_regression(tokenize, corpus="sample")``.

    See :mod:`cws_bench.testing`. With ``pytest --cws-update-baseline`` it
    records the baseline instead.
    """
    return RegressionFixture(request)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    rewritten = config.stash.get(_REWRITTEN, None)
    if not rewritten:
        return
    terminalreporter.write_sep("-", "cws-bench baselines written")
    for path in rewritten:
        terminalreporter.write_line(path)

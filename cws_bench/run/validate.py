"""A bake-off's configuration checked before anything runs: every problem at once.

:func:`validate_config` looks at each corpus (a registered name and split, or
files that exist) and each segmenter (a registered name, options its class
accepts, a model that is here) without reading a corpus or loading a model,
and raises one :class:`ConfigurationError` listing every problem. Corpora
and segmenters marked ``optional`` are skipped with a note instead: a corpus
whose data is not here, a segmenter whose library or model is missing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from cws_bench.errors import CwsBenchError, SegmenterError
from cws_bench.run.config import BakeoffConfig, CorpusSpec, SegmenterSpec
from cws_bench.run.problems import (
    NUMBERS,
    SETTINGS_NUMBERS,
    ConfigurationError,
    Problem,
    check_names,
    range_problems,
)
from cws_bench.suggest import did_you_mean

__all__ = [
    "check_main_guard",
    "select",
    "setting_problems",
    "validate_config",
]


def setting_problems(config: BakeoffConfig) -> list[Problem]:
    """The numeric settings of a BakeoffConfig out of range (one built in Python is checked too)."""
    top = {key: getattr(config, key) for key in NUMBERS}
    given = {key: getattr(config.settings, key) for key in SETTINGS_NUMBERS}
    present = {key: value for key, value in given.items() if value is not None}
    problems = range_problems(top, NUMBERS, "") + range_problems(
        present, SETTINGS_NUMBERS, "[settings]"
    )
    return [Problem("", problem.strip()) for problem in problems]


def validate_config(
    config: BakeoffConfig,
    *,
    data_dir: str | None = None,
    shipped: Collection[str] = (),
    notes: list[str] | None = None,
) -> BakeoffConfig:
    """Check a BakeoffConfig before it runs; return it without the optional rows to skip.

    Args:
        config: the :class:`~cws_bench.run.config.BakeoffConfig`.
        data_dir: where corpora that need local data are.
        shipped: labels of segmenters given as Python objects (not looked up).
        notes: where skip notes go (an optional segmenter whose model is not here).

    Raises:
        ConfigurationError: every problem found, at once.
    """
    source = config.source or "<config>"
    problems = setting_problems(config)
    for index, corpus in enumerate(config.corpora, start=1):
        problems.extend(_corpus_problems(corpus, f"[[corpora]] #{index} {corpus.label}", data_dir))
    skipped: set[str] = set()
    for index, spec in enumerate(config.segmenters, start=1):
        if spec.label in shipped:
            continue
        where = f"[[segmenters]] #{index} {spec.label}"
        if spec.participant is not None:
            where = f"participant {spec.label}"  # a row of [[submissions]]
        found, skip = _segmenter_problems(spec, where, config.corpora, data_dir)
        problems.extend(found)
        if skip is not None:
            skipped.add(spec.label)
            if notes is not None:
                notes.append(f"skipped {spec.label}: {skip}")
    if problems:
        raise ConfigurationError(source, problems)
    if not skipped:
        return config
    kept = tuple(s for s in config.segmenters if s.label not in skipped)
    return replace(config, segmenters=kept)


def _corpus_problems(corpus: CorpusSpec, where: str, data_dir: str | None) -> list[Problem]:
    problems = []
    if corpus.name is not None:
        from cws_bench.corpora import corpus_names, get_corpus

        known = corpus_names()
        if corpus.name not in known:
            return [
                Problem(
                    where,
                    f"no registered corpus {corpus.name!r}",
                    did_you_mean(corpus.name, known) or "see `cws-bench corpora`",
                )
            ]
        named = get_corpus(corpus.name, data_dir=data_dir)
        if corpus.split not in named.splits:
            hint = did_you_mean(corpus.split, named.splits)
            listed = f"its splits: {', '.join(named.splits)}"
            problems.append(
                Problem(
                    where,
                    f"corpus {corpus.name} has no split {corpus.split!r}",
                    f"{hint} ({listed})" if hint else listed,
                )
            )
        elif not corpus.optional and corpus.split not in named.available_splits:
            availability = named.availability()
            problems.append(
                Problem(
                    where,
                    f"corpus {corpus.name} ({corpus.split}) is not here",
                    f"{availability.hint}; or mark the corpus optional = true to skip it",
                    availability.fixes,
                )
            )
    else:
        for key in ("gold", "raw"):
            path = getattr(corpus, key)
            if path and not os.path.isfile(path):
                problems.append(Problem(where, f"{key} file {path}: no such file"))
    problems.extend(_dictionary_problems(corpus.dictionary, where))
    return problems


def _dictionary_problems(dictionary: str | None, where: str) -> list[Problem]:
    if not dictionary or dictionary in ("none", "jieba"):
        return []
    if dictionary.startswith("corpus:"):
        from cws_bench.corpora import corpus_names, parse_corpus_spec

        name = parse_corpus_spec(dictionary.removeprefix("corpus:"))[0]
        known = corpus_names()
        if name not in known:
            return [
                Problem(
                    where,
                    f"dictionary {dictionary}: no registered corpus {name!r}",
                    did_you_mean(name, known),
                )
            ]
        return []
    path = dictionary.removeprefix("file:")
    if not os.path.exists(path):
        return [Problem(where, f"dictionary file {path}: no such file")]
    return []


def _segmenter_problems(
    spec: SegmenterSpec, where: str, corpora: Sequence[CorpusSpec], data_dir: str | None
) -> tuple[list[Problem], str | None]:
    """The problems of one segmenter row, and why it is skipped (an optional one), if it is."""
    from cws_bench.segmenters import check_segmenter_options, segmenter_names

    known = segmenter_names()
    if spec.name not in known:
        hint = did_you_mean(spec.name, known) or "see `cws-bench segmenters`"
        return [Problem(where, f"no registered segmenter {spec.name!r}", hint)], None
    runs_on = [corpus for corpus in corpora if spec.runs_on(corpus)]
    try:
        cls, presets = check_segmenter_options(spec.name, {})
        first = runs_on[0] if runs_on else None
        check_segmenter_options(spec.name, _options_as_run(spec, first, data_dir))
    except SegmenterError as e:
        return [Problem(where, e.message.removeprefix(f"segmenter {spec.name}: "), e.hint)], None
    if cls.missing():
        return [], None  # a missing library: noted (optional) or refused by the run itself
    problems = []
    skip = None
    for corpus in runs_on:
        found = cls.model_problem({**presets, **_options_as_run(spec, corpus, data_dir)})
        if found is None:
            continue
        message, hint = found
        if spec.optional:
            skip = f"{message} ({hint})"
            break
        problems.append(Problem(where, message, hint))
        if "{corpus}" not in str(spec.options) and "{label}" not in str(spec.options):
            break  # the same model for every corpus: said once
    return problems, skip


def _options_as_run(spec: Any, corpus: Any, data_dir: str | None) -> dict[str, Any]:
    """A row's options as the run builds its segmenter on ``corpus``: placeholders filled,
    so ``max_tokens = "{env:NAME}"`` is checked as the number it names. An option naming
    an unset variable is left out: the run refuses or skips the row for it."""
    filled = dict(spec.options) if corpus is None else spec.options_for(corpus, data_dir)
    unset = [f"{{env:{name}}}" for name in spec.unset_variables()]
    return {
        key: value
        for key, value in filled.items()
        if not any(name in json.dumps(spec.options.get(key), ensure_ascii=False) for name in unset)
    }


def select(
    config: BakeoffConfig,
    *,
    segmenters: Sequence[str] | None = None,
    corpora: Sequence[str] | None = None,
) -> BakeoffConfig:
    """The configuration with only the segmenters and corpora of these labels (None: all).

    Raises:
        CwsBenchError: a label that is not in the configuration (with the closest ones).
    """
    changes: dict[str, Any] = {}
    rows: Sequence[SegmenterSpec | CorpusSpec]
    for kind, given, rows in (
        ("segmenter", segmenters, config.segmenters),
        ("corpus", corpora, config.corpora),
    ):
        if given is None:
            continue
        # a row run with several seeds is selected by its label (all its seeds) or one seed's
        groups: list[str] = [seed for row in rows if (seed := getattr(row, "seed_of", None))]
        check_names(kind, list(given), list(dict.fromkeys([row.label for row in rows] + groups)))
        field = "segmenters" if kind == "segmenter" else "corpora"
        changes[field] = tuple(
            row
            for row in rows
            if row.label in set(given) or getattr(row, "seed_of", None) in set(given)
        )
    return replace(config, **changes) if changes else config


def check_main_guard(what: str = "run_bakeoff") -> None:
    """Raise when the main script calls ``what`` outside ``if __name__ == "__main__":``.

    Worker processes are started with the spawn method, which imports the main
    script again in each worker: an unguarded call would start the run once
    more in every worker, which multiprocessing refuses with a long traceback
    from each. Scripts run with ``-c`` or interactively are not imported again.
    """
    import ast
    import sys

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path:
        return
    frame = sys._getframe(1)
    line = None
    while frame is not None:  # the outermost line of the main script's own code
        if frame.f_globals.get("__name__") in ("__main__", "__mp_main__") and (
            frame.f_code.co_name == "<module>"
        ):
            line = frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    if line is None:
        return
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return
    for node in tree.body:
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            if _is_main_guard(node):
                return
            raise CwsBenchError(
                f"{path}:{line}: {what} is called at the top level of the script; its worker "
                "processes import the script again and would start the run again",
                'put the call under `if __name__ == "__main__":` (see the multiprocessing '
                'docs, "Safe importing of main module")',
            )


def _is_main_guard(node: Any) -> bool:
    """Whether a statement is ``if __name__ == "__main__":`` (either way round)."""
    import ast

    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    sides = [node.test.left, *node.test.comparators]
    names = {s.id for s in sides if isinstance(s, ast.Name)}
    values = {s.value for s in sides if isinstance(s, ast.Constant)}
    return names == {"__name__"} and values == {"__main__"}

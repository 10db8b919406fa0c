"""A bake-off's configuration: its corpora, segmenters and settings, every key checked.

A bake-off is a TOML file (see ``cws_bench/configs/default.toml``)::

    name = "default"           # reports go to reports/<name>/
    seed = 2005                # resampling seed
    resamples = 1000           # bootstrap resamples
    timeout = 900              # seconds a shard may take
    batch_size = 500           # lines per segment() call
    correction = "holm"        # multiple comparisons: holm, bonferroni, fdr_bh, maxt or none
    method = "interval"        # the counting: interval, sighan (the official script's), conll18
    alpha = 0.05               # significance level of the paired tests (0 < alpha < 1)
    test = "bootstrap"         # paired test: bootstrap, or permutation (approximate randomization)
    resplits = 10              # also on 10 random splits of each corpus' train+test (0: none)

    [settings]                 # how the run is spread over workers (changes no number)
    executor = "local"         # local worker processes, or dask
    scheduler = "tcp://10.0.0.5:8786"   # a Dask scheduler (default: a local cluster)
    shard_chars = 20000        # characters per shard, in whole batches
    retries = 2                # runs again of a shard whose worker died or hung

    [[corpora]]
    name = "pd1998"            # a registered corpus ...
    split = "test"
    dictionary = "corpus:pd1998"   # OOV dictionary (default: the corpus' standard one; "none")
    normalize = "none"
    convert = "none"           # e.g. "t2s": convert the input before segmenting (see CorpusSpec)
    method = "sighan"          # this corpus' counting, when not the run's method
    optional = false           # true: skip the corpus when its data is not here

    [[corpora]]
    label = "mine"             # ... or files of your own
    gold = "gold.txt"          # segmented, any format read_corpus reads
    raw = "raw.txt"            # optional: the raw input (else the gold words joined)
    dictionary = "words.txt"

    [[segmenters]]
    name = "hmm"               # a registered adapter
    label = "hmm"              # the row name (default: the name)
    track = "closed"           # closed: only the corpus' training data; open: anything
    options = { corpus = "pd1998", split = "train" }
    optional = false           # true: skip when the adapter or its model is not here
    corpora = ["pd1998"]       # only on these corpus labels (default: every corpus)
    description = ""           # one line about the row, for the reports
    seeds = [1, 2, 3]          # a trainable row with a seed option: one pair per seed

    [[submissions]]            # an organiser's folder of submissions: ``file`` rows
    folder = "submissions"     # (see cws_bench.run.submissions)
    pattern = "{participant}/{corpus}.txt"

Option values may say ``{corpus}``: it becomes the registered name of the
corpus being scored (closed tracks train on each corpus' own training data);
``{label}`` becomes its label.

:func:`load_config` reads the file (or a bundled name), :func:`parse_config`
checks every key and value into a :class:`BakeoffConfig` of
:class:`CorpusSpec` and :class:`SegmenterSpec`, and :func:`configured` adds
what the caller of :func:`~cws_bench.run.bakeoff.run_bakeoff` gave (settings,
Python segmenters).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from cws_bench.configs import BUNDLED_CONFIGS, bundled_text
from cws_bench.defaults import DEFAULT_BATCH_SIZE, DEFAULT_RETRIES, EXECUTORS
from cws_bench.errors import CwsBenchError
from cws_bench.metrics.defaults import (
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_TEST,
    TESTS,
)
from cws_bench.run import problems
from cws_bench.run.executors import ExecutorSettings
from cws_bench.run.submissions import submission_rows
from cws_bench.text.io import PathLike

__all__ = [
    "BAKEOFF_SHARD_CHARS",
    "BakeoffConfig",
    "CorpusSpec",
    "SegmenterSpec",
    "configured",
    "load_config",
    "parse_config",
    "parse_seeds",
    "seed_rows",
    "with_seeds",
]


@dataclass(frozen=True)
class CorpusSpec:
    """A corpus of the bake-off: a registered one, or files of the user's.

    Attributes:
        label: the name in reports.
        name: the registered corpus name, or None for files.
        split: the split scored (registered corpora).
        gold: the gold file (files only).
        raw: the raw input file, or None to join the gold words.
        format: the gold file's format (``auto``, ``plain``, ``conllu``, ``pd``, ``bmes``).
        encoding: the files' encoding.
        dictionary: the OOV dictionary (a ``--dict`` specification), or None:
            the corpus' standard dictionary for a registered corpus, none for files.
        normalize: the normalisation applied before scoring.
        convert: a character-by-character conversion (``t2s``: OpenCC
            Traditional to Simplified) applied to the raw input before it is
            segmented; the words are cut back out of the original text, so
            the scores are on the corpus as it is. ``none`` (the default)
            gives the input as it is.
        optional: skip the corpus (with a note) when its data is not here.
    """

    label: str
    name: str | None = None
    split: str = "test"
    gold: str | None = None
    raw: str | None = None
    format: str = "auto"
    encoding: str = "utf-8"
    dictionary: str | None = None
    normalize: str = "none"
    convert: str = "none"
    optional: bool = False
    method: str | None = None

    def counted_by(self, method: str) -> str:
        """This corpus' counting method in a run whose ``method`` is ``method``."""
        return self.method or method


_ENV = re.compile(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
"""An ``{env:NAME}`` placeholder in a segmenter's options."""


@dataclass(frozen=True)
class SegmenterSpec:
    """A segmenter of the bake-off.

    Attributes:
        label: the row name in reports.
        name: the registered adapter name.
        track: ``closed`` or ``open``.
        options: keyword options of ``get_segmenter`` (``{corpus}`` placeholders allowed).
        optional: skip the segmenter when its library or its model is not here.
        corpora: the corpus labels it runs on (closed-track rows only where a
            corpus has training data), or None for every corpus.
        description: one line about the row (a participant's system), for the reports.
        participant: who submitted the row's files (rows made from ``[[submissions]]``,
            :mod:`cws_bench.run.submissions`), or None.
        seeds: the seeds of a trainable row (its adapter has a ``seed`` option), as
            written; :func:`parse_config` expands such a row into one row per seed
            (:func:`seed_rows`), and this is None on every expanded row.
        seed_of: the label of the row an expanded per-seed row comes from (its
            label is ``<label>@seed<n>``), or None.
    """

    label: str
    name: str
    track: str = "open"
    options: dict[str, Any] = field(default_factory=dict)
    optional: bool = False
    corpora: tuple[str, ...] | None = None
    description: str = ""
    participant: str | None = None
    seeds: tuple[int, ...] | None = None
    seed_of: str | None = None

    def runs_on(self, corpus: CorpusSpec) -> bool:
        """Whether the segmenter is run on ``corpus``."""
        return self.corpora is None or corpus.label in self.corpora

    def unset_variables(self) -> list[str]:
        """The environment variables its ``{env:NAME}`` placeholders name that are not set."""
        names = _ENV.findall(json.dumps(self.options, ensure_ascii=False))
        return sorted({name for name in names if not os.environ.get(name)})

    def options_for(self, corpus: CorpusSpec, data_dir: str | None = None) -> dict[str, Any]:
        """The options with their placeholders filled.

        ``{corpus}`` becomes the corpus' registered name (or its label);
        ``{label}`` the corpus' label (a file per corpus, as the reports name it);
        ``{data_dir}`` the run's ``--data-dir``: an option whose whole value is
        ``{data_dir}`` is left out when the run has none; ``{env:NAME}`` the
        value of the environment variable ``NAME`` (an LLM's endpoint and
        model), read in the parent process, so the run cache's key holds the
        value, not the name.
        """
        target = corpus.name or corpus.label

        def fill(value: Any) -> Any:
            if isinstance(value, str):
                value = value.replace("{corpus}", target).replace("{label}", corpus.label)
                if "{env:" in value:
                    value = _ENV.sub(lambda m: os.environ.get(m.group(1), ""), value)
                if "{data_dir}" in value and data_dir is not None:
                    value = value.replace("{data_dir}", data_dir)
                return value
            if isinstance(value, list):
                return [fill(v) for v in value]
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            return value

        return {
            key: fill(value)
            for key, value in self.options.items()
            if not (value == "{data_dir}" and data_dir is None)
        }


TRACKS = ("closed", "open")


SAFE_NAME = re.compile(r"[\w.+ -]{1,100}")
"""A bake-off name: a plain file name (Unicode letters allowed), the folder of its reports."""


CORRECTION = "holm"  # multiple comparisons within a track: Holm-Bonferroni unless told


BAKEOFF_SHARD_CHARS = 20_000
"""Characters per shard of a bake-off by default: small corpora still make a few shards."""


DEFAULT_SETTINGS = ExecutorSettings(
    executor="local", shard_chars=BAKEOFF_SHARD_CHARS, retries=DEFAULT_RETRIES
)
"""A bake-off's ``[settings]`` when its configuration sets none."""


@dataclass(frozen=True)
class BakeoffConfig:
    """A whole bake-off: corpora, segmenters and settings.

    ``settings`` (executor, scheduler, shard_chars, retries) come from the
    TOML's ``[settings]`` table (how the run is spread over workers: they
    change no number); the shard timeout is ``timeout``.
    """

    name: str
    corpora: tuple[CorpusSpec, ...]
    segmenters: tuple[SegmenterSpec, ...]
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    timeout: float = 900.0
    batch_size: int = DEFAULT_BATCH_SIZE
    description: str = ""
    source: str | None = None
    correction: str = CORRECTION
    settings: ExecutorSettings = DEFAULT_SETTINGS
    method: str = "interval"
    alpha: float = DEFAULT_ALPHA
    test: str = DEFAULT_TEST
    resplits: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain data (what results.json records)."""
        return {
            **{key: getattr(self, key) for key in ("name", "description", "source")},
            **{key: getattr(self, key) for key in _SCALARS if key not in _UNRECORDED},
            "corpora": [asdict(c) for c in self.corpora],
            "segmenters": [asdict(s) for s in self.segmenters],
            "settings": {key: getattr(self.settings, key) for key in sorted(_SETTINGS_KEYS)},
            # (only when asked: a run without re-splits records what it did before)
            **({"resplits": self.resplits} if self.resplits else {}),
        }


_CORPUS_KEYS = set(CorpusSpec.__dataclass_fields__)


_SEGMENTER_KEYS = set(SegmenterSpec.__dataclass_fields__) - {"seed_of"}


SEED_MARK = "@seed"
"""Between a seeded row's label and its seed in the label of each of its per-seed rows."""


def seed_rows(spec: SegmenterSpec) -> list[SegmenterSpec]:
    """A row with ``seeds`` as one row per seed (``seed`` option set, label ``label@seed<n>``);
    any other row as it is. The run plans, caches and scores each one as a pair of its own;
    the reports sum them up (:func:`cws_bench.results.model.seed_summaries`)."""
    if not spec.seeds:
        return [spec]
    return [
        replace(
            spec,
            label=f"{spec.label}{SEED_MARK}{seed}",
            options={**spec.options, "seed": seed},
            seeds=None,
            seed_of=spec.label,
        )
        for seed in spec.seeds
    ]


def parse_seeds(text: str) -> list[int]:
    """``--seeds``' value: whole numbers separated by commas.

    >>> parse_seeds("1, 2,3")
    [1, 2, 3]
    """
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not all(part.isdigit() for part in parts):
        raise CwsBenchError(
            f"--seeds: give non-negative whole numbers separated by commas, not {text!r}",
            "e.g. --seeds 1,2,3,4,5",
        )
    return [int(part) for part in parts]


def with_seeds(config: BakeoffConfig, seeds: Sequence[int]) -> BakeoffConfig:
    """The configuration with every row whose segmenter has a seed option run with ``seeds``
    (``--seeds`` on ``bakeoff``): a row with ``seeds`` gets these instead, a row without
    them is expanded (:func:`seed_rows`) unless its options set ``seed``; the others stay.

    Raises:
        CwsBenchError: bad seeds, or no row of the configuration has a seed option.
    """
    where = f"{config.source or '<config>'}: --seeds"
    rows: list[SegmenterSpec] = []
    done: set[str] = set()
    seeded = 0
    for spec in config.segmenters:
        if spec.seed_of is not None:
            if spec.seed_of in done:
                continue
            done.add(spec.seed_of)
            options = {k: v for k, v in spec.options.items() if k != "seed"}
            spec = replace(spec, label=spec.seed_of, options=options, seed_of=None)
        elif "seed" in spec.options or not _has_seed_option(spec.name):
            rows.append(spec)
            continue
        table = {"name": spec.name, "seeds": list(seeds), "options": spec.options}
        rows += seed_rows(replace(spec, seeds=_check_seeds(table, where)))
        seeded += 1
    if not seeded:
        raise CwsBenchError(
            f"{where}: no segmenter of the configuration has a seed option", _SEEDS_ARE_FOR
        )
    _check_labels(config.source or "<config>", config.corpora, rows)
    return replace(config, segmenters=tuple(rows))


_SEEDS_ARE_FOR = (
    "seeds are for trainable segmenters whose training draws on a seed "
    "(crf, the transformer tagger, llm's shots)"
)


def _has_seed_option(name: str) -> bool:
    from cws_bench.errors import SegmenterError
    from cws_bench.segmenters import check_segmenter_options, segmenter_names

    if name not in segmenter_names():
        return False
    try:
        check_segmenter_options(name, {"seed": 0})
    except SegmenterError:
        return False
    return True


def _check_seeds(spec: dict[str, Any], where: str) -> tuple[int, ...]:
    """A row's ``seeds``: distinct non-negative integers, on an adapter with a seed option."""
    seeds = spec["seeds"]
    if (
        not isinstance(seeds, list)
        or not seeds
        or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)
        or len(set(seeds)) != len(seeds)
    ):
        raise CwsBenchError(
            f"{where}: seeds must be a list of distinct non-negative integers, not {seeds!r}",
            "e.g. seeds = [1, 2, 3, 4, 5]",
        )
    if "seed" in spec.get("options", {}):
        raise CwsBenchError(
            f"{where}: give either seeds or options.seed, not both",
            "seeds = [...] runs the row once per seed",
        )
    from cws_bench.segmenters import segmenter_names

    # an unknown name is said by the validation
    if spec["name"] in segmenter_names() and not _has_seed_option(spec["name"]):
        raise CwsBenchError(
            f"{where}: seeds given, but segmenter {spec['name']} has no seed option",
            f"{_SEEDS_ARE_FOR}; remove seeds from this row",
        )
    return tuple(seeds)


_SETTINGS_KEYS = {"executor", "scheduler", "shard_chars", "retries"}


_TOP_KEYS = set(BakeoffConfig.__dataclass_fields__) - {"source"} | {"submissions"}

_SCALARS = {
    item.name: {"int": int, "float": float, "str": str}[str(item.type)]
    for item in fields(BakeoffConfig)
    if item.type in ("int", "float", "str") and item.name != "name"
}
"""The top-level keys that are one value, each with its type (absent: the field's default)."""

_UNRECORDED = {"description", "resplits"}
"""Scalars :meth:`BakeoffConfig.to_dict` records elsewhere in its order, or only when set."""


def _parse_corpus(table: Any, where: str, base: Path) -> CorpusSpec:
    """One ``[[corpora]]`` table; relative paths are relative to ``base``."""
    problems.check_keys(where, table, _CORPUS_KEYS)
    if bool(table.get("name")) == bool(table.get("gold")):
        raise CwsBenchError(f"{where}: give either name (a registered corpus) or gold (a file)")
    spec = dict(table)
    for key in ("gold", "raw"):
        if spec.get(key):
            spec[key] = os.fspath(base / spec[key])
    dictionary = spec.get("dictionary")
    if (
        isinstance(dictionary, str)
        and dictionary not in ("none", "jieba")
        and not dictionary.startswith("corpus:")
    ):
        # a file, whether it exists or not: validation names the path it looked for
        prefix = "file:" if dictionary.startswith("file:") else ""
        spec["dictionary"] = prefix + os.fspath(base / dictionary.removeprefix("file:"))
    spec.setdefault("label", spec.get("name") or Path(spec["gold"]).stem)
    return CorpusSpec(**spec)


FILE_OPTIONS = ("path", "lexicon", "user_dict", "cwd")
"""Segmenter options that always name a file or folder: a relative one is resolved
against the configuration's folder (``jieba`` and ``corpus:NAME`` are no files)."""
MAYBE_FILE_OPTIONS = ("model", "corpus")
"""Options that name a file or something else (a model on the Hugging Face hub, a registered
corpus): resolved against the configuration's folder when that file exists there, or when
the value looks like a file (``./x``, ``../x``, a name with an extension)."""


def _resolve_options(options: dict[str, Any], base: Path) -> dict[str, Any]:
    """A segmenter's options with their relative paths resolved against ``base``."""
    resolved = dict(options)
    for key, value in options.items():
        if not isinstance(value, str) or not value or os.path.isabs(value):
            continue
        if value in ("jieba", "none") or value.startswith(("corpus:", "~")):
            continue
        prefix = "file:" if value.startswith("file:") else ""
        path = base / value.removeprefix(prefix)
        if key in FILE_OPTIONS or (
            key in MAYBE_FILE_OPTIONS
            and (path.exists() or value.startswith(".") or os.path.splitext(value)[1])
        ):
            resolved[key] = prefix + os.fspath(path)
    return resolved


def _parse_segmenter(table: Any, where: str, base: Path) -> SegmenterSpec:
    """One ``[[segmenters]]`` table; relative file options are relative to ``base``."""
    problems.check_keys(where, table, _SEGMENTER_KEYS)
    if not table.get("name"):
        raise CwsBenchError(
            f"{where}: missing name (a registered segmenter)", "see `cws-bench segmenters`"
        )
    spec = dict(table)
    spec.setdefault("label", spec["name"])
    if spec.get("track", "open") not in TRACKS:
        raise CwsBenchError(f"{where}: track must be closed or open, not {spec['track']!r}")
    if not isinstance(spec.get("options", {}), dict):
        raise CwsBenchError(f"{where}: options must be a table")
    if spec.get("options"):
        spec["options"] = _resolve_options(spec["options"], base)
    if spec.get("corpora") is not None:
        only = spec["corpora"]
        if not isinstance(only, list) or not all(isinstance(c, str) for c in only):
            raise CwsBenchError(f"{where}: corpora must be a list of corpus labels")
        spec["corpora"] = tuple(only)
    if spec.get("seeds") is not None:
        spec["seeds"] = _check_seeds(spec, where)
    return SegmenterSpec(**spec)


def _check_labels(
    source: str, corpora: Sequence[CorpusSpec], segmenters: Sequence[SegmenterSpec]
) -> None:
    """Every segmenter's corpora exist; no label is used twice."""
    if not corpora or not segmenters:
        raise CwsBenchError(f"{source}: a bake-off needs at least one corpus and one segmenter")
    corpus_labels = {c.label for c in corpora}
    for segmenter in segmenters:
        unknown = sorted(set(segmenter.corpora or ()) - corpus_labels)
        if unknown:
            raise CwsBenchError(
                f"{source}: segmenter {segmenter.label}: no corpus labelled {', '.join(unknown)}",
                f"corpus labels: {', '.join(sorted(corpus_labels))}",
            )
    for kind, labels in (
        ("corpus", [c.label for c in corpora]),
        ("segmenter", [s.label for s in segmenters]),
    ):
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise CwsBenchError(
                f"{source}: {kind} {'label' if len(duplicates) == 1 else 'labels'} used twice: "
                f"{', '.join(duplicates)}",
                "give each a distinct label",
            )


def _run_name(data: dict[str, Any], source: str) -> str:
    name = str(data.get("name") or Path(source).stem)
    if not SAFE_NAME.fullmatch(name) or name.startswith("."):
        # The name is a folder under reports/: "../x" or "/tmp/x" would write elsewhere.
        raise CwsBenchError(
            f"{source}: name {name!r} is not a plain file name",
            "use letters, digits, spaces and - _ . + (reports go to reports/<name>/; "
            "pass -o to write them elsewhere)",
        )
    return name


def _parse_settings(data: dict[str, Any], source: str) -> dict[str, Any]:
    """The ``[settings]`` table: executor, scheduler, shard_chars, retries."""
    table = data.get("settings", {})
    problems.check_keys(f"{source}: [settings]", table, _SETTINGS_KEYS)
    settings = dict(table)
    if settings.get("executor", "local") not in EXECUTORS:
        raise CwsBenchError(
            f"{source}: [settings] executor must be one of {', '.join(EXECUTORS)}, "
            f"not {settings['executor']!r}"
        )
    return settings


def parse_config(data: dict[str, Any], *, source: str = "<config>") -> BakeoffConfig:
    """Build a BakeoffConfig from parsed TOML, checking every key and value.

    Relative file paths are taken relative to the configuration file's folder (the
    working folder for a configuration that is no file): a corpus' ``gold``, ``raw`` and
    ``dictionary``, and a segmenter's file options (:data:`FILE_OPTIONS`,
    :data:`MAYBE_FILE_OPTIONS`).

    Raises:
        CwsBenchError: a missing or unknown key, or a value of the wrong kind.
    """
    base = Path(source).resolve().parent if source and not source.startswith("<") else Path.cwd()
    found: list[CwsBenchError] = []  # every table's problems, reported together

    def parse(make: Any, *args: Any) -> Any:
        try:
            return make(*args)
        except CwsBenchError as e:
            found.append(e)
            return None

    parse(problems.check_keys, source, data, _TOP_KEYS)
    settings = parse(_parse_settings, data, source)
    found.extend(
        CwsBenchError(problem)
        for problem in problems.range_problems(data, problems.NUMBERS, f"{source}:")
    )
    if isinstance(settings, dict):
        found.extend(
            CwsBenchError(problem)
            for problem in problems.range_problems(
                settings, problems.SETTINGS_NUMBERS, f"{source}: [settings]"
            )
        )
    corpora = [
        parse(_parse_corpus, table, f"{source}: [[corpora]] #{index}", base)
        for index, table in enumerate(data.get("corpora", []), start=1)
    ]
    segmenters = [
        parse(_parse_segmenter, table, f"{source}: [[segmenters]] #{index}", base)
        for index, table in enumerate(data.get("segmenters", []), start=1)
    ]
    labels = [c.label for c in corpora if c is not None]
    for index, table in enumerate(data.get("submissions", []), start=1):
        where = f"{source}: [[submissions]] #{index}"
        for row in parse(submission_rows, table, where, base, labels) or []:
            segmenters.append(parse(_parse_segmenter, row, where, base))
    if len(found) > 1:
        raise problems.ConfigurationError(
            source, [problems.Problem("", e.message, e.hint) for e in found]
        )
    if found:
        raise found[0]
    segmenters = [row for spec in segmenters for row in seed_rows(spec)]
    _check_labels(source, corpora, segmenters)
    try:
        config = BakeoffConfig(
            name=_run_name(data, source),
            corpora=tuple(corpora),
            segmenters=tuple(segmenters),
            source=source,
            settings=replace(DEFAULT_SETTINGS, **settings),
            **{key: kind(data[key]) for key, kind in _SCALARS.items() if key in data},
        )
    except (TypeError, ValueError) as e:
        raise CwsBenchError(f"{source}: {e}") from e
    _check_choices(config, source)
    return config


def _check_choices(config: BakeoffConfig, source: str) -> None:
    """The settings that name one of a few choices: the correction, the counting method
    (the run's and each corpus'), the paired test."""
    from cws_bench.metrics.defaults import CORRECTIONS

    if config.correction not in CORRECTIONS:
        raise CwsBenchError(
            f"{source}: correction must be one of {', '.join(CORRECTIONS)}, "
            f"not {config.correction!r}",
            "holm (Holm-Bonferroni) is the default; none leaves the p-values uncorrected",
        )
    _check_method(config.method, source)
    for corpus in config.corpora:
        if corpus.method is not None:
            _check_method(corpus.method, f"{source}: corpus {corpus.label}")
    if config.test not in TESTS:
        raise CwsBenchError(
            f"{source}: test must be one of {', '.join(TESTS)}, not {config.test!r}",
            "bootstrap (the paired bootstrap) is the default; permutation is approximate "
            "randomization",
        )


def _check_method(method: str, source: str) -> None:
    """A bake-off's counting method resamples sentences (``interval``, ``sighan``,
    ``conll18``): its F, intervals and letters are one count."""
    from cws_bench.scoring.methods import methods

    names = [m.name for m in methods() if m.resamples_sentences]
    if method not in names:
        from cws_bench.suggest import did_you_mean

        raise CwsBenchError(
            f"{source}: method must be one of {', '.join(names)}, not {method!r}",
            did_you_mean(method, names) or "interval (the default) counts character intervals",
        )


def load_config(config: PathLike | None = None, *, notes: list[str] | None = None) -> BakeoffConfig:
    """Read a bake-off configuration: a TOML file, or a bundled name (:data:`BUNDLED_CONFIGS`).

    A bundled name is the bundled configuration unless a file of that name is
    here (then the file is read); when both exist, a note in ``notes`` says
    which was taken (a folder named ``domains``, e.g. the reports of ``-o
    domains``, never hides the bundled ``domains``).

    Raises:
        CwsBenchError: the file is missing or not valid TOML (naming line and
            column), or its content is not a bake-off.
    """
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    name = "default" if config is None else os.fspath(config)
    path = Path(name)
    if name in BUNDLED_CONFIGS and not path.is_file():
        text = bundled_text(name)
        source = f"<bundled {name}>"
        if path.exists() and notes is not None:
            notes.append(
                f"{name}: the bundled configuration (./{name} is a folder, not a TOML file)"
            )
    else:
        if not path.is_file():
            from cws_bench.suggest import did_you_mean

            close = did_you_mean(name, BUNDLED_CONFIGS)
            listed = f"give a TOML file, or one of the bundled ones: {', '.join(BUNDLED_CONFIGS)}"
            folder = f" ({name} is a folder, not a TOML file)" if path.is_dir() else ""
            raise CwsBenchError(
                f"{name}: no such bake-off configuration{folder}",
                f"{close} ({listed})" if close else listed,
            )
        text = path.read_text(encoding="utf-8-sig")
        source = os.fspath(path)
        if name in BUNDLED_CONFIGS and notes is not None:
            notes.append(
                f"{name}: the file ./{name}, not the bundled configuration of that name "
                "(rename the file to run the bundled one)"
            )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CwsBenchError(
            f"{source}: not valid TOML: {e}", "see https://toml.io for the syntax"
        ) from e
    return parse_config(data, source=source)


def configured(
    config: BakeoffConfig | PathLike | None,
    given: ExecutorSettings,
    segmenters: Mapping[str, Any] | None,
    notes: list[str] | None = None,
) -> BakeoffConfig:
    """The configuration with the caller's settings and shipped segmenters in it."""
    if not isinstance(config, BakeoffConfig):
        config = load_config(config, notes=notes)
    changes: dict[str, Any] = {"settings": config.settings.merged(given)}
    if segmenters:
        extra = tuple(SegmenterSpec(label=label, name=label) for label in segmenters)
        changes["segmenters"] = config.segmenters + extra
        _check_labels(config.source or "<config>", config.corpora, changes["segmenters"])
    return replace(config, **changes)

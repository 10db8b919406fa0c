"""The gate: a rerun compared with its baseline, bound by bound.

:func:`check_baseline` takes a baseline and a rerun of the same
configuration (:func:`~cws_bench.regression.recording.rerun_baseline`) and
checks each bound on each corpus: a score may drop by at most so many
percentage points (``{"f1": 0.5}``), the median speed by at most so many
percent. Each check says the old value, the new one and the lowest value
allowed; a paired bootstrap test over sentences (of the per-sentence counts
the baseline stores) says whether a score change is more than chance when
both runs scored the same sentences, and with ``max_p`` a score below its
bound fails only when that test's p-value is below ``max_p``.

The check also says when the experiment itself changed since the baseline
(:data:`_CHANGES`, options and files named by options): a changed experiment, not
only a regression; ``fail_on_change`` makes it a failure too.

>>> from cws_bench.run.config import CorpusSpec
>>> from cws_bench.run.pair import SegmenterMetadata
>>> from cws_bench.regression.baseline import (
...     CorpusRecord, RecordIdentity, SegmenterConfig, Speed)
>>> segmenter = SegmenterMetadata("demo", "1", None, None, None, {})
>>> identity = RecordIdentity("c0ffee", None, "key", "sig")
>>> def run(f1, speed):
...     speed = Speed(speed, (speed,), characters=10, passes=1)
...     corpus = CorpusSpec("demo", name="demo")
...     record = CorpusRecord(corpus, {"f1": f1}, speed, segmenter, identity, ())
...     return Baseline(SegmenterConfig("demo"), (record,))
>>> result = check_baseline(run(0.80, 1000.0), run(0.79, 990.0), Bounds({"f1": 0.5}, speed=5))
>>> [(c.metric, c.status) for c in result.checks], result.passed
([('f1', 'failed'), ('speed', 'ok')], False)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, cast

from cws_bench.display.units import Units, format_p_value, plural
from cws_bench.errors import CwsBenchError
from cws_bench.regression.baseline import Baseline, Bounds, CorpusRecord
from cws_bench.regression.tokens import compare_token_ids
from cws_bench.score_registry import SCORES

if TYPE_CHECKING:
    from cws_bench.regression.diff import SegmentationDiff

__all__ = ["STATUSES", "BoundCheck", "CheckResult", "ExperimentChange", "check_baseline"]

STATUSES = ("ok", "failed", "skipped")

# Score differences below this are rounding, not a drop (scores are ratios of integers).
_TOLERANCE = 1e-12

_LABELS = {"speed": "speed", "token_ids": "token ids"}
"""The labels of the bounds that are no score (a score's is its registry label)."""


def bound_label(metric: str) -> str:
    """What a bound's messages call it: a score's label, ``speed``, ``token ids``."""
    score = SCORES.get(metric)
    return score.label if score else _LABELS.get(metric, metric)


@dataclass(frozen=True, slots=True)
class BoundCheck:
    """One bound on one corpus.

    Attributes:
        metric: the score name (``f1``, ``oov_recall``, ...), ``speed`` or ``token_ids``.
        status: ``ok``, ``failed`` or ``skipped`` (with ``message`` saying why).
        old, new: the baseline's and the rerun's value (scores as fractions, speed in
            characters per second); allowed: the lowest value that passes.
        bound: the allowed drop (percentage points for scores, percent for speed).
        p_value: a paired bootstrap p-value of the score difference, when both
            runs scored the same sentences (None otherwise, and for speed).
        max_p: the significance level a drop below the bound had to reach to
            fail (:attr:`Bounds.max_p`), or None.
    """

    corpus: str
    metric: str
    status: str
    old: float | None
    new: float | None
    allowed: float | None
    bound: float | None
    p_value: float | None
    message: str
    max_p: float | None = None

    @property
    def label(self) -> str:
        return bound_label(self.metric)

    def describe(self, unit: Units | None = None) -> str:
        """The one line for people, scores printed in ``unit`` (default: :attr:`message`);
        speed and token-id lines are no scores and keep their message."""
        if (
            unit is None
            or self.metric in ("speed", "token_ids")
            or self.status == "skipped"
            or None in (self.old, self.new, self.allowed, self.bound)
        ):
            return self.message
        values = cast(
            "tuple[float, float, float, float]", (self.old, self.new, self.bound, self.allowed)
        )
        return score_message(self.label, *values, self.p_value, unit, self.max_p)

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "metric": self.metric,
            "status": self.status,
            "old": self.old,
            "new": self.new,
            "allowed": self.allowed,
            "bound": self.bound,
            "unit": {"speed": "percent", "token_ids": "lines"}.get(self.metric, "points"),
            "p_value": self.p_value,
            "message": self.message,
            **({"max_p": self.max_p} if self.max_p is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class ExperimentChange:
    """Something that differs between the baseline's experiment and the rerun's.

    Attributes:
        corpus: the corpus label, or None when it concerns every corpus.
        what: ``option`` or one of :data:`_CHANGES` (``corpus``, ``machine``, ...).
        old, new: the baseline's and the rerun's value.
        comparable: False when the scores cannot be compared (the gold changed).
    """

    corpus: str | None
    what: str
    old: Any
    new: Any
    message: str
    comparable: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CheckResult:
    """Every bound on every corpus, what changed in the experiment, and what changed in the output.

    Attributes:
        checks: one per corpus and bound, corpora in the baseline's order.
        changes: differences between the two experiments.
        diffs: per corpus label, the diff of the baseline's segmentation
            against the rerun's (with the gold), when the baseline kept it.
        current: the rerun, as a Baseline (saving it accepts the change).
    """

    segmenter: str
    checks: tuple[BoundCheck, ...]
    changes: tuple[ExperimentChange, ...]
    diffs: Mapping[str, SegmentationDiff]
    bounds: Bounds
    fail_on_change: bool = False
    current: Baseline | None = field(default=None, repr=False)

    @property
    def failures(self) -> tuple[BoundCheck, ...]:
        return tuple(check for check in self.checks if check.status == "failed")

    @property
    def changed_experiment(self) -> bool:
        """Whether the data, the segmenter version or its configuration changed."""
        return any(change.what != "machine" for change in self.changes)

    @property
    def passed(self) -> bool:
        """No bound broken (and, with ``fail_on_change``, the same experiment)."""
        return not self.failures and not (self.fail_on_change and self.changed_experiment)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: scores as fractions, speed in characters per second."""
        return {
            "segmenter": self.segmenter,
            "passed": self.passed,
            "failures": len(self.failures),
            "bounds": self.bounds.to_dict(),
            "fail_on_change": self.fail_on_change,
            "checks": [check.to_dict() for check in self.checks],
            "changes": [change.to_dict() for change in self.changes],
            "diffs": {label: _diff_summary(diff) for label, diff in self.diffs.items()},
        }


def _diff_summary(diff: SegmentationDiff) -> dict[str, Any]:
    data = diff.to_dict(line_diffs=False)
    data.pop("against_gold")
    if diff.gold is not None:
        data["outcomes"] = dict(diff.gold.outcomes)
    return data


def score_message(
    name: str,
    before: float,
    after: float,
    drop: float,
    allowed: float,
    p_value: float | None,
    unit: Units | None = None,
    max_p: float | None = None,
) -> str:
    """``F1 dropped 85.00 → 84.00 (-1.00 points); allowed drop 0.5 points: ...``, the scores
    in ``unit`` (default: percentages with two decimals); the bound is in points always.
    With ``max_p``, a score below its bound says whether the drop was significant."""
    unit = unit or Units()
    change = after - before
    verb = "dropped" if change < 0 else "rose" if change > 0 else "stayed"
    what = "points" if unit.scale == "percent" else "as a fraction"
    message = (
        f"{name} {verb} {unit.score(before)} → {unit.score(after)} "
        f"({unit.points(change)} {what}); "
        f"allowed drop {drop:g} points: at least {unit.score(allowed)}"
    )
    if p_value is not None and change:
        shown = format_p_value(p_value)  # ``< 0.001`` or ``0.067``
        message += f"; paired bootstrap p {shown if shown.startswith('<') else '= ' + shown}"
    if max_p is not None and after < allowed - _TOLERANCE:
        if p_value is None:
            message += "; no paired test (the runs scored different sentences): the bound alone"
        elif p_value >= max_p:
            message += f"; not significant (p >= {max_p:g}): passes"
        else:
            message += f"; significant (p < {max_p:g})"
    return message


def _score_check(
    label: str,
    metric: str,
    drop: float,
    old: CorpusRecord,
    new: CorpusRecord,
    p_value: float | None,
    max_p: float | None = None,
) -> BoundCheck:
    name = bound_label(metric)
    before, after = old.scores.get(metric), new.scores.get(metric)
    if before is None or after is None:
        needs_dictionary = metric in SCORES and SCORES[metric].needs_dictionary
        reason = "no OOV dictionary" if needs_dictionary else "not recorded"
        return BoundCheck(
            label, metric, "skipped", before, after, None, drop, None, f"{name}: skipped ({reason})"
        )
    allowed = before - drop / 100
    failed = after < allowed - _TOLERANCE
    if failed and max_p is not None and p_value is not None and p_value >= max_p:
        failed = False  # below the bound, but by chance
    message = score_message(name, before, after, drop, allowed, p_value, max_p=max_p)
    status = "failed" if failed else "ok"
    return BoundCheck(label, metric, status, before, after, allowed, drop, p_value, message, max_p)


def _speed_check(label: str, drop: float, old: CorpusRecord, new: CorpusRecord) -> BoundCheck:
    before, after = old.speed.chars_per_s, new.speed.chars_per_s
    allowed = before * (1 - drop / 100)
    failed = after < allowed
    change = 100 * (after - before) / before if before else 0.0
    message = (
        f"speed {before:,.0f} → {after:,.0f} characters/s ({change:+.1f}%, median of "
        f"{plural(len(new.speed.runs), 'run')}); allowed drop {drop:g}%: at least {allowed:,.0f}"
    )
    return BoundCheck(
        label, "speed", "failed" if failed else "ok", before, after, allowed, drop, None, message
    )


def _token_check(label: str, allowed: int, old: CorpusRecord, new: CorpusRecord) -> BoundCheck:
    """A tokenizer's token ids, line by line: at most ``allowed`` lines may have changed.

    ``old`` and ``new`` are the counts of lines whose ids are the same and that changed.
    """
    assert old.token_ids is not None
    assert new.token_ids is not None
    try:
        change = compare_token_ids(old.token_ids, new.token_ids, examples=1)
    except ValueError as e:
        return BoundCheck(label, "token_ids", "failed", None, None, allowed, allowed, None, str(e))
    status = "ok" if change.changed <= allowed else "failed"
    message = (
        f"token ids changed on {change.changed:,} of {plural(change.lines, 'line')}; "
        f"allowed {allowed}"
    )
    if change.examples:
        number, before, after = change.examples[0]
        shown = 12
        message += (
            f"; first at line {number}: {list(before[:shown])}"
            f"{' ...' if len(before) > shown else ''} -> {list(after[:shown])}"
            f"{' ...' if len(after) > shown else ''}"
        )
    same = float(change.lines - change.changed)  # lines whose ids stayed the same
    lines = float(change.lines)
    return BoundCheck(
        label, "token_ids", status, lines, same, lines - allowed, allowed, None, message
    )


def _p_values(
    old: CorpusRecord, new: CorpusRecord, metrics: list[str], *, seed: int, resamples: int
) -> dict[str, float]:
    """Paired bootstrap p-values of new against old, when both scored the same sentences."""
    if (
        not old.sentence_counts
        or len(old.sentence_counts) != len(new.sentence_counts)
        or old.identity.corpus_checksum != new.identity.corpus_checksum
    ):
        return {}
    from cws_bench.scoring.per_sentence import paired_tests

    tests = paired_tests(
        new.sentence_counts, old.sentence_counts, seed=seed, resamples=resamples, metrics=metrics
    )
    return {metric: tests[metric].p_value for metric in metrics if metric in tests}


_CHANGES = {
    "segmenter version": (
        "segmenter {name} version changed {old} → {new}: a difference may come from the new "
        "version",
        True,
    ),
    "cws-bench version": ("the baseline was scored by cws-bench {old}, this run by {new}", True),
    "machine": (
        "speeds were measured on a different machine or Python: they compare poorly",
        True,
    ),
    "corpus": (
        "{label}: the gold data changed (checksum {old} → {new}): the scores are not "
        "comparable; record the baseline again",
        False,
    ),
    "dictionary": (
        "{label}: the OOV dictionary changed (checksum {old} → {new}): OOV and IV recall are "
        "not comparable",
        True,
    ),
    "normalize": ("{label}: normalisation {old} → {new}", False),
}
"""What each change of the experiment says (a template), and whether the scores still compare."""
_MACHINE = ("platform", "cpus", "python")


def _change(
    label: str | None, what: str, old: Any, new: Any, **names: Any
) -> list[ExperimentChange]:
    """The change ``what`` of :data:`_CHANGES` when ``old`` and ``new`` differ (else none)."""
    if old == new:
        return []
    template, comparable = _CHANGES[what]
    message = template.format(label=label, old=old, new=new, **names)
    return [ExperimentChange(label, what, old, new, message, comparable)]


def _changes(old: Baseline, new: Baseline) -> list[ExperimentChange]:
    """What differs between the two experiments, corpus by corpus."""
    versions = [run.segmenter.version for run in (old, new)]
    changes = _change(None, "segmenter version", *versions, name=new.segmenter.name)
    changes += _change(
        None, "cws-bench version", *(r.environment.get("cws_bench") for r in (old, new))
    )
    # the platform, CPUs and Python, as one text (equal when the values are)
    machine = [", ".join(str(r.environment.get(key)) for key in _MACHINE) for r in (old, new)]
    changes += _change(None, "machine", *machine)
    first = True
    for before in old.records:
        after = new.record(before.label)
        if after is None:
            continue
        label, was, now = before.label, before.identity, after.identity
        changes += _change(label, "corpus", was.corpus_checksum, now.corpus_checksum)
        changes += _change(label, "dictionary", was.dictionary_checksum, now.dictionary_checksum)
        changes += _change(label, "normalize", before.corpus.normalize, after.corpus.normalize)
        if first:  # the segmenter's options are the same on every corpus
            first = False
            changes += _option_changes(before, after, old, new)
    return changes


def _option_changes(
    before: CorpusRecord, after: CorpusRecord, old: Baseline, new: Baseline
) -> list[ExperimentChange]:
    """The segmenter options that differ (a file an option names: by its checksum)."""
    changes: list[ExperimentChange] = []
    old_options = before.segmenter.options
    new_options = after.segmenter.options
    for key in sorted(set(old_options) | set(new_options)):
        was, now = old_options.get(key), new_options.get(key)
        if was == now:
            continue
        if str(was).startswith("file:") and str(now).startswith("file:"):
            path = new.segmenter.options.get(key, old.segmenter.options.get(key))
            name = os.path.basename(str(path)) if path else "the file"
            what = (
                f"option {key}: {name} changed since the baseline (checksum "
                f"{str(was).removeprefix('file:')} → {str(now).removeprefix('file:')})"
            )
        else:
            what = f"option {key} changed: {was!r} → {now!r}"
        changes.append(ExperimentChange(None, "option", was, now, what))
    return changes


def _fail_closed(checks: list[BoundCheck], baseline: Baseline, current: Baseline) -> None:
    """A gate that checks nothing, or a bound it cannot check, is an error, never a pass."""
    missing = [old.label for old in baseline.records if current.record(old.label) is None]
    if missing:
        raise CwsBenchError(
            f"the rerun has no result on {', '.join(missing)}: those bounds cannot be checked"
        )
    if not checks:
        raise CwsBenchError(
            "nothing to check: the baseline has no corpus or no bound",
            "record the baseline on some corpus, and check it against at least one bound "
            "(the largest F1 drop allowed, say)",
        )
    skipped = [check for check in checks if check.status == "skipped"]
    if skipped:
        listed = "; ".join(f"{check.corpus}: {check.message}" for check in skipped)
        raise CwsBenchError(
            f"{plural(len(skipped), 'bound')} cannot be checked, so the check cannot pass: "
            f"{listed}",
            "record the baseline again, or drop the bound (an OOV bound needs a baseline "
            "recorded with an OOV dictionary)",
        )


def check_baseline(
    baseline: Baseline,
    current: Baseline,
    bounds: Bounds | None = None,
    *,
    fail_on_change: bool = False,
    diff: bool = True,
) -> CheckResult:
    """Compare a rerun with its baseline.

    Args:
        current: the rerun (:func:`~cws_bench.regression.recording.rerun_baseline`).
        bounds: the bounds to apply (default: the baseline's).
        fail_on_change: fail when the experiment changed, not only when a bound is broken.
        diff: diff the baseline's segmentation against the rerun's, when kept.

    Raises:
        CwsBenchError: there is nothing to check, or a bound cannot be checked
            (a score not recorded, an OOV bound without a dictionary): the gate
            fails closed.
    """
    from cws_bench.metrics.significance import DEFAULT_RESAMPLES, DEFAULT_SEED
    from cws_bench.regression.diff import diff_segmentations

    bounds = bounds or baseline.bounds
    seed = int(baseline.settings.get("seed", DEFAULT_SEED))
    resamples = int(baseline.settings.get("resamples", DEFAULT_RESAMPLES))
    checks: list[BoundCheck] = []
    diffs: dict[str, SegmentationDiff] = {}
    for old in baseline.records:
        new = current.record(old.label)
        if new is None:
            continue
        metrics = list(bounds.drops)
        p_values = _p_values(old, new, metrics, seed=seed, resamples=resamples)
        for metric, drop in bounds.drops.items():
            checks.append(
                _score_check(old.label, metric, drop, old, new, p_values.get(metric), bounds.max_p)
            )
        if bounds.speed is not None:
            checks.append(_speed_check(old.label, bounds.speed, old, new))
        if old.token_ids is not None and new.token_ids is not None:
            checks.append(_token_check(old.label, bounds.token_lines, old, new))
        if (
            diff
            and old.segmentation is not None
            and new.segmentation is not None
            and len(old.segmentation) == len(new.segmentation)
            and old.segmentation != new.segmentation
        ):
            same_gold = old.identity.corpus_checksum == new.identity.corpus_checksum
            gold = new.gold if same_gold else None
            diffs[old.label] = diff_segmentations(
                [line.split() for line in old.segmentation],
                [line.split() for line in new.segmentation],
                gold,
                names=("baseline", "now", old.label),
                seed=seed,
                resamples=resamples,
            )
    _fail_closed(checks, baseline, current)
    return CheckResult(
        segmenter=current.segmenter.name,
        checks=tuple(checks),
        changes=tuple(_changes(baseline, current)),
        diffs=diffs,
        bounds=bounds,
        fail_on_change=fail_on_change,
        current=current,
    )

"""``cws-bench score``: score one segmentation file against its gold standard."""

from __future__ import annotations

import click

from cws_bench.cli.options import encoding_option, print_warnings
from cws_bench.scoring import METHODS, ScoreResult, score_files, write_details

FORMATS = ("text", "json", "csv", "sighan")


def _percent(value: float | None) -> str:
    return "--" if value is None else f"{100 * value:.2f}"


def render_text(result: ScoreResult, gold: str, pred: str) -> str:
    """The small aligned table of the text format."""
    s = result.scores
    c = result.counts
    rows = [
        ("gold words", f"{result.gold_words:,}"),
        ("predicted words", f"{result.pred_words:,}"),
        ("correct words", f"{result.correct_words:,}"),
        ("precision", _percent(s.precision)),
        ("recall", _percent(s.recall)),
        ("F1", _percent(s.f1)),
    ]
    if result.beta != 1.0:
        rows.append((f"F{result.beta:g}", _percent(s.fbeta)))
    rows += [
        ("OOV rate", _percent(s.oov_rate)),
        ("OOV recall", _percent(s.oov_recall)),
        ("IV recall", _percent(s.iv_recall)),
        (
            "boundary P/R/F1",
            " / ".join(map(_percent, (s.boundary_precision, s.boundary_recall, s.boundary_f1))),
        ),
    ]
    if result.sighan is not None:
        rows += [
            ("insertions", f"{result.sighan.insertions:,}"),
            ("deletions", f"{result.sighan.deletions:,}"),
            ("substitutions", f"{result.sighan.substitutions:,}"),
        ]
    width = max(len(label) for label, _ in rows)
    lines = [f"{pred} against {gold} ({result.method} counting, scores in %)"]
    lines += [f"  {label:<{width}}  {value:>10}" for label, value in rows]
    lines.append(
        f"  errors: {c.split_gold:,} gold words split into {c.split_pred:,} pieces; "
        f"{c.merge_gold:,} merged into {c.merge_pred:,} words; "
        f"{c.cross_regions:,} crossing regions ({c.cross_gold:,} gold, {c.cross_pred:,} "
        f"predicted words)"
    )
    lines.append(
        f"  sentences: {c.sentences:,} scored, {c.skipped_lines:,} empty gold lines "
        f"skipped, {c.mismatched_lines:,} with differing text"
    )
    for m in result.mismatches:
        lines.append(f"    line {m.line}: gold {m.gold.strip()[:60]!r}")
        lines.append(f"    {' ' * len(str(m.line))}       pred {m.pred.strip()[:60]!r}")
    lines.append(f"  signature: {result.signature}")
    return "\n".join(lines)


def render_csv(result: ScoreResult) -> str:
    """One header line and one row of the result's fields."""
    import csv
    import io

    out = io.StringIO()
    data = result.to_dict()
    writer = csv.DictWriter(out, fieldnames=list(data), lineterminator="\n")
    writer.writeheader()
    writer.writerow({k: "" if v is None else v for k, v in data.items()})
    return out.getvalue().rstrip("\n")


def render_json(result: ScoreResult) -> str:
    import json

    data = result.to_dict()
    data["mismatch_examples"] = [
        {"line": m.line, "gold": m.gold, "pred": m.pred} for m in result.mismatches
    ]
    data["warnings"] = list(result.warnings)
    return json.dumps(data, ensure_ascii=False, indent=2)


@click.command()
@click.argument("gold", type=click.Path(exists=True, dir_okay=False, allow_dash=False))
@click.argument("pred", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option(
    "--dict",
    "dictionary",
    metavar="DICT",
    help="Dictionary for OOV/IV figures: a file (one word a line, or jieba's 'word freq "
    "tag'), 'jieba' (jieba's bundled dictionary), or 'corpus:NAME[:SPLIT]' (a corpus' "
    "standard dictionary, or the word types of one split).",
)
@click.option(
    "--data-dir",
    type=click.Path(exists=True),
    default=None,
    help="Where a corpus named in --dict corpus:NAME keeps its data (e.g. icwb2-data).",
)
@click.option(
    "--normalize",
    default="none",
    show_default=True,
    metavar="STEPS",
    help="Normalise gold, prediction and dictionary alike before scoring: 'width' "
    "(full-width ASCII to half-width), an OpenCC conversion such as 't2s' or 's2t', "
    "or steps joined by '+' (width+t2s).",
)
@click.option(
    "--method",
    type=click.Choice([*METHODS, "conll18"]),
    default=None,
    help="interval (default): a word is correct iff its character interval is a "
    "gold word's. sighan: the official bakeoff script's word-sequence diff. "
    "conll18: the CoNLL 2018 UD shared task's Words score (GOLD in CoNLL-U).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format; 'sighan' prints the bakeoff script's summary block "
    "(and implies --method sighan).",
)
@click.option(
    "--details",
    type=click.Path(dir_okay=False, writable=True),
    help="Also write one CSV row per line (line, counts, P/R/F) to this file.",
)
@encoding_option
@click.option("--pred-encoding", default=None, help="Encoding of PRED if not that of GOLD.")
@click.option(
    "--beta",
    type=click.FloatRange(min=0.0),
    default=1.0,
    show_default=True,
    help="Also report F-beta with this beta.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Exit 2 when a line's predicted characters differ from the gold ones, "
    "instead of scoring through a character alignment.",
)
@click.option(
    "--allow-line-mismatch",
    is_flag=True,
    help="Score files with different numbers of lines (missing predictions count as empty).",
)
def score(
    gold: str,
    pred: str,
    dictionary: str | None,
    data_dir: str | None,
    normalize: str,
    method: str | None,
    fmt: str,
    details: str | None,
    encoding: str,
    pred_encoding: str | None,
    beta: float,
    strict: bool,
    allow_line_mismatch: bool,
) -> None:
    """Score a segmentation PRED (or - for stdin) against the gold segmentation GOLD.

    Both files hold one sentence a line, words separated by whitespace
    (U+3000 included). Scores are printed as percentages in the text format
    and as fractions in [0, 1] in JSON and CSV.

    \b
    Example:
        cws-bench score pku_test_gold.utf8 out.txt --dict pku_training_words.utf8
        cws-bench score gold.txt out.txt --format sighan --dict words.txt
        cws-bench score gold.txt out.txt --dict jieba --normalize width
    """
    if method == "conll18":
        from cws_bench.conll18 import score_command

        click.echo(score_command(gold, pred, fmt, encoding, pred_encoding, dictionary, normalize))
        return
    if fmt == "sighan":
        if method == "interval":
            raise click.UsageError("--format sighan needs --method sighan")
        method = "sighan"
    if dictionary:
        from cws_bench.dictionary import resolve_dictionary

        dictionary = resolve_dictionary(dictionary, data_dir=data_dir)
    result = score_files(
        gold,
        pred,
        dictionary=dictionary,
        normalize=normalize,
        encoding=encoding,
        pred_encoding=pred_encoding,
        method=method or "interval",
        beta=beta,
        strict=strict,
        allow_line_mismatch=allow_line_mismatch,
        per_line=details is not None,
    )
    print_warnings(result.warnings)
    if details is not None:
        write_details(result, details)
    if fmt == "json":
        click.echo(render_json(result))
    elif fmt == "csv":
        click.echo(render_csv(result))
    elif fmt == "sighan":
        from cws_bench.sighan import format_sighan_summary

        click.echo(format_sighan_summary(result.sighan, pred, has_dictionary=result.has_dictionary))
    else:
        click.echo(render_text(result, gold, pred))

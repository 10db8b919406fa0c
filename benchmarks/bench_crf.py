"""The ``crf`` character tagger: accuracy per corpus, training time, decoding speed.

Set-ups (official SIGHAN counting, ``method="sighan"``; each trains the
default model: averaged perceptron, B/M/E/S, word-list features from the
training words (jackknifed in 10 folds), 10 epochs, seed 17):

- pd1998 (train + test splits, all of January 1998) -> SIGHAN 2005 PKU test
  gold; target F1 >= 0.935, training <= 300 s;
- SXU train -> SXU test (../shared/corpora/mccws/sxu); target F1 >= 0.945;
- ZX, WTB, UDC: train -> test of the same corpus (reported, no target).
  ZX's ``word_POS`` tokens are read with the POS cut off.

Variants: without the word-list features (pd1998 -> PKU and SXU); on SXU,
B/I tags instead of B/M/E/S, and (with CWS_BENCH_CRFSUITE=1:
slow) python-crfsuite's L-BFGS CRF over the same
features on the first 5,000 training sentences, against the perceptron on
the same slice.

Decoding speed: the SIGHAN PKU raw test input ten times over (about 1.7
million characters) in one ``segment()`` call, best of --repeat, against the
HMM's compiled decoder in the same run; target >= 200,000 characters per
second.

Also printed: the figures behind the dictionary-sanity thresholds
(``cws_bench/text/dictionary_checks.py``): each standard set-up's OOV rate, and
the share of its gold OOV types that jieba's dictionary holds.

Times are wall seconds with the process CPU seconds beside them, and the
load average: the machine may be shared.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from common import best_of, table

from cws_bench.corpora import get_corpus, read_corpus
from cws_bench.scoring import score_sentences
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.crf import CRFModel
from cws_bench.text.io import iter_lines

COPIES = 10
SPEED_TARGET = 200_000
TRAIN_TARGET_S = 300.0
F1_TARGETS = {"pd1998 -> PKU": 0.935, "SXU": 0.945}
CRFSUITE_SLICE = 5000


def _zx(path: Path) -> list[list[str]]:
    return [[token.rsplit("_", 1)[0] for token in words] for words in read_corpus(path)]


def setups(shared: Path) -> dict[str, tuple[list, list]]:
    mccws = shared / "mccws"
    pd1998 = get_corpus("pd1998")
    out = {
        "pd1998 -> PKU": (
            list(pd1998.sentences("train")) + list(pd1998.sentences("test")),
            list(read_corpus(shared / "icwb2-data" / "gold" / "pku_test_gold.utf8")),
        ),
        "SXU": (
            list(read_corpus(mccws / "sxu" / "train.txt")),
            list(read_corpus(mccws / "sxu" / "test.txt")),
        ),
        "ZX": (
            _zx(mccws / "zx" / "train.zhuxian.wordpos"),
            _zx(mccws / "zx" / "test.zhuxian.wordpos"),
        ),
    }
    for name in ("wtb", "udc"):
        out[name.upper()] = (
            list(read_corpus(mccws / name / "train.conll")),
            list(read_corpus(mccws / name / "test.conll")),
        )
    return out


def train_and_score(label: str, train: list, test: list, **options) -> dict:
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    model = CRFModel.train(train, **options)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    pred = model.segment(["".join(words) for words in test])
    result = score_sentences(test, pred, method="sighan")
    target = F1_TARGETS.get(label) if not options else None
    row = {
        "set-up": label + (f" {options}" if options else ""),
        "train_chars": sum(len(w) for s in train for w in s),
        "train_s": round(wall, 1),
        "train_cpu_s": round(cpu, 1),
        "load": round(load, 1),
        "features": len(model.keys),
        "P": round(result.precision, 4),
        "R": round(result.recall, 4),
        "F1": round(result.f1, 4),
        "target": target if target is not None else "-",
    }
    if target is not None:
        row["target_met"] = result.f1 >= target
    return row


def run(args) -> list[dict]:
    data = setups(args.shared)
    rows = []
    for label, (train, test) in data.items():
        row = train_and_score(label, train, test)
        rows.append(row)
        print(f"   {row['set-up']}: F1 {row['F1']:.4f} ({row['train_s']} s)", file=sys.stderr)
    sxu_train, sxu_test = data["SXU"]
    rows.append(train_and_score("SXU", sxu_train, sxu_test, tags="bi"))
    for label in ("pd1998 -> PKU", "SXU"):
        rows.append(train_and_score(label, *data[label], word_features=False))
    if os.environ.get("CWS_BENCH_CRFSUITE"):
        part = sxu_train[:CRFSUITE_SLICE]
        label = f"SXU first {CRFSUITE_SLICE:,}"
        rows.append(train_and_score(label, part, sxu_test, learner="perceptron"))
        rows.append(train_and_score(label, part, sxu_test, learner="crfsuite"))

    columns = ["set-up", "train_chars", "train_s", "train_cpu_s", "load", "features"]
    columns += ["P", "R", "F1", "target"]
    print(table([{c: r[c] for c in columns} for r in rows], columns))
    pd_row = rows[0]
    print(
        f"   pd1998 training {pd_row['train_s']} s (target <= {TRAIN_TARGET_S:.0f} s: "
        f"{'met' if pd_row['train_s'] <= TRAIN_TARGET_S else 'NOT met'})"
    )
    for r in rows:
        if "target_met" in r:
            print(f"   {r['set-up']}: F1 target {r['target']}: "
                  f"{'met' if r['target_met'] else 'NOT met'}")  # fmt: skip

    # decoding speed, against the HMM's compiled decoder
    one = list(iter_lines(args.shared / "icwb2-data" / "testing" / "pku_test.utf8"))
    lines = one * COPIES
    characters = sum(len("".join(line.split())) for line in lines)
    crf = get_segmenter("crf")
    crf.model = CRFModel.train(data["pd1998 -> PKU"][0])
    crf_s, _ = best_of(lambda: crf.segment(lines), args.repeat)
    hmm = get_segmenter("hmm", corpus="pd1998")
    hmm_s, _ = best_of(lambda: hmm.segment(lines), args.repeat)
    speed = {
        "segmenter": "crf",
        "characters": characters,
        "segment_s": round(crf_s, 3),
        "chars_per_s": round(characters / crf_s),
        "hmm_chars_per_s": round(characters / hmm_s),
        "hmm_ratio": round(hmm_s / crf_s, 2),
        "target": SPEED_TARGET,
        "target_met": characters / crf_s >= SPEED_TARGET,
        "load": round(os.getloadavg()[0], 1),
    }
    print(
        f"   decoding: {speed['chars_per_s']:,} characters/s ({speed['hmm_ratio']}x the HMM's "
        f"{speed['hmm_chars_per_s']:,}); target {SPEED_TARGET:,}: "
        f"{'met' if speed['target_met'] else 'NOT met'}"
    )
    rows.append(speed)
    rows.extend(dictionary_figures(args.shared, data))
    return rows


def dictionary_figures(shared: Path, data: dict) -> list[dict]:
    """OOV rate of each standard set-up; share of its OOV types in jieba's dictionary."""
    import jieba

    raw = jieba.get_dict_file().read().decode("utf-8")
    general = {line.split()[0] for line in raw.splitlines() if line.strip()}
    gold_dir = shared / "icwb2-data" / "gold"
    pairs = []
    for code, gold in (("pku", "pku_test_gold"), ("msr", "msr_test_gold"),
                       ("cityu", "cityu_test_gold"), ("as", "as_testing_gold")):  # fmt: skip
        path = gold_dir / f"{code}_training_words.utf8"
        words = {line.strip() for line in path.open(encoding="utf-8-sig") if line.strip()}
        pairs.append((f"sighan2005-{code}", list(read_corpus(gold_dir / f"{gold}.utf8")), words))
    pd1998 = get_corpus("pd1998")
    pd_train = {w for s in pd1998.sentences("train") for w in s}
    pairs.append(("pd1998 test / train", list(pd1998.sentences("test")), pd_train))
    for label in ("SXU", "ZX", "WTB", "UDC"):
        train, test = data[label]
        pairs.append((label, test, {w for s in train for w in s}))
    rows = []
    for label, gold, training in pairs:
        tokens = [w for s in gold for w in s]
        unseen = {w for w in tokens if w not in training}
        extra = len(general - training)
        held = len(unseen & general)
        rows.append(
            {
                "standard set-up": label,
                "gold_words": len(tokens),
                "oov_rate": round(sum(w not in training for w in tokens) / len(tokens), 4),
                "oov_types": len(unseen),
                "jieba_holds_oov_types": round(held / len(unseen), 3),
                "jieba_extra_in_gold": round(held / extra, 4),
            }
        )
    columns = list(rows[0])
    print(table(rows, columns))
    return rows

"""The textbook scorer: per-sentence sets of [start, end) intervals, pure Python.

The baseline of benchmarks/bench_scoring.py: what one writes first, straight
from the definition. Usage: python textbook_score.py GOLD PRED [DICT]
Prints precision, recall, F1 (and OOV rate, OOV recall, IV recall with DICT).
"""

import sys


def spans(words):
    result = set()
    start = 0
    for word in words:
        end = start + len(word)
        result.add((start, end))
        start = end
    return result


def main():
    gold_path, pred_path = sys.argv[1], sys.argv[2]
    dictionary = None
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8-sig") as f:
            dictionary = {line.strip() for line in f}
    gold_total = pred_total = correct_total = oov_total = oov_correct = 0
    with (
        open(gold_path, encoding="utf-8-sig") as gold,
        open(pred_path, encoding="utf-8-sig") as pred,
    ):
        for gold_line, pred_line in zip(gold, pred):
            gold_words, pred_words = gold_line.split(), pred_line.split()
            if not gold_words:
                continue
            gold_spans, pred_spans = spans(gold_words), spans(pred_words)
            correct = gold_spans & pred_spans
            gold_total += len(gold_spans)
            pred_total += len(pred_spans)
            correct_total += len(correct)
            if dictionary is not None:
                start = 0
                for word in gold_words:
                    end = start + len(word)
                    if word not in dictionary:
                        oov_total += 1
                        oov_correct += (start, end) in correct
                    start = end
    precision = correct_total / pred_total
    recall = correct_total / gold_total
    print(f"precision {precision:.6f}")
    print(f"recall {recall:.6f}")
    print(f"f1 {2 * correct_total / (gold_total + pred_total):.6f}")
    if dictionary is not None:
        iv_total = gold_total - oov_total
        print(f"oov_rate {oov_total / gold_total:.6f}")
        print(f"oov_recall {oov_correct / oov_total:.6f}")
        print(f"iv_recall {(correct_total - oov_correct) / iv_total:.6f}")


if __name__ == "__main__":
    main()

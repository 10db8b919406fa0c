"""General metrics with no knowledge of segmentation or of Chinese text.

One module per family, each agreeing with the reference implementation
people already trust (the tests compare them on random inputs):

- :mod:`~cws_bench.metrics.counts`: precision, recall and F-beta from counts
  (the segmentation scorer's), re-exported by classification.
- :mod:`~cws_bench.metrics.classification`: confusion matrix, precision,
  recall, F-beta (binary, micro, macro, weighted), accuracy, the
  classification report, ROC and precision-recall curves, AUC and average
  precision (scikit-learn); P/R/F from counts, re-exported from counts.
- :mod:`~cws_bench.metrics.generation`: exact match, token precision/recall/F1,
  n-gram precision, BLEU (sacrebleu), ROUGE-N and ROUGE-L (rouge-score),
  perplexity; the tokenizer is a parameter (characters, whitespace or any
  cws-bench segmenter), the one place this package meets the rest of the suite.
- :mod:`~cws_bench.metrics.ranking`: AP/MAP, RR/MRR, hit rate, P@k, R@k,
  DCG/NDCG over TREC-style runs and judgements (trec_eval, ranx).
- :mod:`~cws_bench.metrics.impurity`: entropy, information gain, gain ratio,
  Gini impurity and gain (ID3, C4.5, CART).
- :mod:`~cws_bench.metrics.throughput`: serving throughput and latency of a
  language model from per-request times and token counts (vLLM's serving
  benchmark), and :func:`~cws_bench.metrics.throughput.rate`, the one
  amount-per-second arithmetic (the bake-off's characters per second too).
- :mod:`~cws_bench.metrics.significance`: bootstrap confidence intervals,
  paired bootstrap and approximate randomization tests over additive per-item counts.

Naming follows scikit-learn: ``*_score`` is higher-is-better, ``*_error`` and
``*_loss`` lower-is-better. Data goes in positionally, options are
keyword-only, and option names are the same in every metric
(``tests/metrics/test_common.py`` checks both). Undefined values follow
``zero_division`` as in scikit-learn. Nothing is imported here, so importing
one module does not pay for the others (or for numpy and pandas).
"""

MODULES = (
    "counts",
    "classification",
    "generation",
    "ranking",
    "impurity",
    "throughput",
    "significance",
)
"""The metric modules, for registry-wide tests and documentation."""

HELPERS = ("defaults", "undefined", "calibration")
"""The modules beside the metrics: resampling defaults, ``zero_division``, and the A/A
study of the paired tests (``calibration``, a study of ``significance`` rather than a
metric). How their results print (units, tables, formats) is :mod:`cws_bench.display`'s."""

"""General metrics with no knowledge of segmentation or of Chinese text.

Naming follows scikit-learn: ``*_score`` is higher-is-better, ``*_error`` and
``*_loss`` lower-is-better. Data goes in positionally, options are
keyword-only, and option names are the same in every metric.
"""

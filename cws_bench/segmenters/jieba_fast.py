"""jieba-fast (https://github.com/deepcs233/jieba_fast): jieba with its hot loops in C.

Same dictionary, same modes and the same API as jieba; the adapter is
:class:`~cws_bench.segmenters.jieba.JiebaSegmenter` with ``jieba_fast``'s
``Tokenizer``. Whether it segments exactly as jieba does is measured, not
assumed: docs/NEURAL.md gives the agreement on the SIGHAN 2005 test sets.
jieba's ``enable_paddle()`` (which pip-installs paddle at run time) is
never called by either adapter.
"""

from __future__ import annotations

from cws_bench.segmenters.jieba import JiebaSegmenter

__all__ = ["JiebaFastSegmenter"]


class JiebaFastSegmenter(JiebaSegmenter):
    """jieba-fast's segmentation, in default or search mode, with or without its HMM."""

    name = "jieba-fast"
    kind = "pretrained"
    description = "jieba-fast (jieba's C port)"
    requires = ("jieba_fast",)
    distribution = "jieba_fast"
    install = "pip install jieba-fast"
    library = "jieba_fast"

"""jieba-fast (https://github.com/deepcs233/jieba_fast): jieba with its hot loops in C.

Same dictionary, same modes and the same API as jieba; the adapter is
:class:`~cws_bench.segmenters.jieba.JiebaSegmenter` with ``jieba_fast``'s
``Tokenizer``. Whether it segments exactly as jieba does is measured, not
assumed: docs/NEURAL.md gives the agreement on the SIGHAN 2005 test sets.
jieba's ``enable_paddle()`` (which pip-installs paddle at run time) is
never called by either adapter.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from cws_bench.errors import CwsBenchError, SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData
from cws_bench.segmenters.jieba import MODES, JiebaSegmenter, Mode, check_dictionary_file

__all__ = ["JiebaFastSegmenter"]


class JiebaFastSegmenter(JiebaSegmenter):
    """jieba-fast's segmentation, in default or search mode, with or without its HMM.

    Args: as :class:`~cws_bench.segmenters.jieba.JiebaSegmenter`.
    """

    name = "jieba-fast"
    kind = "pretrained"
    description = "jieba-fast (jieba's C port)"
    requires = ("jieba_fast",)
    distribution = "jieba_fast"
    install = "pip install jieba-fast"

    def __init__(
        self,
        *,
        mode: Mode = "default",
        hmm: bool = True,
        user_dict: str | os.PathLike[str] | None = None,
        dictionary: str | os.PathLike[str] | None = None,
    ) -> None:
        Segmenter.__init__(self, mode=mode, hmm=hmm, user_dict=user_dict, dictionary=dictionary)
        if mode not in MODES:
            raise SegmenterError(
                self.name, f"unknown mode {mode!r}", f"use one of: {', '.join(MODES)}"
            )
        self.mode = mode
        self.hmm = bool(hmm)
        import jieba_fast

        logger = logging.getLogger("jieba_fast")
        level = logger.level
        logger.setLevel(logging.WARNING)
        try:
            tokenizer: Any = (
                jieba_fast.Tokenizer()
                if dictionary is None
                else jieba_fast.Tokenizer(
                    check_dictionary_file(self.name, dictionary, "dictionary")
                )
            )
            try:
                tokenizer.initialize()
                if user_dict is not None:
                    tokenizer.load_userdict(
                        check_dictionary_file(self.name, user_dict, "user dictionary")
                    )
            except (ValueError, UnicodeDecodeError) as e:
                raise CwsBenchError(f"jieba-fast could not read a dictionary: {e}") from e
        finally:
            logger.setLevel(level)
        self.tokenizer = tokenizer
        self.trained_on = TrainingData(
            "jieba-fast's bundled dictionary"
            if dictionary is None
            else os.path.basename(dictionary)
        )

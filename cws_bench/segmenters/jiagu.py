"""jiagu (https://github.com/ownthink/Jiagu): a dictionary route and a perceptron model.

The pip package ships its segmentation model (``segment/model/cws.model``,
a 1.2 MB averaged perceptron tagging B/M/E/S) and its dictionary, so it
runs here as it runs for users. Three modes:

- ``default``: ``jiagu.seg``, the most probable route through jiagu's
  dictionary (runs of Latin letters and digits kept whole);
- ``probe``: ``jiagu.cws(text, mode="probe")``, the route after adding the
  perceptron's new words of two to four characters to the dictionary;
- ``model``: the perceptron alone (``Segment.model_cut``), on each
  whitespace-separated piece of the line.

Each adapter owns its ``Segment``, so a user dictionary never leaks into
jiagu's module-level segmenter.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import Any, Literal

from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.loaded import shared_model
from cws_bench.segmenters.neural import pieces

__all__ = ["JiaguSegmenter"]

JiaguMode = Literal["default", "probe", "model"]
JIAGU_MODES: tuple[str, ...] = ("default", "probe", "model")


def _initialized_segment() -> Any:
    """A ``jiagu.segment.nroute.Segment`` as its ``init()`` makes it (jiagu's dictionary, its
    user dictionary and its perceptron), read once per process for the same files
    (:func:`~cws_bench.segmenters.loaded.shared_model`): each gets its own copy of the
    word table, since a user dictionary adds to it; the perceptron is only read."""
    import jiagu.segment.nroute as nroute

    def load() -> Any:
        segment = nroute.Segment()
        segment.init()
        return segment

    # what init() reads: its arguments' defaults, relative to jiagu/segment/
    defaults = inspect.signature(nroute.Segment.init).parameters.values()
    folder = os.path.dirname(nroute.__file__)
    files = [os.path.join(folder, *p.default.split("/")) for p in defaults if p.default != p.empty]
    read = shared_model("jiagu.Segment", files, load)
    segment = nroute.Segment()
    for name, value in vars(read).items():
        setattr(segment, name, dict(value) if name == "vocab" else value)
    return segment


class JiaguSegmenter(Segmenter):
    """jiagu's segmentation in one of its modes (see the module docstring)."""

    name = "jiagu"
    kind = "pretrained"
    independent_lines = True  # each line is segmented on its own
    description = "jiagu (dictionary route; probe/model modes use its perceptron)"
    requires = ("jiagu",)
    distribution = "jiagu"
    install = "pip install jiagu"

    @dataclass(frozen=True)
    class Options:
        mode: str = option("default", "default, probe or model", choices=JIAGU_MODES)
        user_dict: str | None = option(
            None, "word<TAB>freq or word a line (default, probe)", file="user dictionary"
        )

    opts: Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.mode = self.opts.mode
        self.segment_model = _initialized_segment()
        if self.opts.user_dict is not None:
            # Not load_userdict(path): it would also add each character of the path as a word.
            self.segment_model.load_vocab(self.opts.user_dict)
        self.trained_on = TrainingData("jiagu's bundled dictionary and perceptron model")

    def _segment(self, lines: list[str]) -> list[list[str]]:
        model = self.segment_model
        if self.mode == "model":
            return [[w for token in line.split() for w in model.model_cut(token)] for line in lines]
        return [pieces(model.seg(line, mode=self.mode)) for line in lines]

"""HanLP 2 (https://github.com/hankcs/HanLP): a tokenizer component loaded with ``hanlp.load``.

``model`` is a saved component's folder (its ``config.json`` names the
class) or one of HanLP's identifiers (``COARSE_ELECTRA_SMALL_ZH``,
``FINE_ELECTRA_SMALL_ZH``, ``CTB9_TOK_ELECTRA_BASE``... or their URLs), which
HanLP resolves in its own cache ($HANLP_HOME, default ~/.hanlp) and downloads
only when missing there and ``download = true`` (every wait bounded by
``$CWS_BENCH_HUB_TIMEOUT`` seconds, 10 by default). A tokenizer returns one list of
words per line; a multi-task model a ``Document`` whose ``tok/fine`` (or
``tok/coarse``, ``task``) entry is that list (:func:`words_of`).

A line longer than the model's ``max_seq_len`` is cut into overlapping windows as
the ``transformers`` adapter cuts them: HanLP itself would drop the characters past
the limit. docs/NEURAL.md ("HanLP and stanza") says it in full.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cws_bench.display.units import plural
from cws_bench.errors import SegmenterError
from cws_bench.segmenters.base import Segmenter, TrainingData, option
from cws_bench.segmenters.neural import (
    bounded_network,
    by_window,
    cut_at,
    device_option,
    folder_checksum,
    hub_timeout,
    max_length_option,
    overlap_option,
    pieces,
    resolve_device,
    window_sizes,
    word_starts,
)

__all__ = ["HanlpSegmenter", "words_of"]


def words_of(output: Any, lines: int, task: str | None = None) -> list[list[str]]:
    """One list of words per line from what a HanLP component returns for a batch.

    >>> words_of([["商品", "和", "服务"], ["他说 ", "了"]], 2)
    [['商品', '和', '服务'], ['他说', '了']]
    >>> words_of({"tok/fine": [["商品", "和服", "务"]], "pos/ctb": [["NN", "NN", "NN"]]}, 1)
    [['商品', '和服', '务']]
    >>> words_of({"tok/coarse": [["商品和服务"]]}, 1, task="tok/coarse")
    [['商品和服务']]
    """
    if isinstance(output, dict):
        keys = [task] if task else [k for k in ("tok/fine", "tok/coarse", "tok") if k in output]
        keys = keys or sorted(k for k in output if str(k).startswith("tok"))
        if not keys or keys[0] not in output:
            raise TypeError(
                f"HanLP returned the tasks {sorted(output)}: no tokenization "
                f"{'named ' + repr(task) if task else '(tok/...)'} among them"
            )
        output = output[keys[0]]
    if not isinstance(output, list) or len(output) != lines:
        raise TypeError(
            f"HanLP returned {type(output).__name__} for a batch of {plural(lines, 'line')}"
        )
    if lines and not all(isinstance(words, list) for words in output):
        raise TypeError("HanLP returned something else than one list of words per line")
    return [pieces(words) for words in output]


_OFFLINE = (
    "download and unzip it on a machine with network, then pass the folder "
    "(model = '/path/to/folder'); $CWS_BENCH_HUB_TIMEOUT sets the wait"
)


def _network_error(error: BaseException) -> bool:
    """Whether an error of a load is a network wait that ended (or a connection refused)."""
    import urllib.error

    kinds: tuple[type[BaseException], ...] = (TimeoutError, ConnectionError, urllib.error.URLError)
    with contextlib.suppress(ImportError):
        import requests

        kinds = (*kinds, requests.RequestException)
    return isinstance(error, kinds)


class HanlpSegmenter(Segmenter):
    """A HanLP 2 tokenizer (or the tokenization of a multi-task model)."""

    name = "hanlp"
    kind = "pretrained"
    description = "HanLP 2 tokenizer (hanlp.load)"
    requires = ("hanlp", "torch")
    distribution = "hanlp"
    install = "pip install 'cws-bench[hanlp]'"
    neural = True

    @dataclass(frozen=True)
    class Options:
        model: str = option("COARSE_ELECTRA_SMALL_ZH", "a component folder, or a HanLP name or URL")
        task: str | None = option(None, "a multi-task model's entry (default tok/fine, tok/coarse)")
        device: str = device_option()
        batch_size: int = option(32, "lines (windows) per call", bounds="batch_size")
        download: bool = option(
            False, "let HanLP download a model missing from its cache", identity="changed"
        )
        max_length: int | None = max_length_option()
        overlap: int | None = overlap_option()

    opts: Options

    @classmethod
    def model_problem(cls, options: Mapping[str, Any]) -> tuple[str, str] | None:
        """A model folder that is not there, or a named model not in HanLP's cache
        ($HANLP_HOME, default ~/.hanlp) unless ``download`` lets HanLP fetch it."""
        opts = cls.parsed(options)
        if os.path.isdir(opts.model) or opts.download:
            return None
        if opts.model.startswith((".", "/", "~")):
            return (f"model folder {opts.model}: no such folder", "fix the path")
        import hanlp
        from hanlp.utils.io_util import path_from_url

        cached = path_from_url(getattr(hanlp.pretrained.tok, opts.model, opts.model))
        if os.path.exists(cached) or os.path.exists(cached.removesuffix(".zip")):
            return None
        return (
            f"model {opts.model!r} is not in HanLP's cache ({cached.removesuffix('.zip')})",
            "set download = true to let HanLP fetch it, or pass the folder of a saved "
            "HanLP component (model = '/path/to/folder')",
        )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        import hanlp

        where, self.batch_size, self.task = self.opts.model, self.opts.batch_size, self.opts.task
        local = os.path.isdir(where)
        self.device, self.gpu = resolve_device(self.name, self.opts.device)
        identifier = where if local else getattr(hanlp.pretrained.tok, where, where)
        if not local and self.opts.download:
            self._check_reachable(str(identifier))
        devices = -1 if self.device == "cpu" else int(self.device.partition(":")[2] or 0)
        timeout = hub_timeout()
        try:
            # Every wait of the load (HanLP's downloads, the hub's files of its encoder)
            # is bounded, not only the first request.
            with bounded_network(timeout):
                self.component = hanlp.load(identifier, devices=devices)
        except Exception as e:
            if _network_error(e):
                raise SegmenterError(
                    self.name,
                    f"cannot load model {where!r}: the network did not answer within "
                    f"{timeout:g} s ({type(e).__name__})",
                    _OFFLINE,
                ) from None
            if not isinstance(e, (OSError, ValueError)):
                raise
            raise SegmenterError(
                self.name,
                f"cannot load model {where!r}: {type(e).__name__}: "
                f"{(str(e).splitlines() or [''])[0]}",
                "pass the folder of a saved HanLP component (model = '/path/to/folder', "
                "the one holding its config.json)",
            ) from e
        self.max_length, self.overlap = window_sizes(self.name, self.opts, self._limit())
        self.identity = {
            "model": os.path.abspath(where) if local else str(identifier),
            "checksum": folder_checksum(where) if local else None,
            "device": self.device,
            "gpu": self.gpu,
        }
        self.trained_on = TrainingData(f"the training data of {where}")

    def _check_reachable(self, url: str) -> None:
        """Fail in one line, within the hub wait, when HanLP's server does not answer."""
        import requests

        timeout = hub_timeout()
        try:
            requests.head(url.split("#")[0], timeout=timeout, allow_redirects=True)
        except requests.RequestException as e:
            raise SegmenterError(
                self.name,
                f"model {url} is not in HanLP's cache and its server did not answer within "
                f"{timeout:g} s ({type(e).__name__})",
                _OFFLINE,
            ) from None

    def _limit(self) -> int:
        """Characters the model takes in one piece: max_seq_len, within its encoder's positions."""
        config = getattr(self.component, "config", None) or {}
        seq = config.get("max_seq_len") if hasattr(config, "get") else None
        encoder = getattr(getattr(self.component, "model", None), "encoder", None)
        transformer = getattr(encoder, "transformer", None)
        positions = getattr(getattr(transformer, "config", None), "max_position_embeddings", None)
        known = [n - 2 for n in (seq, positions) if isinstance(n, int) and n > 2]
        return min(known) if known else 510

    def _starts(self, texts: list[str]) -> list[set[int]]:
        found = words_of(self.component(texts), len(texts), self.task)
        return [set(word_starts(text, words)) for text, words in zip(texts, found)]

    def _segment(self, lines: list[str]) -> list[list[str]]:
        sizes = self.max_length, self.overlap, self.batch_size
        owned = by_window(lines, *sizes, self._starts, longest_first=False)
        return [
            cut_at(line, [p for p, (starts, at) in enumerate(chars) if at in starts])
            for line, chars in zip(lines, owned)
        ]

"""Models read once per process: adapters built on the same model files share what was read.

Reading a model is most of what building some adapters costs (pkuseg's
features and weights 2.8 s, jieba's dictionary 0.8 s), and a process often
builds several adapters on one model: jieba's three modes and a user
dictionary, pkuseg with and without one, each segmenter of a bake-off worker
that runs several pairs. :func:`shared_model` keeps what one of them read for
the others, under the kind of model and the checksums of the files it was read
from: by content, never by path, so a file edited or replaced in between is
read again. What it keeps must be read-only to the adapters that share it (an
adapter that changes its model, as jieba's user dictionary does, takes a copy).
It holds the last :data:`KEEP` models of each kind, so a long process that
moves on to other models does not keep every one it ever read.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from cws_bench.text.checksums import file_checksum

__all__ = ["KEEP", "forget_models", "shared_model"]

T = TypeVar("T")

KEEP = 2
"""How many models of one kind a process keeps (the most recently asked for)."""

_MODELS: dict[str, OrderedDict[tuple[str, ...], Any]] = {}
_LOCK = threading.Lock()


def shared_model(kind: str, files: Sequence[str | os.PathLike[str]], load: Callable[[], T]) -> T:
    """What ``load()`` reads from ``files``, read once per process for the same content.

    ``kind`` names the model's format and its reader (two readers of one file
    give different objects); ``files`` are all the files ``load`` reads. An
    exception of ``load`` is raised and nothing is kept; nor is a model whose
    files changed while it was read.

    >>> import tempfile
    >>> calls = []
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "model.txt")
    ...     _ = open(path, "w").write("one")
    ...     read = lambda: calls.append(path) or open(path).read()
    ...     first = shared_model("doctest", [path], read)
    ...     again = shared_model("doctest", [path], read)
    ...     _ = open(path, "w").write("two")
    ...     edited = shared_model("doctest", [path], read)
    >>> first, again, edited, len(calls)
    ('one', 'one', 'two', 2)
    """
    key = tuple(file_checksum(path) for path in files)
    with _LOCK:
        models = _MODELS.setdefault(kind, OrderedDict())
        if key in models:
            models.move_to_end(key)
            return models[key]  # type: ignore[no-any-return]
    model = load()
    if tuple(file_checksum(path) for path in files) != key:
        return model  # a file changed while it was read: used once, kept for no one
    with _LOCK:
        models[key] = model
        models.move_to_end(key)
        while len(models) > KEEP:
            models.popitem(last=False)
    return model


def forget_models() -> None:
    """Let go of every model kept (the next adapter reads its model again)."""
    with _LOCK:
        _MODELS.clear()

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

A model that is plain data can also be kept between processes (a bake-off's
workers, the next command): given a :class:`Stored` (its format and how it is
written and read back), the model is written once to the ``models`` folder of
the cache folder (:func:`~cws_bench.corpora.download.cache_dir`) under a name
made of the format and the checksums of its files, and the next process reads
that file instead of the model's own files (jieba's word table, snownlp's compiled
search). A stored file that cannot be read back
(cut short, another format) is read anew from the model's files and replaced;
a cache folder that cannot be written only costs the next process the full read.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from cws_bench.errors import CwsBenchError
from cws_bench.text.checksums import file_checksum, short_hash
from cws_bench.text.io import atomic_write

__all__ = ["KEEP", "Stored", "forget_models", "models_folder", "shared_model", "stored_path"]

T = TypeVar("T")

KEEP = 2
"""How many models of one kind a process keeps (the most recently asked for)."""

_MODELS: dict[str, OrderedDict[tuple[str, ...], Any]] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Stored:
    """How a model of plain data is kept on disk between processes (see the module).

    Args:
        version: what the stored bytes depend on besides the model's files: the
            library that built the model and its version, the Python whose
            ``marshal`` wrote them, the layout. Another version is another file.
        dump: the model to bytes.
        load: bytes to the model; raises ValueError (or EOFError, TypeError) for
            bytes it cannot take, which are then read anew from the model's files.
    """

    version: str
    dump: Callable[[Any], bytes]
    load: Callable[[bytes], Any]


def models_folder() -> Path:
    """The cache folder's ``models`` folder: stored models, and the CRF models trained on a
    corpus (cws_bench/segmenters/crf.py)."""
    from cws_bench.corpora.download import cache_dir

    return cache_dir() / "models"


def stored_path(kind: str, version: str, checksums: Sequence[str]) -> Path:
    """Where the model of ``kind`` stored as ``version`` from files of ``checksums`` is kept."""
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in kind)
    return models_folder() / f"{name}-{short_hash(repr((version, *checksums)))}.bin"


def _read_stored(path: Path, stored: Stored) -> Any | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return stored.load(data)
    except (ValueError, EOFError, TypeError):
        return None


def _write_stored(path: Path, stored: Stored, model: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path, encoding=None) as f:
            f.write(stored.dump(model))
    except (OSError, CwsBenchError):
        pass  # an optimisation only: the next process reads the model's files


def shared_model(
    kind: str,
    files: Sequence[str | os.PathLike[str]],
    load: Callable[[], T],
    *,
    stored: Stored | None = None,
) -> T:
    """What ``load()`` reads from ``files``, read once per process for the same content.

    ``kind`` names the model's format and its reader (two readers of one file
    give different objects); ``files`` are all the files ``load`` reads. An
    exception of ``load`` is raised and nothing is kept; nor is a model whose
    files changed while it was read. With ``stored``, the model is also kept on
    disk for the next processes (see the module).

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
    kept = None if stored is None else (stored_path(kind, stored.version, key), stored)
    model: Any = None if kept is None else _read_stored(*kept)
    if model is None:
        model = load()
        if tuple(file_checksum(path) for path in files) != key:
            # a file changed while it was read: used once, kept for no one
            return model  # type: ignore[no-any-return]
        if kept is not None:
            _write_stored(*kept, model)
    with _LOCK:
        models[key] = model
        models.move_to_end(key)
        while len(models) > KEEP:
            models.popitem(last=False)
    return model  # type: ignore[no-any-return]


def forget_models(kind: str | None = None) -> None:
    """Let go of every model kept in this process, or of those of one ``kind`` (the next
    adapter reads its model again, from the stored file where there is one)."""
    with _LOCK:
        if kind is None:
            _MODELS.clear()
        else:
            _MODELS.pop(kind, None)

"""What an experiment is, by content: option files, training data, libraries, corpora.

A cached result may be reused only when nothing that can change its numbers
changed, and a baseline's signature must name what it ran on. Both ask the
same question of every option a segmenter gets, and both ask it here:

- :func:`option_identity`: an option value as content. A file (a user
  dictionary, a model, the output a ``file`` segmenter reads, a dictionary)
  is its :func:`~cws_bench.text.checksums.file_checksum`; a folder (a model
  folder) the checksum of its files; a ``command`` is its arguments with each
  file among them (its script: :func:`command_files`) replaced by its checksum.
- :func:`training_identity`: the content of the training data that ``corpus=``
  (with ``split=`` and ``data_dir=``) or ``lexicon="corpus:..."`` name:
  the sentence checksum of the split, the corpus' dictionary checksum.
- :func:`library_versions`: the installed version of every distribution an
  adapter imports, and of what they require.

Within one run each file, corpus split and library is read once: a run holds
one :class:`Memo` and passes it to these functions (the bake-off's plan, a
baseline's runner). A new run makes a new memo, so an edit between two runs in
one process is always seen; without a memo nothing is kept.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

from cws_bench import __version__
from cws_bench.system.installed import distributions_of
from cws_bench.text.checksums import file_checksum, path_checksum
from cws_bench.text.io import PathLike

__all__ = [
    "BY_NAME_OPTIONS",
    "PATH_OPTIONS",
    "Memo",
    "command_argv",
    "command_files",
    "environment",
    "library_versions",
    "option_identity",
    "options_identity",
    "training_identity",
]

PATH_OPTIONS = frozenset(
    {"user_dict", "lexicon", "dictionary", "model", "path", "cwd", "gold", "raw"}
)
"""Option names whose value is a path when it names an existing file or folder.

Other options (``corpus=train.txt``) count as paths when they look like one: a
``corpus`` that is a registered name is never taken for a folder of that name."""

BY_NAME_OPTIONS = frozenset({"data_dir", "cwd"})
"""Folders named by their name only: what is read from them is identified on its own
(the corpora in ``data_dir`` by their checksums, the files a command runs in ``cwd``)."""

MODEL_CACHE_OPTIONS = frozenset({"cache"})
"""Options naming where a trained model is kept (``crf``'s ``cache``): the model read
back is the one training gives again, so its folder, whose content the run itself
changes, is no part of the identity; only whether a folder is used."""


def is_path(key: str, value: Any) -> bool:
    """Whether an option value names an existing file or folder.

    A value counts when the option is one of :data:`PATH_OPTIONS`, or when
    it looks like a path (a folder separator or a file extension), so that
    ``mode=default`` is never taken for a file called ``default``; specs
    such as ``corpus:pd1998`` or ``jieba`` are not paths.
    """
    if not isinstance(value, str) or not value or value.startswith("corpus:"):
        return False
    looks_like_path = "/" in value or os.sep in value or "." in os.path.basename(value)
    return (key in PATH_OPTIONS or looks_like_path) and os.path.exists(value)


class Memo:
    """What one run has read, by content: each file, corpus split and library once.

    Make one when a run starts and pass it to :func:`option_identity`,
    :func:`options_identity`, :func:`training_identity` and
    :func:`library_versions`; a file is known by its path, size, time and inode,
    so a file edited during the run is read again.
    """

    def __init__(self) -> None:
        self._files: dict[tuple[str, int, int, int], str] = {}
        # training_identity's checksums of a registered corpus, and library_versions
        self.corpus_content = functools.cache(_corpus_content)
        self.library_versions = functools.cache(_library_versions)

    def file_checksum(self, path: str) -> str:
        """The file's :func:`~cws_bench.text.checksums.file_checksum`, read once."""
        name = os.path.abspath(path)
        stat = os.stat(name)
        key = (name, stat.st_size, stat.st_mtime_ns, stat.st_ino)
        if key not in self._files:
            self._files[key] = file_checksum(name)
        return self._files[key]


def content_checksum(path: PathLike, memo: Memo | None = None) -> str:
    """``file:<checksum>`` of a file, ``dir:<checksum>`` of a folder's files.

    Each file is hashed once in a run (``memo``).
    """
    hashed = (memo or Memo()).file_checksum
    name = os.fspath(path)
    if os.path.isdir(name):
        return f"dir:{path_checksum(name, file_hash=hashed)}"
    return f"file:{hashed(name)}"


def command_argv(value: Any) -> list[str] | None:
    """The arguments of a ``command`` option (a string split like a shell would, or a list)."""
    if isinstance(value, list) and all(isinstance(arg, str) for arg in value):
        return list(value)
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError:
            return None
    return None


def command_files(argv: list[str], cwd: PathLike | None = None) -> list[int]:
    """Indices of the arguments of a command that are files of the experiment (its script).

    A file named by a relative path (``seg.py``, ``./seg.sh``, looked up in ``cwd``
    when given) or any file after the program (``/opt/seg/model.bin``) counts; the
    program given by an absolute path or found on the PATH (the Python interpreter)
    does not.
    """

    def where(arg: str) -> str:
        return os.path.join(os.fspath(cwd), arg) if cwd is not None else arg

    return [
        index
        for index, arg in enumerate(argv)
        if arg
        and os.path.isfile(where(arg))
        and not (index == 0 and os.path.isabs(arg))
        and not (index == 0 and os.sep not in arg and "/" not in arg)
    ]


def option_identity(
    key: str, value: Any, *, cwd: PathLike | None = None, memo: Memo | None = None
) -> Any:
    """An option value as an experiment's identity sees it: files by their content.

    >>> option_identity("mode", "default"), option_identity("corpus", "corpus:pd1998")
    ('default', 'corpus:pd1998')

    Args:
        key: the option's name.
        value: its value.
        cwd: the folder a ``command`` runs in (its relative file names are read there).
        memo: the run's :class:`Memo` (each file is hashed once in it).
    """
    if key == "command":
        argv = command_argv(value)
        files = set(command_files(argv, cwd)) if argv is not None else set()
        if not files or argv is None:
            return value
        return [
            content_checksum(os.path.join(os.fspath(cwd), arg) if cwd is not None else arg, memo)
            if index in files
            else arg
            for index, arg in enumerate(argv)
        ]
    if isinstance(value, list):
        return [option_identity(key, item, cwd=cwd, memo=memo) for item in value]
    if key in MODEL_CACHE_OPTIONS and isinstance(value, str):
        return "folder"
    if is_path(key, value):
        if key in BY_NAME_OPTIONS and os.path.isdir(value):
            return f"dir:{os.path.basename(os.path.normpath(value))}"
        return content_checksum(value, memo)
    return value


def options_identity(options: Mapping[str, Any], memo: Memo | None = None) -> dict[str, Any]:
    """Every option through :func:`option_identity` (each file hashed once in ``memo``)."""
    cwd = options.get("cwd")
    memo = memo or Memo()
    return {key: option_identity(key, value, cwd=cwd, memo=memo) for key, value in options.items()}


def _corpus_content(name: str, split: str | None, data_dir: str | None) -> dict[str, Any]:
    from cws_bench.corpora import get_corpus
    from cws_bench.errors import CwsBenchError

    content: dict[str, Any] = {"corpus": name}
    try:
        corpus = get_corpus(name, data_dir=data_dir)
    except CwsBenchError:
        return content  # not a registered corpus: a file, identified by option_identity
    for key, read in (
        ("split", lambda: corpus.checksum(split or "train")),
        ("dictionary", lambda: corpus.dictionary().checksum),
    ):
        try:
            content[key] = read()
        except CwsBenchError:
            content[key] = None  # not readable here: the pair fails when it runs
    return content


def training_identity(
    options: Mapping[str, Any], data_dir: PathLike | None = None, memo: Memo | None = None
) -> dict[str, Any] | None:
    """The content of the registered corpus a segmenter learns from, or None.

    ``corpus=NAME`` (with ``split=``, default ``train``) or
    ``lexicon="corpus:NAME[:SPLIT]"``: the sentence checksum of the split
    and the checksum of the corpus' dictionary, read from the option's
    ``data_dir`` or else the run's; read once in a run (``memo``).
    """
    from cws_bench.corpora import corpus_names
    from cws_bench.corpora.words import parse_word_spec

    where = options.get("data_dir") or data_dir
    where = None if where is None else os.fspath(where)
    name, split = options.get("corpus"), options.get("split")
    lexicon = options.get("lexicon")
    if isinstance(lexicon, str) and lexicon.startswith("corpus:"):
        spec = parse_word_spec(lexicon)
        name, split = spec.name, spec.split or split
    if not isinstance(name, str) or name not in corpus_names():
        return None
    return (memo or Memo()).corpus_content(name, split, where)


# "name (>=1.0) ; extra == 'x'" -> "name"; requirements of extras are not installed by default.
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _closure(distributions: list[str]) -> dict[str, str]:
    versions: dict[str, str] = {}
    pending = list(distributions)
    while pending:
        name = pending.pop()
        key = name.lower().replace("_", "-")
        if key in versions:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        versions[key] = dist.version
        for requirement in dist.requires or ():
            if "extra" in requirement.partition(";")[2]:
                continue
            match = _REQUIREMENT.match(requirement)
            if match:
                pending.append(match.group(1))
    return dict(sorted(versions.items()))


def library_versions(segmenter: str, memo: Memo | None = None) -> dict[str, str]:
    """Installed versions of the distributions a registered segmenter imports, with what
    they require (``{"jieba": "0.42.1"}``; cws-bench itself is keyed apart); looked up
    once in a run (``memo``).
    """
    return (memo or Memo()).library_versions(segmenter)


def _library_versions(segmenter: str) -> dict[str, str]:
    from cws_bench.segmenters.registry import segmenter_class

    cls = segmenter_class(segmenter)
    names = [dist for module in cls.requires for dist in distributions_of(module) or [module]]
    if cls.distribution:
        names.append(cls.distribution)
    return _closure(names)


def environment() -> dict[str, Any]:
    """The versions and the machine a result was computed with."""
    import platform

    return {
        "cws_bench": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }

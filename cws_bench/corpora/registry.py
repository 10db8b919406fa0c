"""The named corpora: one name -> ``"module:factory"`` table, imported lazily.

The ``cws-bench corpora`` commands, :func:`get_corpus` and the registry-wide
tests all read :data:`CORPORA`, so a corpus added here is listed, loadable
and tested everywhere. Third-party packages add corpora through the entry
point group ``cws_bench.corpora`` (``name = "package.module:factory"``).
"""

from __future__ import annotations

import importlib
from typing import Any

from cws_bench.corpora.base import Corpus
from cws_bench.errors import CwsBenchError
from cws_bench.system.installed import entry_points
from cws_bench.text.io import PathLike

__all__ = ["CORPORA", "ENTRY_POINT_GROUP", "corpus_names", "get_corpus", "parse_corpus_spec"]

ENTRY_POINT_GROUP = "cws_bench.corpora"

# name -> "module:factory"; a factory takes (data_dir=None, **options) and returns a Corpus.
CORPORA: dict[str, str] = {
    "sample": "cws_bench.corpora.sample:SampleCorpus",
    "pd1998": "cws_bench.corpora.peoples_daily:PeoplesDaily1998",
    "sighan2005-pku": "cws_bench.corpora.sighan:pku",
    "sighan2005-msr": "cws_bench.corpora.sighan:msr",
    "sighan2005-cityu": "cws_bench.corpora.sighan:cityu",
    "sighan2005-as": "cws_bench.corpora.sighan:as_",
    "ud-zh-gsdsimp": "cws_bench.corpora.ud:gsdsimp",
    "ud-zh-gsd": "cws_bench.corpora.ud:gsd",
    "ud-zh-cfl": "cws_bench.corpora.ud:cfl",
    "ud-zh-hk": "cws_bench.corpora.ud:hk",
    "ud-zh-pud": "cws_bench.corpora.ud:pud",
    "sxu": "cws_bench.corpora.mccws:sxu",
    "zx": "cws_bench.corpora.mccws:zx",
    "wtb": "cws_bench.corpora.mccws:wtb",
    "udc": "cws_bench.corpora.mccws:udc",
    "ctb6": "cws_bench.corpora.ctb:CTB6",
}


def parse_corpus_spec(spec: str) -> tuple[str, str | None]:
    """A ``NAME[:SPLIT]`` corpus spec as (name, split or None): the one reading of it.

    The name is what comes before the first colon; the rest, if any, is the split
    (``train``, ``test``, or ``train+dev`` where a caller takes several). Whether
    the name is registered and the split exists is the caller's check.

    >>> parse_corpus_spec("pd1998:train"), parse_corpus_spec("pku"), parse_corpus_spec("pku:")
    (('pd1998', 'train'), ('pku', None), ('pku', None))
    """
    name, _, split = spec.partition(":")
    return name, split or None


def _table() -> dict[str, str]:
    """The built-in corpora plus those registered through entry points."""
    table = dict(CORPORA)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        table.setdefault(entry.name, entry.value)
    return table


def corpus_names() -> list[str]:
    """The names of all known corpora, built-in first, in registry order."""
    return list(_table())


def get_corpus(name: str, *, data_dir: PathLike | None = None, **options: Any) -> Corpus:
    """The named corpus.

    >>> get_corpus("sample").splits
    ('test',)

    Args:
        name: a registry name (see :func:`corpus_names`).
        data_dir: where the corpus' files are, for corpora whose data no Python
            package installs (``external_data``: a folder, or for SIGHAN 2005 also
            the released zip); ignored by the others (``sample``, ``pd1998``). Each
            external corpus also reads its environment variable, then
            ``CWS_BENCH_DATA`` (see :func:`~cws_bench.corpora.base.environment_data_dir`).
        **options: corpus options, e.g. ``compounds="join"`` for ``pd1998``,
            ``download=True`` for the SIGHAN corpora.

    Raises:
        CwsBenchError: unknown name or option.
    """
    table = _table()
    target = table.get(name)
    if target is None:
        from cws_bench.suggest import did_you_mean

        hint = did_you_mean(name, table)
        raise CwsBenchError(f"unknown corpus {name!r}; known corpora: {', '.join(table)}", hint)
    module, _, attribute = target.partition(":")
    factory = getattr(importlib.import_module(module), attribute)
    try:
        corpus: Corpus = factory(**options)
        # data_dir locates external data only: a shipped corpus (sample) or one a package
        # installs (pd1998) keeps its own data whatever folder a run names
        if data_dir is not None and corpus.external_data:
            corpus = factory(data_dir=data_dir, **options)
        return corpus
    except TypeError as e:
        raise CwsBenchError(f"corpus {name}: {e}") from e

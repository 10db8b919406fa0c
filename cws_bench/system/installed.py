"""What is installed: entry points, the distributions a module comes from, versions.

``importlib.metadata`` reads every installed distribution again each time it is
asked: with a few hundred (the neural extras), 5 ms for one entry-point group and
0.15 to 0.3 s for ``packages_distributions()``. The registries ask at every name
lookup and every run asks which distributions its adapters import, so the answers
are kept here under the state of the folders on ``sys.path`` (:func:`site_state`),
which an installation changes (pip writes a new ``.dist-info`` folder): no answer
outlives the installation it describes. (An entry point edited inside a
``.dist-info`` folder that stays is seen by the next process.)
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any

__all__ = [
    "distributions_of",
    "entry_points",
    "installed_versions",
    "missing_modules",
    "site_state",
]

Site = tuple[tuple[str, int, int] | str, ...]


def site_state() -> Site:
    """Each folder of ``sys.path`` with its modification time and a hash of its entries' names.

    An installation changes the names in a folder on the path (a ``.dist-info``
    folder) and its time (which alone could miss a change within the clock's tick).
    An entry that is no folder (a zip) stands for itself. About 0.5 ms.
    """
    state: list[tuple[str, int, int] | str] = []
    for entry in sys.path:
        folder = entry or os.curdir
        try:
            time = os.stat(folder).st_mtime_ns
            names = hash(frozenset(os.listdir(folder)))
        except OSError:
            state.append(entry)
        else:
            state.append((entry, time, names))
    return tuple(state)


@functools.lru_cache(maxsize=16)
def _entry_points(group: str, site: Site) -> tuple[Any, ...]:
    from importlib.metadata import entry_points as found

    return tuple(found(group=group))


def entry_points(*, group: str) -> tuple[Any, ...]:
    """``importlib.metadata.entry_points(group=group)``, read again only after the site changed.

    >>> entry_points(group="cws_bench.no-such-group")
    ()
    """
    return _entry_points(group, site_state())


@functools.lru_cache(maxsize=64)
def _distributions_of(module: str, site: Site) -> tuple[str, ...]:
    import importlib.metadata

    inferred = getattr(importlib.metadata, "_top_level_inferred", None)
    if inferred is None:  # a Python whose importlib.metadata works otherwise: ask it whole
        return tuple(importlib.metadata.packages_distributions().get(module, ()))
    names = []
    for dist in importlib.metadata.distributions():
        declared = (dist.read_text("top_level.txt") or "").split()
        if declared:
            if module in declared:
                names.append(dist.metadata["Name"])
            continue
        # The names a distribution declares none of are inferred from its file list,
        # whose paths name every one of them: a list without the module's name cannot
        # give it, and only the lists that hold it are read as files.
        listed = (dist.read_text(name) for name in ("RECORD", "installed-files.txt", "SOURCES.txt"))
        if any(module in text for text in listed if text) and module in set(inferred(dist)):
            names.append(dist.metadata["Name"])
    return tuple(names)


def distributions_of(module: str) -> list[str]:
    """The distributions that install the top-level module ``module``.

    What ``importlib.metadata.packages_distributions().get(module, [])`` gives,
    in the same order (a distribution that two finders see is named twice), from
    the top-level names each distribution declares, or else infers from its
    file list; but only the file lists that hold the module's name are read.

    >>> "click" in distributions_of("click")
    True
    >>> distributions_of("no_such_module_here")
    []
    """
    return list(_distributions_of(module, site_state()))


def missing_modules(*modules: str) -> list[str]:
    """Those of ``modules`` (dotted names too) that cannot be imported here, in order.

    ``find_spec("a.b")`` imports ``a`` and raises when ``a`` is absent or broken:
    then ``a.b`` is missing, not an error. A top-level name is only looked up.

    >>> missing_modules("json", "json.decoder", "no_such_module_here", "no_such_module_here.sub")
    ['no_such_module_here', 'no_such_module_here.sub']
    """
    import importlib.util

    missing = []
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent is missing or broken; no __spec__
            found = False
        if not found:
            missing.append(module)
    return missing


def installed_versions(*distributions: str) -> dict[str, str]:
    """The installed version of each of ``distributions`` (those installed).

    >>> installed_versions("click", "no-such-distribution") == {
    ...     "click": __import__("importlib.metadata").metadata.version("click")
    ... }
    True
    """
    import importlib.metadata

    versions = {}
    for distribution in distributions:
        try:
            versions[distribution] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions

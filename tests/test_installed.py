"""Tests of cws_bench/system/installed.py: the answers importlib.metadata gives, kept until
the installation changes."""

from __future__ import annotations

import ast
import importlib.metadata
import shutil
import sys
from pathlib import Path

import pytest

from cws_bench import segmenters
from cws_bench.system import installed


def declares_nothing(dist) -> bool:
    return not (dist.read_text("top_level.txt") or "").split()


def test_the_distributions_of_a_module_are_what_packages_distributions_says():
    """Against the standard library's whole table: the modules the built-in adapters
    import, a third of the modules of distributions that declare no top-level names
    (those are inferred from file lists, the path this module shortens), and a sample
    of the rest. (All 199 modules of the neural venv agreed, with and without the
    importlib_metadata backport imported, when this was written.)"""
    table = importlib.metadata.packages_distributions()
    undeclared = {
        dist.metadata["Name"]
        for dist in importlib.metadata.distributions()
        if declares_nothing(dist)
    }
    inferred = {module for module, names in table.items() if undeclared & set(names)}
    requires = set()  # read from the adapters' sources: importing them all takes seconds
    for path in Path(segmenters.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(
                getattr(target, "id", None) == "requires" for target in node.targets
            ):
                requires.update(ast.literal_eval(node.value))
    assert len(inferred) > 5
    modules = requires | set(sorted(inferred)[::3]) | set(sorted(table)[::15])
    modules |= {"no_such_module_here"}
    assert {"jieba", "numpy", "torch", "spacy"} <= modules
    for module in sorted(modules):
        assert installed.distributions_of(module) == table.get(module, []), module


def test_a_distribution_installed_or_removed_is_seen_at_once(tmp_path, monkeypatch):
    group = "cws_bench.test-installed"

    def install(name: str) -> None:
        info = tmp_path / f"{name}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (info / "top_level.txt").write_text(f"{name}\n")
        (info / "entry_points.txt").write_text(f"[{group}]\n{name} = {name}:Thing\n")

    def names() -> list[str]:
        return sorted(entry.name for entry in installed.entry_points(group=group))

    assert names() == []
    install("toyone")
    assert names() == []  # not on the path yet
    monkeypatch.syspath_prepend(str(tmp_path))
    assert names() == ["toyone"]
    assert installed.distributions_of("toyone") == ["toyone"]
    # each change right after a lookup, within the same tick of the file system's clock
    install("toytwo")
    assert names() == ["toyone", "toytwo"]
    assert installed.installed_versions("toytwo", "toythree") == {"toytwo": "1.0"}
    shutil.rmtree(tmp_path / "toyone-1.0.dist-info")
    assert names() == ["toytwo"]
    assert installed.distributions_of("toyone") == []
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(tmp_path)])
    assert names() == []


def test_a_lookup_with_nothing_changed_reads_no_distribution(monkeypatch):
    group = "cws_bench.segmenters"
    first = installed.entry_points(group=group)
    installed.distributions_of("click")
    monkeypatch.setattr(
        importlib.metadata,
        "distributions",
        lambda **_: pytest.fail("the installation was read again"),
    )
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda **_: pytest.fail("the installation was read again"),
    )
    assert installed.entry_points(group=group) == first
    assert "click" in installed.distributions_of("click")

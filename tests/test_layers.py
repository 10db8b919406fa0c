"""The package's imports follow the layer table of docs/ARCHITECTURE.md, with no circle."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "cws_bench"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"


def layer_table() -> dict[str, int]:
    """Unit name (relative to cws_bench) -> layer, from the table after the layers marker."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    _, _, rest = text.partition("<!-- layers:")
    assert rest, "docs/ARCHITECTURE.md has no layer table"
    layers: dict[str, int] = {}
    for line in rest.splitlines()[1:]:
        if not line.startswith("|"):
            if layers:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if not cells[0].isdigit():
            continue
        for name in re.findall(r"`([^`]+)`", cells[1]):
            assert name not in layers, f"{name} is in two layers"
            layers[name] = int(cells[0])
    return layers


def modules() -> dict[str, Path]:
    """Dotted module name (relative to cws_bench; the root is __init__) -> file."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    for path in PACKAGE.rglob("*.pyx"):
        found[".".join(path.relative_to(PACKAGE).with_suffix("").parts)] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """The cws_bench modules a file imports, anywhere in it (functions, TYPE_CHECKING)."""
    if path.suffix != ".py":
        return set()
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module != "cws_bench" and not node.module.startswith("cws_bench."):
                continue
            base = node.module.removeprefix("cws_bench").lstrip(".")
            prefix = f"{base}." if base else ""
            hits = {prefix + alias.name for alias in node.names if prefix + alias.name in known}
            found |= hits
            if len(hits) < len(node.names):  # names from the module itself
                found.add(base or "__init__")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "cws_bench":
                    found.add("__init__")
                elif alias.name.startswith("cws_bench."):
                    found.add(alias.name.removeprefix("cws_bench."))
    return found


def unit_of(module: str, layers: dict[str, int]) -> str | None:
    """The table entry a module belongs to: itself, or the closest package listed."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in layers:
            return name
    return None


def graph() -> dict[str, set[str]]:
    known = set(modules())
    return {name: imports(path, known) - {name} for name, path in modules().items()}


def test_every_module_is_in_the_table():
    layers = layer_table()
    missing = sorted(name for name in modules() if unit_of(name, layers) is None)
    assert missing == [], f"add these to the layer table of docs/ARCHITECTURE.md: {missing}"


def wrong_layers(edges: dict[str, set[str]], layers: dict[str, int]) -> list[str]:
    """Imports that go up the table."""
    wrong = []
    for module, targets in edges.items():
        unit = unit_of(module, layers)
        for target in sorted(targets):
            other = unit_of(target, layers)
            if unit is None or other is None:
                continue  # test_every_module_is_in_the_table names them
            if layers[other] > layers[unit]:
                wrong.append(f"{module} (layer {layers[unit]}) imports {target} ({layers[other]})")
    return wrong


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that import each other, directly or through others (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(edges[start])))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_imports_go_to_the_same_layer_or_below():
    assert wrong_layers(graph(), layer_table()) == []


def test_no_module_imports_itself_through_others():
    # Today: scoring <-> sighan (through SegScores), and dictionary -> corpora -> dictionary.
    assert circles(graph()) == []


def test_the_checks_catch_what_they_look_for():
    layers = {"dictionary": 3, "corpora": 4, "scoring": 6, "sighan": 6}
    edges = {
        "dictionary": {"corpora.registry"},
        "corpora.registry": {"dictionary"},
        "scoring": {"sighan"},
        "sighan": {"scoring"},
    }
    assert wrong_layers(edges, layers) == ["dictionary (layer 3) imports corpora.registry (4)"]
    assert circles(edges) == [["corpora.registry", "dictionary"], ["scoring", "sighan"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []

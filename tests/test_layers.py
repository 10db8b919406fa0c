"""The package's imports follow docs/ARCHITECTURE.md's "may import" table, with no circle.

The rules this file enforces, on every import of every module (at the top, inside
functions, under ``TYPE_CHECKING`` and in doctests):

- A unit (a root module, or a package with all its modules) imports only the units
  its row of the may-import table lists, plus the root ``__init__`` (``__version__``).
- No two modules import each other, even through others.
- No module imports another module's underscored name: neither
  ``from cws_bench.x import _y`` nor ``x._y`` on an imported cws_bench module.
  Dunder names (``__version__``) are public. A private *module* (``_kernel``,
  ``_sighan``, ``segmenters/_crf``, any ``_name.py``) may be imported, but only from
  inside the package that holds it (the compiled ``_kernel`` and ``_sighan`` sit in
  the root package, so any cws_bench module may import them); from outside, its
  names go through a public module.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "cws_bench"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
ALWAYS = {"__init__"}  # the root package: every unit may read __version__


def may_import_table() -> dict[str, set[str]]:
    """Unit (relative to cws_bench) -> the units it may import, from the may-import table."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    _, _, rest = text.partition("<!-- may-import:")
    assert rest, "docs/ARCHITECTURE.md has no may-import table"
    table: dict[str, set[str]] = {}
    for line in rest.splitlines()[1:]:
        if not line.startswith("|"):
            if table:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        units = re.findall(r"`([^`]+)`", cells[0])
        allowed = set(re.findall(r"`([^`]+)`", cells[1])) if len(cells) > 1 else set()
        for unit in units:
            assert unit not in table, f"{unit} is in two rows"
            table[unit] = allowed
    return table


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


def _doctest_imports(tree: ast.AST) -> Iterator[ast.stmt]:
    """The import statements of the doctests in a module's docstrings."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        docstring = ast.get_docstring(node, clean=True)
        if not docstring:
            continue
        for line in docstring.splitlines():
            code = line.strip()
            if code.startswith(">>> ") and "import" in code:
                try:
                    yield from ast.parse(code[4:]).body
                except SyntaxError:
                    continue


def import_nodes(path: Path, *, doctests: bool = True) -> list[ast.stmt]:
    """Every import statement of a file: code (anywhere) and, with ``doctests``, doctests."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    code = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    return [*code, *(_doctest_imports(tree) if doctests else ())]


def imports(path: Path, known: set[str], *, doctests: bool = True) -> set[str]:
    """The cws_bench modules a file imports, anywhere in it (functions, TYPE_CHECKING, doctests)."""
    if path.suffix != ".py":
        return set()
    found = set()
    for node in import_nodes(path, doctests=doctests):
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


def unit_of(module: str, table: dict[str, set[str]]) -> str | None:
    """The table entry a module belongs to: itself, or the closest package listed."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in table:
            return name
    return None


def graph(*, doctests: bool = True) -> dict[str, set[str]]:
    """Module -> the modules it imports; a doctest runs after its module loaded, so
    ``doctests=False`` leaves its imports out (for circles)."""
    known = set(modules())
    return {
        name: imports(path, known, doctests=doctests) - {name} for name, path in modules().items()
    }


def test_every_module_is_in_the_table():
    table = may_import_table()
    missing = sorted(name for name in modules() if unit_of(name, table) is None)
    assert missing == [], f"add these to the may-import table of docs/ARCHITECTURE.md: {missing}"


def test_the_table_names_only_units_that_exist():
    table = may_import_table()
    names = set(modules())
    units = {name for module in names for name in _prefixes(module)}
    stale = sorted((set(table) | set().union(*table.values())) - units)
    assert stale == [], f"docs/ARCHITECTURE.md's may-import table names no such unit: {stale}"


def _prefixes(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts) + 1)]


def wrong_imports(edges: dict[str, set[str]], table: dict[str, set[str]]) -> list[str]:
    """Imports of a unit that the importing unit's row does not list."""
    wrong = []
    for module, targets in sorted(edges.items()):
        unit = unit_of(module, table)
        for target in sorted(targets):
            other = unit_of(target, table)
            if unit is None or other is None:
                continue  # test_every_module_is_in_the_table names them
            if other != unit and other not in ALWAYS and other not in table[unit]:
                wrong.append(f"{module} imports {target} ({unit} may not import {other})")
    return wrong


def private_imports(module: str, source: str, known: set[str]) -> list[str]:
    """Where ``module`` (dotted, relative to cws_bench) uses another module's private names."""
    tree = ast.parse(source)
    own_package = module.rpartition(".")[0]
    bound: dict[str, str] = {}  # local name -> cws_bench module it stands for
    found = []
    nodes = [(n, False) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    for node, in_doctest in [*nodes, *((n, True) for n in _doctest_imports(tree))]:
        where = f"{module} (a doctest)" if in_doctest else f"{module}:{node.lineno}"
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module != "cws_bench" and not node.module.startswith("cws_bench."):
                continue
            base = node.module.removeprefix("cws_bench").lstrip(".")
            for alias in node.names:
                target = f"{base}.{alias.name}" if base else alias.name
                if target in known:  # a module
                    bound[alias.asname or alias.name] = target
                    if _is_private(alias.name) and not _inside(own_package, base):
                        found.append(f"{where} imports the private module {target}")
                elif _is_private(alias.name):
                    found.append(f"{where} imports {base or 'cws_bench'}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("cws_bench.") and alias.asname:
                    bound[alias.asname] = alias.name.removeprefix("cws_bench.")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _is_private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
        ):
            target = f"{bound[node.value.id]}.{node.attr}"
            if target in known and _inside(own_package, bound[node.value.id]):
                continue  # a private module of the importer's own package
            found.append(f"{module}:{node.lineno} uses {target}")
    return found


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _inside(package: str, holder: str) -> bool:
    """Whether a module of ``package`` is inside ``holder`` (the package of a private module)."""
    return holder == "" or package == holder or package.startswith(holder + ".")


def test_no_module_imports_another_modules_private_names():
    known = set(modules())
    found = []
    for name, path in sorted(modules().items()):
        if path.suffix == ".py":
            found += private_imports(name, path.read_text(encoding="utf-8"), known)
    assert found == []


def test_imports_are_in_the_may_import_table():
    assert wrong_imports(graph(), may_import_table()) == []


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


def test_no_module_imports_itself_through_others():
    assert circles(graph(doctests=False)) == []


def test_the_checks_catch_what_they_look_for():
    table = {"dictionary": set(), "corpora": {"dictionary"}, "scoring": set(), "sighan": set()}
    edges = {
        "dictionary": {"corpora.registry", "__init__"},
        "corpora.registry": {"dictionary", "corpora.base"},
        "scoring": {"sighan"},
        "sighan": {"scoring"},
    }
    assert wrong_imports(edges, table) == [
        "dictionary imports corpora.registry (dictionary may not import corpora)",
        "scoring imports sighan (scoring may not import sighan)",
        "sighan imports scoring (sighan may not import scoring)",
    ]
    assert circles(edges) == [["corpora.registry", "dictionary"], ["scoring", "sighan"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_private_name_check_finds_each_form():
    known = {
        "scoring",
        "scoring.engine",
        "_kernel",
        "metrics",
        "metrics._tables",
        "metrics.ranking",
    }
    source = (
        "from cws_bench import _kernel, __version__\n"
        "from cws_bench.scoring.engine import Scorer, _Accumulator\n"
        "from cws_bench import scoring\n"
        "from cws_bench.metrics._tables import percent\n"
        "scoring._kernel.count_buffers()\n"
        'def f():\n    """\n    >>> from cws_bench.scoring import _gold_sentences\n    """\n'
    )
    assert private_imports("sharded", source, known) == [
        "sharded:2 imports scoring.engine._Accumulator",
        "sharded (a doctest) imports scoring._gold_sentences",
        "sharded:5 uses scoring._kernel",
    ]
    inside = (
        "from cws_bench.metrics import _tables\nfrom cws_bench.metrics._tables import percent\n"
    )
    assert private_imports("metrics.ranking", inside, known) == []
    outside = "from cws_bench.metrics import _tables\n"
    assert private_imports("tokenizers", outside, known) == [
        "tokenizers:1 imports the private module metrics._tables"
    ]

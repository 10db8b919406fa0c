"""docs/ARCHITECTURE.md's module table names what is there: each row's files exist, and
each code name the row's job cell gives (a function, a class, a constant) is defined in
one of the row's files (or, spelt ``package.module.Name``, in that module).

A row may name what its files use without defining (``score_files`` in the root's
table of lazy imports, ``SystemExit``): a name the files neither define nor mention as a
whole word is what the check reports. A name counts when it looks like code: written
with a call (``Units(scale, digits)``), in CamelCase, or with an underscore
(``score_files``, ``DEFAULT_SEED``). Words in backquotes that are values (``"char"``,
``interval``), flags (``--dict``), paths and formats are not checked.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "cws_bench"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def module_rows(text: str) -> list[tuple[list[str], str]]:
    """(files named in the first cell, the job cell) for each row of the module table."""
    _, _, rest = text.partition("## Modules")
    body, _, _ = rest.partition("\n## ")
    rows = []
    for line in body.splitlines():
        if not line.startswith("| `"):
            continue
        first, _, job = line.strip("|").partition("|")
        rows.append((re.findall(r"`([^`]+)`", first), job))
    return rows


def row_files(names: list[str]) -> list[Path]:
    """The files a row's first cell names; a bare file name is in the previous one's folder."""
    files, folder = [], PACKAGE
    for name in names:
        path = PACKAGE / name if "/" in name.rstrip("/") else folder / name
        if "/" in name.rstrip("/"):
            folder = (PACKAGE / name).parent
        files.append(path)
    return files


def code_names(job: str) -> list[str]:
    """The backquoted names of a job cell that look like code (see the module docstring)."""
    found = []
    for quoted in re.findall(r"`([^`]+)`", job):
        called = quoted.split("(", 1)[0]
        if not IDENTIFIER.match(called):
            continue
        last = called.rsplit(".", 1)[-1]
        if "(" in quoted or "_" in last.strip("_") or re.search(r"[a-z][A-Z]|^[A-Z][a-z]", last):
            found.append(called)
    return found


def defined_names(path: Path) -> set[str]:
    """Every name a module defines or imports, at any depth: functions, classes (and their
    methods), assigned names and attributes set on self, imported names; a Cython file's
    ``def``/``cdef``/``cpdef``/``class`` names by pattern."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".pyx":
        return set(
            re.findall(
                r"^\s*(?:c?p?def|cdef class|class)\s+(?:\w+\s+)*?(\w+)\s*[(:]", source, flags=re.M
            )
        )
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def mentions(path: Path, name: str) -> bool:
    """Whether a file uses a name it does not define (an import table's string, a
    builtin, an environment variable): the name as a whole word of its source."""
    return re.search(rf"(?<!\w){re.escape(name)}\b", path.read_text(encoding="utf-8")) is not None


def module_file(dotted: str) -> Path | None:
    """The file of ``package.module`` (relative to cws_bench, or starting with it)."""
    parts = dotted.split(".")
    if parts[0] == "cws_bench":
        parts = parts[1:]
    for candidate in (
        PACKAGE.joinpath(*parts).with_suffix(".py"),
        PACKAGE.joinpath(*parts, "__init__.py"),
    ):
        if candidate.is_file():
            return candidate
    return None


def missing_names(text: str) -> list[str]:
    """'file(s): name' for each row's name that none of its files defines."""
    problems = []
    for names, job in module_rows(text):
        files = row_files(names)
        problems += [f"{name}: no such file" for name, f in zip(names, files) if not f.exists()]
        sources = [f for f in files if f.is_file() and f.suffix in (".py", ".pyx")]
        sources += [
            f / "__init__.py" for f in files if f.is_dir() and (f / "__init__.py").is_file()
        ]
        defined = set().union(*(defined_names(f) for f in sources)) if sources else set()
        for name in code_names(job):
            if "." in name:
                module, _, last = name.rpartition(".")
                target = module_file(module)
                if target is not None:
                    if last not in defined_names(target):
                        problems.append(f"{', '.join(names)}: {name}")
                    continue
                name = name.split(".")[0]  # Class.method: the class is the row's
            if name not in defined and not any(mentions(f, name) for f in sources):
                problems.append(f"{', '.join(names)}: {name}")
    return problems


def test_every_name_the_module_table_gives_is_in_the_files_it_names():
    problems = missing_names(ARCHITECTURE.read_text(encoding="utf-8"))
    assert problems == [], (
        "docs/ARCHITECTURE.md names what its row's files do not hold:\n" + "\n".join(problems)
    )


@pytest.mark.parametrize(
    ("row", "found"),
    [
        ("| `scoring/api.py` | `score_files` and `score_sentences` |", []),
        ("| `scoring/api.py` | `score_filez` |", ["scoring/api.py: score_filez"]),
        (
            "| `corpora/sample.py`, `peoples_daily.py` | `no_such_reader()` |",
            ["corpora/sample.py, peoples_daily.py: no_such_reader"],
        ),
        ("| `scoring/nowhere.py` | words |", ["scoring/nowhere.py: no such file"]),
        (
            "| `scoring/streaming.py` | over `scoring.engine.Scorer` and `scoring.engine.Scorr` |",
            ["scoring/streaming.py: scoring.engine.Scorr"],
        ),
        ('| `text/io.py` | values like `"char"`, `interval`, flags `--dict` |', []),
    ],
)
def test_the_check_finds_what_it_looks_for(row, found):
    assert missing_names(f"## Modules\n\n| module | job |\n| --- | --- |\n{row}\n") == found

"""What a package index shows of cws-bench: one version, the licence, classifiers, the README.

tests/test_wheel.py builds the wheel and checks its metadata as the index reads it
(and runs the package installed alone); these tests read the sources, in no time.
"""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

import cws_bench
from cws_bench.cli import cli
from cws_bench.scoring.signature import Signature

try:
    import tomllib
except ImportError:  # Python 3.10: the backport, a dependency there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def test_one_version_source():
    """The distribution's version is read from cws_bench.__version__, which --version and
    every signature print: there is no second literal to forget."""
    assert "version" not in PROJECT
    assert "version" in PROJECT["dynamic"]
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "cws_bench.__version__"}
    printed = CliRunner().invoke(cli, ["--version"])
    assert printed.output == f"cws-bench, version {cws_bench.__version__}\n"
    assert Signature().format().startswith(f"cws-bench:{cws_bench.__version__}|")
    # the version is written once in the package's source
    sources = [path for path in (ROOT / "cws_bench").rglob("*.py")]
    literal = re.compile(rf"^__version__ = \"{re.escape(cws_bench.__version__)}\"$", re.M)
    assert [p.name for p in sources if literal.search(p.read_text(encoding="utf-8"))] == [
        "__init__.py"
    ]


def test_the_licence_is_stated_and_shipped():
    assert PROJECT["license"] == "MIT"  # an SPDX expression (PEP 639)
    assert PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
    # PEP 639: a licence expression and a licence classifier are not given together
    assert not any(c.startswith("License ::") for c in PROJECT["classifiers"])


def test_classifiers_name_the_supported_pythons():
    minimum = re.fullmatch(r">=3\.(\d+)", PROJECT["requires-python"])
    assert minimum is not None
    listed = sorted(
        int(m.group(1))
        for c in PROJECT["classifiers"]
        if (m := re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)", c))
    )
    assert listed[0] == int(minimum.group(1))
    assert listed == list(range(listed[0], listed[-1] + 1))
    assert "Typing :: Typed" in PROJECT["classifiers"]
    assert (ROOT / "cws_bench" / "py.typed").is_file()


def test_the_long_description_is_the_readme():
    assert PROJECT["readme"] == "README.md"

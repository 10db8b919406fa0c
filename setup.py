"""Build the optional Cython scoring kernel; everything else is in pyproject.toml.

If Cython or a C compiler is missing the package installs without the kernel
and scores through the pure-Python path (same numbers, slower).

The sample corpus and its dictionary live once, in corpora/sample/ and
dictionaries/ (where users look for them); build_py copies them into the
built package as cws_bench/_data/, so an installed wheel has them too
(cws_bench/corpora/sample.py looks there first, then in the source tree).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

# source folder -> folder under cws_bench/_data/ in the built package
SHIPPED_DATA = {"corpora/sample": "sample", "dictionaries": "dictionaries"}


class BuildPyWithData(build_py):
    """build_py that also copies the project's sample data into the package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the source tree
            return
        for source, target in SHIPPED_DATA.items():
            destination = Path(self.build_lib) / "cws_bench" / "_data" / target
            destination.mkdir(parents=True, exist_ok=True)
            for path in sorted(Path(source).glob("*.txt")):
                shutil.copyfile(path, destination / path.name)


try:
    from Cython.Build import cythonize
except ImportError:  # pragma: no cover - depends on the build machine
    ext_modules = []
else:
    ext_modules = cythonize(
        [
            "cws_bench/_kernel.pyx",
            "cws_bench/_sighan.pyx",
            "cws_bench/segmenters/_decode.pyx",
            "cws_bench/segmenters/_crf.pyx",
        ],
        compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
        quiet=True,
    )

setup(ext_modules=ext_modules, cmdclass={"build_py": BuildPyWithData})

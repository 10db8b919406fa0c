"""Build the optional Cython scoring kernel; everything else is in pyproject.toml.

If Cython or a C compiler is missing the package installs without the kernel
and scores through the pure-Python path (same numbers, slower).
"""

from setuptools import setup

try:
    from Cython.Build import cythonize
except ImportError:  # pragma: no cover - depends on the build machine
    ext_modules = []
else:
    ext_modules = cythonize(
        ["cws_bench/_kernel.pyx", "cws_bench/segmenters/_decode.pyx"],
        compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
        quiet=True,
    )

setup(ext_modules=ext_modules)

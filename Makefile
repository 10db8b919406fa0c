# Two commands do all the set-up on a fresh machine (see README.md):
#   make run    the main job: the default bake-off, reports in reports/default/
#   make test   the whole test suite
# Each creates and fills .venv on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Extras installed by the set-up: everything but the 500 MB THULAC model.
EXTRAS := test,pkuseg,snownlp,rjieba,opencc
STAMP  := $(VENV)/.installed

.PHONY: run test bench lint clean

$(STAMP): pyproject.toml setup.py cws_bench/_kernel.pyx cws_bench/segmenters/_decode.pyx
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# pkuseg's setup.py imports numpy and cythonizes: build tools first, no isolation.
	$(BIN)/python -m pip install --quiet setuptools wheel numpy Cython
	$(BIN)/python -m pip install --quiet --no-build-isolation pkuseg
	# compat mode: a path entry instead of an import hook, which saves start-up time.
	$(BIN)/python -m pip install --quiet --no-build-isolation -e ".[$(EXTRAS)]" \
		--config-settings editable_mode=compat
	# Byte-compile as pip does for a normal install (PYTHONDONTWRITEBYTECODE may be set).
	$(BIN)/python -m compileall -q cws_bench
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/cws-bench bakeoff

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

lint: $(STAMP)
	$(BIN)/ruff check cws_bench tests benchmarks
	$(BIN)/ruff format --check cws_bench tests benchmarks
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) build *.egg-info cws_bench/_kernel.c cws_bench/*.so cws_bench/segmenters/_decode.c cws_bench/segmenters/*.so

# Two commands do all the set-up on a fresh machine (see README.md):
#   make run    the main job: the default bake-off, reports in reports/default/
#   make test   the whole test suite
# Each creates and fills .venv on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Extras installed by the set-up: everything but the 500 MB THULAC model.
EXTRAS := test,pkuseg,rjieba,crfsuite,dask,subword
STAMP  := $(VENV)/.installed

.PHONY: run test bench lint clean neural

$(STAMP): pyproject.toml setup.py cws_bench/_kernel.pyx cws_bench/_sighan.pyx cws_bench/segmenters/_decode.pyx cws_bench/segmenters/_crf.pyx
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# pkuseg's setup.py imports numpy and cythonizes: build tools first, no isolation.
	$(BIN)/python -m pip install --quiet "setuptools>=77" wheel numpy Cython
	$(BIN)/python -m pip install --quiet --no-build-isolation pkuseg
	# compat mode: a path entry instead of an import hook, which saves start-up time.
	$(BIN)/python -m pip install --quiet --no-build-isolation -e ".[$(EXTRAS)]" \
		--config-settings editable_mode=compat
	# Byte-compile as pip does for a normal install (PYTHONDONTWRITEBYTECODE may be set).
	$(BIN)/python -m compileall -q cws_bench
	touch $(STAMP)

# The neural extras (README.md, "Neural segmenters"): torch pinned to the CPU build of
# 2.13.0 first (a plain `torch` requirement would pull a CUDA build of several GB), then
# transformers, LTP, HanLP, stanza, spaCy, jiagu, jieba-fast; spacy-pkuseg is built
# from source against the numpy installed here (its wheels are built for numpy 1).
# About 3.5 min and 1.4 GB on top of the base set-up; .ci/run runs it before the tests.
NEURAL := $(VENV)/.neural

$(NEURAL): $(STAMP)
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet --no-build-isolation -e ".[$(EXTRAS),neural]" \
		--config-settings editable_mode=compat
	$(BIN)/python -m pip install --quiet --no-build-isolation --no-binary spacy-pkuseg \
		"spacy-pkuseg>=0.0.27,<0.1.0"
	touch $(NEURAL)

neural: $(NEURAL)

run: $(STAMP)
	$(BIN)/cws-bench bakeoff

# Tests in parallel (pytest-xdist): one worker per core and one more, which runs tests
# while the others wait on servers, timeouts and child processes (tests/conftest.py,
# pytest_xdist_auto_num_workers); a worker that runs out of tests takes pending ones from
# the others (worksteal), so they end together; the 15 slowest
# printed at the end. pytest exits 5 when it collects no test: for this suite that means
# the tests were not found (a wrong folder, a broken conftest), so it fails saying so.
test: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist worksteal --durations=15; status=$$?; \
	if [ $$status -eq 5 ]; then echo "make test: pytest collected no tests" >&2; fi; \
	exit $$status

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

lint: $(STAMP)
	$(BIN)/ruff check cws_bench tests benchmarks
	$(BIN)/ruff format --check cws_bench tests benchmarks
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) build *.egg-info cws_bench/_kernel.c cws_bench/_sighan.c cws_bench/*.so cws_bench/segmenters/_decode.c cws_bench/segmenters/*.so

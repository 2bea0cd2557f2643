# The README's contract: `make demo` and `make test` work on a fresh clone; both create .venv
# (pinned by constraints.txt) when it is missing or older than pyproject.toml/constraints.txt.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HYPOTHESIS_PROFILE ?= ci
export HYPOTHESIS_PROFILE
# Byte-compiled modules are kept under .venv/pycache and reused by every later process. Machine
# images often set PYTHONDONTWRITEBYTECODE=1 (this one does); with pip's --no-compile below
# every process then compiled torch, sympy, sklearn and matplotlib from source again: `python
# -m homer run` on the H = 3 lock took 21.5 s, 9.6 s with the cache (measured 2026-11-23).
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(CURDIR)/$(VENV)/pycache

.PHONY: setup demo test test-slow lint docs katex bench mutants clean

# --no-compile: pip would byte-compile every installed module (torch's included: 45 of the
# install's 120 s); Python compiles the modules a run imports when it first imports them, once
# (into .venv/pycache, above).
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -c constraints.txt \
		-e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# The main job: HOMER on the H=10, K=10 combination lock (seed 0), then the run against the
# exact answers (summary, report.json and plots in out/demo/compare).
demo: $(STAMP)
	@rm -rf out/demo
	$(PY) -m homer run --env combolock --horizon 10 --actions 10 --seed 0 --out out/demo
	$(PY) -m homer compare out/demo

# Tests run in TEST_WORKERS processes (pytest-xdist; one per core on the 2-core machine): the
# HOMER tests train with one torch thread each, so two of them use both cores. `make test`
# leaves out the tests marked slow (learning runs of a minute or more: pyproject.toml's
# markers); `make test-slow` runs only those; .ci/run runs both. The workers' BLAS and OpenMP
# pools start with one thread each too (two workers already fill both cores; tests that need
# more raise the limit with threadpoolctl): 332 s -> 305 s of pytest alone.
TEST_WORKERS ?= 2
PYTEST := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist worksteal
# The site is built first (strict) and its pages are then tested as built: tests/test_site_math.py
# opens them in headless Chromium (KINEMATIC_BUILT_SITE; run alone, it builds its own copy).
test: $(STAMP)
	$(MKDOCS)
	KINEMATIC_BUILT_SITE=$(CURDIR)/site $(PYTEST) -m "not slow"
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test-slow: $(STAMP)
	$(PYTEST) -m slow

# mypy checks the three packages as configured in pyproject.toml ([tool.mypy]): about 30 s of
# CPU on a cold start (torch's, numpy's and scipy's stubs), 1.5 s once its cache (.mypy_cache)
# holds them.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The documentation site (mkdocs.yml) in site/: open site/index.html. --strict turns every
# warning into an error (a cross-reference to a function that is gone, a docstring section
# griffe cannot read), so `make test` builds it too. Nothing is downloaded and no notebook is
# run (their stored outputs are shown).
MKDOCS := NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
docs: $(STAMP)
	$(MKDOCS)

# The site's math is typeset by KaTeX, committed under docs/vendor/katex (nothing is downloaded
# when a page is viewed). This re-fetches exactly the pinned version with npm, its tarball checked
# against the pinned sha512 (docs/fetch_katex.py says how to move to another version).
katex:
	$(PYTHON) docs/fetch_katex.py

bench: $(STAMP)
	$(PY) benchmarks/exact_scale.py

# Mutation testing of the exact core and of homer's verdict modules ([tool.mutmut] in
# pyproject.toml): hours on 2 cores, never part of `make test`; resumable (mutmut keeps its
# results in mutants/). MUTATE=PATTERN restricts it to matching mutants (e.g.
# MUTATE='kinematic.cover*' or MUTATE='homer.counterexamples*'); CHILDREN=1 runs one mutant at
# a time (on a machine whose other core is busy).
MUTATE ?=
CHILDREN ?= 2
mutants: $(STAMP)
	HYPOTHESIS_PROFILE=mutants $(VENV)/bin/mutmut run --max-children $(CHILDREN) $(MUTATE)
	$(PY) benchmarks/mutation_report.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis .mypy_cache mutants site .cache

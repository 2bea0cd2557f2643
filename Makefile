# The README's contract: `make demo` and `make test` work on a fresh clone; both create .venv
# (pinned by constraints.txt) when it is missing or older than pyproject.toml/constraints.txt.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HYPOTHESIS_PROFILE ?= ci
export HYPOTHESIS_PROFILE

.PHONY: setup demo test lint bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	@mkdir -p out
	$(PY) -m kinematic family combolock --horizon 10 --actions 10 --seed 0 --out out/combolock-H10.json
	$(PY) -m kinematic analyze out/combolock-H10.json

test: $(STAMP)
	$(PY) -m pytest -q
	$(VENV)/bin/ruff check .

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	$(PY) benchmarks/exact_scale.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis

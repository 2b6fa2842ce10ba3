# Two commands for a fresh clone (both idempotent: the venv is built once and refreshed
# only when pyproject.toml changes):
#   make specs   set up, then run the specs with the claim scoreboard (the learner's quick run)
#   make test    set up, then run everything: the catalog link check, every spec (slow,
#                compile and distributed included) and the tooling tests, in random order
#                and in parallel, then the fast subset of the planted faults
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup specs test
setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

specs: setup
	$(PY) -m pytest specs/

test: setup
	$(PY) -m torchclaims check
	$(PY) -m pytest specs/ tests/ --full -n auto -p randomly --claims-report reports/last-run.json
	$(PY) -m torchclaims mutants --fast

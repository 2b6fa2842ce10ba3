# Two commands for a fresh clone (both idempotent: the venv is built once and refreshed
# only when pyproject.toml changes):
#   make specs   set up, then run the specs with the claim scoreboard (the learner's run)
#   make test    set up, then run everything: specs (slow, compile, distributed included),
#                the tooling tests, and the catalog link check
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
	$(PY) -m pytest specs/ -n auto

test: setup
	$(PY) -m torchclaims check
	$(PY) -m pytest specs/ tests/ --full -n auto --claims-report reports/last-run.json

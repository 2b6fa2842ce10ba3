# Two commands for a fresh clone (both idempotent: the venv is built once and refreshed
# only when pyproject.toml or constraints.txt changes):
#   make specs   set up, then run the specs with the claim scoreboard (the learner's quick run)
#   make test    set up, then run everything: ruff, the catalog link check, every spec (slow,
#                compile and distributed included) and the tooling tests, in random order
#                and in parallel, then the fast subset of the planted faults
# and the contributor's loop (under a minute): make quick   ruff and the unit tests of the tooling
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# TORCH_INDEX=https://download.pytorch.org/whl/cpu: torch's CPU-only wheels (README, "Two commands")
TORCH_INDEX ?=
# Python caches bytecode here, whatever the caller's shell says: `make test` starts about a hundred
# pytest processes, and each would otherwise compile the project's modules and rewrite the asserts of
# the specs and of hypothesis again (a collection of specs/ and tests/: 9.4 s -> 6.9 s once cached;
# __pycache__ is ignored by git)
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup specs test quick
setup: $(VENV)/.installed

# The pinned default (constraints.txt: torch 2.14.1, torchvision 0.29.1 and the tooling). With a torch
# of your own (a CUDA, ROCm, nightly or source build), skip this: see the README, "On the torch you have".
$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX) )-e '.[dev]'
	touch $@
	@$(PY) -m torchclaims.setup_summary $(VENV)   # the torch build, the CPU-build advice, the venv size: in the locale's language

specs: setup
	$(PY) -m pytest specs/

# Two pytest workers a core: about half of the full run's wall time is spent waiting (commands run as
# subprocesses, the browser, the GPU run's limits), not computing (docs/measurements.md).
WORKERS ?= $(shell python3 -c 'import os; print(2 * (os.cpu_count() or 1))')

test: setup
	$(PY) -m ruff check .
	$(PY) -m torchclaims check
	$(PY) -m pytest specs/ tests/ --full -n $(WORKERS) --dist worksteal -p randomly --claims-report reports/last-run.json
	$(PY) -m torchclaims mutants --fast

# No specs, no end-to-end tests (marked e2e), no project-content checks (tests/content/): make test runs those.
quick: setup
	$(PY) -m ruff check .
	$(PY) -m pytest tests/ -m "not e2e" --ignore=tests/content -q

# The GPU run on a machine with CUDA and its own torch (docs/gpu.md); OUT and WHEELS are yours, COMMIT
# where the tree has no .git and the wheel folder no COMMIT stamp. Without a GPU torch can see: exit 2.
.PHONY: gpu
gpu:
	python3 scripts/gpu-check -o $(or $(OUT),gpu-run-$(shell date -u +%Y%m%dT%H%M%S)) $(if $(WHEELS),--wheels $(WHEELS)) $(if $(COMMIT),--commit $(COMMIT)) --require-cuda

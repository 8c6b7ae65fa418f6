# Two commands: `make up` runs the whole desk, `make test` runs every test.
# Everything installs from this folder's own files into .venv (nothing by hand).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Phoenix runs out of process from its own environment (see services/phoenix/requirements.txt).
PHOENIX_VENV := .venv-phoenix

.PHONY: up test install install-test lint bench train clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 is required"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	@touch $@ $(VENV)/.installed

$(PHOENIX_VENV)/.installed: services/phoenix/requirements.txt
	$(PYTHON) -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PHOENIX_VENV)/bin/pip install --quiet -r services/phoenix/requirements.txt
	@touch $@

install: $(VENV)/.installed $(PHOENIX_VENV)/.installed

install-test: $(VENV)/.installed-test $(PHOENIX_VENV)/.installed

up: install
	$(BIN)/supportdesk up

lint: install-test
	$(BIN)/ruff check .
	$(BIN)/mypy .

test: lint
	$(BIN)/pytest

# Rebuild the Judge and Guardrail classifiers and their model cards from ../shared/datasets.
train: install
	$(BIN)/supportdesk train all

# Replay the case files through a private desk (and the public-set samples), write runs/eval-<UTC>/
# summary.json and report.html; exits 1 when a gate of evals/thresholds.toml is missed.
# Re-run and publish what DESIGN.md quotes (evals/results/latest.json and its eval rows; written
# before the exit status, so also when a gate is missed): make eval EVAL_ARGS=--publish
.PHONY: eval
EVAL_ARGS ?=
eval: install
	$(BIN)/supportdesk eval --datasets ../shared/datasets $(EVAL_ARGS)

bench: install
	@for b in evals/benchmarks/bench_*.py; do m=$$(basename $$b .py); echo "== $$m"; \
		$(BIN)/python -m evals.benchmarks.$$m || exit 1; done

clean:
	rm -rf $(VENV) $(PHOENIX_VENV) .supportdesk .mypy_cache .ruff_cache .pytest_cache

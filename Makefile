# Two commands set up a fresh machine: `make run` and `make test`.
# `make run` installs only what the product needs; `make test` adds the development tools.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint bench schematics clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $(RUN_STAMP)

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(RUN_STAMP) $(DEV_STAMP)

run: $(RUN_STAMP)
	$(BIN)/crib serve --simulate

test: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

lint: $(DEV_STAMP)
	$(BIN)/ruff check .

bench: $(DEV_STAMP)
	$(BIN)/python -m pytest tests/benchmarks -s -p no:cacheprovider -o addopts=""

# The schematics in docs/ are drawn from hardware/pins.py; a test says when they are stale.
schematics: $(DEV_STAMP)
	$(BIN)/python -m hardware.schematics docs

clean:
	rm -rf $(VENV) build *.egg-info

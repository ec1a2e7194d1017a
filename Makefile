# Two commands set up a fresh machine: `make run` and `make test`.
# `make run` installs only what the product needs; `make test` adds the development tools.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $(RUN_STAMP)

# The firmware's tests run a real MicroPython: the official WebAssembly port, under Node.
$(DEV_STAMP): pyproject.toml hardware/board/mpnode/package-lock.json | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	npm ci --silent --no-audit --no-fund --prefix hardware/board/mpnode
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

clean:
	rm -rf $(VENV) build *.egg-info

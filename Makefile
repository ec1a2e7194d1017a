# Two commands set up a fresh machine: `make run` and `make test`.
# `make run` installs only what the product needs; `make test` adds the development tools.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
CAD_STAMP := $(VENV)/.installed-cad
CAD_OUT ?= build/cad

.PHONY: run test lint bench schematics cad clean

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

$(CAD_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[cad]'
	touch $(RUN_STAMP) $(CAD_STAMP)

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

# Every printed part as STL and STEP, lying as it prints, and the assembly picture.
cad: $(CAD_STAMP)
	$(BIN)/python -m hardware.shuffler.cad export $(CAD_OUT)

clean:
	rm -rf $(VENV) build *.egg-info

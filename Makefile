# memtray developer entry points. `make run` and `make test` work on a fresh machine with Python 3.11+.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench dist clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("memtray needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/memtray

lint: $(STAMP)
	$(BIN)/ruff check engine desktop tests bench
	$(BIN)/ruff format --check engine desktop tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(STAMP)
	@echo "see bench/README.md; e.g. $(BIN)/python -m bench.append"

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache

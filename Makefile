# Quick start: `make run` plays/serves, `make test` runs every check. Both create .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint typecheck bench clean

$(BIN)/verrater: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

run: $(BIN)/verrater
	$(BIN)/verrater serve

test: $(BIN)/verrater
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest

bench: $(BIN)/verrater
	$(BIN)/verrater bench engine --players 4 --games 2000

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

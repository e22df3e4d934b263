# Quick start: `make run` serves the backend, `make play` plays it, `make test` runs every check.
# Every target creates .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The API's last release: `buf breaking` compares the contract with its image (see proto/README.md).
RELEASE_IMAGE := proto/releases/v1.0.0.json

.PHONY: run play test lint contracts api bench proto-release corpus web clean

$(BIN)/verrater: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

run: $(BIN)/verrater
	$(BIN)/verrater serve

# `make play ARGS="--quick"` passes flags on; VERRATER_SERVER names another server. Ctrl-C is
# the player leaving, not an error of make's: the recipe's shell ignores it (the client takes
# it all the same) and takes the client's 130 for a clean end.
play: $(BIN)/verrater
	@trap '' INT; $(BIN)/verrater play $(ARGS) || [ $$? -eq 130 ]

test: lint contracts api
	$(BIN)/pytest

lint: $(BIN)/verrater
	$(BIN)/ruff check .
	$(BIN)/mypy

# The architecture's import rules (pyproject.toml [tool.importlinter], docs/ARCHITECTURE.md).
contracts: $(BIN)/verrater
	$(BIN)/lint-imports --no-cache

# The API contract: Buf's STANDARD lint, and no breaking change since the last release.
api: $(BIN)/verrater
	$(BIN)/buf lint
	$(BIN)/buf breaking --against $(RELEASE_IMAGE)

# Freeze the contract as released: write its image for `buf breaking` (then tag the commit).
proto-release: $(BIN)/verrater
	$(BIN)/buf build --exclude-source-info -o $(RELEASE_IMAGE)

# Record a release's games, as exported and as stored in Redis, for every later release to read
# (tests/corpus/README.md): once per release, with `make proto-release`. Never again after.
corpus: $(BIN)/verrater
	@test -n "$(RELEASE)" || { echo "usage: make corpus RELEASE=v1.1.0" >&2; exit 2; }
	$(BIN)/python -m tests.corpus.record $(RELEASE)

# The page (web/): npm packages from the lockfile, TypeScript generated from proto/, a Vite build
# into services/web/static (shipped in the package), and the manifest that says what it was built
# from (services/web/assets.py; tests/web/test_assets.py fails when it is stale). Needs npm.
web: $(BIN)/verrater
	cd web && npm ci --no-audit --no-fund && npm run build
	$(BIN)/python -m services.web

bench: $(BIN)/verrater
	$(BIN)/verrater bench engine --players 4 --games 2000

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

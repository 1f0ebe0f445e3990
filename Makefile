# Two commands on a fresh machine: `make demo` and `make test`. Both set up .venv first:
# packages from requirements.lock via uv (the dev and local extras: the lock pins llama-cpp-python, the
# `coopgraph[local]` runtime), llama-cpp-python built once per machine (kept in $(WHEELS)), and the
# embedded model assembled once into ~/.cache/coopgraph.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
LLAMA_PIN := $(shell grep -E '^llama-cpp-python==' requirements.lock)
INSTALLED := $(VENV)/.installed
MODEL_PROFILES ?= local local-coop
WHEELS ?= $(HOME)/.cache/coopgraph/wheels
export ANONYMIZED_TELEMETRY := False
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1

.PHONY: setup models demo test lint typecheck lock bench clean-venv distill-env

setup: $(INSTALLED) models

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(INSTALLED): $(BIN)/uv requirements.lock pyproject.toml setup.py scripts/llama_cmake_args.sh
	@args="$$(scripts/llama_cmake_args.sh)"; \
	dir="$(WHEELS)/$$(printf '%s %s' "$(LLAMA_PIN)" "$$args" | sha256sum | cut -c1-16)"; \
	if ! ls "$$dir"/llama_cpp_python-*.whl >/dev/null 2>&1; then \
	  echo "Building llama-cpp-python once for this machine (about 4 minutes on 2 cores; kept in $$dir)"; \
	  $(BIN)/python -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$$dir" \
	    --config-settings "cmake.args=$$(echo $$args | tr ' ' ';')" "$(LLAMA_PIN)"; \
	fi; \
	$(BIN)/uv pip install --python $(BIN)/python "$$dir"/llama_cpp_python-*.whl
	$(BIN)/uv pip install --python $(BIN)/python -r requirements.lock
	$(BIN)/uv pip install --python $(BIN)/python --no-deps -e .
	touch $(INSTALLED)

models: $(INSTALLED)
	$(BIN)/coopgraph model install $(MODEL_PROFILES)

demo: setup
	$(BIN)/coopgraph demo

test: setup
	$(BIN)/ruff check .
	scripts/typecheck.sh
	$(BIN)/pytest -q

lint: $(INSTALLED)
	$(BIN)/ruff check .
	scripts/typecheck.sh

typecheck: $(INSTALLED)
	scripts/typecheck.sh

lock: $(BIN)/uv
	$(BIN)/uv pip compile pyproject.toml --extra dev --extra local --extra ray --python-version 3.11 -o requirements.lock

bench: setup
	$(BIN)/python evals/bench/llm_local.py
	$(BIN)/python evals/bench/graph_overhead.py

clean-venv:
	rm -rf $(VENV)

# Training environment for `coopgraph distill` only (PyTorch CPU, transformers, peft, gguf): kept apart so
# torch never enters the default install. pip, not uv: the CPU build of torch 2.13.0 is found by pip alone.
DISTILL_VENV := .venv-distill
distill-env: $(DISTILL_VENV)/.installed
$(DISTILL_VENV)/.installed: requirements-distill.txt
	$(PYTHON) -m venv $(DISTILL_VENV)
	$(DISTILL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-distill.txt
	touch $@

# GUMem. `make run` serves the API; `make check` (format, lint, types, `make test`) is what CI runs (.ci/run).
SHELL := /bin/bash
PY := .venv/bin/python
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
LOCOMO ?= ../shared/data/locomo/locomo-dev.json
LOCOMO_OUT ?= bench/results/locomo.json
MEMDAILY ?= ../shared/data/memdaily
MEMDAILY_OUT ?= bench/results/memdaily.json
SCENARIOS ?= ../shared/data/scenarios/dev.json
SCENARIOS_OUT ?= bench/results/scenarios.json
SRC := core text packs corrections extract consolidation vectors graph service web api doors \
  gumem tools tests bench

.PHONY: install models run test test-unit test-reliability check format format-check lint types neo4j-stop bench bench-locomo bench-memdaily bench-load bench-workers eval-scenarios schema

install: .venv/.installed

.venv/.installed: pyproject.toml uv.lock
	@command -v uv >/dev/null 2>&1 || test -x $(UV) || python3 -m pip install --quiet --user uv
	$(UV) sync --frozen --extra dev
	@# jieba has invalid escapes: compile it once so tests (warnings as errors) never see them
	$(PY) -W ignore -m compileall -q .venv/lib/python3.11/site-packages/jieba >/dev/null
	@touch $@

models: install
	$(PY) -m tools models prepare

run: install models
	$(PY) -m tools serve

test: install models
	$(PY) -m pytest -m "not reliability" -ra

test-unit: install
	$(PY) -m pytest tests/unit -ra

test-reliability: install models
	$(PY) -m pytest -m reliability -ra -s

format: install
	$(PY) -m ruff format $(SRC)

format-check: install
	$(PY) -m ruff format --check $(SRC)

lint: install
	$(PY) -m ruff check $(SRC)

types: install
	$(PY) -m mypy

# CI (.ci/run): formatting, lint and types hold on main, then the README's test command
check: format-check lint types test

schema: install
	$(PY) -m api.export > schema.graphql

neo4j-stop: install
	$(PY) -m tools neo4j stop

bench: install models
	$(PY) -m bench.run_all --locomo $(LOCOMO) $(BENCH_FLAGS)

bench-locomo: install models
	$(PY) -m bench.locomo --data $(LOCOMO) --out $(LOCOMO_OUT)

# MemDaily (Chinese personal-assistant memory): GUMem beside BM25 (jieba), dense and RRF
# over the same messages, per question type and entity domain (MEMDAILY_FLAGS="--per-file N")
bench-memdaily: install models
	$(PY) -m bench.memdaily --data $(MEMDAILY) --out $(MEMDAILY_OUT) $(MEMDAILY_FLAGS)

# issue 19: mixed load on a uvicorn API (8 and 32 clients, 60 s each) and full processing by
# 1, 2 and 4 `gumem worker` processes (600 messages); each on its own Neo4j (bolt 7690 unless
# BENCH_FLAGS="--bolt-port N --http-port M", or --neo4j-uri)
bench-load: install models
	$(PY) -m bench.load $(BENCH_FLAGS)

bench-workers: install models
	$(PY) -m bench.workers $(BENCH_FLAGS)

# the scenario suite over GraphQL on a private Neo4j (bolt 7700); EVAL_FLAGS="--case NAME --verbose"
eval-scenarios: install models
	$(PY) -m bench.scenarios --scenarios $(SCENARIOS) --out $(SCENARIOS_OUT) $(EVAL_FLAGS)

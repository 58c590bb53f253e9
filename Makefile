# survey: `make survey` and `make test` are all a new user needs (set-up included).
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NATIVE := $(VENV)/.native-walker
ROOT   ?=

.PHONY: survey test bench lint samples clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

# The walk's C core: optional (the Python walker gives identical tables, slower); a failed
# build is reported, and the survey goes on without it.
$(NATIVE): $(STAMP) survey/census/_walkcore.c
	$(BIN)/python -m survey.census.build
	touch $(NATIVE)

## survey: survey every runtime whose root exists here (else the bundled demo corpus) -> reports/
survey: $(NATIVE)
	$(BIN)/survey run --or-demo --on-exists auto
	@echo "Pages are in reports/ (start with reports/index.md); snapshots in snapshots/."

## test: the whole test suite (what CI runs)
test: $(NATIVE)
	$(BIN)/pytest

## bench: throughput against a bare orjson parse and a raw rg pass (ROOT=DIR for a real corpus)
bench: $(NATIVE)
	$(BIN)/python -m bench.run $(if $(ROOT),--root $(ROOT),)

## lint: ruff and mypy
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy survey bench

## samples: pages of the real public samples in ../shared/corpora -> samples/ (outside reports/)
samples: $(NATIVE)
	$(BIN)/python -m survey.samples --out samples

clean:
	rm -rf reports snapshots discover samples .demo .pytest_cache .ruff_cache .mypy_cache

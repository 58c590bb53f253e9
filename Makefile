# survey: `make survey` and `make test` are all a new user needs (set-up included).
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ROOT   ?=

.PHONY: survey test bench lint samples clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

## survey: survey every runtime whose root exists here (else the bundled demo corpus) -> reports/
survey: $(STAMP)
	$(BIN)/survey run --or-demo --on-exists auto
	@echo "Pages are in reports/ (start with reports/index.md); snapshots in snapshots/."

## test: the whole test suite (what CI runs)
test: $(STAMP)
	$(BIN)/pytest

## bench: throughput against a bare orjson parse and a raw rg pass (ROOT=DIR for a real corpus)
bench: $(STAMP)
	$(BIN)/python -m bench.run $(if $(ROOT),--root $(ROOT),)

## lint: ruff and mypy
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy survey

## samples: pages of the real public samples in ../shared/corpora -> samples/ (outside reports/)
samples: $(STAMP)
	$(BIN)/python -m survey.samples --out samples

clean:
	rm -rf reports snapshots discover samples .demo .pytest_cache .ruff_cache .mypy_cache

# survey: `make survey` and `make test` are all a new user needs (set-up included).
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NATIVE := $(VENV)/.native-walker
ROOT   ?=
RUNTIME ?=

.PHONY: survey test bench lint samples mutate docs lock clean fuzz

# the versions CI tested (constraints.txt, written by `make lock`)
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]' -c constraints.txt
	ln -sf survey-duckdb $(BIN)/duckdb  # the pages' `duckdb` commands, on the survey's own engine
	touch $(STAMP)

# The walk's C core: optional (the Python walker gives identical tables, slower); a failed
# build is reported, and the survey goes on without it.
$(NATIVE): $(STAMP) survey/census/_walkcore.c
	$(BIN)/python -m survey.census.build
	touch $(NATIVE)

# The package's byte code, written here: where PYTHONDONTWRITEBYTECODE is set, every process
# would otherwise compile the survey's modules from source each run, the walk's fork server
# too, inside the run (importing the walk's modules: 0.36 s from source, 0.25 s from byte
# code). compileall writes only what changed; a stale file is compiled again in memory.
COMPILED := $(VENV)/.compiled
$(COMPILED): $(STAMP) $(wildcard survey/*.py survey/*/*.py survey/*/*/*.py)
	$(BIN)/python -m compileall -q survey
	touch $(COMPILED)

## survey: survey every runtime whose root exists here (else the bundled demo corpus) -> reports/;
## then the history page of every runtime with more than one snapshot (the demo's planted dates first)
survey: $(NATIVE) $(COMPILED)
	$(BIN)/survey run --or-demo --on-exists auto
	$(BIN)/survey history --or-demo
	@echo "Pages are in reports/ (start with reports/index.md); snapshots in snapshots/."

# the optional Spark extra (`survey merge --engine spark`), which `make test` installs so the
# merge's engine-equality test runs (it is skipped, saying why, only where Java is absent)
SPARK := $(VENV)/.spark
$(SPARK): $(STAMP)
	$(BIN)/pip install -q -e '.[spark]' -c constraints.txt
	touch $(SPARK)

## test: the whole test suite (what CI runs), the Spark extra installed first
test: $(NATIVE) $(COMPILED) $(SPARK)
	$(BIN)/pytest

## bench: throughput against a bare orjson parse and a raw rg pass (ROOT=DIR RUNTIME=NAME for a real corpus);
## MERGE=1 adds `survey merge` of 10 -> 100 -> 1,000 machines on DuckDB and Spark local (bench/merge.py)
MERGE ?=
bench: $(NATIVE) $(COMPILED)
	$(BIN)/python -m bench.run $(if $(ROOT),--root '$(ROOT)',) $(if $(RUNTIME),--runtime $(RUNTIME),)
	$(if $(MERGE),$(BIN)/python -m bench.merge,)

## mutate: mutation testing of the modules that make promises, each against its mapped tests
## (tools/mutate/modules.toml); prints the kill rate per module and every survivor. Not part of
## `make test`. MODULES='survey/corpus/privacy.py ...' for some; MUTATE_JOBS=N mutants at once.
MODULES ?=
MUTATE_JOBS ?= 2
mutate: $(NATIVE) $(COMPILED)
	$(BIN)/python -m tools.mutate --jobs $(MUTATE_JOBS) $(MODULES)

## fuzz: the C core fuzzed against its references for FUZZ_SECONDS (default 180): atheris on the
## normal build for a third of it (coverage-guided, where atheris installs), then a build with
## AddressSanitizer + UndefinedBehaviorSanitizer (a temp folder: the normal build is left alone)
## replays what it found and goes on with hypothesis; failing inputs are kept in tests/fuzz_cases/
FUZZ_SECONDS ?= 180
FUZZ_CASES   ?= tests/fuzz_cases
fuzz: $(NATIVE) $(COMPILED)
	@$(BIN)/pip install -q atheris >/dev/null 2>&1 || echo "fuzz: atheris did not install: hypothesis alone"
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	asan=$$($${CC:-cc} -print-file-name=libasan.so); \
	core=$$($(BIN)/python -m survey.census.build --sanitize "$$tmp/core"); \
	third=$$(( $(FUZZ_SECONDS) / 3 )); rest=$$(( $(FUZZ_SECONDS) - third )); \
	if $(BIN)/python -c 'import atheris' 2>/dev/null; then \
	  $(BIN)/python -m tests.fuzz_harness --engine atheris --seconds $$third --cases $(FUZZ_CASES) \
	    --corpus "$$tmp/corpus" >"$$tmp/runs" 2>"$$tmp/atheris.log" || { tail -40 "$$tmp/atheris.log"; exit 1; }; \
	  cat "$$tmp/runs"; \
	else rest=$(FUZZ_SECONDS); fi; \
	LD_PRELOAD="$$asan" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	$(BIN)/python -m tests.fuzz_harness --engine hypothesis --core "$$core" --seconds $$rest \
	  --cases $(FUZZ_CASES) --corpus "$$tmp/corpus" --pending "$$tmp/input" >"$$tmp/runs2" \
	  && cat "$$tmp/runs2" && cat "$$tmp/runs2" >>"$$tmp/runs" \
	  || { cat "$$tmp/runs2"; mkdir -p $(FUZZ_CASES); f=$(FUZZ_CASES)/sanitizer-$$(sha1sum "$$tmp/input" | cut -c1-16).bin; \
	       cp "$$tmp/input" "$$f"; echo "fuzz: the sanitized run failed: its input kept as $$f"; exit 1; }; \
	echo "fuzz: $$(awk '/executions/ {n += $$2} END {print n}' "$$tmp/runs") executions in all, no failure"

## lint: ruff and mypy
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy survey bench

## samples: pages of the real public samples in ../shared/corpora -> samples/ (outside reports/)
samples: $(NATIVE) $(COMPILED)
	$(BIN)/python -m survey.samples --out samples

## docs: write docs/cli.md from the CLI and performance.md's table from bench/results (tests fail while stale)
docs: $(STAMP)
	$(BIN)/python -m survey.clidoc > docs/cli.md
	$(BIN)/python -m bench.table --into docs/performance.md

## lock: pin every package of a fresh install into constraints.txt
lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install -q --upgrade pip
	.lock-venv/bin/pip install -q -e '.[dev,spark]'
	( sed -n '1,2p' constraints.txt; .lock-venv/bin/pip freeze --exclude-editable ) > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf .lock-venv

## clean: what the survey wrote here (pages, snapshots, the demo corpus, tool caches). It leaves
## .venv, the cache folder (`survey cache info`; `survey cache clean` empties it) and the salt.
clean:
	rm -rf reports snapshots discover samples .demo .pytest_cache .ruff_cache .mypy_cache

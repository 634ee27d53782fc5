# `make run` and `make test` set everything up themselves on a fresh machine: `run` installs
# what biomd needs to run, `test` also the development tools (pytest, ruff, mypy, Playwright…).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint install clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "biomd needs Python 3.11 or newer; found " + sys.version.split()[0])'
	@echo "Setting up $(VENV) (first run only; a few minutes)…"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip > $(VENV)/install.log 2>&1 \
		|| { cat $(VENV)/install.log; exit 1; }

# pip's own notices (build back-end warnings, upgrade hints) go to .venv/install.log; a
# failure prints them.
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing what biomd needs (its log: $(VENV)/install.log)…"
	@$(BIN)/python -m pip install --quiet -e . >> $(VENV)/install.log 2>&1 \
		|| { cat $(VENV)/install.log; exit 1; }
	@touch $(RUN_STAMP)

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing biomd with its development tools (its log: $(VENV)/install.log)…"
	@$(BIN)/python -m pip install --quiet -e '.[dev,bench]' >> $(VENV)/install.log 2>&1 \
		|| { cat $(VENV)/install.log; exit 1; }
	@touch $(DEV_STAMP) $(RUN_STAMP)

install: $(RUN_STAMP)

run: $(RUN_STAMP)
	@$(BIN)/biomd run

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

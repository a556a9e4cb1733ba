# The two commands a newcomer needs: `make sim` runs the product, `make test` runs every test.
# Both create the virtual environment and install the host tooling first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: sim test bench game-math clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $(STAMP)

sim: $(STAMP)
	$(PY) -m tools.sim $(ARGS)

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -q $(ARGS)

bench: $(STAMP)
	$(PY) -m tools.bench

game-math: $(STAMP)
	$(PY) -m tools.game_math $(ARGS)

clean:
	rm -rf $(VENV) build .pytest_cache

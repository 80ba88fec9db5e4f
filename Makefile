# Two entry points (see README): `make demo` and `make test`. Both create and use .venv/.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: demo demo-terminal test lint venv train clean android-src android

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	bash scripts/install-system-libs.sh
	$(BIN)/python -m pip install --quiet -e ".[dev,app]"
	touch $(STAMP)

venv: $(STAMP)

# The main job on a bundled default: the app refereeing the bundled Eagle Kingdoms recording;
# without a display, the same seeded game refereed in the terminal.
demo: $(STAMP)
	@if [ -n "$${DISPLAY}$${WAYLAND_DISPLAY}" ]; then \
		$(BIN)/companion app --source demo --autoplay 0.8; \
	else \
		echo "No display found: refereeing the seeded demo game in the terminal instead."; \
		$(MAKE) --no-print-directory demo-terminal; \
	fi

demo-terminal: $(STAMP)
	$(BIN)/companion play eagle-kingdoms --players Ann,Ben,Cy --auto --seed 7

# The whole test suite, headless (what CI runs).
test: $(STAMP)
	$(BIN)/python -m ruff check companion tests
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/python -m ruff check companion tests
	$(BIN)/python -m mypy

# Reproduce the dice models (needs the `train` extra: CPU torch, pinned): detector and classifier, then the
# d8 reader, which writes the model cards once all three are in place.
train: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev,train]"
	COMPANION_SKIP_CARDS=1 $(BIN)/python -m companion.workshop.dice.train
	$(BIN)/python -m companion.workshop.dice.train_d8

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache

# The Android build's sources, staged where buildozer.spec looks (source.dir): the APK's main.py at the root,
# the companion package beside it, models/ and calibration/ inside it where an installed wheel has them
# (companion.data.models, companion.data.calibration). Python files only: no caches, no training code.
ANDROID_SRC ?= android/build-src
android-src:
	rm -rf $(ANDROID_SRC) && mkdir -p $(ANDROID_SRC)
	cp android/main.py $(ANDROID_SRC)/
	tar -C . --exclude=__pycache__ --exclude='*.pyc' -cf - companion | tar -C $(ANDROID_SRC) -xf -
	tar -C . --exclude=__pycache__ -cf - models | tar -C $(ANDROID_SRC)/companion/data -xf -
	tar -C . --exclude=__pycache__ -cf - calibration | tar -C $(ANDROID_SRC)/companion/data -xf -
	@echo "staged $(ANDROID_SRC): cd android && buildozer android debug"

# The APK (needs buildozer and the Android SDK/NDK, which cannot be installed on the development machines).
android: android-src
	cd android && buildozer android debug

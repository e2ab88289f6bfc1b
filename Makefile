# Two commands matter: `make demo` and `make test`. Both build .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_HOME := $(CURDIR)/runs/.prefect
export PREFECT_LOGGING_LEVEL ?= WARNING
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 120

.PHONY: demo demo-review test lint test-browser bench bench-security bench-qc-real browser-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/hitflow run config/vizwiz_captions.toml --target sim

# The demo campaign with [policy] review = "flagged": each batch waits after QC and a scripted
# reviewer (an HTTP client of `hitflow review`'s page) clears the queue before the run goes on.
demo-review: $(STAMP)
	$(BIN)/python -m flows.review_demo

# Debian's chromium for the browser tests; Playwright's own browser download is not
# reachable here. Needs root; without it the browser tests skip loudly (fail under CI=true).
browser-deps:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
		|| echo "WARNING: could not install chromium; browser tests will skip"; \
	else echo "WARNING: not root, chromium not installed; browser tests will skip"; fi

lint: $(STAMP)
	$(BIN)/ruff check flows qc postprocess tests bench
	$(BIN)/mypy

test: $(STAMP) browser-deps lint
	$(BIN)/pytest

test-browser: $(STAMP) browser-deps
	$(BIN)/pytest -m browser

bench: $(STAMP)
	$(BIN)/python -m bench.run_all

bench-security: $(STAMP)
	$(BIN)/python -m bench.security

# QC rules over the real VizWiz v1 val captions (../shared/data): recall and false flags per rule
bench-qc-real: $(STAMP)
	$(BIN)/python -m bench.qc_real

clean:
	rm -rf $(VENV) runs

# Two commands matter: `make demo` and `make test`. Both build .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_HOME := $(CURDIR)/runs/.prefect
export PREFECT_LOGGING_LEVEL ?= WARNING
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 120

.PHONY: demo demo-review test docs lint js-sdk test-browser test-live-schedule test-docs-prefect bench bench-security bench-qc-real bench-qc-batch bench-qc-memory bench-sim-state bench-submit-rules bench-chaos bench-scale bench-determinism pg-deps bench-browser-workers bench-telemetry bench-authenticity bench-custom-qc bench-custom-truth bench-gate bench-gate-heldout bench-gate-heldout2 bench-gate-heldout3 bench-gate-heldout4 bench-gate-heldout5 bench-gate-heldout6 bench-gate-heldout7 bench-gate-heldout8 bench-gate-heldout9 bench-gate-heldout10 bench-gate-heldout11 bench-gate-heldout12 bench-gate-heldout13 bench-gate-heldout14 bench-gate-heldout15 bench-gate-heldout16 bench-gate-heldout17 bench-gate-heldout18 bench-gate-heldout19 bench-gate-heldout20 bench-gate-heldout21 bench-gate-heldout22 bench-gate-heldout23 bench-gate-heldout24 bench-slow-clients bench-latency bench-prefect browser-deps clean

# pip compiles every module it installs (18,000 files, 47 s of CPU), most never imported: transformers
# (crowd-kit's requirement, never imported by it), pip, setuptools, mypy's sources beside its compiled
# modules, moto (the S3 test imports a corner of it) and the packages' own test suites. Installed
# uncompiled, then compiled without those: 19 s of CPU; what is imported from them is compiled on first use.
# Not compiling at all would cost more: the three xdist workers start together and each would compile the
# ~3,200 modules its collection imports (10 s of CPU with an empty PYTHONPYCACHEPREFIX, stdlib included).
NEVER_IMPORTED := /site-packages/(transformers|huggingface_hub|moto|pip|setuptools|mypy|mypyc)/|/tests?/|/testing/

$(STAMP): pyproject.toml
	# pip put in by the interpreter's own pip (--python: pip >= 22.3): venv's ensurepip ran pip once more only
	# to install Python's bundled pip, upgraded the next moment (3.5 -> 1.3 s of CPU); without a pip that can,
	# as venv does by default
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile --upgrade pip 'setuptools>=77' \
		|| { $(PYTHON) -m venv $(VENV) && $(BIN)/pip install --quiet --no-compile --upgrade pip 'setuptools>=77'; }
	# setuptools (pyproject.toml's build-system) is in the venv now: without build isolation pip does not
	# install it again into a temporary environment to build hitflow's editable wheel (3.3 -> 1.7 s of CPU)
	$(BIN)/pip install --quiet --no-compile --no-build-isolation -e '.[dev]'
	# pyrolific (a client generated from Prolific's OpenAPI) judges the simulator's Prolific replies in
	# tests/test_prolific_schema.py. Test-only, and installed without its own pins: it caps httpx
	# below 0.28 by habit of its generator, and hitflow's httpx (with attrs, dateutil) serves it.
	$(BIN)/pip install --quiet --no-compile --no-deps 'pyrolific==1.5.1'
	$(BIN)/python -m compileall -q -x '$(NEVER_IMPORTED)' $(VENV)/lib >/dev/null || :  # as pip: a file that does not compile is not fatal
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/hitflow run config/vizwiz_captions.toml --target sim

# The demo campaign with [policy] review = "flagged": each batch waits after QC and a scripted
# reviewer (an HTTP client of `hitflow review`'s page) clears the queue before the run goes on.
demo-review: $(STAMP)
	$(BIN)/python -m flows.driver.review_demo

# Debian's chromium and its headless shell (what the browser workers and tests launch: a page at about a third of
# the CPU) for the browser tests; Playwright's own browser download is not
# reachable here. Needs root; without it the browser tests skip loudly (fail under CI=true).
browser-deps:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromium-headless-shell ]; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver \
			libjs-jquery >/dev/null) || echo "WARNING: could not install chromium; browser tests will skip"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 \
		|| echo "note: no chromium-headless-shell; the browser tests launch chromium (slower)"; \
	elif [ -x /usr/bin/chromium ]; then :; \
	else echo "WARNING: not root, chromium not installed; browser tests will skip"; fi

lint: $(STAMP)
	$(BIN)/ruff check flows qc postprocess tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache  # the layers of flows/ (pyproject.toml [tool.importlinter])

# The suite on PYTEST_WORKERS processes (pytest-xdist; docs/testing.md). Many tests wait on
# subprocesses, HTTP and the simulator's clock rather than on the CPU (two workers kept two cores 125-131%
# busy), so three share two cores: 8:35 of wall against 10:46, for 2.6% more CPU (each worker pays its own
# start, collection and servers; docs/speed.md). PYTEST_WORKERS=2 for the least CPU.
# --dist loadfile keeps a file's tests on one worker, so a module's fixtures (a Chromium, a
# Prefect server, a reference run) start once; files go out in collection order, where
# tests/conftest.py puts those on the shared Prefect server, then those marked slow, first. Lint
# and the docs build run beside the tests
# (mypy from a clean clone is ~30 s of one core) and their output follows the tests'.
PYTEST_WORKERS ?= 3
PYTEST_DIST ?= loadfile
# Bytecode is cached even where the environment says not to (PYTHONDONTWRITEBYTECODE=1, as on the shared
# host): without the cache every pytest worker rewrites and compiles the test modules and hypothesis
# again (collection 14.0 -> 7.9 s of CPU per process) and every `hitflow` process compiles flows/.
# Stopped (SIGTERM to make, which passes it to this shell; Ctrl-C reaches pytest itself), the shell hands
# the signal to pytest and waits for it: pytest stops its servers and ends whatever else the run started
# (tests/reaper.py), so nothing is left running.
test: $(STAMP) browser-deps pg-deps js-sdk
	@side_log=$$(mktemp); $(MAKE) --no-print-directory lint docs >"$$side_log" 2>&1 & side=$$!; \
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest -n $(PYTEST_WORKERS) --dist $(PYTEST_DIST) --no-loadscope-reorder $(PYTEST_ARGS) & pytest=$$!; \
	trap 'kill -TERM $$pytest $$side 2>/dev/null' TERM HUP; trap ':' INT; \
	wait $$pytest; tests=$$?; while kill -0 $$pytest 2>/dev/null; do wait $$pytest; tests=$$?; done; \
	wait $$side; checked=$$?; echo "--- make lint docs (run beside the tests):"; cat "$$side_log"; rm -f "$$side_log"; \
	if [ $$checked -ne 0 ]; then echo "make test: lint or docs FAILED (above)"; fi; \
	[ $$tests -eq 0 ] && [ $$checked -eq 0 ]

# The documentation site (mkdocs.yml, docs/) into runs/site/. --strict: a broken link or anchor, a page
# missing from docs/ or left out of the nav is an error. The config and command references are filled
# from the code while it builds (docs/hooks/reference.py).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Debian's PostgreSQL server binaries (initdb, pg_ctl) for the PostgreSQL ledger's tests, which start
# their own throwaway server (bench/throwaway_pg.py). Needs root; without them those tests skip
# loudly (fail under CI=true).
pg-deps:
	@if command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) \
		|| echo "WARNING: could not install postgresql; the PostgreSQL tests will skip"; \
	else echo "WARNING: not root, postgresql not installed; the PostgreSQL tests will skip"; fi

# The AWS SDK for JavaScript v3's MTurk client (tests/test_mturk_clients.py), from the lock file,
# again only when the lock changed. Without npm the tests skip; under CI=true they fail if node
# is there but the package is not.
js-sdk:
	@if ! command -v npm >/dev/null; then echo "WARNING: npm not installed; the JavaScript SDK tests will skip"; \
	elif [ ! tests/js_sdk/node_modules/.package-lock.json -nt tests/js_sdk/package-lock.json ]; then \
		(cd tests/js_sdk && npm ci --no-audit --no-fund --loglevel=error) \
		|| echo "WARNING: npm ci failed in tests/js_sdk; the JavaScript SDK tests will skip (fail under CI=true)"; fi

test-browser: $(STAMP) browser-deps
	$(BIN)/pytest -m browser

bench: $(STAMP)
	$(BIN)/python -m bench.run_all

# CPU of `hitflow --help`, `status` (a finished campaign, one waiting for review) and `aggregate` on 12 rows,
# each a fresh process, against 0.5 s, with the load average
.PHONY: bench-cli-startup
bench-cli-startup: $(STAMP)
	$(BIN)/python -m bench.cli_startup

# CPU a run pays again and again, old way against new in one process, each >= 2x cheaper:
# the CLI's parser, the caption bank, telemetry on the built-in pages, safe_url, the simulator clock call
.PHONY: bench-per-run-cpu
bench-per-run-cpu: $(STAMP)
	$(BIN)/python -m bench.per_run_cpu

# CPU of a campaign report's figures (1 to 43 batches, answers, scores, studies) drawn fresh and rewritten,
# against the way before the output-speed work (same PNG bytes), target <= half rewritten: bench/results-report-figures.json
.PHONY: bench-report-figures
bench-report-figures: $(STAMP)
	$(BIN)/python -m bench.report_figures

# A newcomer's afternoon end to end: a fresh clone, `make demo` (builds its own .venv; NEWCOMER_VENV=
# path reuses a built one), a custom sentiment page with controls, Ctrl-C, cancel, a pilot grown to 69 items,
# status, report, ui; PASS/FAIL per check (bench/newcomer.py). Minutes: not part of `make test`.
.PHONY: bench-newcomer
bench-newcomer: $(STAMP)
	$(BIN)/python -m bench.newcomer $(NEWCOMER_ARGS)

# The own-task work's newcomer on two pages of their own (a caption rating with a reason, a review's sentiment with an
# optional comment): imported with --from, control items, review = "flagged", MTurk and Prolific simulators, review
# cards read against the ledger, route words, decisions across views, aggregate --field against answers.csv, and a
# Prolific schedule served by the command `hitflow deploy` prints (a Prefect server); PASS/FAIL per check
# (bench/newcomer_own_pages.py; NEWCOMER_VENV=path chooses the venv). Minutes: not part of `make test`.
.PHONY: bench-newcomer-own-pages
bench-newcomer-own-pages: $(STAMP)
	$(BIN)/python -m bench.newcomer_own_pages $(NEWCOMER_ARGS)

# Server CPU time of `hitflow ui`'s pages (overview, /status.json, each campaign's report, review queue, its last
# page and one worker's cards), first load and reload, target
# 1 s each on a 40,000-image ledger: LEDGER=path (read from a copy; make one with `hitflow run
# config/vizwiz_full_scale.toml --no-prefect --db X`, ~15 min); without LEDGER a 10-image campaign's (seconds)
.PHONY: bench-ui-pages
bench-ui-pages: $(STAMP)
	$(BIN)/python -m bench.ui_pages $(if $(LEDGER),--db $(LEDGER))

bench-security: $(STAMP)
	$(BIN)/python -m bench.security

# `hitflow new --from` on pages of 30,000 to 300,000 ${x} placeholders: seconds and peak RSS
bench-placeholder-import: $(STAMP)
	$(BIN)/python -m bench.placeholder_import

# 2,000 slow connections (trickled heads and bodies, from 40 addresses) against a task server at a
# 1,024 and then a raised open-file limit: /health latency, submits landed, log bytes, RSS (~3 min)
bench-slow-clients: $(STAMP)
	$(BIN)/python -m bench.slow_clients

# QC rules over the real VizWiz v1 val captions (../shared/data): recall and false flags per rule
bench-qc-real: $(STAMP)
	$(BIN)/python -m bench.qc_real

# every QC rule over campaign-sized batches (seeded, and real captions): CPU per batch beside the QC before
# the output-speed work, same run (target: at most half); writes bench/results-qc-batch.json (~1 min)
bench-qc-batch: $(STAMP)
	$(BIN)/python -m bench.qc_batch_speed

# `hitflow qc` on 200,000 captions under /usr/bin/time -v: peak RSS and CPU (<= 300 MB, <= 3 s);
# OTHER=<checkout> measures that tree's code alternately, side by side (~1 min)
bench-qc-memory: $(STAMP)
	$(BIN)/python -m bench.qc_memory $(if $(OTHER),--other $(OTHER))

# the five submit rules over 200,000 captions: each registered QC rule and violations() per caption (CPU s)
bench-submit-rules: $(STAMP)
	$(BIN)/python -m bench.submit_rules_speed

# the simulator's state file vs in memory: per-call overhead and reopen time (N HITs x 5 assignments)
bench-sim-state: $(STAMP)
	$(BIN)/python -m bench.sim_state $(or $(HITS),2000)

# Post, collect, QC and decide 300 HITs x 5 at 150 ms per call (simulator in its own process,
# rate limit RATE/s, default 100) against a naive sequential boto3 loop; prints the ratio (target
# >= 10x) and writes bench/results-latency.json (about 7 minutes: the naive loop is most of it)
bench-latency: $(STAMP)
	$(BIN)/python -m bench.latency --hits $(or $(HITS),300) --rate-limit $(or $(RATE),100)

# The demo campaign under Prefect and with --no-prefect, alternately (PAIRS pairs, default 3);
# prints the medians and their ratio (target <= 1.5x), writes bench/results-prefect.json
bench-prefect: $(STAMP)
	$(BIN)/python -m bench.prefect_overhead --pairs $(or $(PAIRS),3)

# kill -9 x 50 over publish/collect/review/block/postprocess, then 30% throttling + 5% 5xx + lost
# replies; prints the counts and writes bench/results-chaos.json (about 10 minutes).
# DB=postgres: every campaign's ledger is a database on a throwaway PostgreSQL server (pg-deps),
# results in bench/results-chaos-postgres.json.
bench-chaos: $(STAMP)
	$(BIN)/python -m bench.chaos $(if $(filter postgres,$(DB)),--db postgres,)

# kill -9 of the adaptive campaign (bench.adaptive_campaign's, ITEMS of them, default 300) on MTurk-sim
# (ROUTE=prolific or links: those routes),
# mostly between an extension round's intents and their settling or during its collection, resumed to
# the end: duplicate extensions, lost judgements, answers.csv against an uninterrupted run;
# writes bench/results-chaos-adaptive.json
.PHONY: bench-chaos-adaptive bench-placeholder-import
bench-chaos-adaptive: $(STAMP)
	$(BIN)/python -m bench.chaos_adaptive --items $(or $(ITEMS),300) $(if $(KILLS),--kills $(KILLS)) --route $(or $(ROUTE),mturk)

# 500, 4,000 (seeds 1-3), 39,181 and 330,000 images (COCO's size) end to end on a simulator in its own
# process, then 1,000 HITs posted sequentially and by hitflow's pool at 150 ms per call; writes
# bench/results-scale.json (over an hour; SIZES=500,4000 for fewer). Not part of CI.
# Two runs with the same seed give byte-identical outputs: 4,000 images of the full-scale
# config, fresh ledgers, side by side; LIMIT=, CONFIG=, PLATFORM= to vary. bench/results-determinism.json.
bench-determinism: $(STAMP)
	$(BIN)/python -m bench.determinism $(if $(LIMIT),--limit $(LIMIT)) $(if $(CONFIG),--config $(CONFIG)) $(if $(PLATFORM),--platform $(PLATFORM))

bench-scale: $(STAMP)
	$(BIN)/python -m bench.scale $(if $(SIZES),--sizes $(SIZES))

# The 39,181-image run as a user types it (embedded simulator) under /usr/bin/time -v, RSS sampled
# beside its progress lines; adds the run to as_run_embedded in bench/results-scale.json (~5-15 min)
.PHONY: bench-as-run
bench-as-run: $(STAMP)
	$(BIN)/python -m bench.as_run --save --commit "$$(git rev-parse --short HEAD)"

# Planted typos restored by hitflow and by symspellpy on the same dictionary, common misspellings at
# 200,000 captions, accented rewrites, a sample of edits on real VizWiz captions: bench/results-spelling.json
.PHONY: bench-spelling-quality
bench-spelling-quality: $(STAMP)
	$(BIN)/pip install --quiet 'symspellpy==6.*'
	$(BIN)/python -m bench.spelling_quality

# The telemetry rules against the simulator's truth at 500, 4,000 and 39,181 images: precision,
# false flags on honest workers, assistant pasters blocked before the last batch, beside Prolific's
# published 98.7% / 0.6%; writes bench/results-authenticity.json (SIZES=demo,4k for a shorter run)
bench-authenticity: $(STAMP)
	$(BIN)/python -m bench.authenticity --sizes $(or $(SIZES),demo,4k,full)

# QC on a crowd-form page (bench/custom_page: free text + a per-button radio group) beside the caption
# task's, same crowd (vizwiz_authenticity) and items: recall on bad workers, honest false flags, honest
# answers repeating the page's instructions; writes bench/results-custom-qc.json (ITEMS, default 500)
# The gate on three pages of our own (bench/gate_pages/, imported as a user imports them) on the MTurk and the
# Prolific simulator, beside the caption demo: bad-profile work approved unnoticed, honest workers blocked,
# approved answers with a required field blank; writes bench/results-gate.json. ITEMS: items a page (30).
bench-gate: $(STAMP)
	$(BIN)/python -m bench.gate_bench --items $(or $(ITEMS),30)

# The gate and the rehearsal on seven held-out pages nobody tuned on (bench/gate_heldout/), MTurk and Prolific simulators; writes bench/results-gate-heldout.json. REPO: another checkout's code
bench-gate-heldout: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS))

# The same on five more held-out pages of other shapes (bench/gate_heldout2/); writes bench/results-gate-heldout2.json
# Honest simulated free text on pages written fresh for it (bench/words_pages/): per page, the share that answers
# the question asked within the page's stated limits (bench/words_answered.py): bench/results-words-answered.json
.PHONY: bench-words
bench-words: $(STAMP)
	$(BIN)/python -m bench.words_answered $(if $(LABEL),--label $(LABEL))

# The same for what someone should do, what a rule leaves unclear and a notice's title (bench/words_pages3/,
# bench/words_answered3.py; its kept-out pages with KEPT=1): bench/results-words-answered3.json
.PHONY: bench-words3
bench-words3: $(STAMP)
	$(BIN)/python -m bench.words_answered3 $(if $(KEPT),--kept) $(if $(LABEL),--label $(LABEL))

bench-gate-heldout2: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout2 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS))

# The same on a third held-out set written from the user docs alone (bench/gate_heldout3/); writes
# bench/results-gate-heldout3.json under LABEL (default: the measured code's commit)
bench-gate-heldout3: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout3 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label $(LABEL))

# The same on a fourth held-out set written by an independent tester (bench/gate_heldout4/: a one-item image
# comparison, a two-item checkbox group, a five-item page checked by its own script, a star widget writing a
# hidden field, an attention question); writes bench/results-gate-heldout4.json under LABEL (default: the commit)
bench-gate-heldout4: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout4 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label $(LABEL))

# The same on a fifth held-out set by an independent tester (bench/gate_heldout5/: a select-all-that-apply job ad
# checked by its script, four meter readings a page, a podcast clip with an attention select and a disabled Submit,
# three question pairs with a slider, an HTMLQuestion XML receipt); writes bench/results-gate-heldout5.json under
# LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout5: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout5 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a sixth held-out set by an independent tester (bench/gate_heldout6/: a plain one-item page of
# required radio, number and text, three selects a page, a two-item select-all-that-apply checked by a script
# button that ends in form.submit(), a one-item survey page with a checkbox attention item and a script word
# range); writes bench/results-gate-heldout6.json under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout6: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout6 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a seventh held-out set by an independent tester (bench/gate_heldout7/: four pages, one and several
# items a page, plain and script-checked, see bench/gate_heldout7.py); writes bench/results-gate-heldout7.json
# under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout7: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout7 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on an eighth held-out set by an independent tester (bench/gate_heldout8/: a one-item customer reply
# with a shown-only word range, two forum posts a page with "at least one box" by setCustomValidity, a crowd-form
# chart with a number and a script word range, five library books a page with a box required only on "repair",
# three listings a page with a slider and a one-question box); writes bench/results-gate-heldout8.json under
# LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout8: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout8 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a ninth held-out set by an independent tester (bench/gate_heldout9/: a one-item museum label with
# a rewrite whose 8-30 words a capture-phase submit listener on document requires, three emails a page with a
# select and a clue made required by a load-time loop over a class, a crowd-form bird record whose verdict and
# "at least one box" are the submit listener's, four camera frames a page with every box required until one is
# ticked, four notice-board posts a page with a date input); writes bench/results-gate-heldout9.json under
# LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout9: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout9 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))
# The same on a tenth held-out set by an independent tester (bench/gate_heldout10/: five pages, each with a
# 30-item file, described in bench/gate_heldout10.py's docstring); writes bench/results-gate-heldout10.json
# under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout10: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout10 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on an eleventh held-out set by an independent tester (bench/gate_heldout11/: five pages, each with a
# 30-item file, described in bench/gate_heldout11.py's docstring); writes bench/results-gate-heldout11.json
# under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout11: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout11 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a twelfth held-out set by an independent tester (bench/gate_heldout12/: five pages, each with a
# 30-item file, described in bench/gate_heldout12.py's docstring); writes bench/results-gate-heldout12.json
# under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout12: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout12 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a thirteenth held-out set by an independent tester (bench/gate_heldout13/: five pages, each with a
# 30-item file, described in bench/gate_heldout13.py's docstring); writes bench/results-gate-heldout13.json
# under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout13: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout13 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a fourteenth held-out set by an independent tester (bench/gate_heldout14/: five pages, each with a
# 30-item file, described in bench/gate_heldout14.py's docstring); writes bench/results-gate-heldout14.json
# under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout14: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout14 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a fifteenth held-out set by an independent tester (bench/gate_heldout15/: five pages, each with a
# 30-item file, described in bench/gate_heldout15.py's docstring); writes bench/results-gate-heldout15.json
# under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout15: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout15 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a sixteenth held-out set by an independent tester (bench/gate_heldout16/: five pages, each with a
# 30-item file, described in bench/gate_heldout16.py's docstring); writes bench/results-gate-heldout16.json
# under LABEL (default: the commit). PAGES: a comma-separated subset
bench-gate-heldout16: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout16 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a seventeenth held-out set by an independent tester (bench/gate_heldout17/: five pages, each with a
# 30-item file, described in bench/gate_heldout17.py's docstring); writes bench/results-gate-heldout17.json
# (LABEL names the run, default the measured code's commit; PAGES=a,b runs some pages)
bench-gate-heldout17: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout17 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on an eighteenth held-out set by an independent tester (bench/gate_heldout18/: five pages, each with a
# 30-item file, described in bench/gate_heldout18.py's docstring); writes bench/results-gate-heldout18.json
# (LABEL=... names the run; PAGES=a,b runs some)
bench-gate-heldout18: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout18 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

bench-gate-heldout19: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout19 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a twentieth held-out set (bench/gate_heldout20/, described in bench/gate_heldout20.py); writes bench/results-gate-heldout20.json
bench-gate-heldout20: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout20 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a twenty-first held-out set (bench/gate_heldout21/, described in bench/gate_heldout21.py); writes bench/results-gate-heldout21.json
bench-gate-heldout21: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout21 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a twenty-second held-out set (bench/gate_heldout22/, described in bench/gate_heldout22.py); writes bench/results-gate-heldout22.json
bench-gate-heldout22: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout22 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a twenty-third held-out set (bench/gate_heldout23/, described in bench/gate_heldout23.py); writes bench/results-gate-heldout23.json
bench-gate-heldout23: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout23 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

# The same on a twenty-fourth held-out set (bench/gate_heldout24/, described in bench/gate_heldout24.py); writes bench/results-gate-heldout24.json
bench-gate-heldout24: $(STAMP)
	nice $(BIN)/python -m bench.gate_heldout24 $(if $(REPO),--repo $(REPO)) $(if $(ITEMS),--items $(ITEMS)) $(if $(LABEL),--label "$(LABEL)") $(if $(PAGES),--pages $(PAGES))

bench-custom-qc: $(STAMP)
	$(BIN)/python -m bench.custom_qc --items $(or $(ITEMS),500)

# Honest simulated workers against QC on five page shapes of our own (tests/pages/honest): each honest
# profile's block rate (goal 0) and each bad profile's recall, beside the caption task's, same crowd; writes
# bench/results-honest-text.json (SEED, default 1; COPIES of each item, default 8; ~1 min)
# short_answer (qc/short_answer.py) over real captions five a photo (Flickr8k, VizWiz v1 val; ../shared/data):
# the share of accepted captions it flags; writes bench/results-short-answer-real.json (~10 s)
.PHONY: bench-short-answer-real
bench-short-answer-real: $(STAMP)
	$(BIN)/python -m bench.short_answer_real

# Does honest simulated text answer the question a user's own page asks (bench/text_pages/, two held apart)?
# Each page imported with hitflow new --from and run on the MTurk simulator (~1-2 min; SEED, default 7)
.PHONY: bench-text-answers
bench-text-answers: $(STAMP)
	$(BIN)/python -m bench.text_answers --seed $(or $(SEED),7)

.PHONY: bench-honest-text
bench-honest-text: $(STAMP)
	$(BIN)/python -m bench.honest_text --seed $(or $(SEED),1) --copies $(or $(COPIES),8) --caption-items 100

# The simulated crowd against the truth on three custom pages of our own with answer columns
# (tests/pages/truth): accuracy per profile beside the model's expectation, and the QC figures
# beside the caption task's, same crowd; writes bench/results-custom-truth.json (SEED, default 1; ~2 min)
bench-custom-truth: $(STAMP)
	$(BIN)/python -m bench.custom_truth --seed $(or $(SEED),1) --caption-items 60

# Aggregated answers against majority vote on a simulated 1,000-item, 3-batch classification campaign
# (5 workers an item, the demo crowd plus consistently wrong workers), scored against sim_items.json;
# at 10 and 20 items a page, seeds 1-3, controls alone, with the agreement rule and pooled; writes
# bench/results-answers.json (~10 min on a quiet machine)
.PHONY: bench-answers
bench-answers: $(STAMP)
	$(BIN)/python -m bench.answers_accuracy

# targets on real data the suite measured twice, and figures it measured rather than pinned (rates over many
# trials, accuracy on real data, malloc arenas), kept as checks (exit 1 on a miss): bench/suite_targets.py, suite_measures.py
.PHONY: bench-suite-targets
bench-suite-targets: $(STAMP)
	$(BIN)/python -m bench.suite_targets

# crowd-kit's own fits that tests/test_fast_em.py, test_mace_em.py, test_answers.py, test_real_labels.py and
# test_aggregate_cli.py compare ours with, fitted live
# and each checked bit for bit against its record in tests/crowd_kit_recorded/, which the suite reads instead (~25 s
# of CPU saved a run); RECORD=1 writes the records again (new crowd-kit, new rows): tests/crowd_kit_parity.py
.PHONY: bench-crowd-kit-parity
bench-crowd-kit-parity: $(STAMP)
	HITFLOW_CROWD_KIT=$(if $(RECORD),record,live) $(BIN)/pytest -q -p no:cacheprovider tests/test_fast_em.py \
		tests/test_mace_em.py tests/test_answers.py tests/test_real_labels.py tests/test_aggregate_cli.py

# adaptive overlap replayed on Snow 2008 WSD (and RTE, Temporal from HITFLOW_RTE_LABELS, HITFLOW_TEMP_LABELS):
# accuracy vs share of labels; writes bench/results-adaptive.json
.PHONY: bench-adaptive
bench-adaptive: $(STAMP)
	$(BIN)/python -m bench.adaptive_replay

# adaptive overlap's defaults against full-overlap majority vote on the public sets and, per seed (SEEDS, default
# 0 1 2), the synthetic crowds of the held-out shapes; with the same judgements answered by the skill posterior and
# knowing the crowd (where a miss comes from). ADULT=1: AdultContent2's shape too (~5 s a seed)
.PHONY: bench-adaptive-seeds
bench-adaptive-seeds: $(STAMP)
	$(BIN)/python -m bench.adaptive_seeds --seeds $(or $(SEEDS),0 1 2) $(if $(ADULT),--adult)

# does the answers' confidence mean what it says? ECE, mean confidence and the reliability table beside accuracy,
# before (Dawid-Skene's own) and after, on Snow 2008 WSD (RTE, Temporal from HITFLOW_RTE_LABELS, HITFLOW_TEMP_LABELS)
# without controls and with half the gold as controls, and on the simulator's 1,000-item campaign; writes
# bench/results-calibration.json (about 3 min; NO_SIM=1: the real sets only, seconds)
.PHONY: bench-calibration
bench-calibration: $(STAMP)
	$(BIN)/python -m bench.calibration $(if $(NO_SIM),--no-sim,)

# per public set (Snow 2008 RTE, TEMP, WSD from ../shared/data) and method: accuracy, ECE at 6 and 15 bins
# and the worst bin, without controls and with a fifth of the gold as controls (the rest scored; and each fifth in
# turn, mean and range), and the adaptive
# replay with `hitflow aggregate --adaptive`'s defaults against full-overlap majority vote; HELD_OUT=1 adds synthetic
# crowds of the five held-out sets' shapes (bench/crowd_shapes.py HELD_OUT, ~2 min more); writes
# bench/results-answers-calibration.json (~1 min; `make bench` prints the public sets' lines too)
.PHONY: bench-answers-calibration
bench-answers-calibration: $(STAMP)
	$(BIN)/python -m bench.answers_calibration $(if $(HELD_OUT),--held-out)

# how much of each calibration miss is chance: `auto`'s ECE (6, 15 bins) and worst bin on the public sets
# and the synthetic held-out shapes (seeds 0, 1, 2), without controls and over 5 control/scored splits, each beside
# its noise floor (what a perfectly calibrated confidence reads on the same items); writes
# bench/results-calibration-noise.json (~20 s)
.PHONY: bench-calibration-noise
bench-calibration-noise: $(STAMP)
	$(BIN)/python -m bench.calibration_noise

# the no-controls confidence on synthetic crowds shaped like the calibration work's held-out sets (RTE, Temporal, AdultContent:
# bench/crowd_shapes.py, hard and misleading items, spammers, adversaries; not the real sets) and on real WSD, through
# `hitflow aggregate --gold` as a user runs it: accuracy, mean confidence and ECE of the confidence, Dawid-Skene's
# posterior and majority vote's agreement; REPO=PATH runs another checkout's CLI on the same files (a before/after);
# writes bench/results-calibration-shapes.json (about 3 min)
.PHONY: bench-calibration-shapes
bench-calibration-shapes: $(STAMP)
	$(BIN)/python -m bench.calibration_shapes $(if $(REPO),--repo $(REPO))

# `hitflow aggregate` (the CLI, every method) against crowd-kit run directly on Snow 2008 WSD, RTE and
# Temporal (the last two from HITFLOW_RTE_LABELS, HITFLOW_TEMP_LABELS); writes bench/results-aggregation-real.json
.PHONY: bench-real-labels
bench-real-labels: $(STAMP)
	$(BIN)/python -m bench.real_labels_accuracy

# `--method mace` against crowd-kit's MACE on the same rows (Snow's three sets, the five held-out shapes at seeds
# 0, 1, 2), majority vote beside them, and both fits' CPU: bench/results-mace-parity.json
.PHONY: bench-mace
bench-mace: $(STAMP)
	$(BIN)/python -m bench.mace_parity

# every `hitflow aggregate --method` on 92,721 labels (AdultContent2 from HITFLOW_ADULT_LABELS, else a synthetic
# file of its shape), whole-process seconds and the ratio to majority vote (target 8x); CROWDKIT=1 also compares the
# answers with crowd-kit's own GLAD, MACE and one-coin (~15 min more); writes bench/results-aggregation-speed.json
.PHONY: bench-aggregation-speed
bench-aggregation-speed: $(STAMP)
	$(BIN)/python -m bench.aggregation_speed $(if $(CROWDKIT),--crowd-kit)

# the answers package's CPU per call at the suite's and campaigns' sizes (30 to 1,770 labels, and 24,000)
# beside its version before the CPU pass of 2026-11-27 (its figures then, bench/answers_calls.py BEFORE); writes
# bench/results-answers-calls.json (~1 min)
.PHONY: bench-answers-calls
bench-answers-calls: $(STAMP)
	$(BIN)/python -m bench.answers_calls

# adaptive overlap live on MTurk-sim: the 1,000-item classification campaign, fixed 5 vs adaptive at confidence 0.98,
# eight simulator seeds (9-16: 1-8 chose the confidence) two at a time and their means (~12 min; results-adaptive-campaign.json)
.PHONY: bench-adaptive-campaign
bench-adaptive-campaign: $(STAMP)
	$(BIN)/python -m bench.adaptive_campaign

# the same campaign with the defaults a user gets (hitflow new's min 2 and max 6, every other [answers] key
# at its default), seeds 9-11, each route (bench/results-adaptive-defaults-{mturk,prolific}.json)
.PHONY: bench-adaptive-defaults
bench-adaptive-defaults: $(STAMP)
	$(BIN)/python -m bench.adaptive_campaign --defaults --seeds 9,10,11 --out bench/results-adaptive-defaults-mturk.json
	$(BIN)/python -m bench.adaptive_campaign --defaults --route prolific --seeds 9,10,11 --out bench/results-adaptive-defaults-prolific.json

# the same on Prolific-sim at 0.93: more places on each batch's study (results-adaptive-campaign-prolific.json)
.PHONY: bench-adaptive-campaign-prolific
bench-adaptive-campaign-prolific: $(STAMP)
	$(BIN)/python -m bench.adaptive_campaign --route prolific

# simulated workers' throughput on a script-built page: headless Chromium vs reading the form
# (N HITs x 5 assignments each way); writes bench/results-browser.json (about a minute)
bench-browser-workers: $(STAMP) browser-deps
	$(BIN)/python -m bench.browser_workers $(or $(HITS),20) $(PAGE)

# the text-telemetry recorder's handler time per real keystroke in Chromium, p50/p99 (docs/telemetry.md)
bench-telemetry: $(STAMP) browser-deps
	$(BIN)/python -m bench.telemetry_handler $(or $(KEYS),3000)

# a scheduled Prolific campaign on a real Prefect server and the simulator on the wall clock:
# each run looks at the open study and leaves, people arrive in between (about 2-3 minutes)
test-live-schedule: $(STAMP)
	HITFLOW_LONG_TESTS=1 $(BIN)/pytest tests/test_schedules.py -k live_prolific

# The docs' examples that need a real Prefect server, as a reader runs them (tests/test_docs_prefect.py):
# docs/how-to/scheduled-batches.md (serve-schedules, then deploy + a worker, to the campaign's end) and
# docs/how-to/work-pool.md (two campaigns, two workers); minutes of CPU, not part of `make test`
test-docs-prefect: $(STAMP)
	HITFLOW_DOCS_PREFECT=1 $(BIN)/pytest -p no:cacheprovider tests/test_docs_prefect.py

clean:
	rm -rf $(VENV) runs

"""Shared fixtures: a running simulator, a boto3 client for it, the shared data folder."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import signal
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# Node keeps what it compiled of Playwright's driver (started once a module for the `browser` fixture and once for
# the browser workers' thread) for the next start: a start with its Chromium's launch 0.84 -> 0.69 s of CPU.
os.environ.setdefault("NODE_COMPILE_CACHE", str(Path(tempfile.gettempdir()) / "hitflow-node-compile-cache"))
# A suite started in the background by a script (`make test &`) inherits SIGINT ignored, and so would
# every hitflow process the tests start: the Ctrl-C tests would then wait for a run that never hears
# its signal. Python's own handler here makes children start with the default again (exec resets it).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# Under pytest-xdist each worker process gets a Prefect home of its own (the Makefile's runs/.prefect
# plus the worker's name, kept between runs so its database is migrated once): Prefect servers that
# two workers start at the same moment would otherwise migrate and write one SQLite file together.
# Set before anything imports Prefect, which reads its settings when imported.
if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("PREFECT_HOME"):
    os.environ["PREFECT_HOME"] = str(Path(os.environ["PREFECT_HOME"]) / os.environ["PYTEST_XDIST_WORKER"])

from flows.core.run.heap_owner import caller_freezes_heap
from flows.sim.pages.browser_check import chromium
from flows.sim.service.server import SimServer
from tests import reaper
from tests.forked_hitflow import ForkServer, fork_server
from tests.pg_server import ledger_location, pg_server, pg_url  # noqa: F401  (fixtures: a PostgreSQL per session)
from tests.prefect_server import WORKER_SERVER_SETTINGS, SharedPrefectServer, in_process_client_of, kept_template
from tests.rewrite_ahead import rewrite_ahead
from tests.unseen_figures import figures_unseen_by_default  # noqa: F401  (autouse: runs draw no report figure)

RUN_MARK = reaper.install()  # SIGTERM/SIGHUP as Ctrl-C; the first process ends what the run left (tests/reaper.py)
pytest_plugins = ["tests.cpu_record", "tests.probed_pages"]  # CPU per test (HITFLOW_TEST_CPU); the probe's fixture

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def sim() -> Iterator[SimServer]:
    with SimServer(seed=3) as server:
        yield server


@pytest.fixture
def client(sim: SimServer):
    return boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1",
                        aws_access_key_id="dummy", aws_secret_access_key="dummy")


def advance(sim: SimServer, seconds: float) -> None:
    req = urllib.request.Request(f"{sim.url}/_sim/clock", method="POST",
                                 data=json.dumps({"advance_seconds": seconds}).encode(),
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req).read()


# A pytest that a test starts (tests/test_suite_cleanup.py's probe) is given its session's template here: a copy
# put into its --basetemp beforehand is gone when it starts (pytest empties a given basetemp), and its server then
# migrated a database of its own (14.7 s of CPU to start instead of ~5).
TEMPLATE_ENV = "HITFLOW_PREFECT_TEMPLATE"


@pytest.fixture(scope="session")
def shared_prefect(tmp_path_factory: pytest.TempPathFactory,
                   pytestconfig: pytest.Config) -> Iterator[SharedPrefectServer]:
    """The session's Prefect server, shared by its xdist workers (``SharedPrefectServer``), in the session's
    folder: under pytest-xdist the one above a worker's base temp, shared by its workers; without xdist the
    base temp. Its processes are waited for when the session ends, and their CPU counted on this line. Its
    migrated template is kept in pytest's cache for the next session (none with ``-p no:cacheprovider``)."""
    base = tmp_path_factory.getbasetemp()
    folder = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    template = Path(os.environ.get(TEMPLATE_ENV) or folder / "prefect-template" / "prefect.db")
    cache = getattr(pytestconfig, "cache", None)
    kept = kept_template(cache.mkdir("prefect-template")) if cache is not None else None
    shared = SharedPrefectServer(folder / "prefect-server", template, WORKER_SERVER_SETTINGS, kept=kept)
    try:
        yield shared
    finally:
        shared.close()


@pytest.fixture(scope="session")
def prefect_database_template(shared_prefect: SharedPrefectServer) -> Path:
    """The session's migrated, empty Prefect database (``tests.prefect_server.prefect_server`` makes it with
    the session's first server and starts later ones on a copy), there once this returns: a server of a
    test's own, or a ``PREFECT_HOME`` of its own, starts from a copy without the shared server running."""
    return shared_prefect.template_made()


@pytest.fixture
def prefect_worker_server(shared_prefect: SharedPrefectServer) -> Iterator[dict[str, str]]:
    """One real ``prefect server`` shared by the session's xdist workers: started by the first test
    that asks for it, stopped once no test has used it for a minute, started again by the next that
    asks (``SharedPrefectServer``); the environment of a process that talks to it. A test on it finds
    its own flow runs, task runs, artifacts and deployments by id or by its own names, never "all there
    are"."""
    with shared_prefect.used() as env:
        yield env


@pytest.fixture(scope="session")
def hitflow_forks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServer]:
    """``hitflow`` processes forked from one server per test process that imported the project once
    (tests/forked_hitflow.py), for the tests whose command is killed, interrupted or raced but whose
    point is not an interpreter's start; started by the first test that asks for it."""
    with fork_server(tmp_path_factory.mktemp("forkserver")) as server:
        yield server


@pytest.fixture
def on_prefect_server(prefect_worker_server: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """This test's flows, clients and ``hitflow`` processes use the worker's Prefect server (its
    API URL), as under ``prefect_test_harness`` but without starting and migrating a server each time."""
    url = prefect_worker_server["PREFECT_API_URL"]
    monkeypatch.setenv("PREFECT_API_URL", url)
    with in_process_client_of(url):
        yield url


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"needs ../shared/data beside the project ({SHARED_DATA} is absent)")
    return SHARED_DATA


# Browser fixtures (Debian's chromium through Playwright), shared by every page's browser tests.
CHROMIUM = chromium()  # Debian's headless shell where installed, else its chromium (flows/sim/pages/browser_check.py)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run"]
PLACEHOLDER = ('<svg xmlns="http://www.w3.org/2000/svg" width="480" height="360"><rect width="100%" height="100%" '
               'fill="#8a9bb0"/><text x="240" y="185" font-size="22" text-anchor="middle" fill="#fff">'
               'image (offline placeholder)</text></svg>')
IMAGE_HOSTS = ("http*://ivc.ischool.utexas.edu/**", "http*://flickr8k-images.example.org/**")


# Session scope: one start a test process (~0.65 s of CPU: Playwright's driver and Chromium) rather than one a
# module. Playwright's sync API marks its event loop running in the main thread while it is open, and Prefect's
# state.result() (like asyncio.run) would then see a running loop: pytest_runtest_protocol (below) takes the mark
# off for each test of a module that never uses the browser and puts it back after (in a module that does, a
# module fixture's teardown may call Playwright in any of its tests: the mark stays there, as it always did).
PLAYWRIGHT_LOOP: list[asyncio.AbstractEventLoop] = []
BROWSER_MODULES: set[Path] = set()  # modules with a test that uses the browser (pytest_collection_modifyitems)


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: install Debian's chromium (make browser-deps, as root)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        print(f"\n*** BROWSER TESTS SKIPPED: {message} ***")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        PLAYWRIGHT_LOOP.append(asyncio.get_running_loop())
        try:
            b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
            yield b
        finally:  # the session's last test may have hidden it; Playwright stops on its own loop, if still running
            if (loop := PLAYWRIGHT_LOOP.pop()).is_running():
                asyncio._set_running_loop(loop)
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    # The images live on the internet, which this machine does not reach: answer them locally.
    for host in IMAGE_HOSTS:
        pg.route(host, lambda route: route.fulfill(status=200, content_type="image/svg+xml", body=PLACEHOLDER))
    yield pg
    context.close()



def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Name a failure when it happens, not only in the summary at the end of a long run (in the xdist
    controller, which hears every worker's reports; a worker prints nothing)."""
    terminal = _config.pluginmanager.get_plugin("terminalreporter") if _config else None
    if report.failed and not os.environ.get("PYTEST_XDIST_WORKER") and terminal is not None:
        where = f" ({report.when})" if report.when != "call" else ""
        terminal.write("\n")  # after the progress letter of this very report
        terminal.write_line(f"{'FAILED' if report.when == 'call' else 'ERROR'} {report.nodeid}{where}", red=True)


_config: pytest.Config | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _config
    _config = config
    # the session freezes the heap before each test (below): commands and runs called in this process
    # leave the collector to it rather than ask it (a walk of the whole frozen list each time)
    caller_freezes_heap()
    # Young collections every 10,000 allocations rather than 700: a test's pandas and HTTP calls made ~70 a
    # second that found little to free, and each test starts from a full collection anyway (below). The runs'
    # own collections and the processes the tests start keep Python's defaults. Collector CPU on
    # test_caption_top_up and test_studies 1.39 -> 0.87-1.0 s.
    gc.set_threshold(10_000, 10, 10)
    if not hasattr(config, "workerinput") and (config.getoption("numprocesses", None) or 0):
        rewrite_ahead(config, Path(__file__).parent)  # xdist's controller, before its workers start


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Before each test, what is alive (the suite's modules, Prefect, pandas...: ~730,000 objects in a
    worker) goes to the garbage collector's permanent generation (``gc.freeze``), where a full collection
    no longer walks it: each cost ~0.47 s of CPU in a worker's heap, and every campaign run calls two
    (flows/driver/campaign_run.py hands the simulator's memory back), besides Python's own. What is
    garbage goes first (``gc.collect``), so only live objects are kept; a test's own objects are created
    after the freeze and collected as always. Each test rather than each file's first: what a file's
    first test imported lazily (a run's modules, caches) was walked by every later full collection;
    eight campaign and CLI files 60.8 -> 58.3 s of CPU, every one of them less (load ~1).
    A test of a module that never uses the session's ``browser`` runs without its event loop marked running."""
    gc.collect()
    gc.freeze()
    hidden = PLAYWRIGHT_LOOP[-1] if PLAYWRIGHT_LOOP and item.path not in BROWSER_MODULES else None
    if hidden is not None:
        asyncio._set_running_loop(None)
    try:
        return (yield)
    finally:
        if hidden is not None and PLAYWRIGHT_LOOP:
            asyncio._set_running_loop(hidden)


def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> None:
    """A fixture on the browser set up in a test that ran hidden from it (asked for by name, in the test) gets
    Playwright's loop marked running again, as its calls need; the test's end leaves it so."""
    if PLAYWRIGHT_LOOP and "browser" in fixturedef.argnames and asyncio._get_running_loop() is None:
        asyncio._set_running_loop(PLAYWRIGHT_LOOP[-1])


# A browser test that takes longer than this fails in one line (pytest-timeout's signal method raises in the
# test) instead of holding the run: alone each takes under a minute; CI's host is up to 3x slower and loaded.
BROWSER_DEADLINE_S = 900


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with a test on the shared Prefect server first, then those with a test marked ``slow``,
    whole (a module's fixtures are set up once), the rest in their order. The Makefile's ``--dist
    loadfile --no-loadscope-reorder`` hands files to the workers in this order: a long file then never
    starts last and runs alone while others idle, and the Prefect server runs once, for the files that
    use it, instead of idling (~1.2 s of CPU a minute) or starting again (~5 s) for one found later.
    Every browser test gets a deadline (``BROWSER_DEADLINE_S``) unless it sets its own."""
    prefect_files = {item.path for item in items
                     if item.get_closest_marker("prefect") or "prefect_worker_server" in item.fixturenames}
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    BROWSER_MODULES.update(item.path for item in items if "browser" in getattr(item, "fixturenames", ()))
    # a stable sort: file order kept within each group
    items.sort(key=lambda item: (item.path not in prefect_files, item.path not in slow_files))
    for item in items:
        if item.get_closest_marker("browser") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(BROWSER_DEADLINE_S, method="signal"))


@pytest.fixture(scope="module", autouse=True)
def _browser_workers_settled_by_module_end() -> Iterator[None]:
    """The simulator's browser workers (one Chromium on a thread of this process) work every page a module
    queued before the next module starts; the thread and its Chromium then serve the next module too (each
    worker's page is a context reset for it: flows/sim/pages/browser_desk.py), rather than ending with each
    module: a start costs ~0.65 s of CPU (Playwright's driver ~0.4, Chromium ~0.25), once a module before."""
    yield
    module = sys.modules.get("flows.sim.pages.browser_thread")
    if module is not None:
        module.settle()


@pytest.fixture(scope="session", autouse=True)
def _browser_workers_end_with_the_session() -> Iterator[None]:
    yield
    module = sys.modules.get("flows.sim.pages.browser_thread")
    if module is not None:
        module.BrowserThread.close_shared()


@pytest.fixture(scope="session", autouse=True)
def _import_probes_on_the_shared_chromium() -> Iterator[None]:
    """A page's import asks its script in the test process's shared Chromium rather than one launched a page
    (tests/shared_probe.py: ~1.3 s of CPU a probe)."""
    from flows.sim.pages import script_probe
    from tests.shared_probe import asked_on_shared_thread

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(script_probe, "_launched", asked_on_shared_thread)
        yield


class _KeptSpellingIndex:
    """``spelling_index`` without its ``cache_clear``: a run's outputs clear the index (~70 MB) for the
    runs of a long-lived process that will not spell again; a test process runs hundreds of campaigns,
    each of which loaded it again from disk (the word list's JSON, its hash, the arrays: ~0.5 s CPU)."""

    def __init__(self, load: Any) -> None:
        self.load = load

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load(*args, **kwargs)

    def cache_clear(self) -> None:
        """Kept for the process: the tests of flows' memory are in bench/ (bench.scale)."""


@pytest.fixture(scope="session", autouse=True)
def _spelling_index_from_disk() -> Iterator[None]:
    """Pure spelling code builds its index in memory (seconds, per process); the tests share the
    same index as flows/ keeps it on disk, loaded only by a test that spells, once per process."""
    import flows.captions.outputs as outputs
    import postprocess.spellcheck as spelling
    from flows.core.outputs.spelling_cache import spelling_index

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spelling, "default_index", spelling_index)
        patch.setattr(outputs, "spelling_index", _KeptSpellingIndex(spelling_index))
        yield


@pytest.fixture(autouse=True)
def _log_handlers_on_open_streams() -> None:
    """A handler made during an earlier test of this process (Prefect's console handler is set up once
    per process, on the sys.stderr of the moment) writes to that test's captured stream, closed since,
    and Prefect's handler then fails the run with a RecursionError: point such handlers at this test's."""
    known = logging.root.manager.loggerDict.values()
    loggers = [logging.getLogger(), *(v for v in known if isinstance(v, logging.Logger))]
    for handler in (h for logger in loggers for h in logger.handlers):
        if isinstance(handler, logging.StreamHandler) and getattr(handler.stream, "closed", False):
            handler.stream = sys.stderr  # not setStream: it flushes the closed one first
            if hasattr(handler, "console"):  # rich's Console (Prefect's handler) keeps the file too
                handler.console.file = sys.stderr

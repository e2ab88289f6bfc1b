"""Every shell example of README.md and docs/ is run, or says why not, so the docs cannot drift from the CLI.

The markers and how each kind of block runs: tests/doc_blocks.py. A page's blocks run in order in
one fresh folder holding a copy of config/, as a reader following the page would run them (a later
block may use what an earlier one made, and servers a block starts stay up until the page ends),
with this venv's ``hitflow`` on the PATH. One test per page; blocks are kept small (--limit).
Its ``hitflow`` goes through tests/hitflow_forkserver.py (the project imported once, the session's fork server: a
forked process per command), except ``hitflow review``: the real console script, which so proves it starts.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from flows.core.run.prefect_api import free_port
from tests.doc_blocks import (
    LINK,
    ROOT,
    SERVES_UNTIL_CTRL_C,
    Block,
    commands,
    fixed_ports,
    marked_blocks,
    missing_paths,
    unmarked_blocks,
    with_free_ports,
    without_comment,
)
from tests.hitflow_forkserver import client_script
from tests.prefect_server import process_group

LEFT_OUT = ("HITFLOW_DB", "PREFECT_API_URL", "HITFLOW_PREFECT_API_URL", "PREFECT_HOME", "HITFLOW_TASK_SECRET",
            "PROLIFIC_TOKEN")
BLOCKS = marked_blocks()
RUN = {page: blocks for page, blocks in BLOCKS.items() if any(b.kind != "not run" for b in blocks)}
NOT_RUN = [b for blocks in BLOCKS.values() for b in blocks if b.kind == "not run"]
WITH_SERVERS = {page for page, blocks in RUN.items() if any(b.kind == "servers" for b in blocks)}
REAL_CONSOLE_SCRIPT = re.compile(r"^hitflow review\b")  # run as installed; every other `hitflow` is forked


def test_the_tutorials_and_guides_have_runnable_examples() -> None:
    for page in ("README.md", "docs/tutorials/first-campaign.md", "docs/tutorials/own-page.md",
                 "docs/tutorials/evaluation-study.md", "docs/tutorials/prolific.md", "docs/how-to/review.md",
                 "docs/how-to/resume-reconcile-cancel.md", "docs/how-to/old-mturk-batch.md", "docs/importing_pages.md"):
        assert page in RUN, f"{page} has no example marked <!-- test: runs ... -->"
    assert {"docs/how-to/review.md", "docs/tutorials/prolific.md"} <= WITH_SERVERS


def test_every_shell_example_is_run_or_says_why_not() -> None:
    """A ```sh block with no marker (or a marker away from its block) would silently not be run."""
    assert unmarked_blocks() == []
    assert all(b.why for b in NOT_RUN)


def test_every_project_path_the_docs_name_exists() -> None:
    """flows/... (after real-platform-contract work's move into core, platforms, campaigns, ...), qc/, tests/, bench/
    paths, globs and ``module.name`` references of README.md and docs/ point at something real."""
    assert missing_paths() == []


def test_the_tour_s_dry_run_prices_the_run_before_it() -> None:
    """README's tour runs 20 images, then says what "the same 20 images" would cost on Prolific: its dry
    run carries the run's --limit (without one it priced the whole items file)."""
    [tour] = [b for b in BLOCKS["README.md"] if b.kind == "run"]
    runs = [c for c in commands(tour.script) if c.startswith("hitflow run")]
    limit = re.search(r"--limit \d+", runs[0])
    assert limit and "--dry-run" in runs[-1] and limit[0] in runs[-1], runs


@pytest.mark.parametrize("block", NOT_RUN, ids=[f"{b.page}:{b.line}" for b in NOT_RUN])
def test_doc_examples_not_run_here(block: Block) -> None:
    pytest.skip(f"not run: {block.why}")


def _env(hitflow: Path | None = None) -> dict[str, str]:
    """The test's environment without the variables the docs' commands must not find; ``hitflow``: a
    folder whose ``hitflow`` comes first on the PATH (the fork server's client)."""
    env = {k: v for k, v in os.environ.items() if k not in LEFT_OUT}
    first = [str(hitflow)] if hitflow else []
    env["PATH"] = os.pathsep.join([*first, str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


@pytest.fixture(scope="module")
def hitflow_bin(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A folder holding a ``hitflow`` that runs through a fork server: the session's (``hitflow_forks``, which
    the test process's other forked commands use: its start, ~1.5 s of CPU, is not paid again) unless
    ``HITFLOW_DB`` is set here (the default ledger, the one variable the project reads when imported, in
    tests/hitflow_forkserver.py's server: the docs' commands must not find it); then this module's own,
    started without the variables the docs' commands must not find (stopped, and waited for with the
    commands it ran, when the module ends)."""
    folder = tmp_path_factory.mktemp("forkserver")
    if not os.environ.get("HITFLOW_DB"):
        client_script(folder, request.getfixturevalue("hitflow_forks").socket_path)
        yield folder
        return
    with ExitStack() as stack:
        # in /tmp: a socket's path holds at most 107 bytes, and a --basetemp may be longer
        sock = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hitflow-fork-")), "hitflow.sock")
        log = stack.enter_context((folder / "server.log").open("w+"))
        server = stack.enter_context(process_group(
            [sys.executable, "-m", "tests.hitflow_forkserver", str(sock)], grace_s=10, cwd=ROOT, env=_env(),
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 120
        while not sock.exists():
            if server.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(f"the hitflow fork server did not start (exit {server.poll()}):\n{log.read()[-3000:]}")
            time.sleep(0.1)
        client_script(folder, sock)
        yield folder


def _bash(script: str, cwd: Path, where: str, expected: int = 0, hitflow: Path | None = None) -> None:
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=_env(hitflow),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == expected, (f"{where} exited {done.returncode}, expected {expected}\n--- stdout\n"
                                         f"{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}")


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _start_server(command: str, cwd: Path, stack: ExitStack, where: str, ports: set[str], hitflow: Path) -> None:
    """A ``cmd &`` of the block, in the background until the page ends; waits for its port to answer.
    Its ``hitflow`` is the fork server's, whose client hands the group's SIGTERM at the end to its process."""
    log = stack.enter_context((cwd / f"server-{time.monotonic_ns()}.log").open("w+"))
    proc = stack.enter_context(process_group(["bash", "-c", command], grace_s=10, cwd=cwd, env=_env(hitflow),
                                             stdout=log, stderr=subprocess.STDOUT))
    port = next((int(p) for p in re.findall(r"\b\d{4,5}\b", command) if p in ports), 0)
    started = time.monotonic()
    while not (_listening(port) if port else time.monotonic() > started + 2):  # no port: alive after 2 s
        if proc.poll() is not None or time.monotonic() > started + 60:
            log.seek(0)
            pytest.fail(f"{where}: `{command}` did not start (exit {proc.poll()}):\n{log.read()[-3000:]}")
        time.sleep(0.2)


def _open_and_stop(command: str, cwd: Path, where: str, hitflow: Path) -> None:
    """A command that serves until Ctrl-C: its printed link gives its page; Ctrl-C ends it with 0. ``hitflow review``
    is the real console script (the one command of the suite that proves it starts), ``hitflow ui`` the fork server's
    (its client hands the Ctrl-C to its process; an interpreter's start and imports, ~1 s of CPU, less)."""
    real = REAL_CONSOLE_SCRIPT.match(command)
    with process_group(["bash", "-c", f"exec {command}"], grace_s=10, cwd=cwd, env=_env(None if real else hitflow),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        watchdog = threading.Timer(120, os.killpg, [proc.pid, signal.SIGKILL])  # a server that prints nothing
        watchdog.start()
        seen: list[str] = []
        while (line := proc.stdout.readline()) and not LINK.search(line):
            seen.append(line)
        watchdog.cancel()
        link = LINK.search(line)
        assert link, f"{where}: `{command}` printed no link:\n{''.join(seen)[-3000:]}"
        with httpx.Client(follow_redirects=True, timeout=30) as web:
            page = web.get(link[0])
        assert page.status_code == 200 and "<html" in page.text, f"{where}: {link[0]} gave {page.status_code}"
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=20) == 0, f"{where}: `{command}` did not end cleanly on Ctrl-C"


def _run_with_servers(block: Block, script: str, cwd: Path, stack: ExitStack, ports: set[str],
                      hitflow: Path) -> None:
    where, plain = f"{block.page}:{block.line}", []
    for command in [*commands(script), ""]:
        bare = without_comment(command)
        if bare.endswith("&") or SERVES_UNTIL_CTRL_C.match(bare) or not command:
            if plain:  # the commands before it, as one script (the last one's exit is the block's)
                _bash("\n".join(plain), cwd, where, block.exit_code if not command else 0, hitflow)
                plain = []
            if bare.endswith("&"):
                _start_server(bare.removesuffix("&").strip(), cwd, stack, where, ports, hitflow)
            elif command:
                _open_and_stop(bare, cwd, where, hitflow)
        else:
            plain.append(command)


def _run_page(page: str, tmp_path: Path, hitflow: Path) -> None:
    shutil.copytree(ROOT / "config", tmp_path / "config")
    blocks = RUN[page]
    free = {port: str(free_port()) for port in fixed_ports([b.script for b in blocks])}
    with ExitStack() as servers:
        for block in blocks:
            [script] = with_free_ports([block.script], free)
            if block.kind == "servers":
                _run_with_servers(block, script, tmp_path, servers, set(free.values()), hitflow)
            elif block.kind == "run":
                _bash(script, tmp_path, f"{page}:{block.line}", block.exit_code, hitflow)


@pytest.mark.parametrize("page", sorted(set(RUN) - WITH_SERVERS))
def test_doc_examples_run(tmp_path: Path, page: str, hitflow_bin: Path) -> None:
    _run_page(page, tmp_path, hitflow_bin)


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted(WITH_SERVERS))
def test_doc_examples_with_servers_run(tmp_path: Path, page: str, hitflow_bin: Path) -> None:
    _run_page(page, tmp_path, hitflow_bin)

"""A ``hitflow`` command that does not start an interpreter and import the project each time: a
server process imports ``flows.cli.main`` and the modules its commands load (pandas, matplotlib, the
config models: ~1 s of CPU per command on the 2-core host) once, then forks a child per command,
which runs ``flows.cli.main.main()`` as the ``hitflow`` console script does, in the command's folder,
with its environment, arguments, stdin, stdout and stderr (passed as file descriptors), and hands
back its exit status. tests/test_docs_examples.py runs the docs' commands through it; each command
is still its own process, started by bash from the page's text, and its exit code and output are
what the test checks. The client hands SIGINT, SIGTERM and SIGHUP to its command's process (a
server started with ``&`` is stopped by SIGTERM to its group when the page ends; ``hitflow ui`` by a
Ctrl-C). ``hitflow review`` is left to the real ``hitflow``, which so proves the console script
starts. Commands run at once, each with a thread of the server waiting for it. tests/forked_hitflow.py
is its client for tests in Python (what ``subprocess.Popen`` gives, the child's own pid; conftest's
session fixture ``hitflow_forks``).

What the server imported read its environment once, when it was imported: a command's environment
reaches what its child imports and reads afterwards (fsspec, Prefect, the command's settings), but
not those import-time reads (``HITFLOW_DB``, the parser's default ledger): pass ``--db``.

    python -m tests.hitflow_forkserver SOCKET      # the server: imports, then serves until SIGTERM

The ``hitflow`` client it writes (``client_script``) is a few lines of ``python -I -S``."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import socket
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, NoReturn

from tests.unseen_figures import SEEN, unseen_by_default

# What `hitflow run`, `cancel`, `new`, `qc`, `preview` and `analyze` import (python -X importtime), and what a
# run imports only once it is under way (its kind's outputs, the answers' models, the report, MTurk's steps and
# boto3): ~0.3 s of CPU each forked run paid; a module a command needs that is not here is imported by its
# child, as in a fresh process.
PRELOAD = ("flows.cli.main", "flows.driver.campaign_run", "flows.driver.operations", "flows.core.outputs.figures",
           "flows.campaigns.offline", "flows.sim.service.server", "flows.campaigns.task_pages",
           "flows.captions.caption_kind", "flows.captions.outputs", "flows.answers.answers_files",
           "flows.answers.answers_step", "flows.custom.adaptive_rounds", "flows.custom.custom_kind",
           "flows.campaigns.report", "flows.platforms.mturk.batch_publish", "flows.platforms.mturk.batch_collect",
           "flows.platforms.mturk.dry_run", "postprocess.spell_campaign", "boto3", "scipy.sparse")
# What forked commands still imported each (a whole-suite profile): a simulated run's task server and the HTTP
# client its pages' crowd uses, Prolific's platform, the control items' test (scipy.special): ~0.2 s of CPU a
# server once against ~2.8 s that a suite's children paid. Not the studies' outputs (0.7 s, one command a suite).
PRELOAD_RUNS = ("flows.taskserver.task_server", "flows.taskserver.task_server_thread", "httpx", "httpcore",
                "flows.platforms.prolific.platform", "scipy.special")

# The connections of commands still running: a child closes them (they are the server's, not its own).
OPEN: set[socket.socket] = set()

CLIENT = '''#!{python} -IS
"""hitflow through tests/hitflow_forkserver.py: argv, folder, environment and stdio to the server's child."""
import json, os, signal, socket, sys
conn = socket.socket(socket.AF_UNIX)
conn.connect({socket!r})
request = json.dumps({{"argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ), "figures": {figures}}}).encode()
socket.send_fds(conn, [len(request).to_bytes(8, "big") + request], [0, 1, 2])
reply = conn.makefile()
child = int(reply.readline())
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # a stop for the command reaches its process
    signal.signal(sig, lambda number, _frame: os.kill(child, number))
status = reply.readline().split()
sys.exit(int(status[0]) if status else 1)
'''


def client_script(folder: Path, socket_path: Path, figures: bool = False) -> Path:
    """A ``hitflow`` in ``folder`` that runs its command through the server at ``socket_path``; ``figures``:
    its runs draw their report figures."""
    script = folder / "hitflow"
    script.write_text(CLIENT.format(python=sys.executable, socket=str(socket_path), figures=bool(figures)))
    script.chmod(0o755)
    return script


def serve(socket_path: str) -> None:
    # as flows/cli/process_life.py's loaded_then_frozen: no collections while importing, then what was
    # loaded is frozen (each child's full collections skip it, and leave its pages shared with the server)
    gc.disable()
    for name in (*PRELOAD, *PRELOAD_RUNS):
        __import__(name)
    warm_spelling_index()
    warm_mturk_client()
    warm_templates()
    warm_ledger_schema()
    warm_tls_context()
    warm_demo_crowd()
    figures_unseen_by_default()
    gc.freeze()
    gc.enable()
    heap_frozen_here()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(f"{socket_path}.partial")
    listener.listen(8)
    os.rename(f"{socket_path}.partial", socket_path)  # there once it accepts: its caller waits for the name
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:  # forks happen here, in the main thread; a thread per command waits for its child
        conn, _ = listener.accept()
        OPEN.add(conn)
        pid, request = _fork_command(conn, listener)
        threading.Thread(target=_finish, args=(conn, pid, request), daemon=True).start()


def warm_spelling_index() -> None:
    """The spelling index a run's outputs load from its cache folder (~0.3 s of CPU a forked run paid), loaded
    once here; a child whose environment names another cache folder loads its own (``_child``)."""
    from flows.core.outputs.spelling_cache import spelling_index

    spelling_index()


def warm_templates() -> None:
    """The project's page and report templates compiled once here (~0.03 s of CPU each a child loading one paid:
    ~2.5 s in a suite's children); a child's environment still loads any other template itself."""
    from jinja2 import TemplateError

    from flows.core.pages.templates import environment

    env = environment()
    for name in env.list_templates(extensions=["j2"]):
        with contextlib.suppress(TemplateError):  # not one of the project's own (a starter's): the child's work
            env.get_template(name)


def warm_ledger_schema() -> None:
    """The statements a new SQLite ledger is created with, found once here: each child making a ledger otherwise
    ran every migration on a database in memory first (~0.02 s of CPU: ~1.6 s in a suite's children)."""
    import sqlite_utils

    from flows.core.ledger.store_migrations import migrations
    from flows.core.ledger.store_sqlite import migrated_schema

    migrated_schema(tuple(m.name for m in migrations.pending(sqlite_utils.Database(memory=True))))


def warm_tls_context() -> None:
    """The process's verifying TLS context (flows/core/http_clients.py: certifi's bundle parsed, ~0.03 s of CPU that
    each child opening an HTTP client paid), made once here; a child whose environment differs in what it reads
    (``_tls_environment``) makes its own, as a new process would (``_same_tls_context``)."""
    from flows.core.http_clients import tls_context

    tls_context(True)  # as http_client asks for it (the cache keys on the arguments as given)


def _tls_environment() -> dict[str, str]:
    """What the context reads from the environment: SSL_CERT_FILE, SSL_CERT_DIR (httpx), SSLKEYLOGFILE (ssl)."""
    return {key: value for key, value in os.environ.items() if key.startswith("SSL")}


def _same_tls_context(server_tls: dict[str, str]) -> None:
    if _tls_environment() != server_tls:
        from flows.core.http_clients import tls_context

        tls_context.cache_clear()


def warm_demo_crowd() -> None:
    """What each run with the demo's simulated crowd built again (~0.09 s of CPU a run): the table its captions'
    checks split words with, and the crowd's caption bank parsed (kept by its text: a copied bank is the same,
    an edited one is parsed again by the child)."""
    from flows.sim.people.crowd import load_crowd
    from flows.sim.people.crowd_keys import DEFAULT_CROWD
    from qc.text_similarity import words

    words("warm")
    load_crowd(DEFAULT_CROWD)


def heap_frozen_here() -> None:
    """Said to the project as tests/conftest.py says it for the test session: this heap was frozen by its owner.
    A child's run otherwise asked the collector how many objects are frozen (gc.get_freeze_count walks all
    of them: ~0.03 s a call, twice a command, ~3 s in a suite's children) to learn the same."""
    from flows.core.run.heap_owner import caller_freezes_heap

    caller_freezes_heap()


def figures_unseen_by_default() -> None:
    """The children's runs draw no report figure (their four to six plots were ~0.3 s of CPU each), as the
    test session's (tests/unseen_figures.py), in every thread: unless their request says ``figures``, which
    tests/forked_hitflow.py sends from a module that reads them, and the client script from one that wrote it."""
    from flows.core.outputs import figures

    unseen_by_default(figures)


def _same_spelling_cache(server_cache: object) -> None:
    """A command's environment naming another spelling cache than the server's: its own index, as a fresh process."""
    from flows.core.outputs.spelling_cache import cache_dir, spelling_index

    if cache_dir() != server_cache:
        spelling_index.cache_clear()


def warm_mturk_client() -> None:
    """boto3's default session with MTurk's service model, endpoints and retry rules parsed (~0.07 s of CPU that each
    forked command making a client paid: ~2.8 s in a suite's children), made with dummy keys and an endpoint it never
    calls: no credentials resolved. A child whose environment differs in what a session reads (``_aws_environment``)
    gets a fresh session, as a new process would (``_same_aws_session``)."""
    import boto3

    boto3.client("mturk", endpoint_url="http://127.0.0.1:9", region_name="us-east-1",
                 aws_access_key_id="WARM", aws_secret_access_key="WARM")


def _aws_environment() -> dict[str, str]:
    """What a botocore session reads from the environment: its AWS_ settings, and HOME for ~/.aws's files."""
    return {key: value for key, value in os.environ.items() if key.startswith(("AWS_", "BOTO")) or key == "HOME"}


def _same_aws_session(server_aws: dict[str, str]) -> None:
    """A command's environment another than the server's for boto3: no session of the server's (its config files)."""
    if _aws_environment() != server_aws:
        import boto3

        boto3.DEFAULT_SESSION = None


def _fork_command(conn: socket.socket, listener: socket.socket) -> tuple[int, dict[str, Any]]:
    header, fds, _flags, _addr = socket.recv_fds(conn, 8 + 65536, 3)
    size, body = int.from_bytes(header[:8], "big"), header[8:]
    while len(body) < size:
        body += conn.recv(size - len(body))
    request = json.loads(body)
    pid = os.fork()
    if pid == 0:
        for open_socket in (listener, *OPEN):
            open_socket.close()
        _child(request, fds)
    for fd in fds:
        os.close(fd)
    return pid, request


def _finish(conn: socket.socket, pid: int, request: dict[str, Any]) -> None:
    """Hand the client its child's pid, then its exit status. Written with os.write: a thread holding
    sys.stdout's lock when the main thread forks would leave the child's stdout locked for good."""
    with conn:
        conn.sendall(f"{pid}\n".encode())
        status, returncode, cpu = _wait(pid, conn)
        os.write(1, f"{cpu:6.2f} s CPU, exit {status}: {' '.join(request['argv'][1:])}\n".encode())  # what each cost
        _record(request, cpu)
        with contextlib.suppress(OSError):  # a client that went away
            conn.sendall(f"{status} {returncode}\n".encode())
        OPEN.discard(conn)


def _record(request: dict[str, Any], cpu: float) -> None:
    """Under tests/cpu_record.py (``HITFLOW_TEST_CPU`` in the command's environment), a ``forked`` line: the
    command's CPU with the test that ran it, which otherwise lands on this server's session fixture."""
    env = request["env"]  # tests/forked_hitflow.py's requests name both: a test may give its command a bare env
    path = request.get("cpu_record") or env.get("HITFLOW_TEST_CPU")
    test = (request.get("test") or env.get("PYTEST_CURRENT_TEST") or "").rsplit(" ", 1)[0]
    if path:
        line = json.dumps({"kind": "forked", "nodeid": test, "file": test.split("::")[0],
                           "argv": request["argv"][1:], "cpu": round(cpu, 3)})
        with contextlib.suppress(OSError), open(path, "a") as out:
            out.write(line + "\n")


def _wait(pid: int, conn: socket.socket) -> tuple[int, int, float]:
    """The child's exit status as a shell gives it (128 + signal) and as ``subprocess`` does (-signal),
    and its CPU seconds; a client that went away (its bash timed out, or it was killed) takes its child
    with it."""
    pidfd = os.pidfd_open(pid)
    try:
        while not select.select([pidfd, conn], [], [])[0].count(pidfd):
            if not conn.recv(1, socket.MSG_PEEK):
                os.kill(pid, signal.SIGKILL)
                break
        _, status, usage = os.wait4(pid, 0)
    finally:
        os.close(pidfd)
    returncode = os.waitstatus_to_exitcode(status)
    code = returncode if returncode >= 0 else 128 - returncode
    return code, returncode, usage.ru_utime + usage.ru_stime


def _child(request: dict[str, object], fds: list[int]) -> NoReturn:
    """As the console script: ``sys.exit(main())``, with the interpreter's exit handlers, then out."""
    import atexit

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL if sig == signal.SIGTERM else signal.default_int_handler)
    if request.get("session"):  # a group of its own, as Popen(start_new_session=True) makes: killpg(pid) reaches it
        os.setsid()
    os.chdir(str(request["cwd"]))
    from flows.core.outputs.spelling_cache import cache_dir

    server_cache, server_aws, server_tls = cache_dir(), _aws_environment(), _tls_environment()
    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[arg-type]
    _same_spelling_cache(server_cache)
    _same_aws_session(server_aws)
    _same_tls_context(server_tls)
    if request.get("figures") and SEEN:  # the project's UNSEEN, for a child asked to draw
        from flows.core.outputs import figures

        figures.UNSEEN = SEEN[0]
    if os.environ.get("PYTHONUNBUFFERED"):  # read at an interpreter's start: the server's streams were made then
        for stream in (sys.stdout, sys.stderr):
            stream.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    sys.argv = list(request["argv"])  # type: ignore[call-overload]
    if request.get("preamble"):  # a test's hook (a kill at a chosen step), set where a process started by hand would
        exec(compile(str(request["preamble"]), "<preamble>", "exec"), {"__name__": "__preamble__"})
    from flows.cli.main import main

    try:
        code: object = main()
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # as the interpreter would: the traceback, exit 1
        traceback.print_exc()
        code = 1
    if isinstance(code, str):
        print(code, file=sys.stderr)
    # as the interpreter's exit: threading's own exit hooks (Prefect's services and thread pools stop their
    # threads there), the wait for the threads that are not daemons, then the exit handlers
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that left, a closed stream
            stream.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


if __name__ == "__main__":
    serve(sys.argv[1])

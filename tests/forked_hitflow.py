"""``hitflow`` commands as processes of their own forked from tests/hitflow_forkserver.py's server, which
imported the project once, for the tests whose point is not an interpreter's start: a run killed with
SIGKILL or interrupted with SIGINT, two runs racing for one folder. ``python -m flows.cli run`` spent
~1 s of CPU importing (pandas, matplotlib, the config's models, scipy) before its first line, ~60% of
such a short run's CPU. :class:`Forked` is what ``subprocess.Popen`` gives for that command: the child's
own pid (signals go to the process that runs the command, not to a client in between), its exit code
(``-9`` when SIGKILL ended it, ``130`` when it left on Ctrl-C), its stdout and stderr as pipes or files,
its folder, environment and, with ``start_new_session``, a process group of its own; ``preamble``: Python
the child runs before the command (a test's hook, as a ``python -c`` script would set it). What stays a
process started from scratch: a command whose test is about the interpreter (a hash seed, a console
script, its imports)."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

from tests.prefect_server import process_group
from tests.unseen_figures import figures_drawn

ROOT = Path(__file__).resolve().parents[1]


class ForkServer:
    """A running tests/hitflow_forkserver.py (its socket)."""

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path

    def popen(self, args: list[str], **options: Any) -> Forked:
        """``subprocess.Popen(["hitflow", *args], **options)``, forked from the server."""
        return Forked(self.socket_path, args, **options)

    def launcher(self, env: dict[str, str], cwd: Path) -> Callable[[list[str]], Forked]:
        """``hitflow ARGS`` forked, its output dropped (bench.chaos_runner's ``Launch``)."""
        return lambda args, preamble="": self.popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                    env=env, cwd=cwd, preamble=preamble)

    def run(self, args: list[str], timeout: float | None = None, **options: Any) -> subprocess.CompletedProcess[Any]:
        """``subprocess.run(["hitflow", *args], capture_output=True, **options)``, forked from the server."""
        proc = self.popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **options)
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            proc.kill()
        return subprocess.CompletedProcess(["hitflow", *args], proc.returncode, out, err)


@contextmanager
def fork_server(folder: Path) -> Iterator[ForkServer]:
    """The server (its log in ``folder``), stopped with the commands still running when the block ends."""
    with ExitStack() as stack:
        # in /tmp: a socket's path holds at most 107 bytes, and a --basetemp may be longer
        sock = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hitflow-fork-")), "hitflow.sock")
        log = stack.enter_context((folder / "forkserver.log").open("w+"))
        server = stack.enter_context(process_group(
            [sys.executable, "-m", "tests.hitflow_forkserver", str(sock)], grace_s=10, cwd=ROOT,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 120
        while not sock.exists():
            if server.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"the hitflow fork server did not start (exit {server.poll()}):\n"
                                   f"{log.read()[-3000:]}")
            time.sleep(0.05)
        yield ForkServer(sock)


class Forked:
    """``hitflow ARGS`` forked from the server: the part of ``subprocess.Popen`` the tests use."""

    def __init__(self, socket_path: Path, args: list[str], *, cwd: str | Path | None = None,
                 env: dict[str, str] | None = None, stdin: Any = subprocess.DEVNULL, stdout: Any = None,
                 stderr: Any = None, text: bool = False, start_new_session: bool = False, preamble: str = "") -> None:
        self.args, self.returncode = ["hitflow", *args], None
        self.stdout: IO[Any] | None = None
        self.stderr: IO[Any] | None = None
        with ExitStack() as theirs:  # the child's ends, closed here once the server has them
            fds = [self._fd(stdin, "r", theirs, None, text)]
            fds.append(self._fd(stdout, "w", theirs, "stdout", text))
            fds.append(fds[1] if stderr == subprocess.STDOUT else self._fd(stderr, "w", theirs, "stderr", text))
            request = json.dumps({"argv": self.args, "cwd": str(cwd or os.getcwd()), "env": dict(env or os.environ),
                                  "session": start_new_session, "preamble": preamble,
                                  "figures": figures_drawn(), "cpu_record": os.environ.get("HITFLOW_TEST_CPU"),
                                  "test": os.environ.get("PYTEST_CURRENT_TEST")}).encode()
            self._conn = socket.socket(socket.AF_UNIX)
            self._conn.connect(str(socket_path))
            socket.send_fds(self._conn, [len(request).to_bytes(8, "big") + request], fds)
        self._said = b""
        self.pid = int(self._line(None))

    def _fd(self, how: Any, mode: str, theirs: ExitStack, name: str | None, text: bool) -> int:
        if how is None:
            return {"r": 0, "w": 1 if name == "stdout" else 2}[mode]
        if how == subprocess.DEVNULL:
            return theirs.enter_context(open(os.devnull, mode)).fileno()
        if how == subprocess.PIPE:
            read, write = os.pipe()
            theirs.callback(os.close, write)
            setattr(self, name or "stdin", open(read, "r" if text else "rb"))  # noqa: SIM115  (the caller closes it)
            return write
        return how if isinstance(how, int) else how.fileno()

    def _line(self, timeout: float | None) -> str | None:
        """The server's next line (the pid, then the exit status), or None when none came within ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._said:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._conn], [], [], left)[0]:
                return None
            more = self._conn.recv(256)
            if not more:  # the server went away without a status
                self._said += b"-1 -9\n"
            self._said += more
        line, self._said = self._said.split(b"\n", 1)
        return line.decode()

    def poll(self) -> int | None:
        return self.wait(0, raising=False)

    def wait(self, timeout: float | None = None, raising: bool = True) -> int | None:
        if self.returncode is None:
            status = self._line(timeout)
            if status is None:
                if raising:
                    raise subprocess.TimeoutExpired(self.args, timeout or 0)
                return None
            self.returncode = int(status.split()[1])
            self._conn.close()
        return self.returncode

    def communicate(self, timeout: float | None = None) -> tuple[Any, Any]:
        """Everything on stdout and stderr (the pipes of ``PIPE``), then the exit status."""
        read: dict[str, Any] = {}
        readers = [threading.Thread(target=lambda n=name, f=pipe: read.__setitem__(n, f.read()), daemon=True)
                   for name, pipe in (("stdout", self.stdout), ("stderr", self.stderr)) if pipe is not None]
        for reader in readers:
            reader.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        for reader in readers:
            reader.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        for pipe in (self.stdout, self.stderr):
            if pipe is not None:
                pipe.close()
        return read.get("stdout"), read.get("stderr")

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # not a pid the system may have given to another process since
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(15)

    def kill(self) -> None:
        self.send_signal(9)

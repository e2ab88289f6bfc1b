"""A throwaway PostgreSQL server for the tests and benches: Debian's own binaries (``initdb``,
``pg_ctl``) on a free loopback port, data in a temporary folder, fsync off; a new database per
campaign or test. PostgreSQL refuses to run as root; as root the server runs as the ``postgres``
user that Debian's package creates."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

USER = "hitflow"  # the database superuser initdb makes; trust auth on loopback only
FAST = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"  # a test server: its data is thrown away


class PgUnavailable(Exception):
    """No PostgreSQL server can start here; the message says why."""


def pg_bin() -> Path:
    """The folder with initdb and pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<version>/bin."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if versions:
        return Path(versions[-1]).parent
    raise PgUnavailable("PostgreSQL's initdb/pg_ctl are not installed (Debian: `make pg-deps`, as root)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    root: Path
    port: int = 0
    _made: int = 0

    def _run(self, *cmd: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run([*prefix, *cmd], capture_output=True, text=True, timeout=120, cwd=self.root)

    def start(self) -> PgServer:
        binaries = pg_bin()
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise PgUnavailable("running as root and there is no postgres user to run the server as") from None
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
        made = self._run(str(binaries / "initdb"), "-D", "data", "-A", "trust", "-U", USER, "-N", "-E", "UTF8",
                         "--locale=C", "--no-instructions")
        if made.returncode:
            raise PgUnavailable(f"initdb failed: {(made.stderr or made.stdout).strip()[-300:]}")
        for _ in range(3):  # a free port can be taken by another process before the server binds it
            self.port = _free_port()
            started = self._run(str(binaries / "pg_ctl"), "-D", "data", "-l", "log", "-w", "-t", "60", "start",
                                "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 {FAST}")
            if started.returncode == 0:
                return self
        log = (self.root / "log").read_text(errors="replace")[-300:] if (self.root / "log").exists() else ""
        raise PgUnavailable(f"pg_ctl start failed: {started.stderr.strip()[-200:]} {log}")

    def stop(self) -> None:
        self._run(str(pg_bin() / "pg_ctl"), "-D", "data", "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database on this server: its URL."""
        import psycopg

        self._made += 1
        name = f"t{os.getpid()}_{self._made}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" STRATEGY FILE_COPY')  # faster than WAL_LOG for an empty one
        return self.url(name)


@contextmanager
def throwaway_server() -> Iterator[PgServer]:
    """A server for the block, removed with its data afterwards (PgUnavailable: none can start)."""
    root = Path(tempfile.mkdtemp(prefix="hitflow-pg-"))
    try:
        server = PgServer(root).start()
    except PgUnavailable:
        shutil.rmtree(root, ignore_errors=True)
        raise
    try:
        yield server
    finally:
        server.stop()

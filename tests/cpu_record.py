"""Where the suite's CPU goes: a pytest plugin that records, per test, the CPU time of the process and
of its finished children (``resource.getrusage``), and a report of the heaviest files.

    HITFLOW_TEST_CPU=runs/cpu/mine.jsonl pytest -n 3 --dist loadfile ...   # record (tests/conftest.py loads it)
    python -m tests.cpu_record runs/cpu/mine.jsonl [--top 20]               # per file, heaviest first

Without ``HITFLOW_TEST_CPU`` the plugin does nothing. Each process (every xdist worker, and the
controller) appends JSON lines to that file: one per test (setup, call and teardown together), one
for its collection and one at its end with its totals. A child's CPU counts once the child has
ended and been waited for, so a session-wide server (a Prefect or PostgreSQL server per worker)
lands where it is stopped: a session fixture's teardown (in the last test a process runs) gets a
``fixture`` line of its own, out of that test's (what ``hitflow_forks`` commands cost is its line; the
server writes a ``forked`` line per command: its test, arguments and CPU). Another checkout can be measured
with the same file: copy it into that checkout's tests/ and add ``-p tests.cpu_record`` (docs/testing.md)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ENV = "HITFLOW_TEST_CPU"


def cpu_now() -> dict[str, float]:
    """User and system CPU seconds of this process and of its waited-for children, and the wall clock."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"self_user": me.ru_utime, "self_sys": me.ru_stime, "children_user": kids.ru_utime,
            "children_sys": kids.ru_stime, "wall": time.monotonic()}


def _delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {key: round(after[key] - before[key], 3) for key in before}


class Recorder:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        # From the process's start (imports, conftest) rather than from here: the first line holds them.
        self.last = {**{key: 0.0 for key in cpu_now()}, "wall": time.monotonic()}
        self.mark = self.last  # where the fixture being torn down began its teardown
        self.moved: dict[str, float] = {}  # what this test's teardown spent stopping session fixtures

    def write(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"kind": kind, "worker": self.worker, **fields})
        with self.path.open("a") as out:  # one short line per write: appends from workers do not interleave
            out.write(line + "\n")

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        now = cpu_now()
        self.write("collect", **_delta(self.last, now))
        self.last = now

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        before = self.mark = cpu_now()
        yield
        after = cpu_now()
        spent = {key: round(value - self.moved.get(key, 0.0), 3) for key, value in _delta(before, after).items()}
        self.write("test", nodeid=item.nodeid, file=item.nodeid.split("::")[0], **spent)
        self.last, self.moved = after, {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        self.mark = cpu_now()
        yield

    def pytest_fixture_post_finalizer(self, fixturedef: pytest.FixtureDef[Any]) -> None:
        """A session fixture (a server shared by the session's tests) is stopped in the teardown of the
        last test that ran: what stopping it cost (its children's CPU over the whole session, once they
        are waited for) gets a line of its own instead of landing on that test's file."""
        now = cpu_now()
        if fixturedef.scope == "session" and fixturedef.cached_result is not None:
            spent = _delta(self.mark, now)
            self.write("fixture", name=fixturedef.argname, **spent)
            self.moved = {key: self.moved.get(key, 0.0) + value for key, value in spent.items()}
        self.mark = now

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        now = cpu_now()
        total = {key: round(value, 3) for key, value in now.items() if key != "wall"}
        self.write("session", rest=_delta(self.last, now), total=total)


def pytest_configure(config: pytest.Config) -> None:
    path = os.environ.get(ENV)
    if path and not config.pluginmanager.has_plugin("hitflow-cpu-record"):
        os.environ[ENV] = str(Path(path).resolve())  # the fork server's children append from other folders
        config.pluginmanager.register(Recorder(Path(path)), "hitflow-cpu-record")


def cpu(row: dict[str, float]) -> float:
    return row["self_user"] + row["self_sys"] + row["children_user"] + row["children_sys"]


def report(path: Path, top: int) -> str:
    """Per file: tests, CPU (self + children), wall; then collection, the rest and the processes' totals."""
    files: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    collect = rest = workers_total = run_total = 0.0
    fixtures: dict[str, float] = defaultdict(float)
    forked: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])  # per file: the fork server's commands, CPU
    workers = 0
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["kind"] == "test":
            entry = files[row["file"]]
            entry[0] += 1
            entry[1] += cpu(row)
            entry[2] += row["children_user"] + row["children_sys"]
            entry[3] += row["wall"]
        elif row["kind"] == "forked":
            forked[row["file"]][0] += 1
            forked[row["file"]][1] += row["cpu"]
        elif row["kind"] == "fixture":
            fixtures[row["name"]] += cpu(row)
        elif row["kind"] == "collect":
            collect += cpu(row)
        elif row["kind"] == "session" and row["worker"] == "main":  # the controller: its children are the workers
            run_total += cpu(row["total"])
        elif row["kind"] == "session":
            rest += cpu(row["rest"])
            workers_total += cpu(row["total"])
            workers += 1
    ranked = sorted(files.items(), key=lambda kv: -kv[1][1])
    lines = [f"{'file':<52} {'tests':>5} {'cpu s':>8} {'child s':>8} {'wall s':>8}"]
    lines += [f"{name:<52} {n:>5} {c:>8.1f} {k:>8.1f} {w:>8.1f}" for name, (n, c, k, w) in ranked[:top]]
    in_tests = sum(v[1] for v in files.values())
    shared = sorted(((name, c) for name, c in fixtures.items() if c >= 0.05), key=lambda kv: -kv[1])
    lines += [f"{'session fixture ' + name + ' (stopping it, its children)':<67} {c:>8.1f}" for name, c in shared]
    if forked:  # what hitflow_forks's line holds, by the file whose tests ran the commands
        lines.append(f"{'  hitflow_forks: its forked commands, per file:':<52} {'cmds':>5} {'cpu s':>8}")
        lines += [f"  {name:<50} {n:>5} {c:>8.1f}" for name, (n, c) in sorted(forked.items(),
                                                                             key=lambda kv: -kv[1][1])[:top]]
    lines.append(f"{len(files)} files, {sum(v[0] for v in files.values())} tests: {in_tests:.1f} s CPU in tests, "
                 f"{collect:.1f} s starting and collecting, {sum(fixtures.values()):.1f} s in session fixtures' "
                 f"teardown, {rest:.1f} s after the last test (session teardown); "
                 f"{workers_total:.1f} s in {workers} worker(s) with their children"
                 + (f", {run_total:.1f} s the whole pytest run (the controller and its children)" if run_total else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the heaviest test files of a recording (tests/cpu_record.py)")
    parser.add_argument("recording", type=Path)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    print(report(args.recording, args.top))


if __name__ == "__main__":
    main()

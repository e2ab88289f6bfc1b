"""The multi-host work: the run folder at an fsspec URL. A second folder stands in for another host
(``file://``, always run); the mirror copies only what changed and converges after a kill -9; a URL's
credentials never reach the console, the log, the ledger or the outputs; a bad URL is one line
before anything is posted. The same campaign against a real S3 server (moto's) is in
tests/test_output_s3.py."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any, ClassVar

import pytest
from fsspec.implementations.local import LocalFileSystem

from flows.core.outputs.output_location import shown_output, staging_root
from flows.core.outputs.output_mirror import PART, PROBE, mirror, pull_missing
from tests.forked_hitflow import ForkServer
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
SECRET = "pw-Zq81vXk2LmT0"  # the password a URL carries; it must show up nowhere


def env_for(tmp: Path) -> dict[str, str]:
    """The CLI's environment: staging folders under the test's own folder (runs/staging is shared)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FSSPEC_", "HITFLOW_OUT"))}
    return {**env, "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PYTHONUNBUFFERED": "1",
            "HITFLOW_STAGING": str(tmp / "staging")}


def hitflow(forks: ForkServer, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``hitflow ARGS`` as a process of its own, forked from the session's fork server (tests/forked_hitflow.py:
    its own stdout, stderr and exit code, without a new interpreter's imports)."""
    return forks.run(list(args), text=True, env=env_for(tmp), cwd=ROOT, timeout=240)


def hitflow_here(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``hitflow ARGS`` through ``main()`` in this process, in ``env_for(tmp)``'s environment: its exit
    code, stdout and stderr, without a new interpreter's imports (~1.5 s of CPU). For a run whose
    process is not what is tested; the runs that are killed, and where the point is that the secret
    shows up in nothing the process prints, stay processes (``hitflow``, forked)."""
    from flows.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for key in [k for k in os.environ if k.startswith(("FSSPEC_", "HITFLOW_OUT"))]:
            patch.delenv(key)
        patch.setenv("HITFLOW_STAGING", str(tmp / "staging"))
        environ = dict(os.environ)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(list(args))
                except SystemExit as exit_:  # an argument the parser refuses (its one line is printed)
                    code = exit_.code if isinstance(exit_.code, int) else 1
        finally:  # the CLI sets Prefect's defaults in its environment, as the command does for itself
            for added in set(os.environ) - set(environ):
                del os.environ[added]
            os.environ.update(environ)
    return subprocess.CompletedProcess(["hitflow", *args], code, out.getvalue(), err.getvalue())


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def outputs(files: dict[str, bytes]) -> set[str]:
    """The outputs a person reads, less the logs (one file per run: a resumed campaign has two)."""
    return {name for name in files if not name.startswith("logs/")}


# the small demo in three batches, not five: a run killed as batch 3 is posted has had batches 1 and 2 copied
THREE_BATCHES = {"batches = 5 ": "batches = 3 "}


def staged(tmp: Path, url: str) -> Path:
    """The run's local copy, in the staging folder the CLI's environment names."""
    return tmp / "staging" / staging_root(url).name / "vizwiz_captions"


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, subprocess.CompletedProcess[str]]:
    """The small demo (50 images, in 3 batches) with its outputs at a file:// URL: another host's folder."""
    tmp = tmp_path_factory.mktemp("url")
    url = f"file://{tmp / 'other-host' / 'runs'}"
    config = small_vizwiz(tmp, edits=THREE_BATCHES)
    done = hitflow_here(tmp, "run", str(config), "--no-prefect", "--db", str(tmp / "h.db"), "--out", url)
    assert done.returncode == 0, done.stderr
    return tmp, url, done


def test_the_files_at_the_url_are_the_local_runs(uninterrupted) -> None:
    tmp, url, done = uninterrupted
    at_url, local = tree(tmp / "other-host" / "runs" / "vizwiz_captions"), tree(staged(tmp, url))
    assert at_url == local  # byte for byte
    assert {"dataset.json", "dataset.csv", "flags.csv", "blocked_workers.csv", "report.html",
            "hitflow-manifest.json"} <= outputs(at_url)
    assert f"outputs copied to {url}/vizwiz_captions/" in done.stdout
    with sqlite3.connect(tmp / "h.db") as conn:  # where `hitflow cancel` would export: the URL, not the copy
        stored = conn.execute("SELECT config_json FROM campaigns").fetchone()[0]
    assert f'"out_root": "{url}"' in stored


@pytest.mark.slow
def test_a_run_killed_mid_batch_then_run_again_leaves_the_same_files_at_the_url(uninterrupted, tmp_path,
                                                                                hitflow_forks: ForkServer) -> None:
    reference = tree(uninterrupted[0] / "other-host" / "runs" / "vizwiz_captions")
    url = f"file://{tmp_path / 'other-host' / 'runs'}"
    args = ["run", str(small_vizwiz(tmp_path, edits=THREE_BATCHES)), "--no-prefect", "--db", str(tmp_path / "h.db"),
            "--out", url]
    run = hitflow_forks.popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env_for(tmp_path), cwd=ROOT, start_new_session=True)
    try:
        assert run.stdout is not None
        for line in run.stdout:  # batch 3 posted: batches 1 and 2 were copied at their ends
            if line.startswith("batch 3: "):
                os.killpg(run.pid, signal.SIGKILL)
                break
        run.wait(30)
    finally:
        run.kill()
    assert run.returncode == -signal.SIGKILL
    at_url = tmp_path / "other-host" / "runs" / "vizwiz_captions"
    assert "hitflow-manifest.json" in tree(at_url) and "dataset.csv" not in tree(at_url)  # copied between batches
    again = hitflow_here(tmp_path, *args)  # the resume: the process killed above is the point
    assert again.returncode == 0, again.stderr
    files = tree(at_url)
    assert files == tree(staged(tmp_path, url))
    assert outputs(files) == outputs(reference)  # the same files as the run that was never killed
    assert not [name for name in files if name.endswith(PART)]


def test_only_changed_files_are_copied_and_a_half_done_mirror_converges(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HITFLOW_STAGING", str(tmp_path / "staging"))
    url = f"file://{tmp_path / 'remote'}"
    local, remote = staging_root(url) / "c", tmp_path / "remote" / "c"
    (local / "logs").mkdir(parents=True)
    (local / "a.csv").write_text("a\n1\n")
    (local / "logs" / "run.log").write_text("started\n")
    assert mirror(url, "c") == {"copied": 2, "removed": 0, "kept": 0}
    assert mirror(url, "c") == {"copied": 0, "removed": 0, "kept": 2}
    (local / "a.csv").write_text("a\n1\n")  # rewritten, same bytes (a report written again): not sent
    (local / "logs" / "run.log").write_text("started\nbatch 1\n")
    assert mirror(url, "c") == {"copied": 1, "removed": 0, "kept": 1}
    (remote / "a.csv").unlink()  # gone at the URL (a killed copy, a person): copied again
    (remote / f"b.csv.1234{PART}").write_text("half")  # what a copy killed half-way leaves
    (local / "logs" / "run.log").unlink()  # gone here: removed there
    assert mirror(url, "c") == {"copied": 1, "removed": 1, "kept": 0}
    assert tree(remote) == tree(local) == {"a.csv": b"a\n1\n"}


def test_a_fresh_folder_on_another_host_gets_what_the_url_holds(tmp_path, monkeypatch) -> None:
    url = f"file://{tmp_path / 'remote'}"
    (tmp_path / "remote" / "c").mkdir(parents=True)
    (tmp_path / "remote" / "c" / "invites.csv").write_text("name,link\nann,https://x\n")
    monkeypatch.setenv("HITFLOW_STAGING", str(tmp_path / "host-b"))
    assert pull_missing(url, "c") == 1
    assert (staging_root(url) / "c" / "invites.csv").read_text() == "name,link\nann,https://x\n"
    assert mirror(url, "c") == {"copied": 0, "removed": 0, "kept": 1}  # nothing sent back


@pytest.mark.slow
def test_a_urls_credentials_show_up_nowhere(tmp_path, hitflow_forks: ForkServer) -> None:
    """Ctrl-C mid-run (its log gets a traceback, its hint repeats --out), then the run resumed to its end:
    the password is in no line printed and no file written (ledger, logs, local copy, the URL's files)."""
    remote = tmp_path / "remote"
    url = f"file://hitflow:{SECRET}@{remote}"
    args = ["run", str(small_vizwiz(tmp_path, edits=THREE_BATCHES)), "--no-prefect", "--db", str(tmp_path / "h.db"),
            "--out", url]
    run = hitflow_forks.popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env_for(tmp_path), cwd=ROOT, start_new_session=True)
    try:
        assert run.stdout is not None
        said: list[str] = []
        for line in run.stdout:
            if line.startswith("batch 1: ") and not any(s.startswith("batch 1: ") for s in said):
                os.killpg(run.pid, signal.SIGINT)  # Ctrl-C, once, as batch 1 is posted
            said.append(line)
        said.append(run.stderr.read() if run.stderr else "")
        run.wait(30)
    finally:
        run.kill()
    assert run.returncode == 130 and f"--out file://{remote} " in said[-1], said[-1]  # the resume hint, bare
    logs = list((remote / "vizwiz_captions" / "logs").glob("run-*.log"))
    assert len(logs) == 1 and "KeyboardInterrupt" in logs[0].read_text()  # the log, closed, at the URL too
    done = hitflow(hitflow_forks, tmp_path, *args)
    assert done.returncode == 0 and (remote / "vizwiz_captions" / "dataset.csv").is_file(), done.stderr
    assert SECRET not in "".join(said) + done.stdout + done.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert tmp_path / "h.db" in written and logs[0] in written
    assert not [p for p in written if SECRET.encode() in p.read_bytes()]
    assert shown_output(url) == f"file://***@{remote}"


class CountingFileSystem(LocalFileSystem):
    """This host's disk under a protocol of its own (``countfile://``): every call is the real one, and
    what a run does at the URL is recorded in order: a write probe, a listing, a copy there, a fetch."""

    protocol = ("countfile", "file")  # "file": the mirror treats it as a local filesystem (part + rename)
    calls: ClassVar[list[str]] = []

    def pipe_file(self, path: str, value: bytes, *args: Any, **kwargs: Any) -> None:
        CountingFileSystem.calls.append("probe" if PROBE in path else "pipe")
        super().pipe_file(path, value, *args, **kwargs)

    def find(self, path: str, *args: Any, **kwargs: Any) -> Any:
        CountingFileSystem.calls.append("list")
        return super().find(path, *args, **kwargs)

    def put_file(self, lpath: str, rpath: str, *args: Any, **kwargs: Any) -> None:
        CountingFileSystem.calls.append("copy")
        super().put_file(lpath, rpath, *args, **kwargs)

    def get_file(self, rpath: str, lpath: str, *args: Any, **kwargs: Any) -> None:
        CountingFileSystem.calls.append("fetch")
        super().get_file(rpath, lpath, *args, **kwargs)


def test_a_run_checks_and_pulls_from_its_url_once_as_it_starts(tmp_path, monkeypatch, capsys) -> None:
    """A run to an output URL probed it and pulled from it twice as it started (as the CLI checked the
    campaign's identity, then as the driver started): now once, on every route, in the driver. A second
    host (an empty staging folder) running the same campaign fetches each file the URL holds once."""
    import fsspec

    from flows.cli.main import main

    fsspec.register_implementation("countfile", CountingFileSystem, clobber=True)
    url = f"countfile://{tmp_path / 'remote'}"
    config = small_vizwiz(tmp_path, edits={"batches = 5 ": "batches = 1 "}, items=5)  # the start is what counts
    args = ["run", str(config), "--no-prefect", "--db", str(tmp_path / "h.db"), "--out", url]
    runs, held = {}, {}
    for host in ("host-a", "host-b"):
        monkeypatch.setenv("HITFLOW_STAGING", str(tmp_path / host))
        held[host] = tree(tmp_path / "remote" / "vizwiz_captions") if (tmp_path / "remote").exists() else {}
        CountingFileSystem.calls = []
        assert main(args) == 0, capsys.readouterr().err
        runs[host] = CountingFileSystem.calls
    first, second = runs["host-a"], runs["host-b"]
    # the probe, the pull's listing, then the start's copy to the URL: its listing and its copies
    assert first.count("probe") == 1 and first[:first.index("copy")] == ["probe", "list", "list"], first
    assert second.count("probe") == 1 and second[:3] == ["probe", "list", "fetch"], second
    assert second.count("fetch") == len(held["host-b"]) > 5  # each file the URL held, once


@pytest.mark.parametrize(("out", "says"), [
    ("nosuch://bucket/runs", "fsspec knows no protocol 'nosuch'"),
    ("file:///proc/hitflow-nope/runs", "cannot be written"),
])
def test_a_bad_url_is_one_line_before_anything_is_posted(tmp_path, out: str, says: str) -> None:
    done = hitflow_here(tmp_path, "run", str(small_vizwiz(tmp_path)), "--no-prefect", "--db", str(tmp_path / "h.db"),
                   "--out", out)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "h.db").exists()  # no ledger: nothing planned or posted


def test_a_secret_with_a_slash_left_as_it_is_is_refused_and_never_shown(tmp_path, monkeypatch, capsys) -> None:
    """An AWS secret often holds '/': unescaped, it ends the URL's host and the rest of the secret
    read as the path (printed, stored in the ledger, made a folder name). Refused, shown as the protocol."""
    from flows.cli.main import main

    monkeypatch.chdir(tmp_path)
    url = f"file://hitflow:Se/cr3tXYZ@{tmp_path}/out"
    code = main(["run", str(small_vizwiz(tmp_path)), "--no-prefect", "--db", str(tmp_path / "h.db"), "--out", url])
    said = capsys.readouterr()
    assert code == 2 and said.err.count("\n") == 1 and "%2F" in said.err, said.err
    assert "cr3tXYZ" not in said.out + said.err and not (tmp_path / "h.db").exists()
    assert not [p for p in tmp_path.rglob("*") if "cr3t" in str(p) or "hitflow:Se" in str(p)]  # no folder made of it
    assert shown_output("s3://AKID:se/cret@bucket/runs") == "s3://***"
    assert shown_output("s3://bucket/v@2/runs") == "s3://bucket/v@2/runs"  # an @ in a path alone is fine


def test_a_config_with_credentials_in_its_output_url_is_refused_without_repeating_them(
        tmp_path, hitflow_forks: ForkServer) -> None:
    config = small_vizwiz(tmp_path, edits={"[target]": f'[target]\nout = "s3://KEYID:{SECRET}@bucket/runs"'})
    done = hitflow(hitflow_forks, tmp_path, "run", str(config), "--no-prefect", "--db", str(tmp_path / "h.db"))
    assert done.returncode == 2 and "[target].out" in done.stderr and SECRET not in done.stderr, done.stderr


def test_hitflow_ui_serves_the_report_from_the_url(uninterrupted) -> None:
    import httpx

    from flows.driver.campaign_status import campaign_status
    from flows.review.overview_app import OverviewServer, OverviewSite

    tmp, url, _ = uninterrupted
    at_url = tmp / "other-host" / "runs" / "vizwiz_captions" / "report.html"
    site = OverviewSite(db_path=tmp / "h.db", out_root=url, read_status=campaign_status)
    with OverviewServer(site) as server, httpx.Client(follow_redirects=True, timeout=30) as browser:
        assert "/report/vizwiz_captions" in browser.get(f"{server.url}/?token={site.login_token}").text
        report = browser.get(f"{server.url}/report/vizwiz_captions")
        assert report.status_code == 200 and report.content == at_url.read_bytes()
        kept = at_url.read_bytes()
        at_url.unlink()  # gone at the URL: the page says so, even though this host's copy is still there
        try:
            assert browser.get(f"{server.url}/report/vizwiz_captions").status_code == 403
            assert (staged(tmp, url) / "report.html").is_file()
        finally:
            at_url.write_bytes(kept)  # the module's run, as the other tests read it


def test_the_manifest_names_a_postgresql_ledger_the_same_from_every_workers_folder(tmp_path, monkeypatch) -> None:
    """Another host reads the manifest from the URL: a URL ledger must not read as a path under its folder
    (each worker's own), nor carry the password into the outputs."""
    from flows.campaigns.identity import ledger_id

    url = f"postgresql://hitflow:{SECRET}@dbhost:5432/hitflow"
    monkeypatch.chdir(tmp_path)
    here = ledger_id(url)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert ledger_id(url) == here == "postgresql://hitflow:***@dbhost:5432/hitflow"

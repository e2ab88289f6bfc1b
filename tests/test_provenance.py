"""Provenance in every output folder and `hitflow verify`: the hashes are checked
against hashlib run here on the files themselves, and every kind of tampering is caught."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tomllib
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.custom.scaffold import scaffold

ROOT = Path(__file__).resolve().parents[1]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def caption_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 20-image caption campaign on the embedded simulator, run once for the module's tests."""
    project = tmp_path_factory.mktemp("provenance")
    shutil.copytree(ROOT / "config", project / "config")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project)
        assert main(["run", "config/vizwiz_captions.toml", "--no-prefect", "--limit", "20"]) == 0
    return project


def copy_of(project: Path, tmp_path: Path) -> Path:
    """A copy to tamper with (the ledger and inputs too), so each test starts from the run as written."""
    shutil.copytree(project, tmp_path / "p", symlinks=True)
    return tmp_path / "p"


def test_provenance_records_inputs_versions_and_outputs_as_hashlib_computes_them(caption_run: Path) -> None:
    out = caption_run / "runs" / "vizwiz_captions"
    record = json.loads((out / "provenance.json").read_text())
    assert record["inputs"]["config"]["sha256"] == sha256(caption_run / "config" / "vizwiz_captions.toml")
    assert record["inputs"]["template"]["sha256"] == sha256(ROOT / "hit_templates" / "caption.html.j2")
    assert record["inputs"]["crowd"]["sha256"] == sha256(ROOT / "config" / "crowds" / "vizwiz_demo.toml")
    assert record["inputs"]["items"]["sha256"] == sha256(Path(record["inputs"]["items"]["path"]))
    for name in ("dataset.csv", "flags.csv", "blocked_workers.csv", "report.html"):
        assert record["outputs"][name] == sha256(out / name), name
    assert not any(name.startswith("logs/") for name in record["outputs"])
    config = tomllib.loads((caption_run / "config" / "vizwiz_captions.toml").read_text())
    assert record["seed"] == config["campaign"]["seed"] and record["simulator_seed"] == 1
    assert record["libraries"]["pandas"] and record["libraries"]["prefect"].startswith("3.")
    assert record["platform"] == "mturk" and "simulator" in record["target"]
    times = record["time"]
    assert times["real_start"] <= times["real_end"] and times["platform_first_accept"] <= times["platform_last_submit"]
    with sqlite3.connect(caption_run / "runs" / "hitflow.db") as con:
        counted = {t: con.execute(f"SELECT count(*) FROM {t} WHERE campaign = 'vizwiz_captions'").fetchone()[0]
                   for t in ("assignments", "decisions", "qc_flags", "items")}
    assert {t: record["ledger_counts"][t] for t in counted} == counted and counted["assignments"] >= 20
    report = (out / "report.html").read_text()
    assert record["inputs"]["config"]["sha256"][:16] in report and 'id="provenance"' in report


def test_verify_passes_on_the_folder_as_written(caption_run: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    project = copy_of(caption_run, tmp_path)
    assert main(["verify", str(project / "runs" / "vizwiz_captions"), "--db", str(project / "runs" / "hitflow.db"),
                 "--json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {f["part"] for f in findings} == {"input", "output", "ledger"}
    assert all(f["status"] == "same" for f in findings) and len(findings) >= 15


@pytest.mark.parametrize("tamper, part, name", [
    ("output", "output", "dataset.csv"), ("added", "output", "extra.csv"), ("removed", "output", "flags.csv"),
    ("config", "input", "config"), ("ledger", "ledger", "blocks")])
def test_verify_names_what_changed(caption_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   tamper: str, part: str, name: str) -> None:
    project = copy_of(caption_run, tmp_path)
    out, db = project / "runs" / "vizwiz_captions", project / "runs" / "hitflow.db"
    if tamper == "output":
        (out / "dataset.csv").write_text((out / "dataset.csv").read_text().replace(",", ";", 1))
    elif tamper == "added":
        (out / "extra.csv").write_text("a\n1\n")
    elif tamper == "removed":
        (out / "flags.csv").unlink()
    elif tamper == "ledger":
        with sqlite3.connect(db) as con:
            con.execute("INSERT INTO blocks (campaign, worker_id, batch, rules) "
                        "VALUES ('vizwiz_captions', 'W', 9, 'x')")
    record = json.loads((out / "provenance.json").read_text())
    if tamper == "config":  # the config the record names, in the copied project: point the record at it
        config = project / "config" / "vizwiz_captions.toml"
        config.write_text(config.read_text() + "\n# edited after the run\n")
        record["inputs"]["config"]["path"] = str(config)
        (out / "provenance.json").write_text(json.dumps(record))
    assert main(["verify", str(out), "--db", str(db), "--json"]) == 1
    differ = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["status"] != "same"]
    assert [(f["part"], f["name"]) for f in differ] == [(part, name)]


def test_verify_of_a_folder_without_provenance_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no provenance.json" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_custom_page_campaign_records_its_own_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scaffold("demo_task", tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/demo_task.toml", "--no-prefect"]) == 0
    record = json.loads((tmp_path / "runs" / "demo_task" / "provenance.json").read_text())
    assert record["inputs"]["template"]["sha256"] == sha256(tmp_path / "config" / "demo_task.html.j2")
    assert record["inputs"]["items"]["sha256"] == sha256(tmp_path / "config" / "demo_task_items.csv")
    assert main(["verify", "runs/demo_task"]) == 0


def test_the_revision_is_the_checkouts_commit_and_says_when_a_tracked_file_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    import flows.driver.provenance as provenance

    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args], cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout.strip()

    git("init", "-q")
    monkeypatch.setattr(provenance, "SOURCE_ROOT", tmp_path)
    assert provenance.source_revision() == ""  # no commit yet
    (tmp_path / "a.py").write_text("x = 1\n")
    git("add", "a.py")
    git("commit", "-q", "-m", "first")
    (tmp_path / "new.py").write_text("")  # untracked: not a change of the checkout
    assert provenance.source_revision() == git("rev-parse", "HEAD")
    (tmp_path / "a.py").write_text("x = 2\n")
    assert provenance.source_revision() == git("rev-parse", "HEAD") + "+dirty"

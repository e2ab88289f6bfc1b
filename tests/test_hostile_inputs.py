"""The third security round, the small defects: the simulator's control routes, a NextToken that is not a
string, short task secrets, the /health fingerprint, text where a statistic wants numbers."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.errors import ConfigError
from flows.core.inputs import text_files
from flows.core.inputs.csv_writing import write_dataset
from flows.core.ledger.store import Store
from flows.core.site_secrets import task_secret
from flows.custom.scaffold import scaffold
from flows.driver.campaign_run import run_campaign
from flows.driver.operations import open_campaign_run
from flows.sim.service.server import SimServer
from flows.studies.study_outputs import write_study_outputs
from flows.taskserver.task_units import secret_fingerprint
from postprocess.agreement import agreement
from tests.test_security_server import serve
from tests.test_task_server import answers_for, visit

CONFIG_DIR = Path(__file__).resolve().parents[1] / "config"


# the simulator's /_sim/* routes ---------------------------------------------------------------
def test_a_cross_site_text_plain_post_cannot_move_the_clock(sim) -> None:
    before = httpx.get(f"{sim.url}/_sim/clock").json()["now"]
    for ctype in ("text/plain", "application/x-www-form-urlencoded", ""):  # what a form may send cross-site
        answer = httpx.post(f"{sim.url}/_sim/clock", content=b'{"advance_seconds": 86400}',
                            headers={"Content-Type": ctype} if ctype else {})
        assert answer.status_code == 415 and "application/json" in answer.json()["Message"]
    faults = httpx.post(f"{sim.url}/_sim/faults", content=b'{"fault_rate": 1}', headers={"Content-Type": "text/plain"})
    assert faults.status_code == 415 and sim.market.faults.fault_rate == 0
    assert httpx.get(f"{sim.url}/_sim/clock").json()["now"] == before
    assert httpx.post(f"{sim.url}/_sim/clock", json={"advance_seconds": 60}).json()["now"] == before + 60


@pytest.mark.parametrize("route", ["/_sim/workers", "/_sim/clock"])
def test_a_rebound_dns_name_is_refused_on_the_control_routes(sim, route: str) -> None:
    assert httpx.get(f"{sim.url}{route}", headers={"Host": "attacker.example:8765"}).status_code == 403
    assert httpx.post(f"{sim.url}/_sim/clock", json={"advance_seconds": 1},
                      headers={"Host": "attacker.example"}).status_code == 403
    port = sim.url.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "10.0.0.7"):
        assert httpx.get(f"{sim.url}{route}", headers={"Host": host}).status_code == 200, host
    assert httpx.get(f"{sim.url}/_sim/health", headers={"Host": "attacker.example"}).status_code == 200


@pytest.mark.parametrize("token", [{"a": 1}, ["x"], 7, True])
def test_a_next_token_that_is_not_a_string_gets_mturks_error(client, token: object) -> None:
    reply = httpx.post(client.meta.endpoint_url, json={"NextToken": token, "MaxResults": 10}, headers={
        "X-Amz-Target": "MTurkRequesterServiceV20170117.ListHITs", "Content-Type": "application/x-amz-json-1.1"})
    assert reply.status_code == 400 and "NextToken" in reply.json()["Message"]


# the task server's secret ---------------------------------------------------------------------
@pytest.mark.parametrize("secret", ["hunter2", "x" * 31, "  " + "y" * 20 + "  "])
def test_a_short_task_secret_is_refused_in_one_line(secret: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HITFLOW_TASK_SECRET", secret)
    with pytest.raises(ConfigError, match="at least 32") as err:
        task_secret(tmp_path / "h.db")
    assert secret.strip() not in str(err.value) and "\n" not in str(err.value)


def test_a_long_task_secret_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HITFLOW_TASK_SECRET", "s" * 32)
    assert task_secret(tmp_path / "h.db") == b"s" * 32


def test_the_fingerprint_is_slow_to_search() -> None:
    """A keyed, stretched hash: one guess costs PBKDF2's 200,000 rounds, so even a short list of
    guesses takes seconds (the old HMAC gave `hunter2` away in 7 microsecond guesses)."""
    started = time.perf_counter()
    secret_fingerprint(b"guess-" + str(time.time()).encode())  # a fresh value: not from the cache
    assert time.perf_counter() - started > 0.02
    assert secret_fingerprint(b"a" * 32) != secret_fingerprint(b"b" * 32)
    assert len(secret_fingerprint(b"a" * 32)) == 16


# statistics over hostile columns --------------------------------------------------------------
def test_text_in_minutes_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "screen.csv"
    table.write_text("participant_id,minutes,slider_zero\np1,25,0\np2,twenty,0\n")
    assert main(["analyze", "screening", str(table)]) == 3  # InputFormatError
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "minutes" in err and "Traceback" not in err
    table.write_text("participant_id,minutes,slider_zero,continued\np1,25,0,true\np2,12,0,true\np3,30,1,true\n"
                     "p4,40,0,false\n")  # a CSV's "0" and "false" are no (text, not Python truth)
    assert main(["analyze", "screening", str(table)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["kept"] == 1 and result["continued"] == 3
    assert [e["participant_id"] for e in result["excluded"]] == ["p2", "p3"]


# a study's statistics over hostile answers ----------------------------------------------------
def test_agreement_with_no_item_judged_twice_is_a_note_not_an_exception() -> None:
    lonely = pd.DataFrame({"item_id": ["a", "b", "c"], "worker_id": ["w1", "w2", "w3"], "label": ["1", "2", "1"]})
    result = agreement(lonely, "ordinal")
    assert result["krippendorff_alpha"] is None and "two or more raters" in result["note"]
    pair = pd.DataFrame({"item_id": ["a", "b"], "worker_id": ["w1", "w2"], "label": ["1", "2"]})
    assert agreement(pair)["cohen_kappa"] is None  # two raters who share no item


def test_answers_for_items_never_served_are_dropped_before_the_analysis(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    with SimServer(seed=1, crowd_file=CONFIG_DIR / "crowds" / "judges.toml") as sim:
        run_campaign(CONFIG_DIR / "expert_rating.toml", endpoint_url=sim.url, db_path=db, out_root=tmp_path / "runs",
                     progress=lambda _: None)
        store = Store(db)
        kept = store.rows("SELECT DISTINCT x.assignment_id FROM answers x JOIN decisions d USING (assignment_id) "
                          "WHERE d.action = 'approve' AND x.field = 'score' LIMIT 3")
        for n, row in enumerate(kept):  # three workers' scores land on ids no page showed
            # the first one's carry no id at all: only a screen's page-level fields may
            store.db.execute("UPDATE answers SET item_id = 'never-served-' || item_id || ? WHERE assignment_id = ? "
                             "AND field = 'score'", [str(n), row["assignment_id"]])
        # and one score carries no id at all: only a screen's page-level fields may
        store.db.execute("UPDATE answers SET item_id = '' WHERE rowid = (SELECT MIN(rowid) FROM answers "
                         "WHERE field = 'score' AND item_id NOT LIKE 'never-served%')")
        with open_campaign_run(str(db), "expert_rating", endpoint_url=sim.url, progress=lambda _: None) as run:
            result = write_study_outputs(run, tmp_path / "again")
    judged = pd.read_csv(tmp_path / "again" / "judgements.csv", dtype=str)
    assert len(kept) == 3 and not judged["item_id"].str.startswith("never-served").any()
    assert not judged["item_id"].isna().any() and (judged["item_id"] != "").all()
    analysis = json.loads((tmp_path / "again" / "analysis.json").read_text())
    assert analysis["answers_for_unserved_items_dropped"] >= 4 and "error" not in analysis
    assert result["judgements"] == len(judged) and (tmp_path / "again" / "report.html").is_file()


# a custom template's run-time errors and a deep TOML file --------------------------------------
@pytest.mark.parametrize("expression", ["{{ 1/0 }}", "{{ 'words' | wordwrap(0) }}",
                                        "{% for i in range(10**7) %}{% endfor %}"])
def test_a_template_that_fails_while_rendering_is_one_line(expression: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    scaffold("demo", tmp_path)
    page = tmp_path / "config" / "demo.html.j2"
    page.write_text(page.read_text().replace("{% block instructions %}", "{% block instructions %}" + expression, 1))
    assert expression in page.read_text()
    code = main(["run", str(tmp_path / "config" / "demo.toml"), "--dry-run", "--db", str(tmp_path / "h.db"),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "failed while rendering" in err and "demo.html.j2" in err


def test_a_deeply_nested_toml_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("[campaign]\nname = " + "[" * 5000 + "]" * 5000 + "\n")
    assert main(["run", str(deep), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nest too deeply" in err


# input files are read with a size limit ---------------------------------------------------------
@pytest.mark.parametrize("command", [["qc", "/dev/zero", "--out", "{tmp}/f.csv"], ["analyze", "agreement", "/dev/zero"],
                                     ["analyze", "ratings", "/dev/zero", "--reader", "flickr8k-expert"]])
def test_an_endless_input_file_is_refused_at_the_limit(command: list[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The default limit is 512 MB (`hitflow qc /dev/zero` stops there, at 0.7 GB RSS); a small one
    here keeps the test fast. Before, /dev/zero was read until the kernel killed the process."""
    monkeypatch.setattr(text_files, "MAX_INPUT_BYTES", 1 << 20)
    assert main([part.format(tmp=tmp_path) for part in command]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "/dev/zero: over 1048576 bytes" in err


# after `hitflow cancel`, an open unit takes no submission -----------------------------------------
def test_a_unit_opened_before_cancel_cannot_be_submitted_after_it(tmp_path: Path) -> None:
    gen = serve(tmp_path)
    s = next(gen)
    try:
        early, late = visit(s, "p-early", "sess-early"), visit(s, "p-late", "sess-late")
        assert s["http"].post(f"/task/{s['cfg'].name}/submit", data=answers_for(early.text)).status_code == 303
        s["store"].table("campaigns").update(s["cfg"].name, {"status": "cancelled"})  # as finish_cancel marks it
        refused = s["http"].post(f"/task/{s['cfg'].name}/submit", data=answers_for(late.text))
        assert refused.status_code == 410 and "This study has closed" in refused.text
        stored = {r["assignment_id"] for r in s["store"].rows("SELECT assignment_id FROM assignments")}
        assert stored == {"sess-early"}
        again = s["http"].post(f"/task/{s['cfg'].name}/submit", data=answers_for(early.text))
        assert again.status_code == 303  # what was stored before the cancel keeps its completion
    finally:
        gen.close()


# dataset.csv is neutralised like every other export ---------------------------------------------
def test_dataset_csv_neutralises_formulas_and_the_raw_file_keeps_them(tmp_path: Path) -> None:
    frame = pd.DataFrame({"image_id": ["a", "b"], "caption": ['=HYPERLINK("https://evil.example","x")',
                                                               "A dog runs."]})
    write_dataset(frame, tmp_path)
    shown = pd.read_csv(tmp_path / "dataset.csv", dtype=str)
    raw = pd.read_csv(tmp_path / "dataset.raw.csv", dtype=str)
    assert shown["caption"].tolist() == ['\'=HYPERLINK("https://evil.example","x")', "A dog runs."]
    assert raw["caption"].tolist() == frame["caption"].tolist()

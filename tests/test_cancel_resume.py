"""A cancelled campaign resumed on purpose finishes: the items of the HITs ``hitflow cancel`` closed
short are posted again, once, and a kill during that re-post posts nothing twice.

Found by hand: a Ctrl-C between publish and collect of batch 2, then ``hitflow cancel`` (which expires
batch 2's open HIT), then ``hitflow run --resume-cancelled`` stopped with exit 8, "batch 2 got no work
... (nobody took them: is anyone eligible?)", and posted nothing more. The commands a person types run
through ``main()`` in this process; the interrupted runs are the driver's in-process run with a step (or
the re-post's ledger write) raising KeyboardInterrupt, as the signal does between two ledger writes
(``main()`` ends an interrupted run with Prefect loaded by leaving the process: not in pytest's)."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.driver.operations import open_campaign_run
from flows.platforms.mturk import adapter as mturk
from tests.small_configs import small_vizwiz

NAME = "vizwiz_captions"


def hitflow(*args: str) -> int:
    """``main(args)``, with the environment as it was: the CLI sets Prefect's defaults in it (PREFECT_HOME
    relative to the working folder), which must not outlive this test."""
    environ = dict(os.environ)
    try:
        return main(list(args))
    finally:
        os.environ.clear()
        os.environ.update(environ)


def stop_as_batch_2_collects(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
    """The steps as the driver calls them, with a Ctrl-C once batch 2 is posted and not yet collected."""
    if name.startswith("collect") and batch == 2:
        raise KeyboardInterrupt
    return fn(run, batch)  # type: ignore[no-any-return]


def stop_in_batch_2_wait(share: float) -> Any:
    """A Ctrl-C after ``share`` of batch 2's first wait: some of its work is in, its HIT or study still open."""
    def stop(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
        if name.startswith("collect") and batch == 2:
            wait = run.wait

            def part_then_stop(seconds: float) -> None:
                wait(seconds * share)
                raise KeyboardInterrupt

            run.wait = part_then_stop
        return fn(run, batch)  # type: ignore[no-any-return]
    return stop


def cancelled_at_batch_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop: Any = stop_as_batch_2_collects,
                         platform: str = "mturk") -> tuple[Path, str, Path]:
    """3 images in 3 batches (one HIT of 5 assignments each): stopped after batch 2 was posted, then cancelled;
    a batch is left after it (batches 4 and 5 of the demo's 5 only did the same again)."""
    monkeypatch.chdir(tmp_path)
    config = small_vizwiz(tmp_path, items=3, edits={"batches = 5 ": "batches = 3 "})
    ledger, out = str(tmp_path / "h.db"), tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=out, progress=lambda _: None, call=stop,
                     platform=platform)
    assert hitflow("cancel", NAME, "--db", ledger, "--out", str(out)) == 0
    return config, ledger, out


def resume(config: Path, ledger: str, out: Path, *more: str) -> int:
    return hitflow("run", str(config), "--no-prefect", "--db", ledger, "--out", str(out),
                   "--resume-cancelled", *more)


def hits_per_batch(ledger: str) -> dict[int, int]:
    rows = Store(ledger).rows("SELECT batch, count(*) AS n FROM hits WHERE campaign = ? GROUP BY batch", [NAME])
    return {r["batch"]: r["n"] for r in rows}


def test_resuming_a_cancelled_campaign_posts_again_what_the_cancel_closed_and_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    config, ledger, out = cancelled_at_batch_2(tmp_path, monkeypatch)
    capsys.readouterr()
    assert hitflow("status", NAME, "--db", ledger) == 0
    status = capsys.readouterr().out  # what resuming will do, before it is done
    code, said = resume(config, ledger, out), capsys.readouterr()
    assert "which first posts again batch 2: the items of 1 HIT(s) the cancel closed short, for their 5 missing " \
           "assignment(s)" in status, status
    assert code == 0, said.err  # was exit 8: "batch 2 got no work ... (nobody took them: is anyone eligible?)"
    said = said.out
    assert "batch 2: `hitflow cancel` closed 1 HIT(s) short of their work; their items are posted again" in said
    assert "INCOMPLETE" not in said
    dataset = pd.read_csv(out / NAME / "dataset.raw.csv")
    assert dataset.groupby("image_id").size().tolist() == [5] * 3  # every image described, five times
    assert hits_per_batch(ledger) == {1: 1, 2: 2, 3: 1}  # one HIT again, only where the cancel closed one
    assert Store(ledger).rows("SELECT status FROM campaigns WHERE name = ?", [NAME])[0]["status"] == "done"


def test_work_in_before_the_cancel_counts_and_its_batch_is_still_collected_on_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, the cancel's review marked a batch it never collected "decided": resumed, the batch skipped
    its collection and the campaign ended with exit 0 and fewer captions than planned, saying nothing."""
    config, ledger, out = cancelled_at_batch_2(tmp_path, monkeypatch, stop_in_batch_2_wait(0.5))
    came_in = Store(ledger).rows("SELECT count(*) AS n FROM assignments WHERE batch = 2")[0]["n"]
    assert 0 < came_in < 5  # this seed and clock: some of batch 2's work was in when it was cancelled
    assert resume(config, ledger, out) == 0, capsys.readouterr().err
    assert f"posted again, once, for the {5 - came_in} missing assignment(s)" in capsys.readouterr().out
    dataset = pd.read_csv(out / NAME / "dataset.raw.csv")
    assert dataset.groupby("image_id").size().tolist() == [5] * 3 and hits_per_batch(ledger)[2] == 2


def test_on_prolific_participants_still_working_at_the_cancel_are_paid_once_the_resumed_run_decides(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The cancel's review marked submissions still ACTIVE "unpaid" for good, and the resumed run's bulk
    approval of them, under the key the cancel's empty one had used, was never sent: they finished and
    stayed AWAITING REVIEW while the ledger said APPROVED (found while fixing the MTurk case)."""
    config, ledger, out = cancelled_at_batch_2(tmp_path, monkeypatch, stop_in_batch_2_wait(0.05), "prolific")
    store = Store(ledger)
    at_cancel = store.rows("SELECT status, count(*) AS n FROM platform_submissions WHERE batch = 2 GROUP BY status")
    statuses = {r["status"]: r["n"] for r in at_cancel}
    assert statuses.get("ACTIVE", 0) >= 3 and sum(statuses.values()) == 5  # most still working at the cancel
    assert resume(config, ledger, out, "--platform", "prolific") == 0, capsys.readouterr().err
    final = store.rows("SELECT p.status, d.action, d.applied FROM platform_submissions p JOIN decisions d ON "
                       "d.assignment_id = p.submission_id WHERE p.batch = 2")
    assert len(final) == 5 and all(r["status"] == r["applied"] == {"approve": "APPROVED", "reject": "REJECTED"}[
        r["action"]] for r in final), final  # Prolific's word is the decision's


def test_a_run_killed_while_posting_again_posts_nothing_twice_when_run_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The worst moment: the platform made the new HIT and the run died before the ledger recorded it."""
    from flows.platforms.mturk import cancel_repost

    config, ledger, out = cancelled_at_batch_2(tmp_path, monkeypatch)
    made = []

    def die_once_made(*args: Any) -> None:
        made.append(args)
        raise KeyboardInterrupt

    with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):  # as `hitflow run` below runs it
        patch.setattr(cancel_repost, "record_hit", die_once_made)
        run_campaign(config, db_path=ledger, out_root=out, progress=lambda _: None, resume_cancelled=True)
    assert len(made) == 1 and hits_per_batch(ledger)[2] == 1  # posted on the platform, not in the ledger
    assert resume(config, ledger, out) == 0, capsys.readouterr().err  # the same command again
    with open_campaign_run(ledger, NAME, progress=lambda _: None) as run:
        on_platform = [h for h in mturk.list_hits(run.client) if h["RequesterAnnotation"].startswith(f"{NAME}:b2:")]
    assert len(on_platform) == 1 and hits_per_batch(ledger)[2] == 2  # the re-post, once (the closed HIT is deleted)
    dataset = pd.read_csv(out / NAME / "dataset.raw.csv")
    assert dataset.groupby("image_id").size().tolist() == [5] * 3


def test_a_deployment_run_of_a_cancelled_campaign_names_what_resumes_it_there(tmp_path: Path) -> None:
    """A deployment's run takes no --resume-cancelled: its refusal named that flag (found by hand). Now it
    names the run parameter, in a command Prefect's own CLI parses into a parameter the flows accept."""
    from prefect.cli._utilities import load_json_key_values

    from flows.core.errors import ConfigError
    from flows.driver.campaign_flow import next_batch, whole_campaign
    from flows.driver.deployed_runs import ended_line, refuse_cancelled_deployed_run

    ledger = str(tmp_path / "h.db")
    Store(ledger).table("campaigns").upsert({"name": NAME, "status": "cancelled", "config_json": "{}"}, pk="name")
    with pytest.raises(ConfigError) as refused:
        refuse_cancelled_deployed_run(ledger, NAME, f"hitflow-campaign/{NAME}", "c.toml")
    said = str(refused.value)
    assert f"`prefect deployment run hitflow-campaign/{NAME} --param resume_cancelled=true`" in said, said
    assert f"`hitflow run c.toml --db {ledger} --endpoint-url URL --resume-cancelled`" in said
    assert "pass --resume-cancelled" not in said and f"campaign_name={NAME}-attempt-2" in said
    scheduled = ended_line(NAME, "cancelled")
    assert f"prefect deployment run hitflow-next-batch/{NAME} --param resume_cancelled=true" \
        in scheduled and "prefect deployment resume" not in scheduled  # no such command in Prefect 3.8
    for flow, text in ((whole_campaign, said), (next_batch, scheduled)):
        words = shlex.split(re.search(r"`(prefect deployment run [^`]*)`", text)[1])  # type: ignore[index]
        assert words[3] == f"{flow.name}/{words[3].split('/')[1]}"
        params = load_json_key_values([words[words.index("--param") + 1]], "parameter")
        assert params == {"resume_cancelled": True}  # JSON true, not the string "true"
        flow.validate_parameters({"config_path": "c.toml", **params})  # a parameter the flow takes


@pytest.mark.slow
@pytest.mark.prefect
def test_a_real_deployment_run_of_a_cancelled_campaign_is_refused_with_its_parameter(
        tmp_path: Path, on_prefect_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same refusal from inside a real deployment's flow run (Prefect's server, a deployment, a flow run
    made from it and run here), where ``prefect.runtime.deployment`` names the deployment; nothing posted."""
    from prefect.client.orchestration import get_client
    from prefect.flow_engine import run_flow

    from flows.driver.campaign_flow import whole_campaign

    monkeypatch.chdir(tmp_path)
    config, ledger = small_vizwiz(tmp_path, items=5), str(tmp_path / "h.db")
    Store(ledger).table("campaigns").upsert({"name": NAME, "status": "cancelled", "config_json": "{}"}, pk="name")
    deployment = f"{NAME}-{tmp_path.name}"  # this test's own, on the worker's shared server
    with get_client(sync_client=True) as client:
        made = client.create_deployment(flow_id=client.create_flow_from_name(whole_campaign.name), name=deployment,
                                        parameters={"config_path": str(config), "db_path": ledger,
                                                    "out_root": str(tmp_path / "out")})
        flow_run = client.create_flow_run_from_deployment(made)
    state = run_flow(whole_campaign, flow_run=flow_run, parameters=flow_run.parameters, return_type="state")
    assert state.is_failed()  # type: ignore[union-attr]
    with pytest.raises(Exception, match=re.escape(
            f"`prefect deployment run hitflow-campaign/{deployment} --param resume_cancelled=true`")):
        state.result()  # type: ignore[union-attr]
    assert Store(ledger).rows("SELECT count(*) AS n FROM ledger")[0]["n"] == 0

"""``hitflow cancel`` on every task kind (captions, an evaluation study, a custom page) and route
(MTurk-sim, Prolific-sim, invite links), stopped mid-batch.

Found by hand: Ctrl-C in batch 1 of a custom-page campaign, then ``hitflow cancel``, ended "cannot use
.../hit_templates/samples/custom.json: No such file or directory; choose another path", exit 2, the
campaign still live: the cancel's review ran the caption QC, whose page-text lookup asks for a sample
page custom tasks do not have, and the next ``hitflow run`` posted batches 2 and 3. Now the cancel
checks each kind's work with that kind's own QC (as the run does), marks the campaign cancelled before
anything else, and a run after it posts nothing. Each case: a small config, the in-process simulator,
the run stopped partway through batch 1's wait, some of its work in."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from bench.answers_accuracy import project
from flows.campaigns.route_policy import route_policy
from flows.core.config.config import load_config
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.prolific.statuses import PENDING
from tests.small_configs import ROOT, small_vizwiz
from tests.test_cancel_resume import hitflow


def stop_in_batch_1(share: float, after_waits: int = 0) -> Any:
    """A Ctrl-C ``share`` of the way through batch 1's wait after its first ``after_waits`` waits: its units
    posted, part of its work done (stored by the collect step, or on the platform for the cancel to fetch)."""
    def stop(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
        if name.startswith("collect") and batch == 1:
            wait, waited = run.wait, []

            def part_then_stop(seconds: float) -> None:
                if len(waited) < after_waits:
                    waited.append(seconds)
                    return wait(seconds)  # type: ignore[no-any-return]
                wait(seconds * share)
                raise KeyboardInterrupt

            run.wait = part_then_stop
        return fn(run, batch)  # type: ignore[no-any-return]
    return stop


def caption_config(tmp_path: Path) -> Path:
    return small_vizwiz(tmp_path, items=5)  # 5 batches of one HIT


def custom_config(tmp_path: Path) -> Path:
    """20 sentiment reviews with 20% control items, 5 a page, in 3 batches (30 made each batch a page longer)."""
    config = project(tmp_path, 20, 0, 0.2)
    text = config.read_text(encoding="utf-8").replace("images_per_hit = 10", "images_per_hit = 5")
    config.write_text(text.replace('budget = "100000.00 USD"', 'budget = "100000.00 USD"\nfx_rates = {GBP = "1.27"}'),
                      encoding="utf-8")
    return config


def study_config(tmp_path: Path) -> Path:
    """The expert-rating study (100 pairs, 50 a unit) in 2 batches of one unit; its files as in config/."""
    shutil.copytree(ROOT / "config" / "items", tmp_path / "items")  # the judges' truth names every study's items
    (tmp_path / "crowds").mkdir()
    shutil.copy(ROOT / "config" / "crowds" / "judges.toml", tmp_path / "crowds")
    text = (ROOT / "config" / "expert_rating.toml").read_text(encoding="utf-8")
    assert "batches = 1\n" in text
    (tmp_path / "expert_rating.toml").write_text(text.replace("batches = 1\n", "batches = 2\n"), encoding="utf-8")
    return tmp_path / "expert_rating.toml"


KINDS = {"caption": (caption_config, "captions"), "custom": (custom_config, "responses"),
         "study": (study_config, "responses")}  # the config, and what its QC counts
# kind, route, and where in batch 1's waits the run is stopped (this seed and clock: some of the batch's
# work done, not all; on MTurk a study's unit of 50 pairs takes longer than the first wait)
CASES = [("caption", "mturk", (0.5, 0)), ("caption", "prolific", (0.5, 0)), ("caption", "links", (0.5, 0)),
         ("custom", "mturk", (0.3, 0)), ("custom", "prolific", (0.3, 0)), ("custom", "links", (0.3, 0)),
         ("study", "mturk", (0.5, 1)), ("study", "prolific", (0.3, 0)), ("study", "links", (0.3, 0))]

def posted(store: Store, campaign: str) -> tuple[int, int, int]:
    """What a run posts leaves a trace here first: ledger intents, HITs, studies."""
    return tuple(store.table(t).count_where("campaign = ?", [campaign])  # type: ignore[return-value]
                 for t in ("ledger", "hits", "studies"))


def assert_decided_by_the_rules(store: Store, campaign: str, reject_rules: set[str], said: str) -> None:
    """Every stored response has one applied decision; a rejection names reject rules that fired on it,
    an approval has none fired on it; unpaid only for work the platform never saw finished; a Prolific
    participant still working is left for a later cancel, which the cancel says."""
    work = store.rows("SELECT assignment_id, status FROM assignments WHERE campaign = ? AND batch > 0", [campaign])
    decisions = {d["assignment_id"]: d for d in store.rows("SELECT * FROM decisions WHERE campaign = ?", [campaign])}
    flags: dict[str, set[str]] = {}
    for f in store.rows("SELECT assignment_id, rule FROM qc_flags WHERE campaign = ?", [campaign]):
        flags.setdefault(f["assignment_id"], set()).add(f["rule"])
    assert work and set(decisions) == {w["assignment_id"] for w in work}
    for w in work:
        d, fired = decisions[w["assignment_id"]], flags.get(w["assignment_id"], set())
        if not d["applied"]:  # a participant still working at the cancel: decided once they finish
            assert w["status"] in PENDING and "were still working: run `hitflow cancel` again" in said, (d, w)
            continue
        if d["action"] == "reject":
            assert set(d["reasons"].split(",")) <= fired & reject_rules, (d, fired)
        elif d["action"] == "approve":
            assert not fired & reject_rules, (d, fired)
        else:
            assert d["action"] == "unpaid" and w["status"] not in ("APPROVED", "AWAITING REVIEW", "Submitted"), (d, w)


@pytest.mark.parametrize(("kind", "platform", "stop_at"), CASES)
def test_cancel_mid_batch_decides_what_came_in_and_a_run_after_it_posts_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kind: str,
        platform: str, stop_at: tuple[float, int]) -> None:
    monkeypatch.chdir(tmp_path)
    make, unit = KINDS[kind]
    config = make(tmp_path)
    cfg = load_config(config)
    ledger, out = str(tmp_path / "h.db"), str(tmp_path / "out")
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=out, progress=print, call=stop_in_batch_1(*stop_at),
                     platform=platform)
    store = Store(ledger)
    assert store.batch_status(cfg.name, 2) == "planned"  # stopped inside batch 1: batch 2 not posted
    capsys.readouterr()
    assert hitflow("cancel", cfg.name, "--db", ledger, "--out", out) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert store.rows("SELECT status FROM campaigns WHERE name = ?", [cfg.name])[0]["status"] == "cancelled"
    assert store.table("assignments").count_where("campaign = ? AND batch = 1", [cfg.name])  # some work was in
    assert re.search(rf"batch 1: QC over \d+ {unit},", said), said  # the kind's own QC
    # the route's rules: on Prolific a required question left blank rejects as its own ground (skipped_required)
    assert_decided_by_the_rules(store, cfg.name, set(route_policy(cfg, platform).reject_rules), said)
    before = posted(store, cfg.name)
    assert hitflow("run", str(config), "--no-prefect", "--db", ledger, "--out", out, "--platform", platform) == 2
    assert "was cancelled" in capsys.readouterr().err
    assert posted(store, cfg.name) == before
    assert store.batch_status(cfg.name, 2) == "planned"


def test_a_cancel_that_fails_halfway_still_leaves_nothing_to_post(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The campaign is marked cancelled before the cancel reviews anything: its review failing (here the
    custom page's QC) ends the command in one line and a non-zero exit, and the next run posts nothing."""
    from flows.core.errors import ConfigError
    from flows.custom import custom_review

    monkeypatch.chdir(tmp_path)
    config = custom_config(tmp_path)
    ledger, out = str(tmp_path / "h.db"), str(tmp_path / "out")
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=out, progress=lambda _: None, call=stop_in_batch_1(0.3))

    def fails(*_: Any) -> None:
        raise ConfigError("the check cannot run")

    monkeypatch.setattr(custom_review, "custom_qc_batch", fails)
    capsys.readouterr()
    assert hitflow("cancel", "sentiment", "--db", ledger, "--out", out) != 0
    assert "the check cannot run" in capsys.readouterr().err
    store = Store(ledger)
    assert store.rows("SELECT status FROM campaigns WHERE name = 'sentiment'")[0]["status"] == "cancelled"
    before = posted(store, "sentiment")
    assert hitflow("run", str(config), "--no-prefect", "--db", ledger, "--out", out) == 2
    assert posted(store, "sentiment") == before
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    assert hitflow("cancel", "sentiment", "--db", ledger, "--out", out) == 0  # again, as the docs say: it finishes
    assert store.rows("SELECT count(*) AS n FROM assignments a WHERE campaign = 'sentiment' AND NOT EXISTS "
                      "(SELECT 1 FROM decisions d WHERE d.assignment_id = a.assignment_id)")[0]["n"] == 0


def test_a_missing_file_of_hitflow_own_is_not_blamed_on_the_user(tmp_path: Path) -> None:
    from flows.cli.path_errors import own_file

    assert own_file(str(ROOT / "hit_templates" / "samples" / "custom.json"))  # the file the cancel asked for
    assert own_file(str(ROOT / "flows" / "nothing.py"))
    assert not own_file(str(tmp_path / "items.csv")) and not own_file(str(ROOT / "config" / "x.toml"))


def stop_at_step(step: str, at_batch: int) -> Any:
    """A Ctrl-C as the driver is about to run ``step`` of ``at_batch``."""
    def stop(name: str, fn: Any, run: Any, batch: int) -> dict[str, Any]:
        if name.startswith(step) and batch == at_batch:
            raise KeyboardInterrupt
        return fn(run, batch)  # type: ignore[no-any-return]
    return stop


@pytest.mark.parametrize(("step", "batch"), [("publish", 1), ("run QC", 2), ("approve or reject", 2),
                                             ("block", 2)])
def test_a_custom_page_cancelled_at_any_step_posts_nothing_more(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], step: str,
        batch: int) -> None:
    """Before anything is posted, with a batch collected and not checked, checked and not decided, decided
    and not blocked: the cancel decides what came in by the rules and a run after it posts nothing."""
    monkeypatch.chdir(tmp_path)
    config, ledger, out = custom_config(tmp_path), str(tmp_path / "h.db"), str(tmp_path / "out")
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=out, progress=lambda _: None, call=stop_at_step(step, batch))
    capsys.readouterr()
    assert hitflow("cancel", "sentiment", "--db", ledger, "--out", out) == 0, capsys.readouterr().err
    store = Store(ledger)
    assert store.rows("SELECT status FROM campaigns WHERE name = 'sentiment'")[0]["status"] == "cancelled"
    work = store.table("assignments").count_where("campaign = 'sentiment'")
    assert (work == 0) == (step == "publish")  # nothing posted before the first publish; work in after it
    if work:
        assert_decided_by_the_rules(store, "sentiment", set(load_config(config).policy.reject_rules),
                                    capsys.readouterr().out)
    before = posted(store, "sentiment")
    assert hitflow("run", str(config), "--no-prefect", "--db", ledger, "--out", out) == 2
    assert posted(store, "sentiment") == before and store.batch_status("sentiment", 3) == "planned"


def test_on_the_simulator_the_workers_on_a_closed_hit_finish_and_their_work_is_decided(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by bench/newcomer.py: Ctrl-C mid batch 1, then ``hitflow cancel`` said "2 HIT(s) still have
    workers on them: run cancel again after they finish", and every later cancel said the same: the
    simulator's clock moves only when hitflow moves it, so its workers never finished. On the simulator the
    cancel now lets them finish (an assignment's duration at most) and decides their work with the rest."""
    from flows.driver.operations import open_campaign_run
    from flows.platforms.mturk import adapter as mturk

    monkeypatch.chdir(tmp_path)
    config = custom_config(tmp_path)  # no quiz: its takers wait for hitflow's verdict, off every HIT, at the stop
    config.write_text(config.read_text(encoding="utf-8").replace("[answers]\n", "[answers]\nquiz = 0\n"),
                      encoding="utf-8")
    ledger, out = str(tmp_path / "h.db"), str(tmp_path / "out")
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=out, progress=lambda _: None, call=stop_in_batch_1(0.1))
    # (this seed and clock: workers are on 2 of batch 1's HITs when it stops)
    capsys.readouterr()
    assert hitflow("cancel", "sentiment", "--db", ledger, "--out", out) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    finished = re.search(r"the simulator's workers on (\d+) HIT\(s\) finished and were decided", said)
    assert finished and int(finished[1]) > 0 and "still have workers" not in said, said
    store = Store(ledger)
    with open_campaign_run(ledger, "sentiment", progress=lambda _: None) as run:
        hits = [mturk.get_hit(run.client, h["hit_id"]) for h in store.rows("SELECT hit_id FROM hits")]
        on_platform = {a["AssignmentId"] for h in hits for a in mturk.list_submissions(run.client, h["HITId"])}
    assert hits and all(int(h["NumberOfAssignmentsPending"]) == 0 for h in hits)
    # each HIT counted once: deleted once finished, or closed by the cancel (the last line's count)
    done, closed = (int(re.search(p, said)[1]) for p in (r"cancel: (\d+) finished HIT", r"cancelled: closed (\d+)"))
    assert closed and done + closed == len(hits), said
    assert on_platform <= {r["assignment_id"] for r in store.rows("SELECT assignment_id FROM assignments")}
    assert_decided_by_the_rules(store, "sentiment", set(load_config(config).policy.reject_rules), said)
    # status: the stopped batches read stopped, not waiting for their next step, and none open until a date
    assert hitflow("status", "sentiment", "--db", ledger) == 0
    shown = capsys.readouterr().out
    assert "batch 1: published (stopped by the cancel)" in shown and "batch 2: planned (stopped by the cancel)" \
        in shown and "(next: " not in shown and "open until" not in shown, shown

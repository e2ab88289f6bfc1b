"""One contract, two platforms: the MTurk adapter (boto3) and the Prolific adapter (httpx)
run the same checks against the simulator. Each driver below is a few lines of glue from
the contract's words (post work, read it back, pay, refuse, keep a worker out) to an adapter."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from flows.campaigns.campaign_plan import Run, plan_items
from flows.config import load_config
from flows.errors import PlatformError
from flows.platforms import mturk_adapter as mturk
from flows.platforms import prolific_adapter as prolific
from flows.platforms.mturk_forms import html_question
from flows.sim.server import SimServer
from flows.store import Store
from flows.taskserver.task_server import TaskSite, completion_code
from flows.taskserver.task_server_thread import TaskServer
from flows.templates import render, sample_context
from tests.conftest import advance

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"
MESSAGE = ("Your descriptions did not follow the instructions on the task page: each image needed one full "
           "sentence of at least eight words.")


class MTurkDriver:
    fee_share = Decimal("0.20")

    def __init__(self, sim: SimServer, tmp: Path):
        self.sim, self.client = sim, mturk.make_client(mturk.Target("sim", sim.url))
        self.block_qual = mturk.ensure_qualification_type(self.client, "contract-blocked", "kept out")

    def post(self, people: int, reward: Decimal) -> str:
        ctx = sample_context("caption")
        ctx["items"] = [i for i in ctx["items"] if i["image_id"].isdigit()]
        params = {"Title": "t", "Description": "d", "Reward": f"{reward:.2f}", "AssignmentDurationInSeconds": 3600,
                  "AutoApprovalDelayInSeconds": 86400, "QualificationRequirements": [
                      {"QualificationTypeId": self.block_qual, "Comparator": "DoesNotExist"}]}
        type_id = mturk.create_hit_type(self.client, params)
        hit_id, _ = mturk.create_hit(self.client, type_id, {"MaxAssignments": people, "LifetimeInSeconds": 86400,
                                                            "Question": html_question(render("caption.html.j2", ctx))},
                                     f"contract-{people}-{reward}-{len(self.sim.market.hits)}")
        advance(self.sim, 7 * 3600)
        return hit_id

    def done(self, ref: str) -> list[dict[str, str]]:
        return [{"id": a["AssignmentId"], "worker": a["WorkerId"], "status": a["AssignmentStatus"]}
                for a in mturk.list_submissions(self.client, ref)]

    def approve(self, ref: str, ids: list[str]) -> None:
        for i in ids:
            mturk.approve(self.client, i)

    def reject(self, ref: str, sub_id: str, message: str) -> None:
        mturk.reject(self.client, sub_id, message)

    def exclude(self, worker: str) -> None:
        mturk.exclude_worker(self.client, worker, "soft", self.block_qual, "contract")

    def balance(self) -> Decimal:
        return mturk.balance(self.client)

    def paid_status(self) -> str:
        return "Approved"


class ProlificDriver:
    fee_share = Decimal(1) / 3

    def __init__(self, sim: SimServer, tmp: Path, server: TaskServer, store: Store, code: str):
        self.sim, self.server, self.store, self.code = sim, server, store, code
        self.client = prolific.make_client(sim.url, simulator=True)
        self.workspace = prolific.default_workspace(self.client)
        self.group = prolific.ensure_group(self.client, self.workspace, "contract-blocked")

    def post(self, people: int, reward: Decimal) -> str:
        url = (f"{self.server.url}/task/vizwiz_captions?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
               f"&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}}")
        study = prolific.create_study(self.client, {
            "name": "t", "description": "d", "external_study_url": url, "prolific_id_option": "url_parameters",
            "completion_codes": [{"code": self.code, "code_type": "COMPLETED"}], "total_available_places": people,
            "estimated_completion_time": 6, "reward": int(reward * 100), "device_compatibility": ["desktop"],
            "filters": [{"filter_id": "participant_group_blocklist", "selected_values": [self.group]}]})
        self.store.table("studies").insert({"study_id": study, "campaign": "vizwiz_captions", "batch": 1,
                                            "status": "ACTIVE", "places": people, "created_at": 0.0}, pk="study_id")
        prolific.transition(self.client, study, "PUBLISH")
        for _ in range(10):
            advance(self.sim, 7 * 3600)
            if not any(s["status"] == "ACTIVE" for s in prolific.submissions(self.client, study)):
                break
        return study

    def done(self, ref: str) -> list[dict[str, str]]:
        return [{"id": s["id"], "worker": s["participant_id"], "status": s["status"]}
                for s in prolific.submissions(self.client, ref) if s["status"] == "AWAITING REVIEW"
                or s["status"] in ("APPROVED", "REJECTED")]

    def approve(self, ref: str, ids: list[str]) -> None:
        prolific.approve(self.client, ref, ids)

    def reject(self, ref: str, sub_id: str, message: str) -> None:
        prolific.reject(self.client, sub_id, "FAILED_INSTRUCTIONS", message)

    def exclude(self, worker: str) -> None:
        prolific.add_to_group(self.client, self.group, [worker])

    def balance(self) -> Decimal:
        # the total, not the available balance, which a published study's reserve already lowered
        view = prolific.call(self.client, "GET", f"workspaces/{self.workspace}/balance/")
        return Decimal(view["total_balance"]) / 100

    def paid_status(self) -> str:
        return "APPROVED"


@pytest.fixture(params=["mturk", "prolific"])
def driver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    with SimServer(seed=7) as sim:
        if request.param == "mturk":
            yield MTurkDriver(sim, tmp_path)
            return
        cfg = load_config(CONFIG)
        store = Store(tmp_path / "h.db")
        plan_items(Run(cfg, store, None, mturk.Target("sim", sim.url)), limit=100)
        store.set_batch(cfg.name, 1, status="published")
        site = TaskSite(store.path, {cfg.name: cfg}, secret=b"c" * 32)
        with TaskServer(site) as server:
            yield ProlificDriver(sim, tmp_path, server, store, completion_code(site.secret, cfg.name, 1))


def test_every_submission_comes_back_across_pages(driver: Any) -> None:
    ref = driver.post(25, Decimal("1.00"))  # more than one page on both (MTurk pages by 100 here: the sim by 20)
    subs = driver.done(ref)
    assert len(subs) == 25 and len({s["id"] for s in subs}) == 25 and len({s["worker"] for s in subs}) == 25


def test_approving_pays_reward_plus_fee_once(driver: Any) -> None:
    ref = driver.post(3, Decimal("1.20"))
    ids = [s["id"] for s in driver.done(ref)]
    before = driver.balance()
    driver.approve(ref, ids)
    spent = before - driver.balance()
    assert spent == (Decimal("1.20") * (1 + driver.fee_share)).quantize(Decimal("0.01")) * 3
    assert {s["status"] for s in driver.done(ref)} == {driver.paid_status()}
    with contextlib.suppress(PlatformError):  # MTurk's adapter calls it done, Prolific refuses: neither pays
        driver.approve(ref, ids[:1])
    assert before - driver.balance() == spent


def test_rejecting_pays_nothing_and_is_final(driver: Any) -> None:
    ref = driver.post(2, Decimal("1.00"))
    first = driver.done(ref)[0]["id"]
    before = driver.balance()
    driver.reject(ref, first, MESSAGE)
    assert driver.balance() == before
    with pytest.raises(PlatformError):
        driver.approve(ref, [first])


def test_an_excluded_worker_gets_no_more_work(driver: Any) -> None:
    first = driver.post(10, Decimal("1.00"))
    out = driver.done(first)[0]["worker"]
    driver.exclude(out)
    later = driver.post(20, Decimal("1.00"))
    assert out not in {s["worker"] for s in driver.done(later)}
